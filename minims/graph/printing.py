"""How a graph reads: its text form and its constants, installed on the core's IR classes.

``print(graph)`` (and ``graph.text()``) writes a graph in A-normal form, one equation per line,
each with its output type, a primitive's static attributes in brackets, a Parameter input named,
and the writes (``assign``) and Cell attributes (``set``) a run makes::

    graph add_fn(%0: Float32[4, 4], %1: Float32[4, 4]) {
      %2 = Add(%0, %1) : Float32[4, 4]
      return %2
    }
"""
from __future__ import annotations

import numpy as np

from ..core.ir import Equation, Graph, Literal, type_text
from ..core import install
from ..core.tensor import Tensor

__all__ = ["prim_label"]


def _literal_repr(self) -> str:
    v = self.value
    if isinstance(v, Tensor):
        if v.size <= 4:
            return np.array2string(v._data, separator=", ", precision=6)
        return f"const<{type_text(v.shape, v.dtype)}>"
    return repr(v)


def _equation_text(self) -> str:
    lhs = ", ".join(repr(v) for v in self.outs) if self.outs else "_"
    types = ", ".join(v.type for v in self.outs)
    if self.multiple:
        types = f"({types})"
    args = ", ".join(repr(a) for a in self.ins)
    return f"{lhs} = {prim_label(self.prim)}({args}) : {types}"


def prim_label(prim) -> str:
    """A primitive as an equation names it: its name, and its static attributes in brackets."""
    attrs = prim._attrs() if hasattr(prim, "_attrs") else {}
    shown = {k: v for k, v in attrs.items() if isinstance(v, (bool, int, float, str, tuple)) and k != "cell"}
    if not shown:
        return prim.name
    return f"{prim.name}[{', '.join(f'{k}={v!r}' for k, v in shown.items())}]"


def _graph_text(self) -> str:
    params = ", ".join(f"{v!r}: {v.type}" for v in self.inputs)
    lines = [f"graph {self.name}({params}) {{"]
    for i, v in enumerate(self.inputs[self.n_explicit:]):
        obj = self.implicit[i]
        label = getattr(obj, "name", None) if hasattr(obj, "requires_grad") else None
        lines.append(f"  # {v!r} is {'Parameter ' + repr(label) if label else 'a value from outside'}")
    for eq in self.equations:
        lines.append("  " + eq.text())
    for param, value in self.effects:
        lines.append(f"  assign {param.name} <- {value!r}")
    n = start = self.n_outputs
    for cell, name, _, count in self.attributes:
        values = ", ".join(repr(o) for o in self.outputs[start:start + count])
        lines.append(f"  set {type(cell()).__name__}.{name} <- {values}")
        start += count
    outs = ", ".join(repr(o) for o in self.outputs[:n])
    if not self.outputs and self.out_tree[0] == "static":
        outs = repr(self.out_tree[1])
    lines.append(f"  return {outs}")
    lines.append("}")
    return "\n".join(lines)


install(Literal, __repr__=_literal_repr)
install(Equation, text=_equation_text)
install(Graph, text=_graph_text, __str__=_graph_text)
