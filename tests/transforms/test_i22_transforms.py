"""Regression tests for issue 22, "Transforms" (items 1-4): one test per behaviour.

Expected values come from closed forms (the derivative of a*a is 2a, of tanh(3x) is 3 sech²(3x)),
from shapes fixed by the definition of the transform (vmap over n examples returns n results, a
Jacobian has shape out.shape + in.shape), and from MindSpore 2.10 (CPU) where it is the reference,
as run on the oracle; each docstring says which.
"""
import warnings

import numpy as np
import pytest

import minims as ms
import minims.nn as nn
from minims import Tensor, ops
from minims.testing import leftover_state
from batching_cases import CASE_PARAMS, examples_for, leaves


@pytest.fixture(autouse=True)
def clean():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert not leftover_state(), leftover_state()


A = np.array([1.0, 2.0, 3.0])


def f32(values):
    return Tensor(np.asarray(values, np.float32))


def doubling_hook(grads):
    return tuple(g * 2 for g in grads)


def clipping_hook(grads):
    return tuple(ops.minimum(ops.maximum(g, -0.5), 0.5) for g in grads)


# ----- item 1: jacfwd/jacrev with has_aux run the function once ------------------------------------------
@pytest.mark.parametrize("jac", [ops.jacfwd, ops.jacrev], ids=["jacfwd", "jacrev"])
def test_jacobian_with_aux_runs_the_function_once_and_aux_comes_from_that_run(jac):
    """Issue 22, item 1.  The function's side effect happens once per call, and the aux is the one
    the Jacobian was taken with: with a random dropout mask m (p = 0.5, kept entries scaled by 2),
    f(x) = dropout(x) has Jacobian diag(2 m) and, at x = 1, aux f(1) = 2 m — so the Jacobian's
    diagonal equals the aux (closed form; a second draw gives another mask).  With two inputs,
    f(x, y) = dropout(x * y) at x = y = 1 has the blocks diag(2 m) and diag(2 m) of one mask."""
    calls = []

    def f(x):
        calls.append(1)
        y = ops.dropout(x, p=0.5, training=True)
        return y, y
    ms.set_seed(0)
    x = f32(np.ones(32))
    jacobian, aux = jac(f, has_aux=True)(x)
    assert len(calls) == 1
    np.testing.assert_array_equal(np.diag(jacobian.asnumpy()), aux.asnumpy())
    assert 0 < np.count_nonzero(aux.asnumpy()) < 32        # a real draw: some kept, some dropped

    def g(x, y):
        calls.append(2)
        z = ops.dropout(x * y, p=0.5, training=True)
        return z, z
    (dx, dy), aux = jac(g, grad_position=(0, 1), has_aux=True)(x, x)
    assert calls.count(2) == 1
    np.testing.assert_array_equal(np.diag(dx.asnumpy()), aux.asnumpy())
    np.testing.assert_array_equal(np.diag(dy.asnumpy()), aux.asnumpy())


# ----- item 2: backward hooks act on cotangents only, so forward mode ignores them ------------------------
def test_forward_mode_ignores_backward_hooks():
    """Issue 22, item 2.  For f(a) = hook(a * a) with a HookBackward that doubles the gradient:
    ``jvp``, ``jacfwd``, ``linearize`` and ``derivative`` give the true derivative 2a = [2, 4, 6]
    (closed form; MindSpore 2.10 gives [2, 4, 6] for jvp, jacfwd and linearize), and a clipping hook
    leaves ``jacfwd`` at diag(2a).  ``derivative`` follows the truth: a backward hook acts on the
    gradient flowing backward, and a Taylor derivative has none (MindSpore 2.10 refuses instead:
    RuntimeError "The operation HookBackward is not supported in taylor higher order differentiation
    currently"); its second derivative is 2.  Reverse mode still applies the hook: grad is 4a."""
    a, ones = f32(A), f32(np.ones(3))
    hook = ops.HookBackward(doubling_hook)

    def f(x):
        return hook(x * x)
    np.testing.assert_allclose(ops.jvp(f, a, ones)[1].asnumpy(), 2 * A)
    np.testing.assert_allclose(ops.jacfwd(f)(a).asnumpy(), np.diag(2 * A))
    np.testing.assert_allclose(ops.linearize(f, a)[1](ones).asnumpy(), 2 * A)
    np.testing.assert_allclose(ops.derivative(f, a, 1)[1].asnumpy(), 2 * A)
    np.testing.assert_allclose(ops.derivative(f, a, 2)[1].asnumpy(), [2, 2, 2])
    clip = ops.HookBackward(clipping_hook)
    np.testing.assert_allclose(ops.jacfwd(lambda x: clip(x * x))(a).asnumpy(), np.diag(2 * A))
    np.testing.assert_allclose(ops.grad(lambda x: f(x).sum())(a).asnumpy(), 4 * A)


