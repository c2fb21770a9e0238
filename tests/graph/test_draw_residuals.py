"""The residual split of a Graph-mode gradient, as ``f.residual_graphs(x)`` returns it and
``draw_residuals`` draws it: one edge per residual, from the forward output that returns it to the
backward input that receives it; the residuals are what the backward equations read and what the
SymPy derivative is made of; the backward graph runs rule equations only.

Boxes and edges are found by the ``gid`` the drawing gives each patch (``output-<i>`` in the forward
picture, ``input-<i>`` in the backward one, ``residual-<k>`` for the edges), and their positions are
compared in the figure's coordinates, not in pixels.
"""
import io
import re

import numpy as np
import pytest
import sympy

matplotlib = pytest.importorskip("matplotlib")

from matplotlib.figure import Figure                     # noqa: E402

import minims as ms                                      # noqa: E402
import minims.nn as nn                                   # noqa: E402
from minims import Tensor, ops                           # noqa: E402
from minims.graph.draw import draw_residuals             # noqa: E402
from minims.graph.executor import Plan                   # noqa: E402
from minims.core.ir import Var                          # noqa: E402

X = Tensor(np.array([0.5, 1.0, -2.0]))
Y = Tensor(np.array([1.5, -1.0, 2.0]))


def sin_times_x(x):
    return (ops.sin(x) * x).sum()


def sin_x_y_plus_x_squared(x, y):
    return ops.sin(x) * y + x * x


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)

    def construct(self, x):
        return ops.tanh(self.fc(x)).sum()


CASES = {
    "sin(x)*x": (sin_times_x, (X,)),
    "sin(x)*y+x*x": (sin_x_y_plus_x_squared, (X, Y)),
    "Dense+tanh with Parameters": (Net(), (Tensor(np.array([[0.5, -1.0, 2.0]], np.float32)),)),
}


def split_of(name):
    fn, args = CASES[name]
    return ms.jit(fn).residual_graphs(*args), args


def run(graph, arrays):
    return Plan(graph).run([np.asarray(a) for a in arrays])


def residual_edges(fig):
    return [p for p in fig.axes[2].patches if re.fullmatch(r"residual-\d+", p.get_gid() or "")]


def box(ax, gid):
    (patch,) = [p for p in ax.patches if p.get_gid() == gid]
    return patch


@pytest.mark.parametrize("name", CASES)
def test_there_is_one_edge_per_residual(name):
    split, _ = split_of(name)
    fig = draw_residuals(split)
    assert split.n_residuals >= 1
    assert len(residual_edges(fig)) == split.n_residuals == len(split.residuals)


@pytest.mark.parametrize("name", CASES)
def test_the_drawn_residuals_are_exactly_the_forward_values_the_backward_reads(name):
    split, _ = split_of(name)
    backward = split.backward
    read = {a.index for eq in backward.equations for a in eq.ins if isinstance(a, Var)}
    read |= {o.index for o in backward.outputs if isinstance(o, Var)}
    from_forward = {v.index for v in backward.inputs[:split.n_residuals]}
    assert from_forward <= read                        # every residual is read by the backward
    assert {v.index for v in split.residuals} == from_forward
    forward_values = {v.index for v in split.forward.inputs} | {
        v.index for eq in split.forward.equations for v in eq.outs}
    assert from_forward <= forward_values              # ... and computed (or received) by the forward
    labels = [t.get_text() for t in draw_residuals(split).axes[2].texts
              if re.fullmatch(r"residual-\d+-label", t.get_gid() or "")]
    assert labels == [f"{v!r}: {v.type}" for v in split.residuals]


def test_sin_times_x_keeps_the_values_its_sympy_derivative_is_made_of():
    t = sympy.Symbol("t")
    derivative = sympy.diff(sympy.sin(t) * t, t)                # t*cos(t) + sin(t)
    assert derivative == t * sympy.cos(t) + sympy.sin(t)
    parts = list(sympy.preorder_traversal(derivative))
    split, (x,) = split_of("sin(x)*x")
    flat = run(split.forward, [x.asnumpy()])
    residual_values = flat[split.n_outputs:]

    def value(expr):
        return np.array([float(expr.subs(t, v)) for v in x.asnumpy()])
    # what the derivative needs beyond x itself: cos(x), and sin(x)
    for needed in (sympy.cos(t), sympy.sin(t)):
        assert any(np.allclose(r, value(needed), rtol=1e-15) for r in residual_values), needed
    # and nothing else: each residual is the value of a part of the derivative
    for r in residual_values:
        assert any(np.allclose(r, value(p), rtol=1e-15) for p in parts), r


