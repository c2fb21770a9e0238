"""Property tests: every differentiable primitive passes ``check_grads(..., order=2)`` on random inputs.

Hypothesis draws shapes (broadcasting between the operands of binary ops included), axes, indices
and float64 values, and ``check_grads`` compares the reverse-mode derivatives of order 1 and 2 with
central differences.  Values stay in each primitive's safe domain: positive where a logarithm or a
square root is involved, and at least 0.1 away from the kinks of abs/relu/maximum/max-reductions (the
finite difference steps are about 1e-4, so a kink that far away is never crossed).

The neural-network primitives (convolution family, pooling, batch norm, dropout, softmax losses)
are included; pooling is checked to order 3 so that the gradient primitives' own rules
(MaxPoolGrad -> MaxPoolGradGrad -> MaxPoolGrad, AvgPoolGrad -> AvgPool) are exercised too.  Inputs
that get no gradient by design (batch norm's moving statistics, dense labels) are held fixed by
closing over them.

Runs are bounded and deterministic (``derandomize=True``); ``MINIMS_DEEP=1`` selects a long,
randomised run for hunting bugs::

    MINIMS_DEEP=1 python -m pytest tests/primitives/test_primitive_properties.py

``test_every_differentiable_primitive_is_covered`` enumerates the primitive classes of
``minims.ops`` with a backward rule and fails if one of them has no property test here.
"""
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, reject, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minims as ms
from minims import Tensor, ops
from minims.interpreters import rules
from minims.core.primitive import NoGradientRule, Primitive
from minims.testing import check_grads

DEEP = os.environ.get("MINIMS_DEEP", "") not in ("", "0")
SETTINGS = settings(
    max_examples=300 if DEEP else 15,
    deadline=None,
    derandomize=not DEEP,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@pytest.fixture(autouse=True)
def every_rule_checked():
    """Built-in rules skip the tape's per-call result check for speed; here every rule's gradient
    count and shapes are checked, over the whole table."""
    rules.check_every_rules(True)
    yield
    rules.check_every_rules(False)


# ----- value strategies ---------------------------------------------------------------------------
def _values(domain):
    """Elements for a domain: 'any', 'pos' (log/sqrt/pow base), 'away0' (kinks at 0),
    'nonzero' (denominators), 'relu6' (kinks at 0 and 6), 'lattice' (distinct, 0.1 apart)."""
    if domain == "any":
        return st.floats(-2.0, 2.0)
    if domain == "pos":
        return st.floats(0.5, 2.5)
    if domain == "away0":
        return st.floats(-2.0, 2.0).filter(lambda v: abs(v) >= 0.1)
    if domain == "nonzero":
        return st.floats(-2.0, 2.0).filter(lambda v: abs(v) >= 0.5)
    if domain == "relu6":
        return st.floats(-2.0, 8.0).filter(lambda v: abs(v) >= 0.1 and abs(v - 6.0) >= 0.1)
    # maximum/minimum: x near -1.9, -1.3, ..., y near -1.6, -1.0, ...: |x - y| >= 0.1 always
    if domain == "lattice_x":
        return st.sampled_from(np.arange(-1.9, 2.0, 0.6)).flatmap(lambda a: st.floats(a - 0.1, a + 0.1))
    if domain == "lattice_y":
        return st.sampled_from(np.arange(-1.6, 2.0, 0.6)).flatmap(lambda a: st.floats(a - 0.1, a + 0.1))
    raise ValueError(domain)


def tensors(shape, domain="any", unique=False):
    if unique:        # distinct multiples of 0.1: a reduction's maximum is never tied
        elements = st.integers(-30, 30).map(lambda k: k / 10.0)
        return hnp.arrays(np.float64, shape, elements=elements, unique=True).map(Tensor)
    return hnp.arrays(np.float64, shape, elements=_values(domain)).map(Tensor)


SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)
NONSCALAR = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3)
TWO_SHAPES = hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3)
THREE_SHAPES = hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, max_side=3)

