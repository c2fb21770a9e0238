"""Small random inputs for every differentiable primitive of the table, for the forward-mode tests.

``CASES`` maps a primitive's class name (its row in ``minims.primitives.table()``) to a function
``make(rng) -> [Case, ...]`` (one function may serve several related primitives; ``BUILDERS`` lists
each function once): a few applications of that primitive to float64 Tensors drawn from its
safe domain (positive for logarithms, square roots and the base of a power; away from the kinks of
abs, relu, relu6, maximum and max-reductions by much more than a finite-difference step), with
broadcasting shapes for the binary operations and the static arguments (axes, shapes, indices,
transpose flags, pooling geometry) spread over their kinds.

A :class:`Case` says which function of its Tensor arguments to differentiate and what a reference
for its derivative is: ``reference``, a function the symbolic interpreter can run (its ``sympy.diff``
is the reference), or ``None`` for primitives without a SymPy rule (convolution, pooling, batch
norm, dropout, the cross-entropies), whose reference is central differences.  For the primitives
that follow a user's backward rule (a Cell's custom ``bprop``, backward hooks), the reference is the
function whose derivative the rule is — ``3 sin(x)`` for a bprop that returns ``3 cos(x) dout``.

Test support, kept beside the tests that use it (as ``programs.py``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

import minims as ms
from minims import Tensor, jit, ops
from minims.autodiff.hooks import HookBackward
from minims.primitives import activation as A
from minims.primitives import array as R
from minims.primitives import linalg as L
from minims.primitives import math as M
from minims.primitives import reduce as D
from minims.primitives import compare as C
from minims.primitives import input_grads as G
from minims.primitives import nn as P
from minims.primitives.state import ReadAfterAssign
from minims.core import stack
from minims.primitives.depend import Depend
from programs import MulWithBprop, RecomputedBlock, SinWithTripledRule, TanhWithScaledHook

__all__ = ["Case", "CASES", "BUILDERS", "NO_JVP", "values", "lattice"]


@dataclass
class Case:
    """``fn(*args)`` to differentiate in every float64 Tensor argument.

    ``reference``: a function with SymPy rules whose derivative ``fn``'s rules must give (``fn``
    itself when it has them); ``None``: no SymPy form, central differences are the reference.
    ``rtol``: for outputs computed in float32 (a cast).  ``cotangent_scale``: a backward hook in
    ``fn`` multiplies the cotangents by it, so reverse mode gives that multiple of the Jacobian
    forward mode gives (a hook acts on cotangents only).
    """

    label: str
    fn: Callable
    args: tuple
    reference: Callable | None = None
    rtol: float = 1e-11
    cotangent_scale: float = 1.0

    def __repr__(self):
        return f"{self.label}{tuple(list(a.shape) for a in self.args)}"


def _symbolic(label, fn, args, rtol=1e-11):
    return Case(label, fn, args, reference=fn, rtol=rtol)


# ----- values -------------------------------------------------------------------------------------
def values(rng, shape, domain="any"):
    """A float64 Tensor of ``shape`` from ``domain``: "any" [-2, 2], "pos" [0.5, 2.5], "away0"
    (|v| >= 0.2), "nonzero" (|v| >= 0.5), "relu6" (at least 0.2 from 0 and from 6), "unique"
    (distinct multiples of 0.1: a maximum is never tied)."""
    shape = tuple(shape)
    size = int(np.prod(shape))
    if domain == "any":
        v = rng.uniform(-2, 2, size)
    elif domain == "pos":
        v = rng.uniform(0.5, 2.5, size)
    elif domain in ("away0", "nonzero"):
        low = 0.2 if domain == "away0" else 0.5
        v = rng.uniform(low, 2, size) * rng.choice([-1.0, 1.0], size)
    elif domain == "relu6":
        pieces = np.stack([rng.uniform(-2, -0.2, size), rng.uniform(0.2, 5.8, size), rng.uniform(6.2, 8, size)])
        v = pieces[rng.integers(0, 3, size), np.arange(size)]
    elif domain == "unique":
        v = rng.permutation(np.arange(-30, 31))[:size] / 10.0
    else:
        raise ValueError(domain)
    return Tensor(np.asarray(v, dtype=np.float64).reshape(shape))


def lattice(rng, shape, offset):
    """Values near ``offset + 0.6 k``: two lattices with offsets 0.3 apart are never within 0.1 of
    each other, so maximum/minimum of their values never tie (nor come near a tie)."""
    base = rng.choice(np.arange(-1.9, 2.0, 0.6) + offset, size=tuple(shape))
    return Tensor(np.asarray(base + rng.uniform(-0.1, 0.1, tuple(shape)), dtype=np.float64))


# ----- the cases, by primitive ----------------------------------------------------------------------
CASES: dict[str, Callable] = {}


def cases_for(*names):
    def register(make):
        for name in names:
            CASES[name] = make
        return make
    return register


UNARY = {"Neg": (M.Neg, "any"), "Exp": (M.Exp, "any"), "Log": (M.Log, "pos"), "Sqrt": (M.Sqrt, "pos"),
         "Square": (M.Square, "any"), "Abs": (M.Abs, "away0"), "Sin": (M.Sin, "any"),
         "Cos": (M.Cos, "any"), "Tanh": (M.Tanh, "any"), "Sigmoid": (M.Sigmoid, "any"),
         "Reciprocal": (M.Reciprocal, "nonzero"), "ReLU": (A.ReLU, "away0"),
         "ReLU6": (A.ReLU6, "relu6"), "Identity": (R.Identity, "any")}
SHAPES = [(), (3,), (2, 3)]


def _unary(name):
    cls, domain = UNARY[name]
    return lambda rng: [_symbolic(name, cls(), (values(rng, s, domain),)) for s in SHAPES]


for _name in UNARY:
    CASES[_name] = _unary(_name)


@cases_for("TanhGrad", "SigmoidGrad", "SqrtGrad")
def _input_grads(rng):
    """The derivatives of tanh, sigmoid and sqrt, taken from the input: ``(x, dout)``, broadcasting;
    the reference is SymPy's derivative of their ``sympy`` rules."""
    out = []
    for cls, domain in ((G.TanhGrad, "any"), (G.SigmoidGrad, "any"), (G.SqrtGrad, "pos")):
        for a, b in (((2, 3), (2, 3)), ((3,), (2, 3))):
            out.append(_symbolic(cls.__name__, cls(), (values(rng, a, domain), values(rng, b))))
    return out


