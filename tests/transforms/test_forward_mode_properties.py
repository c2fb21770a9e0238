"""Forward mode against central differences on random shapes and random programs (hypothesis).

``check_grads(f, args, order=2, modes=("fwd", "rev"))`` compares ``<w, J u>`` from the jvp rules and
``<J^T w, u>`` from the backward rules with the central difference ``d/dt <w, f(x + t u)>``, and
recurses on both derivative functions: reverse over reverse, forward over reverse, reverse over
forward and forward over forward.

* the elementwise, reduction, matmul, softmax, shape and indexing primitives on shapes Hypothesis
  draws (mutually broadcastable ones for the binary ops and select, broadcast batch dimensions for
  matmul, every kind of axis argument), with values in each primitive's safe domain;
* random straight-line programs from ``tests/programs.py``'s ``GRADS`` space (elementwise ops with
  broadcasting, reductions, matmul, shapes, select, softmax, integer inputs, gradients taken inside
  the program, dense/convolution/pooling/batch-norm/cross-entropy layers, Cells with correct custom
  bprops), discarding points within a finite-difference step of a kink, as ``tests/robustness/test_fuzz.py`` does;
* random programs from ``HOOKED`` (the same, with scaling backward hooks — ``ops.HookBackward`` and a
  Cell's ``register_backward_hook`` — in every program): a backward hook acts on cotangents only, so
  ``jvp``, ``linearize`` and forward over forward give what the program without its hooks gives,
  and central differences of the program itself (issue 22).

Bounded and deterministic by default; ``MINIMS_DEEP=1`` runs a long randomised search
(``MINIMS_DEEP_EXAMPLES=n`` programs, 2000 by default).
"""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minims as ms
from minims import Tensor, ops
from minims.testing import check_grads, leftover_state
from search_budget import bounded
from programs import GRADS, HOOKED, near_a_kink, programs

MODES = ("fwd", "rev")


@pytest.fixture(autouse=True)
def clean():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    assert not leftover_state(), leftover_state()


def both_modes(f, args, **kw):
    check_grads(f, args, order=2, modes=MODES, **kw)


# ----- values ------------------------------------------------------------------------------------------
DOMAINS = {
    "any": st.floats(-2.0, 2.0),
    "pos": st.floats(0.5, 2.5),
    "away0": st.floats(-2.0, 2.0).filter(lambda v: abs(v) >= 0.1),
    "nonzero": st.floats(-2.0, 2.0).filter(lambda v: abs(v) >= 0.5),
    "relu6": st.floats(-2.0, 8.0).filter(lambda v: abs(v) >= 0.1 and abs(v - 6.0) >= 0.1),
    # maximum/minimum: x near -1.9, -1.3, ..., y near -1.6, -1.0, ...: never within 0.1 of a tie
    "lattice_x": st.sampled_from(np.arange(-1.9, 2.0, 0.6)).flatmap(lambda a: st.floats(a - 0.1, a + 0.1)),
    "lattice_y": st.sampled_from(np.arange(-1.6, 2.0, 0.6)).flatmap(lambda a: st.floats(a - 0.1, a + 0.1)),
}


def tensors(shape, domain="any", unique=False):
    if unique:               # distinct multiples of 0.1: a maximum is never tied
        return hnp.arrays(np.float64, shape, elements=st.integers(-30, 30).map(lambda k: k / 10.0),
                          unique=True).map(Tensor)
    return hnp.arrays(np.float64, shape, elements=DOMAINS[domain]).map(Tensor)


SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)
NONSCALAR = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3)


# ----- elementwise ---------------------------------------------------------------------------------------
UNARY = {"neg": (ops.neg, "any"), "exp": (ops.exp, "any"), "log": (ops.log, "pos"), "sqrt": (ops.sqrt, "pos"),
         "square": (ops.square, "any"), "abs": (ops.abs, "away0"), "sin": (ops.sin, "any"),
         "cos": (ops.cos, "any"), "tanh": (ops.tanh, "any"), "sigmoid": (ops.sigmoid, "any"),
         "reciprocal": (ops.reciprocal, "nonzero"), "relu": (ops.relu, "away0"), "relu6": (ops.relu6, "relu6"),
         "identity": (ops.Identity(), "any")}


@pytest.mark.parametrize("name", sorted(UNARY))
@bounded(5)
@given(data=st.data())
def test_unary(name, data):
    fn, domain = UNARY[name]
    x = data.draw(SHAPES.flatmap(lambda s: tensors(s, domain)), label="x")
    if name == "relu6":          # ReLU6Grad has no rule of its own (MindSpore's choice): first order only
        check_grads(fn, (x,), order=1, modes=MODES)
    else:
        both_modes(fn, (x,))


