"""The graph IR: typed variables, equations, and a readable text form.

A ``Graph`` is a flat list of equations in A-normal form, each applying one primitive from the
same table PyNative uses::

    graph add_fn(%0: Float32[4, 4], %1: Float32[4, 4]) {
      %2 = Add(%0, %1) : Float32[4, 4]
      return %2
    }

Inputs are the function's Tensor arguments followed by its *implicit* inputs: Parameters (and
values from outer gradient levels) that the function reads without receiving them as arguments.
``effects`` lists Parameter writes (``ops.assign``) that the executor performs after a run.
``attributes`` names the Cell attributes the function set to a computed value (``self.last = x * 2``):
their values are the graph's last outputs, after the function's own, and the compiled function sets
each attribute to its value after every run.
"""
from __future__ import annotations

import numpy as np

from .tensor import Tensor

__all__ = ["Var", "Literal", "Equation", "Graph", "type_text"]


def type_text(shape, dtype) -> str:
    return f"{dtype}[{', '.join(str(d) for d in shape)}]"


class Var:
    """A value computed inside the graph (or an input), with its static type."""

    __slots__ = ("index", "shape", "dtype")

    def __init__(self, index: int, shape: tuple, dtype):
        self.index = index
        self.shape = tuple(shape)
        self.dtype = dtype

    @property
    def type(self) -> str:
        return type_text(self.shape, self.dtype)

    def __repr__(self) -> str:
        return f"%{self.index}"


class Literal:
    """A constant: a Tensor computed at trace time, or a static Python value (an axis, a shape)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    @property
    def is_tensor(self) -> bool:
        return isinstance(self.value, Tensor)

    def __repr__(self) -> str:
        v = self.value
        if isinstance(v, Tensor):
            if v.size <= 4:
                return np.array2string(v._data, separator=", ", precision=6)
            return f"const<{type_text(v.shape, v.dtype)}>"
        return repr(v)


class Equation:
    """``outs = prim(*ins)``; ``outs`` is a list of Vars (one per primitive output)."""

    __slots__ = ("prim", "ins", "outs", "multiple")

    def __init__(self, prim, ins, outs, multiple: bool):
        self.prim = prim
        self.ins = list(ins)
        self.outs = list(outs)
        self.multiple = multiple       # the primitive returns a tuple

    def text(self) -> str:
        lhs = ", ".join(repr(v) for v in self.outs) if self.outs else "_"
        types = ", ".join(v.type for v in self.outs)
        if self.multiple:
            types = f"({types})"
        args = ", ".join(repr(a) for a in self.ins)
        return f"{lhs} = {_prim_label(self.prim)}({args}) : {types}"


def _prim_label(prim) -> str:
    attrs = prim._attrs() if hasattr(prim, "_attrs") else {}
    shown = {k: v for k, v in attrs.items() if isinstance(v, (bool, int, float, str, tuple)) and k != "cell"}
    if not shown:
        return prim.name
    return f"{prim.name}[{', '.join(f'{k}={v!r}' for k, v in shown.items())}]"


class Graph:
    """A traced function: inputs, equations, outputs (in the function's output structure)."""

    def __init__(self, name, inputs, equations, outputs, out_tree, implicit, effects, n_explicit,
                 attributes=()):
        self.name = name
        self.inputs = list(inputs)          # Vars: explicit Tensor arguments, then implicit ones
        self.equations = list(equations)
        self.outputs = list(outputs)        # flat list of Var | Literal
        self.out_tree = out_tree            # how to rebuild the function's output structure
        self.implicit = list(implicit)      # objects fed to the implicit inputs (Parameters ...)
        self.effects = list(effects)        # (Parameter, Var | Literal): write after a run
        self.n_explicit = n_explicit
        # (weak reference to a Cell, attribute name, value structure, number of outputs): the last outputs
        self.attributes = list(attributes)
        self.removed = {}                   # pass name -> equations it removed (see passes.py)
        self._backward = None

    @property
    def n_outputs(self) -> int:
        """The number of the function's own outputs (the attribute values follow them)."""
        return len(self.outputs) - sum(count for *_, count in self.attributes)

    @property
    def num_equations(self) -> int:
        return len(self.equations)

    def text(self) -> str:
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

    __str__ = text

    def __repr__(self) -> str:
        return f"<Graph {self.name}: {len(self.inputs)} inputs, {len(self.equations)} equations>"

    def copy(self) -> "Graph":
        g = Graph(self.name, self.inputs, self.equations, self.outputs, self.out_tree, self.implicit,
                  self.effects, self.n_explicit, self.attributes)
        g.removed = dict(self.removed)
        return g

    def rewritten(self, equations, mapping: dict, pass_name: str, count: int) -> "Graph":
        """A copy with ``equations``, every Var in ``mapping`` replaced (transitively), and
        ``count`` more removals credited to ``pass_name`` (what every optimisation pass returns)."""
        def sub(x):
            while isinstance(x, Var) and x.index in mapping:
                x = mapping[x.index]
            return x
        g = self.copy()
        g.equations = [Equation(eq.prim, [sub(a) for a in eq.ins], eq.outs, eq.multiple) for eq in equations]
        g.outputs = [sub(o) for o in self.outputs]
        g.effects = [(p, sub(v)) for p, v in self.effects]
        if count:                           # a pass that found nothing is not reported
            g.removed[pass_name] = g.removed.get(pass_name, 0) + count
        return g

    @property
    def reports(self) -> list:
        """What each optimisation pass did, in words."""
        words = {"constant folding": "equation(s) computed at compile time",
                 "common subexpressions": "duplicate equation(s) removed",
                 "dead code": "unused equation(s) removed",
                 "algebraic simplification": "identity equation(s) (x * 1, x + 0, -(-x), ...) replaced by their input"}
        return [f"{name}: {n} {words.get(name, 'removed')}" for name, n in self.removed.items()]