def test_forward_mode_ignores_a_cell_backward_hook():
    """Issue 22, item 2.  tanh(3x) in a Cell whose backward hook halves the gradient: ``jvp`` and
    ``jacfwd`` give the true 3 sech²(3x) (closed form), ``grad`` the halved one."""
    class Tanh3(nn.Cell):
        def construct(self, x):
            return ops.tanh(3 * x)

    def halve(cell_id, grad_input, grad_output):
        return tuple(g * 0.5 for g in grad_output)
    cell = Tanh3()
    cell.register_backward_hook(halve)
    x = Tensor(np.array([0.1, 0.3, -0.5]))
    truth = 3 / np.cosh(3 * x.asnumpy()) ** 2
    np.testing.assert_allclose(ops.jvp(cell, x, Tensor(np.ones(3)))[1].asnumpy(), truth, rtol=1e-14)
    np.testing.assert_allclose(np.diag(ops.jacfwd(cell)(x).asnumpy()), truth, rtol=1e-14)
    np.testing.assert_allclose(ops.grad(lambda v: cell(v).sum())(x).asnumpy(), truth / 2, rtol=1e-14)


def test_backward_hooks_under_vmap_and_nested_forward_and_reverse_mode():
    """Issue 22, item 2.  f(a) = sin(hook(a²)), the hook doubling the cotangent at z = a², in float64
    (closed forms):

    * ``vmap`` of ``jvp``: the true cos(a²)·2a per example; ``vmap`` of ``grad``: doubled, 4a cos(a²);
    * ``grad`` of ``jvp``'s primal output: the hook fires on the outer reverse pass, 4a cos(a²);
    * ``grad`` of ``jvp``'s tangent T = cos(z)·2a: the hook doubles the cotangent reaching z, so
      dT/da = 2 cos(a²) - 2·(2a·sin(a²)·2a) = 2 cos(a²) - 8a² sin(a²) (4a² without the hook);
    * ``jvp`` of ``grad``: grad is the doubled 4a cos(a²), its derivative 4 cos(a²) - 8a² sin(a²).
    """
    hook = ops.HookBackward(doubling_hook)

    def f(x):
        return ops.sin(hook(x * x))
    a = Tensor(A)
    ones = Tensor(np.ones(3))
    batch = Tensor(np.stack([A, A / 2]))
    np.testing.assert_allclose(ops.vmap(lambda x: ops.jvp(f, x, ops.ones_like(x))[1])(batch).asnumpy(),
                               np.cos(batch.asnumpy() ** 2) * 2 * batch.asnumpy(), rtol=1e-14)
    np.testing.assert_allclose(ops.vmap(ops.grad(lambda x: f(x).sum()))(batch).asnumpy(),
                               4 * batch.asnumpy() * np.cos(batch.asnumpy() ** 2), rtol=1e-14)
    primal = ops.grad(lambda x: ops.jvp(f, x, ones)[0].sum())(a)
    np.testing.assert_allclose(primal.asnumpy(), 4 * A * np.cos(A ** 2), rtol=1e-14)
    tangent = ops.grad(lambda x: ops.jvp(f, x, ones)[1].sum())(a)
    np.testing.assert_allclose(tangent.asnumpy(), 2 * np.cos(A ** 2) - 8 * A ** 2 * np.sin(A ** 2), rtol=1e-13)
    second = ops.jvp(ops.grad(lambda x: f(x).sum()), a, ones)[1]
    np.testing.assert_allclose(second.asnumpy(), 4 * np.cos(A ** 2) - 8 * A ** 2 * np.sin(A ** 2), rtol=1e-13)


def test_cell_forward_hooks_run_under_jvp_and_linearize():
    """Issue 22, item 2.  Forward and forward-pre hooks act on values, so forward mode runs them, and
    ``linearize`` agrees with ``jvp``: a pre-hook doubling the input and a forward hook doubling the
    output of tanh give 2 tanh(2x), with derivative 4 sech²(2x) (closed form; MindSpore 2.10's
    linearize gives 2 tanh(3x) and 6 sech²(3x) for the forward hook alone).  No warning: no graph
    of the function is compiled."""
    class Tanh(nn.Cell):
        def construct(self, x):
            return ops.tanh(x)

    def double_input(cell_id, inputs):
        return tuple(v * 2 for v in inputs)

    def double_output(cell_id, inputs, output):
        return output * 2
    cell = Tanh()
    cell.register_forward_pre_hook(double_input)
    cell.register_forward_hook(double_output)
    x = Tensor(np.array([0.1, 0.3, -0.5]))
    value, slope = 2 * np.tanh(2 * x.asnumpy()), 4 / np.cosh(2 * x.asnumpy()) ** 2
    out, tangent = ops.jvp(cell, x, Tensor(np.ones(3)))
    np.testing.assert_allclose(out.asnumpy(), value, rtol=1e-14)
    np.testing.assert_allclose(tangent.asnumpy(), slope, rtol=1e-14)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out, jvp_fn = ops.linearize(cell, x)
    np.testing.assert_allclose(out.asnumpy(), value, rtol=1e-14)
    np.testing.assert_allclose(jvp_fn(Tensor(np.ones(3))).asnumpy(), slope, rtol=1e-14)


