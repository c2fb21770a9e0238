"""The ops of MindSpore's beginner pages on minims (issue 25, item 2): values, dtypes, printing and
exception types against MindSpore 2.10, gradients against MindSpore and central differences, and the
same results under ``jit`` and ``vmap``.

The expected values are MindSpore's: ``tests/data/oracle_beginner_facts.py`` ran the expressions of
``tests/beginner_cases.py`` on the real MindSpore 2.10 (CPU) and stored the results in
``tests/data/oracle_beginner_facts.json``.  Random draws cannot match MindSpore's streams: their
dtype and shape are compared, and their repetition under ``set_seed`` is checked here.
"""
import json
from pathlib import Path

import numpy as np
import pytest

import minims as ms
from minims import Tensor, nn, ops
from minims.testing import check_grads

import beginner_cases as cases  # tests/ is on the path (tests/conftest.py)

FACTS = json.loads((Path(__file__).resolve().parents[1] / "data" / "oracle_beginner_facts.json").read_text())
OPS = [n for n in cases.CASES if not n.startswith(("t_", "print_")) and not n.removeprefix("err_")[0].isupper()]
PRINTS = [n for n in cases.CASES if n.startswith("print_") and n not in ("print_layers", "print_losses",
                                                                           "print_conv_transpose_pad", "print_embedding")]
# gradients with a kink where the input sits (clamp at its bounds, leaky_relu at 0, |x - y| at 0):
# MindSpore's one-sided choice is checked against the oracle, central differences do not apply
KINKED = {"clamp", "clip_by_value", "leaky_relu", "mae"}
SMOOTH = [n for n in cases.GRADS if n not in KINKED]
FLOAT32_CELLS = {"LSTM_input", "Conv2dTranspose_input"}


@pytest.mark.parametrize("name", OPS)
def test_op_returns_what_mindspore_returns(name):
    """Issue 25 item 2: dtype, shape and values (or the exception type) as MindSpore 2.10 (oracle run)."""
    cases.assert_outcome(cases.evaluate(ms, ops, nn, "cases", name), FACTS["cases"][name], name)


@pytest.mark.parametrize("name", PRINTS)
def test_op_result_prints_as_mindspore_prints(name):
    """Issue 25 item 2: the printed result is MindSpore 2.10's, character for character (oracle run)."""
    cases.assert_outcome(cases.evaluate(ms, ops, nn, "cases", name), FACTS["cases"][name], name)


@pytest.mark.parametrize("name", list(cases.RANDOM))
def test_random_draw_has_mindspore_dtype_and_shape(name):
    """Issue 25 item 2: a draw has MindSpore 2.10's dtype and shape (oracle run; the numbers differ)."""
    cases.assert_outcome(cases.evaluate(ms, ops, nn, "random", name), FACTS["random"][name], name, values=False)


@pytest.mark.parametrize("draw", [lambda: ops.randn(2, 3), lambda: ops.rand(4), lambda: ops.randint(0, 9, (5,)),
                                  lambda: ops.standard_normal((3,)), lambda: ops.randn(3, seed=7)])
def test_random_draws_repeat_after_set_seed(draw):
    """Issue 25 item 2: ms.set_seed(n) restarts the streams (MindSpore's documented contract): the same
    seed gives the same numbers, the next call new ones, in PyNative and compiled alike."""
    ms.set_seed(5)
    first, second = draw().asnumpy(), draw().asnumpy()
    ms.set_seed(5)
    np.testing.assert_array_equal(draw().asnumpy(), first)
    assert not np.array_equal(first, second)
    compiled = ms.jit(draw)
    ms.set_seed(5)
    a, b = compiled().asnumpy(), compiled().asnumpy()
    ms.set_seed(5)
    np.testing.assert_array_equal(compiled().asnumpy(), a)
    assert not np.array_equal(a, b)


def test_random_values_have_the_drawn_distribution():
    """Issue 25 item 2: randn ~ N(0, 1), rand ~ U[0, 1), randint in [low, high): sample moments of
    10^4 draws within 5 standard errors of the distribution's (closed form)."""
    ms.set_seed(0)
    n = ops.randn(10000).asnumpy()
    u = ops.rand(10000).asnumpy()
    k = ops.randint(-2, 3, (10000,)).asnumpy()
    assert abs(n.mean()) < 5 / 100 and abs(n.std() - 1) < 5 * np.sqrt(0.5) / 100
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 5 * np.sqrt(1 / 12) / 100
    assert set(np.unique(k)) == {-2, -1, 0, 1, 2}


