"""The exercise cells at the end of chapter 08, for ``tools/make_mistakes_chapter.py``.

Kept apart from the generator (which writes the catalogue's cells) so that the two change
independently.  Each exercise is a markdown cell, a code cell to fix, and a check cell calling
``minims.testing.exercises.check`` (exercises 8.1 and 8.2, declared in
``minims/testing/exercises/chapter08.py``; solutions in ``chapters/solutions/ch08.py``).
"""
import nbformat

INTRO = """\
## Exercises: fix the code

Two entries of the catalogue, to fix. Each has the wrong code, ready to edit, and a check cell under
it. Run the check: while the cell still raises `NotImplementedError` it says *not solved yet* and gives
a hint (what to look at), and `hint("8.1", answer=True)` shows a worked answer when you are stuck; a fix
that still fails says which error or which number is wrong — compared with SymPy — and why; a right fix
is *solved*. Solutions: `solutions/ch08.py` (`%load solutions/ch08.py` in a cell shows them)."""

EXERCISES = [
    ("""\
### Exercise 8.1 — a bprop that needs its Parameter

`bprop-reads-parameter` above: the bprop of `ScaleW` reads `self.w`, which a bprop may not do unless the
Cell declares it. Fix `ScaleW` so that its bprop returns the gradient for `x` *and* for `w` (chapter 03,
"A custom bprop with gradients for Parameters"). Remove the `raise` line when you have fixed it.""",
     '''\
class ScaleW(nn.Cell):
    def __init__(self, w):
        super().__init__()
        self.w = Parameter(w, name="w")
        raise NotImplementedError("fix this Cell, then remove this line")

    def construct(self, x):
        return x * self.w

    def bprop(self, x, out, dout):
        return (dout * self.w,)''',
     'check("8.1", ScaleW)'),
    ("""\
### Exercise 8.2 — one dtype per matrix product

`matmul-float64` above: NumPy makes float64 arrays, a network computes in float32, and `ops.matmul`
refuses to mix them. Fix `predict` so that a float32 `x` and a float64 `w` give a float32 prediction.""",
     '''\
def predict(x, w):
    raise NotImplementedError("fix the product below, then remove this line")
    return ops.matmul(x, w)''',
     'check("8.2", predict)'),
]


def exercise_cells(cell_id):
    """The cells, with ids made by the generator's ``cell_id(key)``."""
    cells = [nbformat.v4.new_markdown_cell(INTRO, id=cell_id("exercises")),
             nbformat.v4.new_code_cell("from minims.testing.exercises import check, hint",
                                       id=cell_id("exercises-import"))]
    for k, (text, code, check) in enumerate(EXERCISES, 1):
        cells += [nbformat.v4.new_markdown_cell(text, id=cell_id(f"exercise-{k}-text")),
                  nbformat.v4.new_code_cell(code, id=cell_id(f"exercise-{k}-code")),
                  nbformat.v4.new_code_cell(check, id=cell_id(f"exercise-{k}-check"))]
    return cells