@cases_for("ReluGrad")
def _relu_grad(rng):
    # linear in dout; piecewise constant in out (its derivative there is 0, as SymPy's Piecewise says)
    return [_symbolic("ReluGrad", A.ReluGrad(), (values(rng, s), values(rng, s, "away0"))) for s in SHAPES]


BINARY = {"Add": (M.Add, "any", "any"), "Sub": (M.Sub, "any", "any"), "Mul": (M.Mul, "any", "any"),
          "Div": (M.Div, "any", "nonzero"), "Pow": (M.Pow, "pos", "any"),
          "Maximum": (M.Maximum, 0.0, 0.3), "Minimum": (M.Minimum, 0.0, 0.3)}
BROADCASTS = [((2, 3), (2, 3)), ((3, 1), (1, 4)), ((2, 3), (3,)), ((), (2, 2)), ((2, 1, 3), (4, 1)),
              ((3,), ())]


def _binary(name):
    cls, dx, dy = BINARY[name]

    def draw(rng, shape, domain):
        return lattice(rng, shape, domain) if isinstance(domain, float) else values(rng, shape, domain)

    def make(rng):
        prim = cls()
        out = [_symbolic(name, prim, (draw(rng, a, dx), draw(rng, b, dy))) for a, b in BROADCASTS]
        # a Python number as one operand: a constant (no tangent), on either side; each number lies
        # on the other operand's lattice (and is a positive base for Pow)
        left, right = (1.3 if name == "Pow" else 0.5), 0.8
        out.append(_symbolic(f"{name}(x, {right})", lambda x: prim(x, right), (draw(rng, (2, 3), dx),)))
        out.append(_symbolic(f"{name}({left}, y)", lambda y: prim(left, y), (draw(rng, (3,), dy),)))
        return out
    return make


