"""Mode equivalence: a program must compute the same numbers in PyNative mode and in Graph mode.

minims runs a program in two ways.  PyNative mode calls each primitive as Python reaches it; Graph
mode (``jit(f)``, or ``set_context(mode=GRAPH_MODE)`` for a Cell) first traces ``f`` into a graph,
optimises it (constant folding, common subexpressions, dead code) and runs the graph.  A gradient
can be taken on either side of the compilation, so the same derivative can be computed several ways:

=========================  =====================================================================
``grad(f)``                the tape records every primitive PyNative runs (the reference)
``grad(jit(f))``           the tape records one node for the whole graph; its rule is the graph's
                           *backward graph* (the bprops replayed into a new, compiled graph)
``jit(grad(f))``           the whole gradient computation, forward and backward, is one graph
``jit(grad(jit(f)))``      the backward graph, inlined into a compiled gradient function
=========================  =====================================================================

and two levels of that give second derivatives.  For a program without hooks, prints, random
primitives or side effects every one of these must agree with PyNative, to the last bit in most
cases (the same NumPy kernels run in the same order; only the order in which cotangents are
summed may differ).  ``check_modes`` computes them all and says which pair disagrees::

    >>> from minims.testing import check_modes
    >>> result = check_modes(lambda x, y: ops.tanh(x * y).sum(), (x, y))
    >>> result                      # a table: every mode, its reference, the largest difference
    >>> result["jit(grad(f))"]      # the values one mode computed (NumPy arrays)

What is compared, in three families (each mode against the first of its family):

* forward: ``f``, ``jit(f)`` and, when ``f`` is a Cell, ``GRAPH_MODE f`` (the Cell called with
  ``set_context(mode=GRAPH_MODE)``, which compiles the top-level call);
* first order (``order >= 1``): ``grad(f)``, ``grad(jit(f))``, ``jit(grad(f))``,
  ``jit(grad(jit(f)))`` and, for a Cell, ``GRAPH_MODE grad(f)``;
* second order (``order >= 2``): ``grad(grad(f))``, ``grad(grad(jit(f)))``,
  ``grad(jit(grad(f)))``, ``jit(grad(grad(f)))`` and, for a Cell, ``GRAPH_MODE grad(grad(f))``.

"grad" here is ``ops.grad(g, grad_position=argnums, weights=weights)`` applied to the *sum of all
float outputs* of ``g``: a non-scalar output is summed, outputs in a structure (tuples, lists, dicts)
are summed over all of them (the same as the sensitivity of ones that ``GradOperation`` uses).  The second order differentiates
the sum of all first-order gradients in the same way.

Float Tensors are converted to float64 first (``float64=True``, the default), so that a tolerance of
``1e-12`` means something: float Tensor arguments become float64 Tensors and float Parameters
(``weights``, the Cell's own Parameters, and any listed in ``params``) hold float64 data for the
duration of the check.  Afterwards everything is put back: the Parameters' original arrays, the
context mode (``check_modes`` runs the reference in PyNative mode even if Graph mode was set) and a
Cell's compiled Graph-mode call, even when the check fails or ``f`` raises.

One caveat of the conversion: a float32 value is not the float64 number written in the source
(``float32(0.1)`` is ``0.10000000149...``), so a comparison with a Python constant at that very value
(``ops.gt(x, 0.1)``) can come out differently in float64.  Give such inputs as float64 Tensors, or
pass ``float64=False`` (and a looser tolerance, since float32 rounding differs more).
"""
from __future__ import annotations

import contextlib

import numpy as np

from .. import context
from ..autodiff.grad_api import grad
from ..tensors.parameter import Parameter
from .. import ops
from ..graph.jit import jit
from ..nn.cell import Cell
from ..core.tensor import Tensor
from ..tensors.convert import _describe

__all__ = ["check_modes", "ModeResults", "MODE_FAMILIES", "mode_functions", "snapshot"]

#: the modes of each family, reference first (the ``GRAPH_MODE`` ones run only for a Cell)
MODE_FAMILIES = {
    "forward": ("f", "jit(f)", "GRAPH_MODE f"),
    "first order": ("grad(f)", "grad(jit(f))", "jit(grad(f))", "jit(grad(jit(f)))",
                    "GRAPH_MODE grad(f)"),
    "second order": ("grad(grad(f))", "grad(grad(jit(f)))", "grad(jit(grad(f)))",
                     "jit(grad(grad(f)))", "GRAPH_MODE grad(grad(f))"),
}


#: at most this many disagreements are listed in the AssertionError (the table shows every mode)
MAX_REPORTED = 12


