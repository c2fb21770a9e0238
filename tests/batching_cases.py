"""The vmap cases of every primitive with a batching rule, and the harness that checks them against a
loop over the examples: shared by ``tests/primitives/test_batching_rules.py`` (which documents them) and
``tests/transforms/test_i22_transforms.py``."""
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

import minims as ms
from minims import Tensor, ops
from minims.autodiff.hooks import HookBackward
from minims.core import stack
from minims.primitives import activation as A
from minims.primitives import array as R
from minims.primitives import compare as C
from minims.primitives import input_grads as G
from minims.primitives import linalg as L
from minims.primitives import math as M
from minims.primitives import nn as P
from minims.primitives import reduce as D
from minims.primitives.state import ReadAfterAssign
from minims.primitives.depend import Depend
from programs import MulWithBprop, RecomputedBlock, TanhWithScaledHook

B = 3                      # examples per batch
OUTER, INNER = 2, 3        # nested vmap


# ----- the harness -------------------------------------------------------------------------------------
def leaves(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def stacked(values, axis):
    """Tensors of one shape stacked along a new ``axis`` (negative: counted in the result)."""
    arrays = [v.asnumpy() for v in values]
    return Tensor(np.stack(arrays, axis=axis % (arrays[0].ndim + 1)))


def assert_same(got, expected, exact, where):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype, \
        f"{where}: got {got.dtype}{list(got.shape)}, expected {expected.dtype}{list(expected.shape)}"
    if exact or got.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, expected, err_msg=where)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-14, atol=1e-15, err_msg=where)


def check_vmap(fn, examples, in_axes=0, out_axes=0, exact=False):
    """``vmap(fn, in_axes, out_axes)`` on the examples (a list of argument tuples) against a loop.
    An argument whose axis is None takes the first example's value, shared by all."""
    n = len(examples[0])
    axes = tuple(in_axes) if isinstance(in_axes, tuple) else (in_axes,) * n
    args = [examples[0][i] if a is None else stacked([e[i] for e in examples], a) for i, a in enumerate(axes)]
    got = leaves(ms.vmap(fn, in_axes=in_axes, out_axes=out_axes)(*args))
    per_example = [leaves(fn(*[examples[0][i] if a is None else e[i] for i, a in enumerate(axes)]))
                   for e in examples]
    for k, g in enumerate(got):
        expected = stacked([p[k] for p in per_example], out_axes)
        assert_same(g.asnumpy(), expected.asnumpy(), exact, f"output {k}, in_axes={in_axes}, out_axes={out_axes}")


def check_nested(fn, examples, inner_axes, outer_axes, exact=False):
    """``vmap(vmap(fn, inner_axes), outer_axes)`` on ``examples[i][j]`` against two loops."""
    n = len(examples[0][0])
    inner = [tuple(stacked([e[k] for e in row], a) for k, a in enumerate(inner_axes)) for row in examples]
    args = [stacked([row[k] for row in inner], a) for k, a in enumerate(outer_axes)]
    got = leaves(ms.vmap(ms.vmap(fn, in_axes=inner_axes), in_axes=outer_axes)(*args))
    for k, g in enumerate(got):
        expected = stacked([stacked([leaves(fn(*e))[k] for e in row], 0) for row in examples], 0)
        assert_same(g.asnumpy(), expected.asnumpy(), exact, f"output {k} of nested vmap {inner_axes}, {outer_axes}")
    assert n == len(inner_axes)


# ----- the cases ------------------------------------------------------------------------------------------
@dataclass
class BCase:
    """``fn`` of one example's arguments, and ``make(rng)``: one example's arguments (Tensors)."""

    label: str
    fn: Callable
    make: Callable
    exact: bool = False

    def __repr__(self):
        return self.label


def rand(*shape, low=-2.0, high=2.0):
    return lambda rng: Tensor(rng.uniform(low, high, shape))


def unique(*shape):
    """Distinct values (no tied maximum)."""
    return lambda rng: Tensor(rng.permutation(np.arange(-40, 41))[:int(np.prod(shape))].reshape(shape) / 10.0)


def args_of(*makers):
    return lambda rng: tuple(m(rng) for m in makers)


BATCH_CASES: dict = {}