for _name in BINARY:
    CASES[_name] = _binary(_name)


@cases_for("FloorMod", "Mod")
def _remainders(rng):
    # x = (k + f) y with f in [0.2, 0.8]: the quotient x / y is never near a whole number, where the
    # remainder jumps (and central differences would straddle the jump)
    out = []
    for prim in (M.FloorMod(), M.Mod()):
        for a, b in [((2, 3), (2, 3)), ((2, 3), (3,)), ((3,), ())]:
            y = values(rng, b, "nonzero")
            k = rng.integers(-3, 4, a) + rng.uniform(0.2, 0.8, a)
            x = Tensor(np.asarray(k * np.broadcast_to(y.asnumpy(), a), dtype=np.float64))
            out.append(_symbolic(prim.name, prim, (x, y)))
    return out


@cases_for("Select")
def _select(rng):
    out = []
    for shapes in [((2, 3), (2, 3), (2, 3)), ((3,), (2, 1), (1, 3)), ((2, 1), (), (3,))]:
        cond = Tensor(rng.random(shapes[0]) > 0.5)
        out.append(_symbolic("Select", lambda x, y, cond=cond: C.Select()(cond, x, y),
                             (values(rng, shapes[1]), values(rng, shapes[2]))))
    return out


@cases_for("MatMul", "BatchMatMul")
def _matmul(rng):
    out = []
    n, k, m = 2, 3, 2
    for ta in (False, True):
        for tb in (False, True):
            for bx, by in [((), ()), ((2,), ()), ((2, 1), (3,))]:
                xs = bx + ((k, n) if ta else (n, k))
                ys = by + ((m, k) if tb else (k, m))
                out.append(_symbolic(f"MatMul({ta}, {tb})", L.MatMul(ta, tb), (values(rng, xs), values(rng, ys))))
    out.append(_symbolic("BatchMatMul", L.BatchMatMul(), (values(rng, (2, n, k)), values(rng, (2, k, m)))))
    return out


@cases_for("Softmax", "LogSoftmax")
def _softmax(rng):
    out = []
    for cls in (A.Softmax, A.LogSoftmax):
        for shape, axis in [((3,), -1), ((2, 3), 0), ((2, 3), -1), ((2, 2, 2), (0, 2))]:
            out.append(_symbolic(f"{cls.__name__}({axis})", cls(axis), (values(rng, shape),)))
    return out


@cases_for("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin")
def _reductions(rng):
    out = []
    for cls in (D.ReduceSum, D.ReduceMean, D.ReduceMax, D.ReduceMin):
        domain = "unique" if cls in (D.ReduceMax, D.ReduceMin) else "any"
        for shape, axis in [((), ()), ((3,), 0), ((2, 3), ()), ((2, 3), -1), ((2, 1, 3), (0, 2))]:
            for keep in (False, True):
                prim = cls(keep)
                out.append(_symbolic(f"{cls.__name__}({keep})(x, {axis})",
                                     lambda x, prim=prim, axis=axis: prim(x, axis), (values(rng, shape, domain),)))
    return out


@cases_for("Reshape", "Transpose", "ExpandDims", "Squeeze", "BroadcastTo")
def _shapes(rng):
    x23 = lambda: values(rng, (2, 3))                     # noqa: E731
    return [
        _symbolic("Reshape", lambda x: R.Reshape()(x, (3, -1)), (x23(),)),
        _symbolic("Reshape scalar", lambda x: R.Reshape()(x, (1, 1)), (values(rng, ()),)),
        _symbolic("Transpose", lambda x: R.Transpose()(x, (2, 0, 1)), (values(rng, (2, 3, 2)),)),
        _symbolic("ExpandDims", lambda x: R.ExpandDims()(x, -1), (x23(),)),
        _symbolic("Squeeze", lambda x: R.Squeeze()(x), (values(rng, (2, 1, 3, 1)),)),
        _symbolic("Squeeze(2)", lambda x: R.Squeeze(2)(x), (values(rng, (2, 3, 1)),)),
        _symbolic("BroadcastTo", lambda x: R.BroadcastTo((2, 3, 3))(x), (values(rng, (3, 1)),)),
        _symbolic("BroadcastTo -1", lambda x: R.BroadcastTo((2, -1, 3))(x), (values(rng, (2, 1)),)),
    ]