# ----- the result ----------------------------------------------------------------------------------
class ModeResults:
    """What ``check_modes`` computed: the values of every mode and how far each is from its reference.

    ``result[mode]`` is the list of values one mode returned, flattened (NumPy arrays for Tensors);
    ``result.labels[mode]`` names them (``output 0``, ``d/d arg 1``, ``d/d w`` ...);
    ``result.reference[mode]`` is the mode it was compared with; ``result.max_abs_diff[mode]`` the
    largest absolute difference from it (0.0 for a reference).  ``repr(result)`` is a table.
    """

    def __init__(self, name: str):
        self.name = name
        self.values: dict[str, list] = {}
        self.labels: dict[str, list[str]] = {}
        self.reference: dict[str, str] = {}
        self.max_abs_diff: dict[str, float] = {}

    def __getitem__(self, mode: str) -> list:
        return self.values[mode]

    def __contains__(self, mode: str) -> bool:
        return mode in self.values

    @property
    def modes(self) -> list[str]:
        return list(self.values)

    def __repr__(self) -> str:
        width = max([len(m) for m in self.values] + [len("compared with")])
        lines = [f"check_modes({self.name}): {len(self.values)} modes",
                 f"  {'mode':<{width}}  {'compared with':<{width}}  max |difference|  values"]
        for mode, vals in self.values.items():
            ref = self.reference.get(mode, "")
            diff = self.max_abs_diff.get(mode)
            diff_text = "(reference)" if ref == mode else ("-" if diff is None else f"{diff:.3e}")
            shapes = ", ".join(_brief(v) for v in vals)
            lines.append(f"  {mode:<{width}}  {ref:<{width}}  {diff_text:<16}  {shapes}")
        return "\n".join(lines)


def _brief(value) -> str:
    if isinstance(value, np.ndarray):
        return f"{value.dtype}{list(value.shape)}"
    return repr(value)


# ----- small helpers ---------------------------------------------------------------------------------
def _as_args(args) -> tuple:
    return (args,) if isinstance(args, Tensor) or not isinstance(args, (tuple, list)) else tuple(args)


def _leaves(value) -> list:
    """The leaves of a (nested) tuple/list/dict output, in order (a dict's in its key order)."""
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _leaves(item)]
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    return [value]