# ----- item 3: empty batches and empty inputs ------------------------------------------------------------
def test_vmap_over_an_empty_batch_returns_empty_results():
    """Issue 22, item 3.  ``vmap`` over 0 examples returns 0 results: shape (0, *one result's shape),
    in the result's dtype (the definition of vmap; MindSpore 2.10 itself fails here with an internal
    ValueError "cannot get item by index from an empty sequence", which minims does not copy)."""
    def two(x):
        return x * 2, x.sum(), ops.cast(x > 0, ms.int32)
    out = ops.vmap(two)(Tensor(np.zeros((0, 3), np.float32)))
    assert [(o.shape, o.dtype) for o in out] == [((0, 3), ms.float32), ((0,), ms.float32), ((0, 3), ms.int32)]
    moved = ops.vmap(lambda x: x * 2, in_axes=1, out_axes=1)(Tensor(np.zeros((3, 0, 2), np.float64)))
    assert (moved.shape, moved.dtype) == ((3, 0, 2), ms.float64)


@pytest.mark.parametrize("case", CASE_PARAMS)
def test_every_batching_rule_takes_an_empty_batch(case):
    """Issue 22, item 3, at its root: every primitive's batching rule (and the loop fallback) on a
    batch of 0 examples gives outputs shaped (0, *one example's output shape), in its dtype (the
    definition of vmap; one example run alone gives the shape)."""
    example = examples_for(case, 1)[0]
    expected = leaves(case.fn(*example))
    empty = [Tensor(np.zeros((0,) + a.shape, a.asnumpy().dtype)) for a in example]
    got = leaves(ops.vmap(case.fn)(*empty))
    assert [(g.shape, g.dtype) for g in got] == [((0,) + e.shape, e.dtype) for e in expected]


@pytest.mark.parametrize("jac", [ops.jacfwd, ops.jacrev], ids=["jacfwd", "jacrev"])
def test_jacobians_of_empty_inputs_and_outputs_are_empty(jac):
    """Issue 22, item 3.  A Jacobian has shape out.shape + in.shape (the definition), so an empty
    input or output gives an empty Jacobian in the input's dtype: d(2x)/dx at x of shape (0,) is
    (0, 0), d(sum x)/dx is (0,), d(x[:0])/dx at x of shape (3,) is (0, 3).  (MindSpore 2.10 returns
    these shapes where it does not fail internally: jacrev of the sum (0,), jacfwd of x[:0] (0, 3).)"""
    empty = Tensor(np.zeros((0,), np.float32))
    for fn, x, shape in ((lambda v: v * 2, empty, (0, 0)), (lambda v: v.sum(), empty, (0,)),
                         (lambda v: v[:0], f32(A), (0, 3)),
                         (lambda v: v * 2, Tensor(np.zeros((2, 0))), (2, 0, 2, 0))):
        got = jac(fn)(x)
        assert (got.shape, got.dtype) == (shape, x.dtype)


# ----- item 4: fn(x) instead of fn ---------------------------------------------------------------------
@pytest.mark.parametrize("call, error", [
    ("ops.jvp(y, x, x)", ValueError), ("ops.vjp(y, x)", TypeError), ("ops.linearize(y, x)", TypeError),
    ("ops.derivative(y, x, 1)", RuntimeError), ("ops.jacfwd(y)(x)", ValueError),
    ("ops.jacrev(y)(x)", ValueError), ("ops.vmap(y)(x)", RuntimeError), ("ops.grad(y)(x)", TypeError),
    ("ops.value_and_grad(y)(x)", TypeError), ("ops.GradOperation()(y)(x)", TypeError)])
def test_every_transform_explains_a_result_given_instead_of_a_function(call, error):
    """Issue 22, item 4.  Every transform given ``fn(x)`` (a Tensor) instead of ``fn`` says so, with the
    fix, in MindSpore 2.10's exception type (oracle: jvp, jacfwd and jacrev raise ValueError "The
    object is not callable", vjp, grad and value_and_grad TypeError "The fn should be callable",
    linearize TypeError, derivative and vmap RuntimeError "arg0 must be a 'Function' or 'Cell'")."""
    x = Tensor([3.0])
    y = ops.square(x)
    name = call.split("(")[0].replace("ops.", "")
    with pytest.raises(error) as info:
        eval(call)
    message = str(info.value)
    assert "Tensor(shape=[1], dtype=Float32)" in message and "not its result" in message, message
    assert f"{name}(" in message and "(fn" in message and "Fix" in message, message