@cases_for("Concat", "Stack")
def _joins(rng):
    return [
        _symbolic("Concat(-1)", lambda a, b, c: R.Concat(-1)((a, b, c)),
                  (values(rng, (2, 1)), values(rng, (2, 3)), values(rng, (2, 2)))),
        _symbolic("Concat(0)", lambda a, b: R.Concat(0)((a, b)), (values(rng, (1, 3)), values(rng, (2, 3)))),
        _symbolic("Stack(1)", lambda a, b: R.Stack(1)((a, b)), (values(rng, (2, 3)), values(rng, (2, 3)))),
        _symbolic("Stack(-1)", lambda a, b, c: R.Stack(-1)((a, b, c)),
                  (values(rng, (3,)), values(rng, (3,)), values(rng, (3,)))),
    ]


def _indices(rng):
    """(index, shape of x): basic indices, a Bool mask, repeated and negative integer arrays, and
    advanced indices that are not next to each other (NumPy moves their axes to the front)."""
    return [
        ((slice(1, None), None, Ellipsis, 0), (3, 4)),
        ((Tensor(np.array([0, -1, 0])),), (3, 2)),
        ((Tensor(np.array([True, False, True])),), (3, 2)),
        ((Tensor(rng.random((2, 3)) > 0.4),), (2, 3)),
        ((Tensor(np.array([0, 2, 0])), slice(None), Tensor(np.array([1, 0, 1]))), (3, 2, 2)),
        ((1, slice(None, None, -1)), (2, 3)),
    ]


@cases_for("GetItem", "GetItemGrad")
def _indexing(rng):
    out = []
    for index, shape in _indices(rng):
        out.append(_symbolic(f"GetItem{R.normalize_index(index)!r:.40}",
                             lambda x, index=index: R.GetItem()(x, index), (values(rng, shape),)))
        npindex = R.normalize_index(index)
        dout_shape = np.zeros(shape)[npindex].shape
        out.append(_symbolic("GetItemGrad", lambda d, shape=shape, i=npindex: R.GetItemGrad()(d, shape, i),
                             (values(rng, dout_shape),)))
    return out


@cases_for("SetItem")
def _writing(rng):
    """``x[index] = v`` as a new value; the repeated index [0, -1, 0] checks that only the write that
    survives (the last) takes a gradient, in the rule as in SymPy's (NumPy's) assignment."""
    out = []
    for index, shape in _indices(rng):
        npindex = R.normalize_index(index)
        target = np.zeros(shape)[npindex].shape
        out.append(_symbolic(f"SetItem{npindex!r:.40}", lambda x, v, i=index: R.SetItem()(x, i, v),
                             (values(rng, shape), values(rng, target))))
    out.append(_symbolic("SetItem broadcast row", lambda x, v: R.SetItem()(x, (slice(0, 2),), v),
                         (values(rng, (3, 4)), values(rng, (4,)))))
    out.append(_symbolic("SetItem number", lambda x: R.SetItem()(x, (1,), 7.0), (values(rng, (3, 2)),)))
    return out


@cases_for("Cast")
def _cast(rng):
    return [_symbolic("Cast(float64)", lambda x: R.Cast()(x, ms.float64), (values(rng, (2, 3)),)),
            _symbolic("Cast(float32)", lambda x: R.Cast()(x, ms.float32), (values(rng, (2, 3)),), rtol=1e-6)]


@cases_for("HookBackward")
def _hook_backward(rng):
    # forward mode passes tangents through a backward hook unchanged, whatever the hook does to the
    # cotangents: the identity (its SymPy rule) for a hook that reads them and for one that doubles them
    seen = []
    hook = HookBackward(lambda grads: seen.append(len(grads)))
    doubling = HookBackward(lambda grads: tuple(g * 2.0 for g in grads))
    return [_symbolic("HookBackward", lambda x: hook(x) * 1.5, (values(rng, (2, 3)),)),
            _symbolic("HookBackward(x, y)", lambda x, y: hook(x, y), (values(rng, (3,)), values(rng, (3,)))),
            Case("HookBackward doubling", lambda x: doubling(x) * 1.5, (values(rng, (2, 3)),),
                 reference=lambda x: x * 1.5, cotangent_scale=2.0)]