def _structure(value) -> str:
    """The nesting of an output, e.g. ``(T, {'a': [T]})``: compared between modes before the values."""
    if isinstance(value, tuple):
        return "(" + ", ".join(_structure(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(_structure(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_structure(v)}" for k, v in value.items()) + "}"
    return "T" if isinstance(value, Tensor) else type(value).__name__


def snapshot(value) -> list:
    """Flat copies of the leaves: NumPy arrays for Tensors, other values as they are."""
    return [np.array(leaf._data, copy=True) if isinstance(leaf, Tensor) else leaf for leaf in _leaves(value)]


def _is_float_tensor(value) -> bool:
    return isinstance(value, Tensor) and value.dtype.is_float


def _sum_of_outputs(fn):
    """``x -> sum over every float output of sum(output)``: the scalar the gradient modes differentiate."""
    def total(*args):
        floats = [o for o in _leaves(fn(*args)) if _is_float_tensor(o)]
        if not floats:
            raise TypeError(f"check_modes: {_name(fn)} has no float Tensor output to differentiate.")
        parts = [o if o.ndim == 0 else ops.sum(o) for o in floats]
        out = parts[0]
        for p in parts[1:]:
            out = ops.add(out, p)
        return out
    total.__name__ = f"sum_{_name(fn)}"
    total.minims_rewrap = (fn, _sum_of_outputs)         # source conversion reaches ``fn`` (conversion/)
    return total


def _name(fn) -> str:
    return getattr(fn, "__name__", None) or type(fn).__name__


def _is_cell(fn) -> bool:
    return isinstance(fn, Cell)


# ----- the state a check changes, and puts back ------------------------------------------------------
@contextlib.contextmanager
def _mode(mode):
    previous = context.get_context("mode")
    context.set_context(mode=mode)
    try:
        yield
    finally:
        context.set_context(mode=previous)


@contextlib.contextmanager
def _fresh_graph_call(cell):
    """Compile the Cell's Graph-mode call anew, and give the Cell its own compiled call back afterwards."""
    if cell is None:
        yield
        return
    saved = cell.__dict__.pop("_graph_call", None)
    try:
        yield
    finally:
        cell.__dict__.pop("_graph_call", None)
        if saved is not None:
            cell.__dict__["_graph_call"] = saved


@contextlib.contextmanager
def _float64_parameters(params):
    """Float Parameters hold float64 copies of their data; the original arrays are put back after."""
    saved, seen = [], set()
    for p in params:
        if id(p) in seen or not p.dtype.is_float or p._data.dtype == np.float64:
            continue
        seen.add(id(p))
        saved.append((p, p._data))
        p._data = np.asarray(p._data, dtype=np.float64)
    try:
        yield
    finally:
        for p, data in saved:
            p._data = data


# ----- the modes ---------------------------------------------------------------------------------------
def mode_functions(f, positions, weights, order, is_cell):
    """``{mode name: (function, runs in GRAPH_MODE?)}`` for every mode this check runs."""
    grad_position = tuple(positions) if positions else None

    def g(fn):
        """The gradient function of the sum of ``fn``'s float outputs."""
        return grad(_sum_of_outputs(fn), grad_position=grad_position, weights=weights or None)

    modes = {"f": (f, False), "jit(f)": (jit(f), False)}
    if is_cell:
        modes["GRAPH_MODE f"] = (f, True)
    if order >= 1:
        modes["grad(f)"] = (g(f), False)
        modes["grad(jit(f))"] = (g(jit(f)), False)
        modes["jit(grad(f))"] = (jit(g(f)), False)
        modes["jit(grad(jit(f)))"] = (jit(g(jit(f))), False)
        if is_cell:
            modes["GRAPH_MODE grad(f)"] = (g(f), True)
    if order >= 2:
        modes["grad(grad(f))"] = (g(g(f)), False)
        modes["grad(grad(jit(f)))"] = (g(g(jit(f))), False)
        modes["grad(jit(grad(f)))"] = (g(jit(g(f))), False)
        modes["jit(grad(grad(f)))"] = (jit(g(g(f))), False)
        if is_cell:
            modes["GRAPH_MODE grad(grad(f))"] = (g(g(f)), True)
    return modes


def _labels(family, n, positions, weights) -> list[str]:
    if family == "forward":
        return [f"output {i}" for i in range(n)]
    names = [f"d/d arg {p}" for p in positions] + [f"d/d {w.name}" for w in weights]
    return names if len(names) == n else [f"gradient {i}" for i in range(n)]


# ----- comparing --------------------------------------------------------------------------------------
def _compare(ref_mode, ref, mode, got, labels, atol, rtol):
    """Problems (strings) found comparing one mode's flat values with its reference's, and the
    largest absolute difference."""
    problems, worst = [], 0.0
    pair = f"'{ref_mode}' vs '{mode}'"
    if len(ref) != len(got):
        return [f"{pair}: {mode} returned {len(got)} values, {ref_mode} returned {len(ref)}"], float("inf")
    for i, (a, b) in enumerate(zip(ref, got)):
        where = f"{pair}, {labels[i] if i < len(labels) else f'output {i}'} (index {i})"
        if not isinstance(a, np.ndarray) or not isinstance(b, np.ndarray):
            if type(a) is not type(b) or a != b:
                problems.append(f"{where}: {ref_mode} gave {a!r}, {mode} gave {b!r}")
                worst = float("inf")
            continue
        if a.shape != b.shape or a.dtype != b.dtype:
            problems.append(f"{where}: {ref_mode} gave {a.dtype}{list(a.shape)}, "
                            f"{mode} gave {b.dtype}{list(b.shape)}")
            worst = float("inf")
            continue
        if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.number):
            if not np.array_equal(a, b):
                problems.append(f"{where}: the values differ "
                                f"({ref_mode}: {a.tolist()}, {mode}: {b.tolist()})")
                worst = float("inf")
            continue
        x, y = a.astype(np.float64), b.astype(np.float64)
        same = (x == y) | (np.isnan(x) & np.isnan(y))          # equal infinities and NaNs agree
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.where(same, 0.0, np.abs(x - y))
            diff = np.where(np.isnan(diff), np.inf, diff)        # a NaN on one side only
            bad = diff > atol + rtol * np.abs(x)
        largest = float(diff.max()) if diff.size else 0.0
        worst = max(worst, largest)
        if bad.any():
            k = np.unravel_index(int(np.argmax(np.where(bad, diff, -1.0))), diff.shape)
            index = tuple(int(j) for j in k)
            problems.append(
                f"{where}: max |difference| = {largest:.3e} ({int(bad.sum())} of {bad.size} elements "
                f"beyond atol + rtol * |reference|); at element {index}: {ref_mode} = {float(x[k])!r}, "
                f"{mode} = {float(y[k])!r}")
    return problems, worst


# ----- check_modes -----------------------------------------------------------------------------------
def check_modes(f, args, argnums=None, weights=None, order=2, atol=1e-12, rtol=0.0, float64=True,
                params=None):
    """Evaluate ``f`` and its first and second derivatives in every mode and check that they agree.

    ``args``: a tuple of ``f``'s arguments (a single Tensor is accepted too).
    ``argnums``: the positions differentiated (an int or a tuple); default: every float Tensor.
    ``weights``: Parameters differentiated as well (``ops.grad(..., weights=weights)``).
    ``order``: 0 compares the forward modes only, 1 adds first derivatives, 2 (default) second ones.
    ``atol``, ``rtol``: a value agrees when ``|mode - reference| <= atol + rtol * |reference|``.
    ``float64``: convert float Tensors and float Parameters (``weights``, a Cell's own Parameters,
    ``params``) to float64 for the check (restored afterwards).

    Returns a :class:`ModeResults`.  Raises ``AssertionError`` listing every disagreement: the pair of
    modes, the output or argument, the largest absolute difference and where it is.  A mode that
    raises counts as a disagreement too; an error in a reference mode (``f``, ``grad(f)``,
    ``grad(grad(f))``, all in PyNative mode) is raised as it is.
    """
    if order not in (0, 1, 2):
        raise ValueError(f"check_modes: order must be 0, 1 or 2, got {order!r}.")
    args = _as_args(args)
    if float64:
        args = tuple(Tensor(np.asarray(a._data, dtype=np.float64))
                     if _is_float_tensor(a) and not isinstance(a, Parameter) else a for a in args)
    if argnums is None:
        positions = tuple(i for i, a in enumerate(args) if _is_float_tensor(a))
    else:
        positions = (argnums,) if isinstance(argnums, int) else tuple(argnums)
        for p in positions:
            if not 0 <= p < len(args) or not isinstance(args[p], Tensor):
                raise ValueError(f"check_modes: argnums names argument {p}, which is "
                                 f"{'missing' if not 0 <= p < len(args) else _describe(args[p])}; "
                                 "it must be a Tensor.")
    if isinstance(weights, Parameter):
        weights = (weights,)
    weights = tuple(weights or ())
    if not positions and not weights:
        order = 0                                   # nothing to differentiate
    is_cell = _is_cell(f)
    cast = list(weights) + [a for a in args if isinstance(a, Parameter)] + list(params or ())
    if is_cell:
        cast += list(f.get_parameters())
    name = _name(f)
    result = ModeResults(name)
    problems, first_error = [], None

    with contextlib.ExitStack() as stack:
        stack.enter_context(_mode(context.PYNATIVE_MODE))
        stack.enter_context(_fresh_graph_call(f if is_cell else None))
        if float64:
            stack.enter_context(_float64_parameters(cast))
        modes = mode_functions(f, positions, weights, order, is_cell)
        for family, members in MODE_FAMILIES.items():
            ref_mode = members[0]
            if ref_mode not in modes:
                continue
            ref_out = None
            for mode in members:
                if mode not in modes:
                    continue
                fn, graph_mode = modes[mode]
                try:
                    with _mode(context.GRAPH_MODE) if graph_mode else contextlib.nullcontext():
                        out = fn(*args)
                except Exception as exc:
                    if mode == ref_mode:
                        exc.add_note(f"check_modes: raised by the reference mode '{mode}' (PyNative) "
                                     f"of {name}; the other modes were not compared.")
                        raise
                    first = str(exc).splitlines()[0] if str(exc) else ""
                    problems.append(f"'{ref_mode}' vs '{mode}': {mode} raised "
                                    f"{type(exc).__name__}: {first}")
                    first_error = first_error or exc
                    continue
                values = snapshot(out)
                result.values[mode] = values
                result.reference[mode] = ref_mode
                if mode == ref_mode:
                    ref_out = out
                    result.labels[mode] = _labels(family, len(values), positions, weights)
                    result.max_abs_diff[mode] = 0.0
                    continue
                result.labels[mode] = result.labels[ref_mode]
                if _structure(out) != _structure(ref_out):
                    problems.append(f"'{ref_mode}' vs '{mode}': the outputs are structured differently: "
                                    f"{_structure(ref_out)} vs {_structure(out)}")
                found, worst = _compare(ref_mode, result.values[ref_mode], mode, values,
                                        result.labels[ref_mode], atol, rtol)
                problems.extend(found)
                result.max_abs_diff[mode] = worst

    if problems:
        header = (f"check_modes: {len(problems)} disagreement{'s' if len(problems) != 1 else ''} "
                  f"between modes for {name} ({'float64' if float64 else 'original dtypes'}, "
                  f"atol={atol:g}, rtol={rtol:g}):")
        shown = [f"  - {p}" for p in problems[:MAX_REPORTED]]
        if len(problems) > MAX_REPORTED:
            shown.append(f"  ... and {len(problems) - MAX_REPORTED} more")
        message = "\n".join([header] + shown) + "\n" + repr(result)
        raise AssertionError(message) from first_error
    return result
