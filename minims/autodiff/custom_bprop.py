"""A Cell with its own ``bprop``: one node on every gradient level, whose rule is the user's bprop.

``CellBprop(cell, n_inputs, params)`` is a primitive made for one call of such a Cell.  Its forward
runs ``construct`` on plain values (the gradient levels do not look inside it); its backward calls
``cell.bprop(*inputs, out, dout)`` under the outer levels, so a bprop written with minims ops (or
other Cells) is differentiated in turn — second order through a custom bprop needs nothing special.
Forward mode follows the bprop too, by transposition (``minims.autodiff.jvp_from_bprop``), except in
``ops.derivative``, which differentiates ``construct`` (``constructs_instead_of_bprops``).

Every result of a user's bprop is checked, following the documentation's constraints: a tuple, one
gradient per input, shapes and dtypes matching the inputs; with ``internal_params``, a pair
``(input_grads, {param: grad})``; and no Parameter may be used inside a bprop unless listed there.
"""
from __future__ import annotations

import inspect
import threading
from contextlib import contextmanager

from ..tensors.parameter import Parameter
from ..core import stack
from ..core.staging import rebuild
from ..tensors import lending
from ..core.stack import MinimsError
from ..core.primitive import Primitive
from ..core.tensor import Tensor
from ..tensors.convert import _describe
from .hooks import cannot_bind
from .jvp_from_bprop import jvp_from_bprop

__all__ = ["CellBprop", "BpropError", "constructs_instead_of_bprops", "bprops_in_use"]

_without_bprops = threading.local()     # depth of constructs_instead_of_bprops, per thread


@contextmanager
def constructs_instead_of_bprops():
    """While active, a Cell with a custom ``bprop`` runs its ``construct`` like any Cell, so the
    transforms see its primitives: ``ops.derivative`` uses it, as MindSpore 2.10's differentiates
    the forward primitives there (its ``jvp`` and ``vmap`` of ``grad`` use the bprop, as minims')."""
    _without_bprops.depth = getattr(_without_bprops, "depth", 0) + 1
    try:
        yield
    finally:
        _without_bprops.depth -= 1


def bprops_in_use() -> bool:
    """False inside ``constructs_instead_of_bprops``: a Cell call then ignores its custom bprop."""
    return not getattr(_without_bprops, "depth", 0)


class BpropError(MinimsError, TypeError, RuntimeError):
    """A custom bprop returned something unusable.  MindSpore raises TypeError for a result that
    is not a tuple of Tensors and RuntimeError for the wrong number of gradients; this is both."""


class BpropShapeError(MinimsError, RuntimeError, ValueError):
    """A custom bprop returned a gradient of the wrong shape (MindSpore: RuntimeError)."""


class BpropParameterError(MinimsError, RuntimeError):
    """A custom bprop used a Parameter that is not in ``internal_params``."""