BINARY = {"add": (ops.add, "any", "any"), "sub": (ops.sub, "any", "any"), "mul": (ops.mul, "any", "any"),
          "div": (ops.div, "any", "nonzero"), "pow": (ops.pow, "pos", "any"),
          "maximum": (ops.maximum, "lattice_x", "lattice_y"), "minimum": (ops.minimum, "lattice_x", "lattice_y")}
TWO_SHAPES = hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3)


@pytest.mark.parametrize("name", sorted(BINARY))
@bounded(8)
@given(data=st.data(), scalar=st.sampled_from([None, "left", "right"]))
def test_binary_with_broadcasting(name, data, scalar):
    """Mutually broadcastable shapes, or a Python number (a constant: no tangent) on one side."""
    fn, dx, dy = BINARY[name]
    shapes = data.draw(TWO_SHAPES, label="shapes").input_shapes
    x = data.draw(tensors(shapes[0], dx), label="x")
    y = data.draw(tensors(shapes[1], dy), label="y")
    # a number on the other operand's lattice (0.5 on x's, 0.8 on y's): never within 0.1 of a tie
    if scalar == "left":
        c = 1.3 if name == "pow" else 0.5              # (a positive base for pow)
        both_modes(lambda v: fn(c, v), (y,))
    elif scalar == "right":
        both_modes(lambda v: fn(v, 0.8), (x,))
    else:
        both_modes(fn, (x, y))


@bounded(10)
@given(data=st.data())
def test_select(data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, max_side=3),
                       label="shapes").input_shapes
    cond = Tensor(data.draw(hnp.arrays(np.bool_, shapes[0]), label="cond"))
    x, y = data.draw(tensors(shapes[1]), label="x"), data.draw(tensors(shapes[2]), label="y")
    both_modes(lambda a, b: ops.select(cond, a, b), (x, y))


@bounded(12)
@given(data=st.data(), ta=st.booleans(), tb=st.booleans())
def test_matmul_with_broadcast_batch_dimensions(data, ta, tb):
    batch = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=2))
    n, k, m = (data.draw(st.integers(1, 3)) for _ in range(3))
    x = data.draw(tensors(batch.input_shapes[0] + ((k, n) if ta else (n, k))), label="x")
    y = data.draw(tensors(batch.input_shapes[1] + ((m, k) if tb else (k, m))), label="y")
    both_modes(ops.MatMul(ta, tb), (x, y))


# ----- reductions and softmax ---------------------------------------------------------------------------------
@st.composite
def axes_for(draw, ndim):
    if ndim == 0:
        return draw(st.sampled_from([None, ()]))
    one = st.integers(-ndim, ndim - 1)
    several = st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(tuple)
    return draw(st.one_of(st.none(), one, several))


REDUCTIONS = {"sum": ops.ReduceSum, "mean": ops.ReduceMean, "max": ops.ReduceMax, "min": ops.ReduceMin}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@bounded(10)
@given(data=st.data(), keep_dims=st.booleans())
def test_reductions(name, data, keep_dims):
    shape = data.draw(SHAPES, label="shape")
    x = data.draw(tensors(shape, unique=name in ("max", "min")), label="x")
    axis = data.draw(axes_for(len(shape)), label="axis")
    prim = REDUCTIONS[name](keep_dims)
    both_modes(lambda t: prim(t, axis), (x,))


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@bounded(8)
@given(data=st.data())
def test_softmax(log, data):
    shape = data.draw(NONSCALAR, label="shape")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    both_modes(ops.LogSoftmax(axis) if log else ops.Softmax(axis), (data.draw(tensors(shape), label="x"),))


# ----- shapes and indexing --------------------------------------------------------------------------------
@bounded(15)
@given(data=st.data(), kind=st.sampled_from(["reshape", "transpose", "expand_dims", "squeeze", "broadcast_to",
                                             "concat", "stack", "getitem"]))