@pytest.mark.parametrize("name", CASES)
def test_the_backward_graph_runs_only_rule_equations(name):
    split, _ = split_of(name)
    primal = {eq.prim.name for eq in split.forward.equations} - {"Mul", "Add", "Sub", "Neg", "MatMul", "Reshape",
                                                                  "BroadcastTo", "ReduceSum", "Transpose"}
    assert primal                                      # Sin, Cos, Tanh ... are computed forward only
    assert not primal & {eq.prim.name for eq in split.backward.equations}, split.backward.text()
    # every backward equation depends on a cotangent: nothing there could have run in the forward
    depends = {v.index for v in split.backward.inputs[split.n_residuals:]}
    for eq in split.backward.equations:
        assert any(isinstance(a, Var) and a.index in depends for a in eq.ins), eq.text()
        depends |= {v.index for v in eq.outs}


@pytest.mark.parametrize("name", ["sin(x)*x", "sin(x)*y+x*x"])
def test_the_two_graphs_compute_the_gradient_that_grad_of_jit_returns(name):
    split, args = split_of(name)
    fn = CASES[name][0]
    arrays = [a.asnumpy() for a in args]
    flat = run(split.forward, arrays)
    cotangents = [np.ones_like(o) for o in flat[:split.n_outputs]]
    grads = run(split.backward, flat[split.n_outputs:] + cotangents)
    expected = ms.grad(ms.jit(fn), grad_position=tuple(range(len(args))))(*args)
    expected = expected if isinstance(expected, tuple) else (expected,)
    for g, e in zip(grads, expected):
        np.testing.assert_array_equal(g, e.asnumpy())


def test_the_picture_draws_and_each_edge_joins_its_two_boxes():
    split, _ = split_of("sin(x)*y+x*x")
    fig = draw_residuals(split)
    assert isinstance(fig, Figure) and len(fig.axes) == 3
    forward_ax, backward_ax, overlay = fig.axes
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")                  # Agg: the whole figure renders
    assert buffer.getvalue().startswith(b"\x89PNG")
    to_overlay = overlay.transData.inverted()

    def corners(ax, gid):                              # a box's extent in the overlay's coordinates
        extent = box(ax, gid).get_window_extent()
        return to_overlay.transform([(extent.x0, extent.y0), (extent.x1, extent.y1)])

    edges = residual_edges(fig)
    for k, edge in enumerate(edges):
        assert edge.get_gid() == f"residual-{k}"
        vertices = edge.get_path().vertices
        start, end = corners(forward_ax, f"output-{split.n_outputs + k}"), corners(backward_ax, f"input-{k}")
        # it leaves the middle of the residual's bottom side and arrives at the middle of the input's top
        tol = 0.02
        assert any(np.allclose(p, [(start[0, 0] + start[1, 0]) / 2, start[0, 1]], atol=tol) for p in vertices)
        assert any(np.allclose(p, [(end[0, 0] + end[1, 0]) / 2, end[1, 1]], atol=tol) for p in vertices)
        assert end[1, 1] < start[0, 1]                 # downwards, like every other edge
    labels = {t.get_text() for t in forward_ax.texts}
    assert {f"residual {v!r}" for v in split.residuals} <= labels
    labels = {t.get_text() for t in backward_ax.texts}
    assert {f"residual {v!r}" for v in split.residuals} <= labels
    assert any(t.startswith("cotangent") for t in labels)


def test_a_graph_that_writes_a_parameter_has_no_residual_split():
    w = ms.Parameter(Tensor(np.array([1.0, 2.0, 3.0])), name="w")

    def step(x):
        ops.assign(w, w + 1.0)
        return (ops.sin(x) * x).sum()
    with pytest.raises(ValueError, match=r"grad_graph"):
        ms.jit(step).residual_graphs(X)


def test_residual_graphs_is_the_split_the_gradient_made(monkeypatch):
    import minims.graph.call as call
    made = []
    split_for_gradient = call.split_for_gradient
    monkeypatch.setattr(call, "split_for_gradient", lambda *a: made.append(split_for_gradient(*a)) or made[-1])
    jf = ms.jit(sin_times_x)
    ms.grad(jf)(X)
    assert jf.residual_graphs(X, positions=(0,)) is made[0] and len(made) == 1
    # x (the input %0), sin x and cos x, each under one name in both graphs
    split = made[0]
    assert [str(v) for v in split.residuals] == [str(v) for v in split.backward.inputs[:3]]
    assert str(split.residuals[0]) == "%0" and {eq.prim.name for eq in split.forward.equations
                                                 if eq.outs[0] in split.residuals} == {"Sin", "Cos"}