def cases(*names):
    def register(make_cases):
        for name in names:
            BATCH_CASES[name] = make_cases
        return make_cases
    return register


EXACT_UNARY = {"Neg": M.Neg, "Square": M.Square, "Abs": M.Abs, "Sign": M.Sign, "Floor": M.Floor,
               "Sqrt": M.Sqrt, "Reciprocal": M.Reciprocal, "ReLU": A.ReLU, "ReLU6": A.ReLU6,
               "Identity": R.Identity, "StopGradient": R.StopGradient, "OnesLike": R.OnesLike,
               "ZerosLike": R.ZerosLike}
ROUNDED_UNARY = {"Exp": M.Exp, "Log": M.Log, "Sin": M.Sin, "Cos": M.Cos, "Tanh": M.Tanh, "Sigmoid": M.Sigmoid}


def _unary(name, cls, exact):
    low = 0.5 if name in ("Sqrt", "Log") else -2.0
    return lambda: [BCase(name, cls(), args_of(rand(2, 3, low=low)), exact),
                    BCase(f"{name} scalar", cls(), args_of(rand(low=low)), exact)]


for _name, _cls in EXACT_UNARY.items():
    BATCH_CASES[_name] = _unary(_name, _cls, True)
for _name, _cls in ROUNDED_UNARY.items():
    BATCH_CASES[_name] = _unary(_name, _cls, False)


EXACT_BINARY = {"Add": M.Add, "Sub": M.Sub, "Mul": M.Mul, "Div": M.Div, "Maximum": M.Maximum,
                "Minimum": M.Minimum, "FloorDiv": M.FloorDiv, "FloorMod": M.FloorMod, "Mod": M.Mod, "Greater": C.Greater,
                "Less": C.Less, "GreaterEqual": C.GreaterEqual, "LessEqual": C.LessEqual, "Equal": C.Equal,
                "NotEqual": C.NotEqual, "ReluGrad": A.ReluGrad, "ReLU6Grad": A.ReLU6Grad}
PAIRS = [((2, 3), (2, 3)), ((3,), (2, 3)), ((2, 1, 3), (4, 1)), ((), (2,))]


def _binary(name, cls, exact=True):
    def make():
        out = []
        for a, b in PAIRS:
            hi = 8.0 if name == "ReLU6Grad" else 2.0
            out.append(BCase(f"{name}{list(a)}{list(b)}", cls(), args_of(rand(*a), rand(*b, high=hi)), exact))
        out.append(BCase(f"{name}(x, 0.5)", lambda x: cls()(x, 0.5), args_of(rand(2, 3)), exact))
        return out
    return make


for _name, _cls in EXACT_BINARY.items():
    BATCH_CASES[_name] = _binary(_name, _cls)
BATCH_CASES.update(dict.fromkeys(("TanhGrad", "SigmoidGrad", "SqrtGrad"), lambda: [
    BCase(f"{cls.__name__}{list(a)}{list(b)}", cls(), args_of(rand(*a, low=low), rand(*b)), False)
    for cls, low in ((G.TanhGrad, -2.0), (G.SigmoidGrad, -2.0), (G.SqrtGrad, 0.5)) for a, b in PAIRS]))
BATCH_CASES["Pow"] = lambda: [BCase("Pow", M.Pow(), args_of(rand(2, 3, low=0.5), rand(3)), False),
                              BCase("Pow(x, 3)", lambda x: M.Pow()(x, 3.0), args_of(rand(3)), False)]


@cases("LogicalAnd", "LogicalOr", "LogicalNot")
def _logical():
    def bools(*shape):
        return lambda rng: Tensor(rng.random(shape) > 0.5)
    return [BCase("LogicalAnd", C.LogicalAnd(), args_of(bools(2, 3), bools(3)), True),
            BCase("LogicalOr", C.LogicalOr(), args_of(bools(3), bools(2, 1)), True),
            BCase("LogicalNot", C.LogicalNot(), args_of(bools(2, 3)), True)]


@cases("Select")
def _select():
    return [BCase("Select", lambda c, x, y: C.Select()(ops.gt(c, 0.0), x, y),
                  args_of(rand(2, 3), rand(3), rand(2, 1)), True),
            BCase("Select scalar y", lambda c, x: C.Select()(ops.gt(c, 0.0), x, 0.5), args_of(rand(3), rand(2, 3)), True)]


