"""The graph IR: typed variables, equations, and graphs (``minims.graph.printing`` writes them)::

    graph add_fn(%0: Float32[4, 4], %1: Float32[4, 4]) {
      %2 = Add(%0, %1) : Float32[4, 4]
      return %2
    }

A ``Graph`` is a flat list of equations in A-normal form, each applying one primitive of the table
PyNative uses.  Its inputs are the function's Tensor arguments, then its *implicit* inputs (values it
reads without receiving them: Parameters, an outer level's values).  ``effects`` lists Parameter
writes to make after a run; ``attributes`` Cell attributes set to computed values (its last outputs).
"""
from __future__ import annotations

from .tensor import Tensor

__all__ = ["Var", "Literal", "Equation", "Graph", "type_text"]


def type_text(shape, dtype) -> str:
    return f"{dtype}[{', '.join(str(d) for d in shape)}]"


class Var:
    """A value computed inside the graph (or an input), with its static type."""

    __slots__ = ("index", "shape", "dtype")

    def __init__(self, index: int, shape: tuple, dtype):
        self.index, self.shape, self.dtype = index, tuple(shape), dtype

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


class Equation:
    """``outs = prim(*ins)``; ``outs`` is a list of Vars (one per primitive output)."""

    __slots__ = ("prim", "ins", "outs", "multiple")

    def __init__(self, prim, ins, outs, multiple: bool):
        self.prim, self.ins, self.outs = prim, list(ins), list(outs)
        self.multiple = multiple       # the primitive returns a tuple


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
        # (weak reference to a Cell, attribute name, value structure, number of outputs)
        self.attributes = list(attributes)

    @property
    def n_outputs(self) -> int:
        """The number of the function's own outputs (the attribute values follow them)."""
        return len(self.outputs) - sum(count for *_, count in self.attributes)

    @property
    def num_equations(self) -> int:
        return len(self.equations)

    def __repr__(self) -> str:
        return f"<Graph {self.name}: {len(self.inputs)} inputs, {len(self.equations)} equations>"

    def copy(self) -> "Graph":
        """A shallow copy (its own lists; what the layers above attached to it comes along)."""
        g = object.__new__(Graph)
        for name, value in self.__dict__.items():
            setattr(g, name, type(value)(value) if isinstance(value, (list, dict)) else value)
        return g
