"""A picture of one gradient computation: every node of the tape with its value and its gradient.

``draw_tape(fn, x, y, names=("x", "y"))`` runs ``fn`` under one gradient level (the tape of
``minims.core.tape``), walks the tape backwards from the output with a sensitivity of ones —
keeping the gradient that reaches every node, which the real backward pass frees as it goes — and
draws the graph top to bottom with the layout of ``minims.graph.draw``::

    [ x          ]   [ y          ]      inputs (blue): value, and d output / d input
    [ value 0.5  ]   [ value 2    ]
    [ grad 2.081 ]   [ grad 0.2702]
            \\           /
          [ v1 = Mul       ]             one box per recorded primitive: its value, and the
          [ value 1        ]             gradient of the output with respect to it
          [ grad 0.5403    ]

That is what micrograd's ``draw_dot`` shows for its scalar ``Value`` graph, for minims' tape.
``tape_values`` returns the same numbers, to print or to test them.  Only primitives with one
output are drawn (the tape of a Cell with several outputs is refused).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..primitives import functional as ops
from ..core.tape import TapeTrace, TapeTracer
from ..core.tensor import Tensor
from ..core.stack import pop_trace, push_trace
from ..primitives.base import run_bprop
from . import draw
from .draw_names import argument_names

__all__ = ["TapeNode", "tape_values", "draw_tape"]


@dataclass
class TapeNode:
    """One box of the picture: an input or a recorded primitive."""

    name: str                 # "x" for an input, "v1", "v2" ... for recorded nodes
    op: str                   # "input", or the primitive's name
    args: list                # per argument: the name of the node it came from, or the constant's text
    value: np.ndarray
    grad: np.ndarray | None   # d output / d this node; None if the node does not reach the output


def _number(a) -> str:
    a = np.asarray(a)
    if a.size == 1:
        return f"{float(a.reshape(-1)[0]):.4g}"
    return np.array2string(a, precision=3, separator=", ", threshold=6).replace("\n", "")


def _record(fn, inputs):
    trace = push_trace(TapeTrace())
    try:
        leaves = [trace.new_input(x) for x in inputs]
        out = fn(*leaves)
    finally:
        pop_trace(trace)
    if not (isinstance(out, TapeTracer) and out._trace is trace):
        raise ValueError("draw_tape: the output of fn does not depend on its inputs; there is nothing to draw.")
    for node in trace.tape:
        if isinstance(node.out, tuple):
            raise ValueError(f"draw_tape: {node.prim.name} has several outputs; only one-output primitives "
                             "are drawn.")
    return trace, leaves, out


def _cotangents(trace, out) -> dict:
    """The gradient of ``out`` (sensitivity ones) reaching every node, by node id."""
    cot = {id(out._node): ops.ones_like(out._primal)}
    for node in reversed(trace.tape):
        dout = cot.get(id(node))
        if dout is None:
            continue
        needed = tuple(p is not None for p in node.parents)
        grads = (run_bprop(node.prim, needed, (*node.args, node.out, dout)) if node.prim.skips_unneeded_grads
                 else node.prim.bprop(*node.args, node.out, dout))
        for parent, g in zip(node.parents, grads):
            if parent is not None and g is not None:
                key = id(parent[0])
                cot[key] = g if key not in cot else ops.add(cot[key], g)
    return cot


def tape_values(fn, *inputs, names=None) -> list[TapeNode]:
    """The inputs and every recorded node of ``fn(*inputs)``, with values and gradients.

    ``names`` names the inputs (default: ``fn``'s parameter names, else ``x0, x1, ...``).  A gradient is that of the *sum* of the
    output's entries, as ``ops.grad`` computes it.
    """
    if names is None:               # the function's own parameter names, as draw_graph's names= reads them
        names = argument_names(fn)
        names = names if len(names) == len(inputs) else [f"x{i}" for i in range(len(inputs))]
    names = list(names)
    trace, leaves, out = _record(fn, inputs)
    cot = _cotangents(trace, out)
    label = {id(leaf._node): name for leaf, name in zip(leaves, names)}
    rows = []
    for leaf, name in zip(leaves, names):
        g = cot.get(id(leaf._node))
        rows.append(TapeNode(name, "input", [], leaf._primal.asnumpy(), None if g is None else g.asnumpy()))
    for i, node in enumerate(trace.tape, 1):
        label[id(node)] = f"v{i}"
        args = [label.get(id(p[0]), "outer") if p is not None else _number(a._data if isinstance(a, Tensor) else a)
                for p, a in zip(node.parents, node.args)]
        g = cot.get(id(node))
        rows.append(TapeNode(f"v{i}", node.prim.name, args, node.out.asnumpy(), None if g is None else g.asnumpy()))
    return rows


def _box_lines(row: TapeNode):
    title = row.name if row.op == "input" else f"{row.name} = {row.op}"
    grad = "grad —" if row.grad is None else f"grad {_number(row.grad)}"
    return [(title, "name"), (f"value {_number(row.value)}", "type"), (grad, "type")]


def draw_tape(fn, *inputs, names=None, title=None):
    """A matplotlib Figure of ``fn``'s tape at ``inputs``: each node's value and gradient.

    Display it with ``display(fig)`` in Jupyter; it is not registered with pyplot.
    """
    rows = tape_values(fn, *inputs, names=names)
    nodes, edges, by_name = [], [], {}
    seq = iter(range(1 << 30))
    for row in rows:
        if row.op == "input":
            node = draw._Node("input", _box_lines(row), f"input-{row.name}", next(seq))
        else:
            node = draw._Node("equation", _box_lines(row), f"node-{row.name}", 0, in_ports=len(row.args))
            for port, arg in enumerate(row.args):
                source = by_name.get(arg)
                if source is None:          # a constant: a small box of its own above the node
                    source = draw._Node("constant", [(draw._short(arg), "const")], f"constant-{len(nodes)}",
                                        next(seq))
                    nodes.append(source)
                edges.append((source, 0, node, port, False))
            node.seq = next(seq)
        nodes.append(node)
        by_name[row.name] = node
    name = getattr(fn, "__name__", type(fn).__name__)
    layout = draw._Layout(None, f"{name}: value and gradient at every node" if title is None else title,
                          parts=(nodes, edges))
    return draw._figure(layout)