@cases("MatMul", "BatchMatMul")
def _matmul():
    out = []
    for ta in (False, True):
        for tb in (False, True):
            x, y = ((3, 2) if ta else (2, 3)), ((4, 3) if tb else (3, 4))
            out.append(BCase(f"MatMul({ta}, {tb})", L.MatMul(ta, tb), args_of(rand(*x), rand(*y))))
    out += [BCase("MatMul batch dims", L.MatMul(), args_of(rand(2, 1, 2, 3), rand(3, 3, 2))),
            BCase("MatMul batch left", L.MatMul(False, True), args_of(rand(2, 2, 3), rand(4, 3))),
            BCase("MatMul batch right", L.MatMul(True), args_of(rand(3, 2), rand(2, 3, 4))),
            BCase("BatchMatMul", L.BatchMatMul(), args_of(rand(2, 2, 3), rand(2, 3, 2))),
            BCase("matmul vector", ops.matmul, args_of(rand(3), rand(3, 2)))]
    return out


@cases("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "Argmax", "Argmin")
def _reductions():
    out = []
    for cls, exact in ((D.ReduceSum, False), (D.ReduceMean, False), (D.ReduceMax, True), (D.ReduceMin, True)):
        for axis in ((), 0, -1, (0, 2)):
            for keep in (False, True):
                prim = cls(keep)
                out.append(BCase(f"{cls.__name__}({keep})(x, {axis})", lambda x, p=prim, a=axis: p(x, a),
                                 args_of(unique(2, 3, 2)), exact))
    for cls in (D.Argmax, D.Argmin):
        for axis in (0, -1, None):
            out.append(BCase(f"{cls.__name__}({axis})", cls(axis), args_of(unique(2, 3)), True))
    return out


@cases("Softmax", "LogSoftmax")
def _softmax():
    return [BCase(f"{cls.__name__}({axis})", cls(axis), args_of(rand(2, 3)))
            for cls in (A.Softmax, A.LogSoftmax) for axis in (0, -1, (0, 1))]


@cases("Reshape", "Transpose", "ExpandDims", "Squeeze", "BroadcastTo", "Cast")
def _shapes():
    return [BCase("Reshape", lambda x: ops.reshape(x, (3, -1)), args_of(rand(2, 3)), True),
            BCase("Reshape scalar", lambda x: ops.reshape(x, (1, 1)), args_of(rand()), True),
            BCase("Transpose", lambda x: ops.transpose(x, (2, 0, 1)), args_of(rand(2, 3, 4)), True),
            BCase("ExpandDims", lambda x: ops.expand_dims(x, -1), args_of(rand(2, 3)), True),
            BCase("Squeeze", lambda x: R.Squeeze()(x), args_of(rand(2, 1, 3, 1)), True),
            BCase("Squeeze(1)", lambda x: R.Squeeze(1)(x), args_of(rand(2, 1)), True),
            BCase("BroadcastTo", lambda x: ops.broadcast_to(x, (2, 3, 4)), args_of(rand(3, 1)), True),
            BCase("BroadcastTo -1", lambda x: R.BroadcastTo((2, -1, 4))(x), args_of(rand(3, 1)), True),
            BCase("Cast", lambda x: ops.cast(x, ms.float32), args_of(rand(2, 3)), True),
            BCase("Cast int", lambda x: ops.cast(x, ms.int32), args_of(rand(2, 3)), True)]


@cases("Concat", "Stack")
def _joins():
    return [BCase("Concat(-1)", lambda a, b, c: ops.concat((a, b, c), -1), args_of(rand(2, 1), rand(2, 3), rand(2, 2)), True),
            BCase("Concat(0)", lambda a, b: ops.concat((a, b), 0), args_of(rand(1, 3), rand(2, 3)), True),
            BCase("Stack(0)", lambda a, b: ops.stack((a, b), 0), args_of(rand(2, 3), rand(2, 3)), True),
            BCase("Stack(-1)", lambda a, b, c: ops.stack((a, b, c), -1), args_of(rand(3), rand(3), rand(3)), True)]


INDICES = {   # name: (index, example shape); "moved": NumPy moves the advanced axes (the loop fallback)
    "basic": ((slice(1, None), None, Ellipsis, 0), (3, 4)),
    "int": ((1, slice(None, None, -1)), (2, 3)),
    "repeated": ((Tensor(np.array([0, -1, 0])),), (3, 2)),
    "mask": ((Tensor(np.array([True, False, True])),), (3, 2)),
    "2-d mask": ((Tensor(np.array([[True, False, True], [False, True, True]])),), (2, 3)),
    "adjacent later": ((slice(None), Tensor(np.array([0, 2])), Tensor(np.array([1, 0]))), (2, 3, 2)),
    "moved": ((Tensor(np.array([0, 2, 0])), slice(None), Tensor(np.array([1, 0, 1]))), (3, 2, 2)),
    "moved with int": ((0, slice(None), Tensor(np.array([1, 0]))), (2, 3, 2)),
}


@cases("GetItem", "GetItemGrad")
def _indexing():
    out = []
    for name, (index, shape) in INDICES.items():
        out.append(BCase(f"GetItem {name}", lambda x, i=index: x[i], args_of(rand(*shape)), True))
        npindex = R.normalize_index(index)
        dshape = np.zeros(shape)[npindex].shape
        out.append(BCase(f"GetItemGrad {name}", lambda d, s=shape, i=npindex: R.GetItemGrad()(d, s, i),
                         args_of(rand(*dshape)), True))
    return out


def _written(index):
    """x with x[index] = v, written into a copy of x, so the caller's example is untouched.  The copy
    also depends on v (exactly: + 0 * sum(v)): writing a batched v into a constant copy (in_axes None
    for x) is refused like any traced value written into a constant (InPlaceWriteError)."""
    def write(x, v):
        y = x + 0 * ops.sum(v)
        y[index] = v
        return y
    return write


def _written_constant(index):
    def write(x):
        y = x * 1
        y[index] = 7.0
        return y
    return write


@cases("SetItem")
def _writes():
    out = []
    for name, (index, shape) in INDICES.items():
        target = np.zeros(shape)[R.normalize_index(index)].shape
        out.append(BCase(f"SetItem {name}", _written(index), args_of(rand(*shape), rand(*target)), True))
        out.append(BCase(f"SetItem {name}, a number", _written_constant(index), args_of(rand(*shape)), True))
    # a value that broadcasts against x[index] (fewer axes than the target)
    out.append(BCase("SetItem broadcast row", _written((slice(0, 2),)), args_of(rand(3, 4), rand(4)), True))
    return out


@cases("HookBackward", "CellHookInputs", "CellHookOutputs", "GraphCall")
def _wrappers():
    hook = HookBackward(lambda grads: None)
    hooked = TanhWithScaledHook(2.0)
    return [BCase("HookBackward", lambda x, y: hook(x, y), args_of(rand(2, 3), rand(3)), True),
            BCase("Cell with a backward hook", hooked, args_of(rand(2, 3))),
            BCase("jit", ms.jit(lambda x, y: ops.sin(x) * y + ops.sum(y)), args_of(rand(2, 3), rand(3)))]


# ----- neural-network primitives -----------------------------------------------------------------------------
CONV = dict(out_channel=2, kernel_size=(2, 3), pad_mode="pad", pad=(1, 0, 0, 1), stride=(1, 2), dilation=1, group=1)


@cases("Conv2D", "Conv2DBackpropInput", "Conv2DTranspose")
def _convolution():
    conv = P.Conv2D(**CONV)
    x_shape, w_shape = (2, 1, 4, 5), (2, 1, 2, 3)
    dy_shape = conv(Tensor(np.zeros(x_shape)), Tensor(np.zeros(w_shape))).shape
    out = [BCase("Conv2D", conv, args_of(rand(*x_shape), rand(*w_shape)))]
    for cls in (P.Conv2DBackpropInput, P.Conv2DTranspose):
        prim = cls(**CONV)
        out.append(BCase(cls.__name__, lambda d, w, p=prim: p(d, w, x_shape), args_of(rand(*dy_shape), rand(*w_shape))))
    return out


@cases("MaxPool", "MaxPoolGrad", "MaxPoolGradGrad", "MaxPoolArgmax", "AvgPool", "AvgPoolGrad")
def _pooling():
    mp, ap = P.MaxPool(2, (1, 2), "same"), P.AvgPool((2, 3), 1, "valid")
    padded = P.MaxPool._configured((2, 2), (1, 2), (1, 0, 1, 1), (2, 1), True)
    shape = (2, 2, 3, 4)
    mpg, mpgg, apg = P.MaxPoolGrad(2, (1, 2), "same"), P.MaxPoolGradGrad(2, (1, 2), "same"), P.AvgPoolGrad((2, 3), 1, "valid")
    return [BCase("MaxPool", mp, args_of(unique(*shape)), True),
            BCase("MaxPool padded", padded, args_of(unique(*shape)), True),
            BCase("MaxPoolArgmax", P.MaxPoolArgmax(2, (1, 2), "same"), args_of(unique(*shape)), True),
            BCase("AvgPool", ap, args_of(rand(*shape))),
            BCase("MaxPoolGrad", lambda x, g: mpg(x, mp(x), g), args_of(unique(*shape), rand(*mp(Tensor(np.zeros(shape))).shape))),
            BCase("MaxPoolGradGrad", lambda x, g: mpgg(x, mp(x), g), args_of(unique(*shape), rand(*shape)), True),
            BCase("AvgPoolGrad", lambda x, g: apg(x, ap(x), g), args_of(rand(*shape), rand(*ap(Tensor(np.zeros(shape))).shape)))]


@cases("BatchNorm")
def _batch_norm():
    """Inference folds the vmap batch into N; training computes each example's own statistics (loop).
    The primitive is bound directly: a training *call* also writes the moving statistics back into
    mean/variance, which refuses a batch (as MindSpore's vmap of a training BatchNorm does)."""
    return [BCase(f"BatchNorm({training})",
                  lambda x, s, b, m, v, bn=P.BatchNorm(training, 1e-3): stack.bind(bn, x, s, b, m, v),
                  args_of(rand(3, 2, 2, 2), rand(2), rand(2), rand(2), rand(2, low=0.5)))
            for training in (False, True)]


@cases("ReadAfterAssign")
def _read_after_assign():
    """A Parameter read after ops.assign in a graph: the value written, the same for every example
    (a batched value is refused, as Assign refuses it)."""
    written = Tensor(np.array([0.5, -1.0, 2.0]))
    return [BCase("ReadAfterAssign", lambda p: stack.bind(ReadAfterAssign("p"), p, written), args_of(rand(3)))]


@cases("SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits")
def _cross_entropy():
    def labels(rng):
        return Tensor(rng.integers(0, 4, 3).astype(np.int32))
    return [BCase("SoftmaxCrossEntropyWithLogits", P.SoftmaxCrossEntropyWithLogits(),
                  args_of(rand(3, 4), rand(3, 4, low=0.0, high=1.0))),
            BCase("SparseSoftmaxCrossEntropyWithLogits", P.SparseSoftmaxCrossEntropyWithLogits(), args_of(rand(3, 4), labels)),
            BCase("SparseSoftmaxCrossEntropyWithLogits(is_grad)", P.SparseSoftmaxCrossEntropyWithLogits(True),
                  args_of(rand(3, 4), labels))]


@cases("Conv2DBackpropFilter", "CellBprop")
def _looping():
    """No batching rule: vmap runs the primitive once per example."""
    bf = P.Conv2DBackpropFilter(**CONV)
    dy_shape = P.Conv2D(**CONV)(Tensor(np.zeros((2, 1, 4, 5))), Tensor(np.zeros((2, 1, 2, 3)))).shape
    mul = MulWithBprop()
    return [BCase("Conv2DBackpropFilter", lambda d, x: bf(d, x, (2, 1, 2, 3)), args_of(rand(*dy_shape), rand(2, 1, 4, 5))),
            BCase("CellBprop", mul, args_of(rand(2, 3), rand(2, 3)), True)]


@cases("Depend", "InsertGradientOf", "Recompute")
def _gradient_tools():
    """Issue 26: identities on the value (the edge of ``Depend`` and the hook of ``InsertGradientOf``
    act on graphs and gradients), and a recomputed Cell's construct as it is."""
    depend, hook = Depend(), ops.InsertGradientOf(lambda g: g * 2.0)
    return [BCase("Depend", lambda x, y: stack.bind(depend, x, y), args_of(rand(2, 3), rand(3)), True),
            BCase("InsertGradientOf", lambda x: hook(x), args_of(rand(2, 3)), True),
            BCase("RecomputedBlock", RecomputedBlock(), args_of(rand(2, 3), rand(2, 3)))]


@cases("Cond", "While", "Scan", "LoopVjp")
def _control_flow():
    """Issue 24: a predicate and a loop condition per example (select; while any continues)."""
    from minims.control_flow import cond, scan, while_loop

    def branch(x, y):
        return cond(ops.sum(x) > 0, lambda a, b: ops.sin(a) * b, lambda a, b: a * 3.0, x, y)

    def loop(x):
        return while_loop(lambda v: ops.sum(ops.abs(v)) < 20.0, lambda v: v * 2.0 + 0.5, x)

    def steps(c, xs):
        return scan(lambda carry, x: (carry * ops.sin(x) + 1.0, carry * 2.0), c, xs)
    def loss(x):
        start = Tensor(np.array(0, np.int64))
        return ops.sum(while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, ops.sin(c[1]) * c[1]), (start, x))[1])
    return [BCase("Cond", branch, args_of(rand(2, 3), rand(3))),
            BCase("While", loop, args_of(rand(3))),
            BCase("Scan", steps, args_of(rand(2), rand(3, 2))),
            BCase("LoopVjp (no rule: once per example)", ms.jit(ms.grad(loss)), args_of(rand(3)))]