# the broadcasting cases named in the brief, always run in addition to the drawn ones
FIXED_PAIRS = [((3, 1), (1, 4)), ((2, 3), (3,)), ((2, 1, 3), (4, 1)), ((), (2, 2)), ((3,), ())]

COVERED = set()      # primitive classes with a property test below


def covers(*classes):
    COVERED.update(classes)


# ----- elementwise unary -----------------------------------------------------------------------------
UNARY = {
    "neg": (ops.Neg(), "any"), "exp": (ops.Exp(), "any"), "log": (ops.Log(), "pos"),
    "sqrt": (ops.Sqrt(), "pos"), "square": (ops.Square(), "any"), "abs": (ops.Abs(), "away0"),
    "sin": (ops.Sin(), "any"), "cos": (ops.Cos(), "any"), "tanh": (ops.Tanh(), "any"),
    "sigmoid": (ops.Sigmoid(), "any"), "reciprocal": (ops.Reciprocal(), "nonzero"),
    "relu": (ops.ReLU(), "away0"), "identity": (ops.Identity(), "any"),
}
covers(*(type(p) for p, _ in UNARY.values()))


@pytest.mark.parametrize("name", sorted(UNARY))
@SETTINGS
@given(data=st.data())
def test_unary(name, data):
    prim, domain = UNARY[name]
    x = data.draw(SHAPES.flatmap(lambda s: tensors(s, domain)), label="x")
    check_grads(prim, (x,), order=2)


@SETTINGS
@given(x=SHAPES.flatmap(lambda s: tensors(s, "relu6")))
def test_relu6_first_order_and_no_second_order_rule(x):
    """MindSpore gives ReLU6Grad no bprop, so the second order must fail with NoGradientRule."""
    check_grads(ops.ReLU6(), (x,), order=1)
    with pytest.raises(NoGradientRule, match="ReLU6Grad"):
        check_grads(ops.ReLU6(), (x,), order=2)


covers(ops.ReLU6)


@SETTINGS
@given(data=st.data())
def test_relu_grad_primitive(data):
    """ReluGrad(dout, out) is differentiable in dout (and constant in out away from 0)."""
    shape = data.draw(SHAPES, label="shape")
    dout = data.draw(tensors(shape), label="dout")
    out = data.draw(tensors(shape, "away0"), label="out")
    check_grads(ops.ReluGrad(), (dout, out), order=2)


covers(ops.ReluGrad)


@pytest.mark.parametrize("prim", [ops.FloorMod(), ops.Mod()], ids=lambda p: p.name)
@SETTINGS
@given(data=st.data())
def test_remainders(prim, data):
    """x = (k + f) y with f in [0.2, 0.8]: the quotient stays away from whole numbers, where the
    remainder jumps."""
    shapes = data.draw(TWO_SHAPES, label="shapes").input_shapes
    y = data.draw(tensors(shapes[1], "nonzero"), label="y")
    shape = np.broadcast_shapes(shapes[0], shapes[1])
    k = 2 * data.draw(tensors(shape, "any"), label="k").asnumpy()         # [-4, 4]
    quotient = np.floor(k) + 0.2 + 0.6 * (k - np.floor(k))
    x = Tensor(quotient * np.broadcast_to(y.asnumpy(), shape))
    check_grads(prim, (x, y), order=2)


covers(ops.FloorMod, ops.Mod)


# ----- elementwise binary, with broadcasting ---------------------------------------------------------
BINARY = {
    "add": (ops.Add(), "any", "any"), "sub": (ops.Sub(), "any", "any"),
    "mul": (ops.Mul(), "any", "any"), "div": (ops.Div(), "any", "nonzero"),
    "pow": (ops.Pow(), "pos", "any"),
    "maximum": (ops.Maximum(), "lattice_x", "lattice_y"),
    "minimum": (ops.Minimum(), "lattice_x", "lattice_y"),
}
covers(*(type(p) for p, _, _ in BINARY.values()))


