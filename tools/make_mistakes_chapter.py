"""Write chapters/08_common_mistakes.ipynb from the catalogue ``minims.testing.mistakes``.

Usage: python tools/make_mistakes_chapter.py [OUTPUT.ipynb]    (default: chapters/08_common_mistakes.ipynb)

The notebook is written without outputs; run `make notebooks NOTEBOOKS=chapters/08_common_mistakes.ipynb`
afterwards to execute it and store the outputs nbval compares.  One markdown cell and one code cell
per mistake, grouped by entry point; the code cell runs the wrong code inside ``with show_error():``,
which prints ``ExceptionType: message`` instead of a traceback.  Cell ids are derived from the
mistake ids, so regenerating an unchanged catalogue gives the same file.
"""
from __future__ import annotations

import hashlib
import sys
import textwrap
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from minims.testing.mistakes import MISTAKES, SECTIONS  # noqa: E402
from binder_links import with_badge  # noqa: E402  (tools/, next to this script)
from mistakes_exercises import exercise_cells  # noqa: E402

DEFAULT = ROOT / "chapters" / "08_common_mistakes.ipynb"

INTRO = """\
# Common mistakes and the errors they raise

This page collects the mistakes people make most often with MindSpore's entry points — building a
Tensor, calling an op or a `Primitive`, calling a Cell, writing a custom `bprop` or a hook, taking
gradients, making Parameters, initializers and optimizers, compiling with `jit` — and shows the error
each one raises. Every message follows one pattern: **where** (the op, or the Cell by its path such as
`Net.fc`), **what was expected**, **what came**, and a **`Fix:`**.

minims raises the exception type MindSpore raises for the same code (checked by running every snippet
on MindSpore 2.10 with `tools/check_mistakes_on_mindspore.py`). Where minims has its own exception
class, the printed name lists the built-in types it also is: `BpropError(TypeError, RuntimeError)`
is caught by `except TypeError` and by `except RuntimeError`. Under each title a line says what
MindSpore 2.10 does with the same code, and why minims differs where it does.

The page is generated from the catalogue `minims.testing.mistakes` by
`tools/make_mistakes_chapter.py`, and `tests/testing/test_error_catalogue.py` checks every entry, so the page
and the tests cannot drift apart. The snippets spell the package `ms`, as MindSpore 2.x's
documentation does (`import mindspore as ms`)."""

IMPORTS = """\
import contextlib
import io

import numpy as np

import minims as ms
import minims.nn as nn
import minims.ops as ops
from minims import Tensor, Parameter
from minims.testing.mistakes import show_error

np.set_printoptions(precision=4, suppress=True)
ms.set_seed(0)"""

HOW = """\
`with show_error():` runs the block and prints the error it raises as `ExceptionType: message`
(a traceback would show the same message, plus the lines of minims it passed through). It also
puts the execution mode back afterwards, since one snippet switches to Graph mode."""

CHECK_MD = """\
## Checking the whole catalogue

The cell below runs every snippet again through `minims.testing.mistakes.run` and checks what the
tests check: the exception is an instance of MindSpore's type, its message holds the entry's key
words, no gradient level or lent Parameter is left behind on the interpreter stack, and the next
correct call still gives the right answer — here $\\frac{d}{dx}\\sum_i x_i^2 = 2x$ at $x = (1, 2)$."""

CHECK = """\
from minims.testing import leftover_state
from minims.testing.mistakes import MISTAKES, run

for m in MISTAKES:
    with contextlib.redirect_stdout(io.StringIO()):     # a snippet may print
        e = run(m)
    assert isinstance(e, m.error) and all(w in str(e) for w in m.words), (m.id, e)
    assert not leftover_state(), (m.id, leftover_state())
    g = ops.grad(lambda x: (x * x).sum())(Tensor([1.0, 2.0]))
    np.testing.assert_allclose(g.asnumpy(), [2.0, 4.0])     # d/dx sum(x^2) = 2x

print(f"CHAPTER OK: {len(MISTAKES)} mistakes, each raised MindSpore's exception type with its key words")"""


def _id(key: str) -> str:
    return hashlib.sha1(f"08_common_mistakes:{key}".encode()).hexdigest()[:8]


def mindspore_line(m) -> str:
    """What MindSpore 2.10 does with the same code, for the line under the title."""
    if m.mindspore == "n/a":
        return m.note
    if m.mindspore is None:
        return f"MindSpore 2.10 runs this without an error. {m.note}"
    if m.mindspore == m.error.__name__:
        return f"MindSpore 2.10 raises `{m.mindspore}` too."
    return f"MindSpore 2.10 raises `{m.mindspore}`. {m.note}"


def snippet_cell(m) -> str:
    return "with show_error():\n" + textwrap.indent(m.code, "    ", lambda line: line.strip() != "")


def build():
    nb = nbformat.v4.new_notebook()
    nb.metadata = {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"codemirror_mode": {"name": "ipython", "version": 3}, "file_extension": ".py",
                          "mimetype": "text/x-python", "name": "python", "nbconvert_exporter": "python",
                          "pygments_lexer": "ipython3"},
    }
    cells = [nbformat.v4.new_markdown_cell(with_badge(INTRO, DEFAULT.name), id=_id("intro")),
             nbformat.v4.new_code_cell(IMPORTS, id=_id("imports")),
             nbformat.v4.new_markdown_cell(HOW, id=_id("how"))]
    for key, heading in SECTIONS:
        entries = [m for m in MISTAKES if m.section == key]
        if not entries:
            raise SystemExit(f"section {key!r} has no mistakes")
        cells.append(nbformat.v4.new_markdown_cell(f"## {heading}", id=_id(f"section:{key}")))
        for m in entries:
            cells.append(nbformat.v4.new_markdown_cell(
                f"### {m.title}\n\n`{m.id}` — {mindspore_line(m)}", id=_id(f"title:{m.id}")))
            cells.append(nbformat.v4.new_code_cell(snippet_cell(m), id=_id(f"code:{m.id}")))
    unknown = {m.section for m in MISTAKES} - {key for key, _ in SECTIONS}
    if unknown:
        raise SystemExit(f"mistakes in unknown sections: {sorted(unknown)}")
    cells += exercise_cells(_id)
    cells.append(nbformat.v4.new_markdown_cell(CHECK_MD, id=_id("check-md")))
    cells.append(nbformat.v4.new_code_cell(CHECK, id=_id("check")))
    nb.cells = cells
    return nb


def main(argv):
    out = Path(argv[1]) if len(argv) > 1 else DEFAULT
    nb = build()
    nbformat.validate(nb)
    nbformat.write(nb, str(out))
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}: "
          f"{len(MISTAKES)} mistakes in {len(SECTIONS)} sections; now run "
          f"`make notebooks NOTEBOOKS={out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}`")


if __name__ == "__main__":
    main(sys.argv)
