"""Issue 27, item 2 ("pictures"): at least two pictures in every chapter but the mistakes catalogue,
the ones the issue names among them, and every picture stable under nbval.

nbval compares a figure's ``text/plain`` (``<Figure size 700x400 with 1 Axes>``), never its PNG; so a
picture cell must show a Figure (``plt.show()`` or ``display(fig)``) or a ``Graph`` (whose repr is its
name and size), not an artist list whose repr
holds a memory address (``[<matplotlib.lines.Line2D at 0x7f...>]``), which differs on every run.
"""
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))
CATALOGUE = "08_common_mistakes.ipynb"

#: (chapter, text that the picture cell's code holds): the pictures issue 27 asks for by name
NAMED = [("01_how_autodiff_works.ipynb", "draw_tape(dg"),                # the nested tape of section 4
         ("06_hooks.ipynb", "def hook_picture("),                         # what each hook argument holds
         ("10_how_accurate_is_a_gradient.ipynb", "floats = [np.float32(1.0)]"),   # a ULP on a number line
         ("04_custom_bprop.ipynb", 'ops.grad(ops.grad(faithful))'),      # ReLU6's derivatives
         ("05_debugging_in_pynative.ipynb", "first_of = ")]              # a digit


def picture_cells(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [c for c in cells if c["cell_type"] == "code"
            and any("image/png" in o.get("data", {}) for o in c.get("outputs", []))]


def test_every_chapter_but_the_catalogue_has_two_pictures():
    """Item 2: chapters 02, 03, 05, 06 and 10 had one picture each."""
    for path in CHAPTERS:
        if path.name != CATALOGUE:
            assert len(picture_cells(path)) >= 2, path.name


def test_the_pictures_the_issue_names_are_there():
    """Item 2: the nested tape (01 §4), the hook arguments side by side (06 §6.4), a ULP on a number
    line (10 §1), ReLU6's derivatives (04) and a digit (05)."""
    for name, text in NAMED:
        assert any(text in "".join(c["source"]) for c in picture_cells(ROOT / "chapters" / name)), name


def test_a_picture_shows_a_figure_and_no_memory_address():
    """Item 2: what nbval compares of a picture is stable: a Figure's size line, no address."""
    for path in CHAPTERS:
        for cell in picture_cells(path):
            for out in cell["outputs"]:
                text = "".join(out.get("data", {}).get("text/plain", "")) + "".join(out.get("text", ""))
                assert not re.search(r"0x[0-9a-f]{6,}", text), (path.name, text)
                if "image/png" in out.get("data", {}):
                    # a Figure, or a Graph showing itself as a picture (its repr: name and size)
                    assert re.fullmatch(r"<Figure size [\d.]+x[\d.]+ with \d+ Axes>|<Graph [^>]+>", text), \
                        (path.name, text)