def _binary_case(name, data, shapes):
    prim, dx, dy = BINARY[name]
    x = data.draw(tensors(shapes[0], dx), label="x")
    y = data.draw(tensors(shapes[1], dy), label="y")
    check_grads(prim, (x, y), order=2)


@pytest.mark.parametrize("name", sorted(BINARY))
@SETTINGS
@given(data=st.data())
def test_binary_broadcasting(name, data):
    shapes = data.draw(TWO_SHAPES, label="shapes").input_shapes
    _binary_case(name, data, shapes)


@pytest.mark.parametrize("shapes", FIXED_PAIRS, ids=str)
@pytest.mark.parametrize("name", sorted(BINARY))
@SETTINGS
@given(data=st.data())
def test_binary_named_broadcasts(name, shapes, data):
    _binary_case(name, data, shapes)
    _binary_case(name, data, shapes[::-1])


@pytest.mark.parametrize("name", sorted(BINARY))
@SETTINGS
@given(data=st.data(), scalar=_values("lattice_y").filter(lambda v: v > 0.5), scalar_first=st.booleans())
def test_binary_with_a_python_scalar(name, data, scalar, scalar_first):
    """A Python number is a constant operand: the gradient flows to the tensor only.

    The scalar is positive (a valid base for pow) and lies on the 'y' lattice, so it never ties
    with a tensor drawn from the 'x' lattice for maximum/minimum.
    """
    prim, dx, dy = BINARY[name]
    domain = "lattice_x" if name in ("maximum", "minimum") else (dy if scalar_first else dx)
    t = data.draw(SHAPES.flatmap(lambda s: tensors(s, domain)), label="t")
    if scalar_first:
        check_grads(lambda v: prim(scalar, v), (t,), order=2)
    else:
        check_grads(lambda v: prim(v, scalar), (t,), order=2)


@SETTINGS
@given(data=st.data())
def test_select_broadcasting(data):
    shapes = data.draw(THREE_SHAPES, label="shapes").input_shapes
    cond = Tensor(data.draw(hnp.arrays(np.bool_, shapes[0]), label="cond"))
    x = data.draw(tensors(shapes[1]), label="x")
    y = data.draw(tensors(shapes[2]), label="y")
    check_grads(ops.select, (cond, x, y), order=2)


covers(ops.Select)


# ----- linear algebra --------------------------------------------------------------------------------
@st.composite
def matmul_operands(draw):
    batch = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=2))
    n, k, m = (draw(st.integers(1, 3)) for _ in range(3))
    ta, tb = draw(st.booleans()), draw(st.booleans())
    xs = batch.input_shapes[0] + ((k, n) if ta else (n, k))
    ys = batch.input_shapes[1] + ((m, k) if tb else (k, m))
    return ta, tb, draw(tensors(xs)), draw(tensors(ys))


@SETTINGS
@given(operands=matmul_operands())
def test_matmul_batched_broadcasting_and_transposes(operands):
    ta, tb, x, y = operands
    check_grads(ops.MatMul(ta, tb), (x, y), order=2)


@SETTINGS
@given(data=st.data(), kind=st.sampled_from(["vec@mat", "mat@vec", "vec@vec", "vec@batch"]))
def test_matmul_with_vectors(data, kind):
    k = data.draw(st.integers(1, 3))
    shapes = {"vec@mat": ((k,), (k, 2)), "mat@vec": ((2, k), (k,)),
              "vec@vec": ((k,), (k,)), "vec@batch": ((k,), (2, k, 3))}[kind]
    x, y = data.draw(tensors(shapes[0])), data.draw(tensors(shapes[1]))
    check_grads(ops.matmul, (x, y), order=2)


covers(ops.MatMul, ops.BatchMatMul)


