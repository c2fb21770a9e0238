"""Naming the boxes of a graph picture after the Python variables: ``x``, ``w``, ``b``, ``dout`` →
``dx``, ``dw``, ``db``, instead of ``input %0`` ... ``output 2``.

A traced graph keeps no names: its inputs are Vars ``%0, %1 ...`` and its outputs positions.  The
names come from where the graph came from, given to the drawing functions as ``names=``:

* a **function** (a plain function, a ``jit`` function, a Cell: its ``construct``): its parameters,
  read with ``inspect.signature``, name the Tensor arguments in order; the variables its last
  ``return`` statement returns (``return loss`` or ``return out, mask``), read from its source,
  name the outputs;
* or a **sequence** of names for the graph's inputs in order (Tensor arguments first, then the
  Parameters it reads, as a backward graph or a residual split lists them).

From those, every graph of one compiled function is named by the role each value plays:

=====================  ========================================================================
forward graph          inputs: the arguments (a Parameter keeps its own name); outputs: the
                       returned variables (``output`` when the function returns an expression)
backward graph         the forward inputs by name, then one cotangent per output, ``d`` + the
``f.grad_graph(...)``  output's name (``dout`` for an unnamed output); outputs: ``dx``, ``dw`` ...,
                       ``d`` + the name of the input each gradient is for
residual split         as above, the residuals named after the input they are, if they are one
=====================  ========================================================================

The forward graph also teaches the names of its Parameters (implicit inputs) to the backward graph
drawn beside it: the two share their inputs' Var numbers.  Where no name is known, the box keeps its
old label.  Nothing here changes a graph; only the labels of its picture.
"""
from __future__ import annotations

import ast
import inspect
import textwrap

__all__ = ["argument_names", "returned_names", "Naming"]


def _function(fn):
    """The Python function behind ``fn``: a Cell's ``construct``, a ``jit`` function's ``fn``."""
    construct = getattr(type(fn), "construct", None)
    if construct is not None and not inspect.isfunction(fn):
        return fn.construct
    return getattr(fn, "fn", fn)


def argument_names(fn) -> list[str]:
    """The names of ``fn``'s positional parameters (``self`` of a method left out); [] if unknown."""
    try:
        sig = inspect.signature(_function(fn))
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in sig.parameters.values() if p.kind in kinds]


def returned_names(fn) -> list[str]:
    """The variables the last ``return`` of ``fn``'s body returns: ``["loss"]`` for ``return loss``,
    ``["out", "mask"]`` for ``return out, mask``; [] for an expression or an unreadable source."""
    try:
        source = textwrap.dedent(inspect.getsource(inspect.unwrap(_function(fn))))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return []
    body = tree.body[0] if tree.body and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    if body is None or not isinstance(body.body[-1], ast.Return) or body.body[-1].value is None:
        return []
    value = body.body[-1].value
    items = value.elts if isinstance(value, ast.Tuple) else [value]
    if all(isinstance(item, ast.Name) for item in items):
        return [item.id for item in items]
    return []


def _gradient(name: str) -> str:
    """'dx' for 'x'; 'd(fc.weight)' for a dotted Parameter name."""
    return f"d{name}" if name.isidentifier() else f"d({name})"


class Naming:
    """The names of one compiled function's values, for the labels of its pictures.

    ``names``: a function or a sequence (see the module docstring), or None (no names: the boxes
    keep their ``input %0`` labels).  ``learn(forward_graph)`` adds the names of its Parameters;
    a backward graph lists the forward graph's inputs first, in the same order (though maybe under
    other Var numbers), so its inputs are named by position.
    """

    def __init__(self, names=None):
        if names is None:
            self.arguments, self.returns = [], []
        elif isinstance(names, str) or not hasattr(names, "__iter__") or callable(names):
            self.arguments, self.returns = argument_names(names), returned_names(names)
        else:
            self.arguments, self.returns = [str(n) for n in names], []
        self.learnt: list = []                  # the forward graph's inputs' names, by position
        self.by_index: dict[int, str] = {}      # ... by Var number (a residual split shares its Vars)

    def __bool__(self) -> bool:
        return bool(self.arguments or self.returns or self.learnt)

    def _input(self, i: int) -> str | None:
        """The name of the forward graph's input ``i``."""
        if i < len(self.learnt) and self.learnt[i]:
            return self.learnt[i]
        return self.arguments[i] if i < len(self.arguments) else None

    def _output(self, i: int, count: int) -> str | None:
        return self.returns[i] if len(self.returns) == count else None

    def _cotangent(self, i: int, count: int) -> str:
        named = self._output(i, count)
        return _gradient(named) if named else ("dout" if count == 1 else f"dout{i}")

    def learn(self, graph) -> None:
        """Remember the names of the forward graph ``graph``'s inputs: its Tensor arguments, then its
        implicit Parameters under their own names."""
        self.learnt = []
        for i, v in enumerate(graph.inputs):
            if i < graph.n_explicit:
                name = self.arguments[i] if i < len(self.arguments) else None
            else:
                obj = graph.implicit[i - graph.n_explicit]
                name = getattr(obj, "name", None) if hasattr(obj, "requires_grad") else None
            self.learnt.append(name)
            if name:
                self.by_index[v.index] = name

    def forward(self, graph, n_outputs: int | None = None) -> tuple[dict, dict]:
        """(input labels, output labels) by position for the forward graph last ``learn``-t (its
        first ``n_outputs`` outputs are the function's; a residual split adds residuals after them)."""
        inputs = {i: n for i in range(graph.n_explicit) if (n := self._input(i))}
        count = graph.n_outputs if n_outputs is None else n_outputs
        outputs = {i: n for i in range(count) if (n := self._output(i, count))}
        return inputs, outputs

    def backward(self, graph, n_forward: int, residuals=(), positions=None) -> tuple[dict, dict]:
        """(input labels, output labels) for a backward graph: its inputs are the ``residuals`` (Vars
        of a split) if any, else the ``n_forward`` inputs of the forward graph, then one cotangent per
        forward output; its outputs are the gradients of the forward inputs at ``positions`` (all,
        in order, by default)."""
        inputs = {}
        for k, v in enumerate(residuals):
            if v.index in self.by_index:
                inputs[k] = f"residual {self.by_index[v.index]}"
        if not residuals:
            inputs = {i: n for i in range(n_forward) if (n := self._input(i))}
        first = len(residuals) or n_forward
        count = len(graph.inputs) - first
        for k in range(count):
            inputs[first + k] = self._cotangent(k, count)
        positions = range(len(graph.outputs)) if positions is None else positions
        outputs = {i: _gradient(n) for i, p in enumerate(positions) if (n := self._input(p))}
        return inputs, outputs
