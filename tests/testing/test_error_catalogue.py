"""The catalogue of common mistakes (``minims.testing.mistakes``): each raises MindSpore's exception
type with a message holding its key words, leaves nothing behind, and appears in chapter 08.

The expected types are MindSpore's: ``tools/check_mistakes_on_mindspore.py`` runs every snippet on a
real MindSpore and compares with the catalogue's ``mindspore`` field; where minims differs, the
entry says why (``note``), and that is checked here.
"""
import contextlib
import io
import json
from pathlib import Path

import numpy as np
import pytest

import minims as ms
from minims import Tensor, ops
from minims.testing import leftover_state
from minims.testing.mistakes import MISTAKES, SECTIONS, builtin_types, describe, run

ROOT = Path(__file__).resolve().parents[2]
CHAPTER = ROOT / "chapters" / "08_common_mistakes.ipynb"


def _run_quietly(m):
    with contextlib.redirect_stdout(io.StringIO()):     # a snippet may print
        return run(m)


@pytest.mark.parametrize("m", MISTAKES, ids=[m.id for m in MISTAKES])
def test_mistake_raises_mindspores_type_with_a_message_that_names_the_fix(m):
    exc = _run_quietly(m)
    assert exc is not None, f"{m.id}: no error was raised"
    assert isinstance(exc, m.error), f"{m.id}: {describe(exc)}"
    message = str(exc)
    for word in m.words:
        assert word in message, (m.id, word, message)
    assert str(ROOT) not in message and "site-packages" not in message, message   # no machine paths


@pytest.mark.parametrize("m", MISTAKES, ids=[m.id for m in MISTAKES])
def test_after_the_mistake_the_stack_is_empty_and_the_next_gradient_is_right(m):
    _run_quietly(m)
    assert not leftover_state(), leftover_state()
    assert ms.get_context("mode") == ms.PYNATIVE_MODE
    x = Tensor([1.0, 2.0, -3.0])
    g = ops.grad(lambda x: (x * x * x).sum())(x)            # d/dx sum(x^3) = 3 x^2
    np.testing.assert_allclose(g.asnumpy(), 3 * np.array([1.0, 2.0, -3.0]) ** 2, rtol=1e-6)


def test_the_catalogue_covers_every_entry_point_and_ids_are_unique():
    ids = [m.id for m in MISTAKES]
    assert len(ids) == len(set(ids))
    keys = [key for key, _ in SECTIONS]
    counts = {key: sum(m.section == key for m in MISTAKES) for key in keys}
    assert all(n >= 3 for n in counts.values()), counts
    assert {m.section for m in MISTAKES} <= set(keys)
    assert 40 <= len(MISTAKES) <= 160         # chapter 08 lists each one: keep it a catalogue, not a manual


def test_every_departure_from_mindspore_is_explained():
    for m in MISTAKES:
        assert m.error.__module__ == "builtins", m.id           # MindSpore's types are built-in ones
        if m.mindspore != m.error.__name__:                      # another type, no error, or n/a
            assert m.note, f"{m.id}: MindSpore 2.10 gives {m.mindspore}, minims {m.error.__name__}: say why"


def test_describe_names_the_builtin_types_a_minims_error_can_be_caught_by():
    from minims.autodiff.custom_bprop import BpropError
    err = BpropError("x")
    assert builtin_types(err) == [TypeError, RuntimeError]
    assert describe(err) == "BpropError(TypeError, RuntimeError): x"
    assert describe(ValueError("y")) == "ValueError: y"
    assert builtin_types(IndexError("z")) == [IndexError]      # LookupError is implied, not listed


def test_run_returns_none_for_correct_code_and_restores_the_mode():
    assert run("ms.set_context(mode=ms.GRAPH_MODE)\ny = Tensor([1.0]) * 2") is None
    assert ms.get_context("mode") == ms.PYNATIVE_MODE


def test_every_entry_appears_in_the_chapter_with_its_error():
    nb = json.loads(CHAPTER.read_text())
    cells = nb["cells"]
    code = ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]
    outputs = ["".join("".join(o.get("text", "")) for o in c.get("outputs", []))
               for c in cells if c["cell_type"] == "code"]
    markdown = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    for m in MISTAKES:
        body = "\n".join("    " + line if line.strip() else line for line in m.code.splitlines())
        where = [i for i, src in enumerate(code) if src == "with show_error():\n" + body]
        assert len(where) == 1, f"{m.id}: its snippet is not (exactly once) a cell of the chapter"
        shown = outputs[where[0]].replace("\n", " ")
        assert type(_run_quietly(m)).__name__ in shown, (m.id, shown)
        assert f"### {m.title}" in markdown and f"`{m.id}`" in markdown, m.id
    for _, heading in SECTIONS:
        assert f"## {heading}" in markdown
    assert outputs[-1].startswith("CHAPTER OK")


def test_a_type_error_raised_inside_construct_or_a_hook_is_not_mistaken_for_a_wrong_call():
    # the signature checks only rewrite a TypeError when the call itself does not fit
    class Net(ms.nn.Cell):
        def construct(self, x):
            return ops.add(x, "a")

    with pytest.raises(TypeError, match="Add: input 'y' must be a Tensor or a number"):
        Net()(Tensor([1.0]))

    def hook(cell_id, inputs):
        return ops.add(inputs[0], "a")

    net = ms.nn.ReLU()
    net.register_forward_pre_hook(hook)
    with pytest.raises(TypeError, match="Add: input 'y'"):
        net(Tensor([1.0]))

    class Jitted(ms.nn.Cell):
        @ms.jit
        def construct(self, x):
            return ops.add(x, "a")

    with pytest.raises(TypeError, match="Add: input 'y'"):
        Jitted()(Tensor([1.0]))
    assert not leftover_state(), leftover_state()