@SETTINGS
@given(data=st.data())
def test_batch_matmul(data):
    b, n, k, m = (data.draw(st.integers(1, 3)) for _ in range(4))
    x, y = data.draw(tensors((b, n, k))), data.draw(tensors((b, k, m)))
    check_grads(ops.BatchMatMul(), (x, y), order=2)


# ----- reductions ------------------------------------------------------------------------------------
@st.composite
def axes_for(draw, ndim):
    """None, an int (possibly negative) or a tuple of distinct axes (possibly empty: all axes)."""
    if ndim == 0:
        return draw(st.sampled_from([None, ()]))
    one = st.integers(-ndim, ndim - 1)
    several = st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(tuple)
    return draw(st.one_of(st.none(), one, several))


REDUCTIONS = {"sum": (ops.ReduceSum, False), "mean": (ops.ReduceMean, False),
              "max": (ops.ReduceMax, True), "min": (ops.ReduceMin, True)}
covers(*(cls for cls, _ in REDUCTIONS.values()))


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@SETTINGS
@given(data=st.data(), keep_dims=st.booleans())
def test_reductions(name, data, keep_dims):
    cls, needs_unique = REDUCTIONS[name]
    shape = data.draw(SHAPES, label="shape")
    x = data.draw(tensors(shape, unique=needs_unique), label="x")
    axis = data.draw(axes_for(len(shape)), label="axis")
    check_grads(lambda t: cls(keep_dims)(t, axis), (x,), order=2)


@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
@SETTINGS
@given(data=st.data())
def test_softmax_and_log_softmax(log, data):
    shape = data.draw(NONSCALAR, label="shape")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    x = data.draw(tensors(shape), label="x")
    prim = ops.LogSoftmax(axis) if log else ops.Softmax(axis)
    check_grads(prim, (x,), order=2)


covers(ops.Softmax, ops.LogSoftmax)


# ----- shapes ------------------------------------------------------------------------------------------
@SETTINGS
@given(data=st.data())
def test_reshape(data):
    shape = data.draw(SHAPES, label="shape")
    size = int(np.prod(shape))
    target = data.draw(st.sampled_from([(-1,), (size,), shape[::-1], (1,) + shape, (size, 1), (1, -1)]),
                       label="target")
    x = data.draw(tensors(shape))
    check_grads(lambda t: ops.Reshape()(t, target), (x,), order=2)


@SETTINGS
@given(data=st.data())
def test_transpose(data):
    shape = data.draw(SHAPES, label="shape")
    perm = tuple(data.draw(st.permutations(range(len(shape))), label="perm"))
    x = data.draw(tensors(shape))
    check_grads(lambda t: ops.Transpose()(t, perm), (x,), order=2)


@SETTINGS
@given(data=st.data())
def test_expand_dims(data):
    shape = data.draw(SHAPES, label="shape")
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)), label="axis")
    x = data.draw(tensors(shape))
    check_grads(lambda t: ops.ExpandDims()(t, axis), (x,), order=2)


@SETTINGS
@given(data=st.data())
def test_squeeze(data):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=2), label="shape")
    ones = [i for i, d in enumerate(shape) if d == 1]
    axis = data.draw(st.one_of(st.just(()), st.lists(st.sampled_from(ones), unique=True, min_size=1).map(tuple))
                     if ones else st.just(()), label="axis")
    x = data.draw(tensors(shape))
    check_grads(lambda t: ops.Squeeze(axis)(t), (x,), order=2)


@st.composite
def broadcast_pair(draw):
    """(input shape, target spec): the input is a suffix of the target with some sizes set to 1;
    the spec uses -1 for some dimensions the input already has."""
    target = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3))
    rank = draw(st.integers(0, len(target)))
    lead = len(target) - rank
    shape, spec = [], list(target)
    for i in range(lead, len(target)):
        if draw(st.booleans()):
            shape.append(1)
        else:
            shape.append(target[i])
            if draw(st.booleans()):
                spec[i] = -1
    return tuple(shape), tuple(spec)