@cases_for("CellBprop")
def _cell_bprop(rng):
    """A Cell's custom bprop: forward mode follows it by transposition (as MindSpore), so the
    reference is the function the rule differentiates — the forward itself for a correct rule,
    ``3 sin`` for a rule that returns ``3 cos(x) dout``."""
    mul, tripled = MulWithBprop(), SinWithTripledRule()
    return [Case("MulWithBprop", lambda x, y: mul(x, y), (values(rng, (2, 3)), values(rng, (2, 3))),
                 reference=ops.mul),
            Case("SinWithTripledRule", lambda x: tripled(x), (values(rng, (3,)),),
                 reference=lambda x: ops.sin(x) * 3.0)]


@cases_for("CellHookInputs", "CellHookOutputs")
def _cell_hooks(rng):
    """A Cell backward hook that scales the gradient with respect to the Cell's input by 2.5: reverse
    mode gives the derivative of ``2.5 tanh``, forward mode that of ``tanh`` (the hook acts on
    cotangents only)."""
    cell = TanhWithScaledHook(2.5)
    return [Case("TanhWithScaledHook(2.5)", lambda x: cell(x), (values(rng, (2, 3)),),
                 reference=ops.tanh, cotangent_scale=2.5)]


@cases_for("ReadAfterAssign")
def _read_after_assign(rng):
    """A Parameter read after ops.assign in a graph: the value written, with the Parameter's
    derivative (the assignment is not differentiable), the derivative of ``p + 0 * value``."""
    read = ReadAfterAssign("p")
    return [Case("ReadAfterAssign", lambda p, v: read(p, v) * 1.5, (values(rng, (2, 3)), values(rng, (2, 3))),
                 reference=lambda p, v: (p + v * 0.0) * 1.5)]


@cases_for("GraphCall")
def _graph_call(rng):
    """A compiled graph is one primitive; forward mode replays its equations."""
    def body(x, y):
        return ops.sin(x) * y + ops.sum(ops.exp(y) / (x * x + 1.0), 0)
    return [Case("jit", jit(body), (values(rng, (2, 3)), values(rng, (2, 3))), reference=body)]


@cases_for("Depend")
def _depend(rng):
    """``ops.Depend``: the value; the edge to ``expr`` carries no derivative."""
    depend = Depend()
    return [_symbolic("Depend", lambda x, y: stack.bind(depend, x, y) * 1.5, (values(rng, (2, 3)), values(rng, (3,))))]


@cases_for("InsertGradientOf")
def _insert_gradient_of(rng):
    """``ops.InsertGradientOf``: forward mode passes tangents through it, whatever its function does
    to the gradient (as a backward hook)."""
    reading = ops.InsertGradientOf(lambda g: None)
    doubling = ops.InsertGradientOf(lambda g: g * 2.0)
    return [_symbolic("InsertGradientOf", lambda x: reading(x) * 1.5, (values(rng, (2, 3)),)),
            Case("InsertGradientOf doubling", lambda x: doubling(x) * 1.5, (values(rng, (2, 3)),),
                 reference=lambda x: x * 1.5, cotangent_scale=2.0)]


@cases_for("Recompute")
def _recompute(rng):
    """A Cell marked ``recompute()``: forward mode runs its construct as it is."""
    block = RecomputedBlock()
    return [_symbolic("RecomputedBlock", lambda x, y: block(x, y), (values(rng, (2, 3)), values(rng, (2, 3))))]


# ----- no SymPy rule: central differences -----------------------------------------------------------
def _conv_config(ks, mode, pad, stride, dilation, group, o):
    return dict(out_channel=o, kernel_size=ks, pad_mode=mode, pad=pad, stride=stride, dilation=dilation,
                group=group)


