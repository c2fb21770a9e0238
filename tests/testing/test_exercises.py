"""The chapters' exercises: every solution is accepted, every typical slip is caught and named.

* each solution of ``chapters/solutions/`` passes its check;
* each wrong answer of ``exercise_wrong_answers.WRONG`` is refused with the expected diagnosis;
* an untouched stub (``NotImplementedError``) is "not solved yet", never "wrong";
* every exercise is in its chapter, with a check cell, and has a solution and a wrong answer tested.
"""
import importlib
import json
import re
from pathlib import Path

import pytest

from minims.testing.exercises import evaluate, exercises

from exercise_wrong_answers import WRONG

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))
SOLUTION_MODULES = [importlib.import_module(f"chapters.solutions.{path.stem}")
                    for path in sorted((ROOT / "chapters" / "solutions").glob("ch*.py"))]


def chapter_cell_code(chapter: str, start: str) -> str:
    """The source of the code cell of ``chapter`` that starts with ``start``."""
    cells = json.loads((ROOT / "chapters" / chapter).read_text())["cells"]
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and source.startswith(start):
            return source
    raise LookupError(f"{chapter}: no code cell starts with {start!r}")


def chapter01_var():
    """The 40-line engine's Var class, as chapter 01 defines it."""
    namespace = {}
    exec(chapter_cell_code("01_how_autodiff_works.ipynb", "class Var"), namespace)
    return namespace["Var"]


def with_var_exp(var_exp):
    """Exercise 1.3's answer: a fresh copy of the chapter's Var, with ``exp`` added."""
    Var = chapter01_var()
    Var.exp = var_exp
    return Var


SOLUTIONS = {key: answer for module in SOLUTION_MODULES for key, answer in module.SOLUTIONS.items()}
SOLUTIONS["1.3"] = with_var_exp(importlib.import_module("chapters.solutions.ch01").var_exp)  # chapter 01's Var


@pytest.mark.parametrize("exercise_id", sorted(exercises()))
def test_the_solution_is_accepted(exercise_id):
    feedback = evaluate(exercise_id, SOLUTIONS[exercise_id])
    assert feedback.status == "solved", feedback.text
    assert feedback.text.startswith(f"Exercise {exercise_id} (") and ": solved." in feedback.text


@pytest.mark.parametrize("exercise_id, slip, answer, kind", WRONG, ids=[f"{w[0]}-{w[1]}" for w in WRONG])
def test_a_typical_slip_is_caught_and_named(exercise_id, slip, answer, kind):
    if exercise_id == "1.3":
        answer = with_var_exp(answer)
    feedback = evaluate(exercise_id, answer)
    assert feedback.status == "wrong", feedback.text
    assert feedback.kind == kind, feedback.text
    assert "not right yet" in feedback.text and "Diagnosis:" in feedback.text


def test_a_wrong_gradient_names_the_input_the_order_the_point_and_both_values():
    from exercise_wrong_answers import SoftplusNumpy
    text = evaluate("1.1", SoftplusNumpy).text
    assert "the gradient for x (order 2" in text
    assert "at x = [-2. ,  0.3,  1.5]" in text and "with dout = " in text
    assert re.search(r"expected \[.*\]   \(SymPy\)\n    got      \[0\., 0\., 0\.\]", text), text


@pytest.mark.parametrize("exercise_id", sorted(exercises()))
def test_an_untouched_stub_is_not_solved_yet(exercise_id):
    def stub(*args, **kwargs):
        raise NotImplementedError("your code here")

    class Stub:                     # a class answer whose every use raises, like the chapters' stubs
        def __init__(self, *args, **kwargs):
            raise NotImplementedError("your code here")

    kind = exercises()[exercise_id].wants.split()[0]          # a stub of the kind the chapter's cell has
    for answer in ({"class": Stub, "function": stub}[kind], None):
        feedback = evaluate(exercise_id, answer)
        assert feedback.status == "unsolved", feedback.text
        assert "not solved yet.\n  Hint:" in feedback.text


def test_every_exercise_is_checked_in_its_chapter_and_has_a_tested_slip():
    checked = {}
    for path in CHAPTERS:
        for cell in json.loads(path.read_text())["cells"]:
            for found in re.findall(r'check\("(\d+\.\d+)"', "".join(cell["source"])):
                checked[found] = path.name
    ids = set(exercises())
    assert set(checked) == ids
    for exercise_id, chapter in checked.items():
        # chapter NN's exercises are N.M, in NN_x.ipynb or in its continuation NNb_x.ipynb (09b)
        assert re.match(rf"{int(exercise_id.split('.')[0]):02d}[a-z]?_", chapter), (exercise_id, chapter)
    assert {w[0] for w in WRONG} == ids
    assert set(SOLUTIONS) == ids