@SETTINGS
@given(pair=broadcast_pair(), data=st.data())
def test_broadcast_to(pair, data):
    shape, spec = pair
    x = data.draw(tensors(shape))
    check_grads(lambda t: ops.BroadcastTo(spec)(t), (x,), order=2)


covers(ops.Reshape, ops.Transpose, ops.ExpandDims, ops.Squeeze, ops.BroadcastTo)


@SETTINGS
@given(data=st.data())
def test_concat(data):
    base = list(data.draw(NONSCALAR, label="shape"))
    axis = data.draw(st.integers(-len(base), len(base) - 1), label="axis")
    n = data.draw(st.integers(1, 3), label="n")
    parts = []
    for _ in range(n):
        base[axis] = data.draw(st.integers(1, 3))
        parts.append(data.draw(tensors(tuple(base))))
    check_grads(lambda *ts: ops.Concat(axis)(ts), tuple(parts), order=2)


@SETTINGS
@given(data=st.data())
def test_stack(data):
    shape = data.draw(SHAPES, label="shape")
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)), label="axis")
    n = data.draw(st.integers(1, 3), label="n")
    parts = tuple(data.draw(tensors(shape)) for _ in range(n))
    check_grads(lambda *ts: ops.Stack(axis)(ts), parts, order=2)


covers(ops.Concat, ops.Stack)


# ----- indexing ----------------------------------------------------------------------------------------
@SETTINGS
@given(data=st.data())
def test_getitem_basic_indices(data):
    shape = data.draw(NONSCALAR, label="shape")
    index = data.draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True), label="index")
    x = data.draw(tensors(shape))
    check_grads(lambda t: t[index], (x,), order=2)


@SETTINGS
@given(data=st.data())
def test_getitem_bool_mask(data):
    shape = data.draw(NONSCALAR, label="shape")
    mask = Tensor(data.draw(hnp.arrays(np.bool_, shape[:1]), label="mask"))
    x = data.draw(tensors(shape))
    check_grads(lambda t: t[mask], (x,), order=2)


@SETTINGS
@given(data=st.data())
def test_gather_with_repeated_and_negative_indices(data):
    shape = data.draw(NONSCALAR, label="shape")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    size = shape[axis]
    idx_shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
    indices = Tensor(data.draw(hnp.arrays(np.int64, idx_shape, elements=st.integers(-size, size - 1)),
                               label="indices"))
    x = data.draw(tensors(shape))
    check_grads(ops.gather, (x, indices, axis), order=2)


covers(ops.GetItem)


# ----- casts -------------------------------------------------------------------------------------------
@SETTINGS
@given(x=SHAPES.flatmap(tensors))
def test_cast(x):
    check_grads(lambda t: ops.Cast()(t, ms.float64), (x,), order=2)
    # through float32 and back: the function is only float32-accurate, so the tolerance is loose
    check_grads(lambda t: ops.Cast()(ops.Cast()(t, ms.float32), ms.float64), (x,), order=2,
                eps=1e-3, rtol=1e-3, atol=1e-4)


covers(ops.Cast)


# ----- neural-network primitives (minims/primitives/nn.py) ----------------------------------------------
def _valid(fn):
    """Run a forward pass; geometry the primitive rejects (kernel larger than the input) is skipped."""
    try:
        return fn()
    except ValueError:
        reject()


@st.composite
def conv_setup(draw):
    group = draw(st.integers(1, 2))
    cg, og = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    mode = draw(st.sampled_from(["valid", "same", "pad"]))
    pad = tuple(draw(st.integers(0, 2)) for _ in range(4)) if mode == "pad" else 0
    stride = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    x_shape = (draw(st.integers(1, 2)), cg * group, draw(st.integers(1, 6)), draw(st.integers(1, 6)))
    w_shape = (og * group, cg) + k
    config = dict(out_channel=og * group, kernel_size=k, pad_mode=mode, pad=pad, stride=stride,
                  dilation=dilation, group=group)
    return config, x_shape, w_shape