CONV_CONFIGS = [((2, 1, 4, 5), _conv_config((2, 2), "valid", 0, 1, 1, 1, 2)),
                ((1, 2, 5, 4), _conv_config((3, 2), "same", 0, (2, 1), 1, 2, 2)),
                ((2, 2, 4, 4), _conv_config(3, "pad", (1, 0, 2, 1), 1, (1, 2), 1, 1))]


@cases_for("Conv2D", "Conv2DBackpropInput", "Conv2DTranspose", "Conv2DBackpropFilter")
def _convolutions(rng):
    out = []
    for x_shape, config in CONV_CONFIGS:
        w_shape = (config["out_channel"], x_shape[1] // config["group"]) + tuple(
            np.broadcast_to(config["kernel_size"], 2))
        x, w = values(rng, x_shape), values(rng, w_shape)
        conv = P.Conv2D(**config)
        dy = values(rng, conv(x, w).shape)
        out.append(Case("Conv2D", conv, (x, w)))
        for cls in (P.Conv2DBackpropInput, P.Conv2DTranspose):
            prim = cls(**config)
            out.append(Case(cls.__name__, lambda d, v, prim=prim, s=x_shape: prim(d, v, s), (dy, w)))
        bf = P.Conv2DBackpropFilter(**config)
        out.append(Case("Conv2DBackpropFilter", lambda d, v, bf=bf, s=w_shape: bf(d, v, s), (dy, x)))
    return out


@cases_for("MaxPool", "MaxPoolGrad", "MaxPoolGradGrad", "AvgPool", "AvgPoolGrad")
def _pooling(rng):
    """Max pooling on distinct values (no tied window maximum); the gradient primitives are
    differentiated in ``x`` too (their derivative there is 0, the positions being piecewise
    constant), with ``origin_output`` computed from ``x`` as the backward pass does."""
    out = []
    for k, s, mode, shape in [((2, 2), (2, 1), "valid", (1, 2, 4, 3)), ((3, 2), 1, "same", (2, 1, 3, 4))]:
        mp, ap = P.MaxPool(k, s, mode), P.AvgPool(k, s, mode)
        x = values(rng, shape, "unique")
        pooled = mp(x).shape
        out.append(Case("MaxPool", mp, (x,)))
        out.append(Case("AvgPool", ap, (values(rng, shape),)))
        for cls in (P.MaxPoolGrad, P.AvgPoolGrad):
            g = cls(k, s, mode)
            pool = mp if cls is P.MaxPoolGrad else ap
            out.append(Case(cls.__name__, lambda a, d, g=g, pool=pool: g(a, pool(a), d), (x, values(rng, pooled))))
        gg = P.MaxPoolGradGrad(k, s, mode)
        out.append(Case("MaxPoolGradGrad", lambda a, d, gg=gg, mp=mp: gg(a, mp(a), d), (x, values(rng, shape))))
    padded = P.MaxPool._configured((2, 2), (1, 2), (1, 0, 1, 1), (2, 1), True)
    out.append(Case("MaxPool padded", padded, (values(rng, (1, 2, 4, 5), "unique"),)))
    avg = P.AvgPool._configured((2, 3), (2, 2), (1, 1, 0, 1), (1, 1), True, False, 0)
    out.append(Case("AvgPool padded", avg, (values(rng, (1, 1, 5, 5)),)))
    return out


@cases_for("BatchNorm")
def _batch_norm(rng):
    """The five outputs; the moving statistics get no derivative by design (as in the backward
    rule), so they are constants here."""
    out = []
    for training in (True, False):
        for shape in [(4, 2), (2, 3, 2, 2)]:
            c = shape[1]
            mean, var = values(rng, (c,)), values(rng, (c,), "pos")
            bn = P.BatchNorm(training, 1e-3)
            out.append(Case(f"BatchNorm({training})", lambda x, s, b, bn=bn, mean=mean, var=var: bn(x, s, b, mean, var),
                            (values(rng, shape), values(rng, (c,)), values(rng, (c,)))))
    return out