#: Primitives with a batching rule (or none) that the stack-and-compare cases cannot cover, and why;
#: each reason is checked by a test of its own below.
NOT_STACKED = {
    "Dropout": "random: vmap draws one mask for the whole batch, a loop draws another (checked: the "
               "output is x * mask / keep_prob, each example its own mask; keep_prob=1 equals the loop)",
    "Dropout2D": "random, as Dropout (checked the same way, channel by channel)",
    "Assign": "writes a Parameter: its batching rule refuses a batched value (checked)",
    "Fill": "has no Tensor input, so vmap never sees it: a constant inside the function (checked)",
    "Print": "prints; no value to compare (checked: it prints every example and returns nothing batched)",
    "Guard": "compares a value jit read while compiling: a batched one is refused before a graph runs "
             "(checked: tests/graph/test_guards.py, vmap over a branch on a batched value)",
}


def case_params():
    out = []
    for make in dict.fromkeys(BATCH_CASES.values()):
        for case in make():
            out.append(pytest.param(case, id=case.label))
    return out


CASE_PARAMS = case_params()


def examples_for(case, n, seed=0):
    rng = np.random.default_rng([seed, sum(map(ord, case.label))])
    return [case.make(rng) for _ in range(n)]


def in_axes_variants(example):
    """0; the batch axis last (positive and negative); second; each argument unbatched in turn."""
    ranks = [a.ndim for a in example]
    variants = [0, tuple(ranks), tuple(-1 for _ in ranks), tuple(min(1, r) for r in ranks)]
    if len(example) > 1:
        variants += [tuple(None if j == i else (r if i % 2 else 0) for j, r in enumerate(ranks))
                     for i in range(len(example))]
    return variants


# ----- issue 25 item 2: the error function and the sort order ---------------------------------------------
def _beginner_cases():
    from minims.primitives.sorting import Argsort
    from minims.primitives.special import Erf
    return ([BCase("Erf", Erf(), args_of(rand(2, 3))), BCase("Erf scalar", Erf(), args_of(rand()))]
            + [BCase(f"Argsort({axis}, {down})", Argsort(axis, down), args_of(unique(2, 3, 2)), True)
               for axis in (0, -1, 1) for down in (False, True)])


BATCH_CASES["Erf"] = BATCH_CASES["Argsort"] = _beginner_cases
NOT_STACKED.update(dict.fromkeys(
    ("StandardNormal", "UniformReal", "UniformInt"),
    "random, with no Tensor input: vmap never sees it, one draw is shared by the batch (checked in "
    "tests/primitives/test_beginner_ops.py)"))