@SETTINGS
@given(setup=conv_setup(), data=st.data())
def test_conv2d_family(setup, data):
    """Conv2D and its two gradient primitives, each differentiated twice in both tensor inputs."""
    config, x_shape, w_shape = setup
    x, w = data.draw(tensors(x_shape), label="x"), data.draw(tensors(w_shape), label="w")
    conv = ops.Conv2D(**config)
    y = _valid(lambda: conv(x, w))
    dy = data.draw(tensors(y.shape), label="dy")
    check_grads(conv, (x, w), order=2)
    bp_input = ops.Conv2DBackpropInput(**config)
    check_grads(lambda d, v: bp_input(d, v, x_shape), (dy, w), order=2)
    transpose = ops.Conv2DTranspose(**config)
    check_grads(lambda d, v: transpose(d, v, x_shape), (dy, w), order=2)
    bp_filter = ops.Conv2DBackpropFilter(**config)
    check_grads(lambda d, v: bp_filter(d, v, w_shape), (dy, x), order=2)


@st.composite
def pool_setup(draw):
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    strides = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 2)), draw(st.integers(1, 5)), draw(st.integers(1, 5)))
    return k, strides, shape


@pytest.mark.parametrize("kind", ["max", "avg"])
@SETTINGS
@given(setup=pool_setup(), mode=st.sampled_from(["valid", "same"]), data=st.data())
def test_pooling_primitives(kind, setup, mode, data):
    """Order 3: MaxPool -> MaxPoolGrad -> MaxPoolGradGrad -> MaxPoolGrad, AvgPool <-> AvgPoolGrad.
    MaxPool's inputs are distinct multiples of 0.1, so no window has a tied maximum."""
    k, strides, shape = setup
    x = data.draw(tensors(shape, unique=kind == "max"), label="x")
    pool = (ops.MaxPool if kind == "max" else ops.AvgPool)(k, strides, mode)
    _valid(lambda: pool(x))
    check_grads(pool, (x,), order=3)