def test_shape_primitives(data, kind):
    """Linear maps, so their jvp rule is the primitive itself applied to the tangent: second order is 0."""
    shape = data.draw(SHAPES, label="shape")
    x = data.draw(tensors(shape), label="x")
    ndim = len(shape)
    if kind == "reshape":
        target = data.draw(st.sampled_from([(-1,), shape[::-1], (1,) + shape]), label="target")
        both_modes(lambda t: ops.reshape(t, target), (x,))
    elif kind == "transpose":
        perm = tuple(data.draw(st.permutations(range(ndim)), label="perm"))
        both_modes(lambda t: ops.transpose(t, perm), (x,))
    elif kind == "expand_dims":
        axis = data.draw(st.integers(-ndim - 1, ndim), label="axis")
        both_modes(lambda t: ops.expand_dims(t, axis), (x,))
    elif kind == "squeeze":
        both_modes(lambda t: ops.squeeze(ops.expand_dims(t, 0)), (x,))
    elif kind == "broadcast_to":
        both_modes(lambda t: ops.broadcast_to(t, (2,) + shape), (x,))
    elif kind in ("concat", "stack"):
        y = data.draw(tensors(shape), label="y")
        if kind == "stack" or ndim == 0:
            axis = data.draw(st.integers(-ndim - 1, ndim), label="axis")
            both_modes(lambda a, b: ops.stack((a, b, a * b), axis), (x, y))
        else:
            axis = data.draw(st.integers(-ndim, ndim - 1), label="axis")
            both_modes(lambda a, b: ops.concat((a, b), axis), (x, y))
    else:
        if ndim == 0:
            index = (None, Ellipsis)
        else:
            index = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True), label="index")
        both_modes(lambda t: ops.sin(t[index]), (x,))


# ----- random programs ------------------------------------------------------------------------------------------
STEPS = (1e-4, 2e-5, 4e-6)


def with_smaller_steps(check):
    """A large third derivative makes the central difference's truncation error exceed the tolerance
    at the default step; a wrong rule fails at every step (as in tests/robustness/test_fuzz.py)."""
    for k, eps in enumerate(STEPS):
        try:
            return check(eps)
        except AssertionError:
            if k == len(STEPS) - 1:
                raise


def finite(program, args):
    with np.errstate(all="ignore"):
        out = program(*args)
    return all(np.all(np.isfinite(o.asnumpy())) for o in (out if isinstance(out, tuple) else (out,)))


@pytest.mark.slow
@bounded(150)
@given(case=programs(GRADS))
def test_random_programs_forward_and_reverse_match_central_differences(case):
    program, args = case
    args = tuple(Tensor(np.asarray(a._data, np.float64)) if a.dtype.is_float else a for a in args)
    assume(finite(program, args) and not near_a_kink(program, args))
    try:
        with_smaller_steps(lambda eps: check_grads(program, args, order=2, modes=MODES, eps=eps))
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n\n{program.reproducer(args)}") from None


def jvp_over_floats(f, args, tangents):
    """``ops.jvp`` of ``f`` moving its float arguments along ``tangents`` (the others held fixed)."""
    positions = [i for i, a in enumerate(args) if a.dtype.is_float]

    def moving(*xs):
        full = list(args)
        for i, x in zip(positions, xs):
            full[i] = x
        return f(*full)
    return moving, tuple(args[i] for i in positions), tuple(tangents[i] for i in positions)


def assert_same_values(label, got, expected):
    got = got if isinstance(got, tuple) else (got,)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-12, atol=1e-12, err_msg=label)


@pytest.mark.slow
@bounded(60)
@given(case=programs(HOOKED))
def test_random_programs_with_backward_hooks_forward_mode_ignores_the_hooks(case):
    """A backward hook scales the cotangents only: ``jvp`` and ``linearize`` of a program with hooks
    equal ``jvp`` of the same program without them (``variant("plain")``), forward over forward too,
    and ``check_grads(modes=("fwd",))`` matches central differences of the hooked program itself."""
    program, args = case
    args = tuple(Tensor(np.asarray(a._data, np.float64)) if a.dtype.is_float else a for a in args)
    assume(finite(program, args) and not near_a_kink(program, args))
    rng = np.random.default_rng(0)
    tangents = [Tensor(rng.standard_normal(a.shape)) if a.dtype.is_float else None for a in args]
    try:
        hooked, xs, ts = jvp_over_floats(program, args, tangents)
        plain = jvp_over_floats(program.variant("plain"), args, tangents)[0]
        out, tangent = ops.jvp(hooked, xs, ts)
        assert_same_values("jvp output", out, ops.jvp(plain, xs, ts)[0])
        assert_same_values("jvp, hooked vs without hooks", tangent, ops.jvp(plain, xs, ts)[1])
        assert_same_values("linearize vs jvp", ops.linearize(hooked, xs)[1](ts), tangent)

        def second(f):
            return ops.jvp(lambda *ys: ops.jvp(f, ys, ts)[1], xs, ts)[1]
        assert_same_values("forward over forward, hooked vs without hooks", second(hooked), second(plain))
        with_smaller_steps(lambda eps: check_grads(program, args, order=2, modes=("fwd",), eps=eps))
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n\n{program.reproducer(args)}") from None