class CellBprop(Primitive):
    """The tape node of one call of a Cell that defines ``bprop``."""

    def __init__(self, cell, path: str, n_inputs: int, params: tuple):
        self.cell = cell
        self.path = path
        self.n_inputs = n_inputs
        self.params = params
        self.tree = ("leaf", 0)     # construct's output structure (set by each forward run)

    @property
    def name(self) -> str:
        return f"{type(self.cell).__name__}.bprop"

    # ----- forward: construct on plain values ---------------------------------------------------
    def impl(self, *arrays):
        inputs = [Tensor._make(a) if hasattr(a, "dtype") and hasattr(a, "shape") else a
                  for a in arrays[:self.n_inputs]]
        with lending.parameters_as_themselves():       # inside the node, weights are constants
            out = self.cell.construct(*inputs)
        # the primitive's outputs are the Tensors of construct's output, flat: a nested tuple
        # ((a, (b, c))) is three outputs, rebuilt by ``structured`` for the caller and the bprop
        leaves = []
        self.tree = _tree(out, leaves)
        arrays = tuple(t._data for t in leaves)
        return arrays[0] if self.tree[0] == "leaf" else arrays

    def structured(self, flat):
        """The primitive's flat output (a Tensor, or a tuple of them) in construct's structure."""
        return rebuild(self.tree, list(flat) if isinstance(flat, tuple) else [flat])

    # ----- forward mode: the user's rule, transposed -----------------------------------------------
    def jvp(self, primals, tangents):
        """``jvp``, ``jacfwd`` and ``linearize`` follow the user's bprop, as in MindSpore: the rule is
        linear in ``dout``, and its transpose is the forward-mode derivative it defines."""
        return jvp_from_bprop(self, primals, tangents)

    # ----- backward: the user's rule ------------------------------------------------------------
    def bprop(self, *args):
        inputs = args[:self.n_inputs]
        out, dout = self.structured(args[-2]), self.structured(args[-1])
        # a Parameter passed in as a forward input is an input like any other (MindSpore accepts it)
        allowed = {id(p) for p in self.params} | {id(a) for a in inputs if isinstance(a, Tensor)}
        guard = _ParameterGuard(self, allowed)
        stack.add_rewriter(guard)
        try:
            result = self._call_bprop((*inputs, out, dout))
        finally:
            stack.remove_rewriter(guard)
        input_grads, param_grads = self._split(result)
        self._check_inputs(inputs, input_grads)
        return tuple(input_grads) + tuple(param_grads)

    def _call_bprop(self, args):
        """``cell.bprop(*args)``; a bprop whose parameters do not fit raises MindSpore's words, then minims'."""
        try:
            return self.cell.bprop(*args)
        except TypeError:
            why = cannot_bind(self.cell.bprop, args)
            if why is None:
                raise               # a TypeError from inside the bprop: it names its own cause
        expected = self._expected_signature()
        try:
            count = len(inspect.signature(self.cell.bprop).parameters)
        except (TypeError, ValueError):
            count = None
        sentence = (f"The function 'bprop' of Primitive or Cell requires at least 2 params 'out' and 'dout', but "
                    f"got only {count}." if count is not None and count < 2 else
                    "The params of function 'bprop' of Primitive or Cell requires the forward inputs as well as "
                    "the 'out' and 'dout'.")
        raise TypeError(f"{sentence} {self.path}.bprop is called as {expected}, but it is defined as {why}. "
                         f"Fix: give it the parameters {expected}.") from None

    def _expected_signature(self) -> str:
        """``bprop(x, y, out, dout)`` with construct's parameter names (for messages)."""
        try:
            names = list(inspect.signature(self.cell.construct).parameters)[:self.n_inputs]
        except (TypeError, ValueError):
            names = []
        if len(names) != self.n_inputs:
            names = [f"x{i}" for i in range(self.n_inputs)]
        return f"bprop({', '.join(names + ['out', 'dout'])})"

    def _split(self, result):
        where = f"{self.path}.bprop"
        if self.params:
            if (not isinstance(result, tuple) or len(result) != 2 or not isinstance(result[1], dict)):
                raise BpropError(
                    f"{where}: this Cell lists internal_params, so its bprop must return "
                    f"(input_grads, {{param: grad}}), but it returned {_describe(result)}. "
                    "Fix: return (dx,), {self.w: dw}."
                )
            input_grads, by_param = result
            if not isinstance(input_grads, tuple):
                raise BpropError(f"{where}: the input gradients must be a tuple, got {_describe(input_grads)}. "
                                 "Fix: return (dx,), {...}.")
            grads = []
            for p in self.params:
                g = by_param.get(p) if any(k is p for k in by_param) else None
                grads.append(_check_like(g, p, f"{where} gradient of Parameter '{p.name}'"))
            unknown = [k for k in by_param if not any(k is p for p in self.params)]
            if unknown:
                raise BpropError(f"{where}: returned a gradient for {_describe(unknown[0])}, which is not in "
                                 "internal_params. Fix: add it to self.internal_params.")
            return input_grads, grads
        if not isinstance(result, tuple):
            raise BpropError(
                f"{where} must return a tuple with one gradient per input, but returned "
                f"{_describe(result)}. Fix: write `return (dx,)` even for a single input."
            )
        return result, ()

    def _check_inputs(self, inputs, grads):
        where = f"{self.path}.bprop"
        if len(grads) != len(inputs):
            raise BpropError(
                f"{where} returned {len(grads)} gradient{'s' if len(grads) != 1 else ''} but "
                f"construct has {len(inputs)} input{'s' if len(inputs) != 1 else ''}. "
                "Fix: return exactly one gradient per input, in the order of construct's arguments."
            )
        for i, (g, x) in enumerate(zip(grads, inputs)):
            if isinstance(x, Tensor):
                _check_like(g, x, f"{where} gradient {i}")


def _check_like(g, x, what):
    if g is None:
        return None
    if not isinstance(g, Tensor):
        raise BpropError(f"{what}: expected a Tensor of shape {list(x.shape)}, but got {_describe(g)}.")
    if g.shape != x.shape:
        raise BpropShapeError(
            f"{what}: has shape {list(g.shape)} but the input has shape {list(x.shape)}. "
            "Fix: return a gradient shaped like its input (sum over broadcast dimensions)."
        )
    if g.dtype is not x.dtype:
        raise BpropError(
            f"{what}: has dtype {g.dtype} but the input has dtype {x.dtype}. "
            f"Fix: cast it, e.g. dx.astype(x.dtype)."
        )
    return g


class _ParameterGuard:
    """Watches ``bind`` while a bprop runs: Parameters outside internal_params are an error."""

    def __init__(self, node, allowed):
        self.node, self.allowed = node, allowed

    def __call__(self, prim, args):
        for a in args:
            if isinstance(a, Parameter) and id(a) not in self.allowed:
                raise BpropParameterError(
                    "The user defined 'bprop' function does not support using Parameter: "
                    f"{self.node.path}.bprop uses Parameter '{a.name}', but a bprop may only use the "
                    "forward inputs, out and dout (the documentation's constraint). Fix: list it in "
                    "self.internal_params and return its gradient as (input_grads, {param: grad}) — "
                    "PyNative only — or pass the value in as an input."
                )


def _tree(out, leaves: list):
    """``out``'s structure in ``staging.rebuild``'s form, its Tensors appended to ``leaves``."""
    if isinstance(out, (tuple, list)):
        return (type(out).__name__, [_tree(o, leaves) for o in out])
    if isinstance(out, dict):
        return ("dict", [(k, _tree(v, leaves)) for k, v in out.items()])
    if isinstance(out, Tensor):
        leaves.append(out)
        return ("leaf", len(leaves) - 1)
    return ("static", out)