@pytest.mark.parametrize("kind", ["max", "avg"])
@SETTINGS
@given(setup=pool_setup(), data=st.data(), ceil_mode=st.booleans(), include_pad=st.booleans())
def test_functional_pooling_with_padding(kind, setup, data, ceil_mode, include_pad):
    k, strides, shape = setup
    padding = tuple(data.draw(st.integers(0, k[i // 2] // 2)) for i in range(4))
    x = data.draw(tensors(shape, unique=kind == "max"), label="x")
    if kind == "max":
        dilation = data.draw(st.integers(1, 2), label="dilation")
        f = lambda t: ms.ops.max_pool2d(t, k, strides, padding, dilation, ceil_mode=ceil_mode)  # noqa: E731
    else:
        f = lambda t: ms.ops.avg_pool2d(t, k, strides, padding, ceil_mode, include_pad)  # noqa: E731
    # with dilation a window can sample only padding: its maximum is -inf (as in PyTorch), not a
    # differentiable value
    assume(np.all(np.isfinite(_valid(lambda: f(x)).asnumpy())))
    check_grads(f, (x,), order=2)


@SETTINGS
@given(data=st.data(), training=st.booleans(), four_d=st.booleans(), epsilon=st.floats(1e-3, 0.1))
def test_batch_norm(data, training, four_d, epsilon):
    """All five outputs; the moving statistics get no gradient by design, so they are held fixed."""
    c = data.draw(st.integers(1, 3), label="C")
    shape = (data.draw(st.integers(2, 3)), c) + ((2, 2) if four_d else ())
    x = data.draw(tensors(shape), label="x")
    axes = (0, 2, 3) if four_d else (0,)
    assume(np.all(x.asnumpy().var(axis=axes) > 0.05))          # no near-constant channel
    scale, bias = data.draw(tensors((c,)), label="scale"), data.draw(tensors((c,)), label="bias")
    mean, var = data.draw(tensors((c,)), label="mean"), data.draw(tensors((c,), "pos"), label="var")
    bn = ops.BatchNorm(training, epsilon)
    check_grads(lambda a, s, b: bn(a, s, b, mean, var), (x, scale, bias), order=2)


@pytest.mark.parametrize("two_d", [False, True], ids=["Dropout", "Dropout2D"])
@SETTINGS
@given(data=st.data(), keep_prob=st.floats(0.3, 1.0), seed=st.integers(0, 2 ** 16))
def test_dropout(two_d, data, keep_prob, seed):
    """The same seed before every call gives every evaluation the same mask."""
    shape = data.draw(hnp.array_shapes(min_dims=4, max_dims=4, max_side=3) if two_d else SHAPES)
    x = data.draw(tensors(shape), label="x")

    def f(t):
        ms.set_seed(seed)
        return (ops.Dropout2D(keep_prob) if two_d else ops.Dropout(keep_prob))(t)
    check_grads(f, (x,), order=2)


@SETTINGS
@given(data=st.data())
def test_softmax_cross_entropy(data):
    """Both outputs (loss, dlogits); labels get no gradient by design, so they are held fixed."""
    shape = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 4)))
    logits = data.draw(tensors(shape), label="logits")
    labels = data.draw(tensors(shape, "pos"), label="labels")
    check_grads(lambda z: ops.SoftmaxCrossEntropyWithLogits()(z, labels), (logits,), order=2)


@SETTINGS
@given(data=st.data(), is_grad=st.booleans())
def test_sparse_softmax_cross_entropy(data, is_grad):
    n, c = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 4))
    logits = data.draw(tensors((n, c)), label="logits")
    labels = Tensor(data.draw(hnp.arrays(np.int32, (n,), elements=st.integers(0, c - 1)), label="labels"))
    check_grads(ops.SparseSoftmaxCrossEntropyWithLogits(is_grad), (logits, labels), order=2)


covers(ops.Conv2D, ops.Conv2DBackpropInput, ops.Conv2DTranspose, ops.Conv2DBackpropFilter, ops.MaxPool,
       ops.AvgPool, ops.BatchNorm, ops.Dropout, ops.Dropout2D, ops.SoftmaxCrossEntropyWithLogits,
       ops.SparseSoftmaxCrossEntropyWithLogits)


# ----- the table is covered -----------------------------------------------------------------------------
NOT_COVERED = {
    "ReLU6Grad": "no bprop by design (MindSpore has no second-order rule for ReLU6)",
}


def _has_bprop(cls) -> bool:
    return cls.differentiable and getattr(cls, "bprop") is not Primitive.bprop


def test_every_differentiable_primitive_is_covered():
    classes = {obj for obj in vars(ops).values()
               if isinstance(obj, type) and issubclass(obj, Primitive) and obj.__module__.startswith(
                   ("minims.primitives.math", "minims.primitives.activation", "minims.primitives.array",
                    "minims.primitives.compare", "minims.primitives.linalg", "minims.primitives.reduce",
                    "minims.primitives.nn"))}
    missing = sorted(c.__name__ for c in classes
                     if _has_bprop(c) and c not in COVERED and c.__name__ not in NOT_COVERED)
    assert not missing, f"differentiable primitives without a property test: {missing}"
    without_rule = sorted(c.__name__ for c in classes if c.differentiable and not _has_bprop(c)
                          and c.__name__ not in ("Primitive", "PrimitiveWithInfer", "Gather", "Ones",
                                                 "Zeros"))
    assert set(without_rule) <= set(NOT_COVERED), without_rule
