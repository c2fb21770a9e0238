"""Issue 27, item 2 ("pictures"): graph drawings name their inputs and outputs after the Python
variables — ``x``, ``w``, ``b``, ``dout`` → ``dx``, ``dw``, ``db`` — rather than ``input %0`` ...
``output 2``, so that a learner need not match shapes to tell them apart.

The expected names are read off the code of each test's function (its parameters, the variable its
``return`` returns, the Parameters' ``name=``), and the gradient of input ``v`` is called ``dv``.
"""
import numpy as np
import pytest

pytest.importorskip("matplotlib")

import minims as ms                                              # noqa: E402
from minims import Parameter, Tensor, nn, ops                    # noqa: E402
from minims.graph.draw import draw_graph, draw_residuals, draw_side_by_side   # noqa: E402
from minims.graph.draw_names import argument_names, returned_names           # noqa: E402
from minims.graph.draw_tape import tape_values                   # noqa: E402


def dense(x, w, b):
    out = ops.tanh(ops.matmul(x, w) + b)
    return out


X = Tensor(np.ones((4, 3), np.float32))
W = Tensor(np.full((3, 2), 0.5, np.float32))
B = Tensor(np.zeros(2, np.float32))


class Affine(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.full((3, 2), 0.5, np.float32)), name="w")
        self.b = Parameter(Tensor(np.zeros(2, np.float32)), name="b")

    def construct(self, x):
        return ops.matmul(x, self.w) + self.b


def labels(ax, kind):
    """The name line of each ``kind`` box ("input", "output"), by position."""
    found = {}
    for t in ax.texts:
        gid = t.get_gid() or ""
        if gid.startswith(kind + "-") and gid.endswith("-label") and t.get_fontweight() == "bold":
            found[int(gid.split("-")[1])] = t.get_text()
    return [found[i] for i in sorted(found)]


def test_a_forward_graph_is_named_after_the_functions_parameters_and_returned_variable():
    """Item 2: the boxes were 'input %0', 'input %1', 'input %2' and 'output'; with ``names=dense``
    they are dense's parameters x, w, b and the variable it returns, out."""
    ax = draw_graph(ms.jit(dense).graph(X, W, B), names=dense)
    assert labels(ax, "input") == ["x", "w", "b"]
    assert labels(ax, "output") == ["out"]
    unnamed = draw_graph(ms.jit(dense).graph(X, W, B))
    assert labels(unnamed, "input") == ["input %0", "input %1", "input %2"]


def test_a_backward_graph_names_the_cotangent_and_the_gradients():
    """Item 2: the backward graph's inputs are the forward inputs and the cotangent of ``out``, named
    ``dout``; its outputs the gradients of x, w, b, named dx, dw, db.  Drawn alone with a list of
    names, or beside its forward graph with the function."""
    f = ms.jit(dense)
    ax = draw_graph(f.grad_graph(X, W, B), names=("x", "w", "b"))
    assert labels(ax, "input") == ["x", "w", "b", "dout"]
    assert labels(ax, "output") == ["dx", "dw", "db"]
    fig = draw_side_by_side(f.graph(X, W, B), f.grad_graph(X, W, B), names=f)
    forward, backward = fig.axes
    assert labels(forward, "input") == ["x", "w", "b"] and labels(forward, "output") == ["out"]
    assert labels(backward, "input") == ["x", "w", "b", "dout"]
    assert labels(backward, "output") == ["dx", "dw", "db"]


def test_the_forward_graph_names_the_parameters_of_the_backward_graph():
    """Item 2: a Cell's Parameters are implicit inputs of the forward graph (drawn 'Parameter w'); in
    the backward graph they are ordinary inputs, and take their Parameter's name from the forward
    graph beside it (by position: the two graphs number their Vars differently)."""
    net = Affine()

    def network(x):
        return net(x)

    f = ms.jit(network)
    fig = draw_side_by_side(f.graph(X), f.grad_graph(X), names=network)
    _, backward = fig.axes
    assert labels(backward, "input") == ["x", "w", "b", "dout"]
    assert labels(backward, "output") == ["dx", "dw", "db"]


def test_a_residual_split_names_residuals_after_the_inputs_they_are():
    """Item 2: in ``draw_residuals`` the forward graph's inputs and output are named, a residual that
    is an input is 'residual <its name>', the cotangent 'dout' and the gradients dx, dw, db."""
    f = ms.jit(dense)
    split = f.residual_graphs(X, W, B)
    fig = draw_residuals(split, names=dense)
    forward, backward = fig.axes[:2]
    assert labels(forward, "input") == ["x", "w", "b"]
    outputs = labels(forward, "output")
    assert outputs[0] == "out"
    inputs_named = {v.index: name for v, name in zip(split.forward.inputs, ("x", "w", "b"))}
    for k, v in enumerate(split.residuals):
        expected = f"residual {inputs_named[v.index]}" if v.index in inputs_named else f"residual {v!r}"
        assert outputs[split.n_outputs + k] == expected
        assert labels(backward, "input")[k] == expected
    assert labels(backward, "input")[-1] == "dout"
    assert labels(backward, "output") == ["dx", "dw", "db"]


def test_names_come_from_signatures_and_return_statements():
    """Item 2, where the names come from: a function's, a ``jit`` function's and a Cell's parameters
    (``self`` left out), and the variables a ``return`` returns (none for an expression)."""
    def pair(x, y):
        out, mask = x, y
        return out, mask

    assert argument_names(dense) == ["x", "w", "b"] == argument_names(ms.jit(dense))
    assert argument_names(Affine()) == ["x"]
    assert returned_names(dense) == ["out"] and returned_names(pair) == ["out", "mask"]
    assert returned_names(Affine()) == []


def test_draw_tape_names_the_inputs_after_the_functions_parameters():
    """Item 2: ``draw_tape(fn, ...)`` named the inputs x0, x1 unless given names; it now reads them from
    fn's signature."""
    def f(x, y):
        return ops.sin(x * y) + x

    rows = tape_values(f, Tensor(np.float64(0.5)), Tensor(np.float64(2.0)))
    assert [r.name for r in rows if r.op == "input"] == ["x", "y"]