@cases_for("Dropout", "Dropout2D")
def _dropout(rng):
    """The same seed before every call: every evaluation draws the same mask."""
    def seeded(prim, seed):
        def f(x):
            ms.set_seed(seed)
            return prim(x)
        return f
    return [Case("Dropout", seeded(P.Dropout(0.6), 7), (values(rng, (3, 4)),)),
            Case("Dropout2D", seeded(P.Dropout2D(0.5), 11), (values(rng, (2, 3, 2, 2)),))]


@cases_for("SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits")
def _cross_entropy(rng):
    """Both outputs of the dense loss (loss, dlogits) for labels that are distributions and for
    labels that are not; the sparse loss and its ``is_grad`` form.  Labels are constants."""
    out = []
    for rows in ([[0.2, 0.5, 0.3], [1.0, 0.0, 0.0]], [[0.5, 1.0, 2.0], [0.1, 0.1, 0.3]]):
        labels = Tensor(np.asarray(rows))
        out.append(Case("SoftmaxCrossEntropyWithLogits",
                        lambda z, labels=labels: P.SoftmaxCrossEntropyWithLogits()(z, labels),
                        (values(rng, (2, 3)),)))
    labels = Tensor(np.array([2, 0, 1], np.int32))
    for is_grad in (False, True):
        prim = P.SparseSoftmaxCrossEntropyWithLogits(is_grad)
        out.append(Case(f"SparseSoftmaxCrossEntropyWithLogits({is_grad})", lambda z, prim=prim: prim(z, labels),
                        (values(rng, (3, 4)),)))
    return out


# ----- control flow (issue 24): primitives whose parameters are graphs -------------------------------------
@cases_for("Cond")
def _cond(rng):
    """One case per branch taken; the SymPy form is a Piecewise, differentiated by SymPy."""
    from minims.control_flow import cond

    def fn(x, y):
        return cond(x.sum() > 0, lambda a, b: ops.sin(a) * b, lambda a, b: a * 3.0 + b * b, x, y)
    x, y = values(rng, (2, 3)), values(rng, (2, 3))
    return [_symbolic("Cond(true)", fn, (Tensor(np.abs(x.asnumpy())), y)),
            _symbolic("Cond(false)", fn, (Tensor(-np.abs(x.asnumpy())), y))]


@cases_for("While")
def _while(rng):
    """A While with a concrete trip count (an integer counter): SymPy unrolls it."""
    from minims.control_flow import while_loop

    def fn(x, w):
        start = Tensor(np.array(0, np.int64))
        return while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, ops.sin(c[1]) * c[2] + c[1], c[2]),
                          (start, x, w))[1]
    return [_symbolic("While(3 steps)", fn, (values(rng, (2, 3)), values(rng, (3,))))]


@cases_for("Scan")
def _scan(rng):
    """A Scan over the rows of xs: its SymPy form is the loop unrolled."""
    from minims.control_flow import scan

    def fn(c, xs):
        return scan(lambda carry, x: (carry * ops.sin(x) + 1.0, carry * carry), c, xs)
    return [_symbolic("Scan(3 steps)", fn, (values(rng, (2,)), values(rng, (3, 2))))]


@cases_for("LoopVjp")
def _loop_vjp(rng):
    """A loop's gradient in a compiled graph is one LoopVjp: forward mode over it (central
    differences: it has no SymPy rule of its own)."""
    from minims.control_flow import while_loop

    def loss(x):
        start = Tensor(np.array(0, np.int64))
        return ops.sum(while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, ops.sin(c[1]) * c[1]), (start, x))[1])
    return [Case("jit(grad(While))", jit(ms.grad(loss)), (values(rng, (3,)),))]


@cases_for("Erf")
def _erf(rng):
    """The error function (issue 25 item 2); the reference is SymPy's ``erf`` and its derivative."""
    from minims.primitives.special import Erf
    return [_symbolic("Erf", Erf(), (values(rng, s),)) for s in SHAPES]


#: Each case-making function once, in the order of registration.
BUILDERS = list(dict.fromkeys(CASES.values()))

#: Differentiable primitives without a forward-mode rule, by design.
NO_JVP = {"ReLU6Grad": "no jvp and no bprop: MindSpore defines no second-order rule for ReLU6, so "
                       "forward mode over relu6's derivative raises NoJvpRule"}