@pytest.mark.parametrize("name", list(cases.GRADS))
def test_gradient_is_mindspore_gradient(name):
    """Issue 25 item 2: ms.grad with respect to every input gives MindSpore 2.10's gradient (oracle run)."""
    cases.assert_outcome(cases.evaluate(ms, ops, nn, "grads", name), FACTS["grads"][name], name)


@pytest.mark.parametrize("name", SMOOTH)
def test_gradient_matches_central_differences(name):
    """Issue 25 item 2: the gradient (reverse and forward mode) agrees with central differences."""
    env = cases.namespace(ms, ops, nn)
    fn, args = eval(cases.GRADS[name][0], env), eval(cases.GRADS[name][1], env)
    if name in FLOAT32_CELLS:        # Float32 Parameters: differentiated in Float32, a coarser check
        check_grads(lambda a: fn(ops.cast(a, ms.float32)), args, order=1, modes=("rev",), eps=1e-3, rtol=2e-2,
                    atol=2e-3)
    else:
        check_grads(fn, args, order=1, modes=("rev", "fwd"), eps=1e-6, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("name", ["softplus", "logsumexp", "gelu", "gelu_tanh", "prod", "cumsum", "norm",
                                  "bce_logits"])
def test_second_derivative_matches_central_differences(name):
    """Issue 25 item 2: the compositions are differentiable twice (central differences of the gradient)."""
    env = cases.namespace(ms, ops, nn)
    fn, args = eval(cases.GRADS[name][0], env), eval(cases.GRADS[name][1], env)
    check_grads(fn, args, order=2, modes=("rev",), rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("name", list(cases.GRADS))
def test_compiled_value_and_gradient_are_pynative_ones(name):
    """Issue 25 item 2: under ms.jit each function and its gradient give the PyNative numbers."""
    env = cases.namespace(ms, ops, nn)
    fn, args = eval(cases.GRADS[name][0], env), eval(cases.GRADS[name][1], env)
    positions = tuple(range(len(args)))
    np.testing.assert_allclose(ms.jit(fn)(*args).asnumpy(), fn(*args).asnumpy(), rtol=1e-6, atol=1e-6)
    eager = ms.grad(fn, grad_position=positions)(*args)
    compiled = ms.jit(ms.grad(fn, grad_position=positions))(*args)
    for e, c in zip(eager if isinstance(eager, tuple) else (eager,), compiled if isinstance(compiled, tuple)
                    else (compiled,)):
        np.testing.assert_allclose(c.asnumpy(), e.asnumpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", [n for n in cases.GRADS if cases.GRADS[n][1].endswith(",)")
                                  and not cases.GRADS[n][0].startswith("lambda a: (ops.topk")])
def test_vmap_is_the_stack_of_single_calls(name):
    """Issue 25 item 2: vmap over a batch of two inputs gives the two single results (and its
    gradient the two single gradients), for every one-input function of the table."""
    env = cases.namespace(ms, ops, nn)
    fn, (a,) = eval(cases.GRADS[name][0], env), eval(cases.GRADS[name][1], env)
    other = ops.add(ops.mul(a, 0.5), 0.25) if a.dtype.is_float else a
    batch = ops.stack([a, other])
    for f in (fn, ms.grad(fn)):
        expected = np.stack([f(a).asnumpy(), f(other).asnumpy()])
        np.testing.assert_allclose(ms.vmap(f)(batch).asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_a_draw_inside_vmap_is_shared_by_the_batch():
    """Issue 25 item 2: a random op has no Tensor input, so vmap never sees it: one draw for the whole
    batch (the batch rows differ by their inputs only), seeded like a single call."""
    batch = Tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    ms.set_seed(11)
    out = ms.vmap(lambda row: row + ops.randn(3))(batch).asnumpy()
    ms.set_seed(11)
    noise = ops.randn(3).asnumpy()
    np.testing.assert_array_equal(out, batch.asnumpy() + noise)
