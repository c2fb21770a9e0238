"""The graph executor: a graph compiled to straight-line Python calling each primitive's ``impl``.

``Plan(graph)`` writes one line of Python per equation, ``v5 = k2(v3, c0)``, where ``k2`` is the
primitive's NumPy ``impl`` and ``c0`` a constant, and compiles it once.  Running a plan is then one
call of that function: no interpreter stack, no dtype promotion, no argument checks (those all
happened while tracing), no loop over a list of steps — the reason Graph mode costs less per op than
PyNative.  ``print(plan.source)`` shows the generated code.

If a kernel fails, the plan is re-run step by step to find the equation, so the error names the
primitive as in PyNative.

With ``set_context(check_nan=True)`` a plan runs a second, checking variant of its code, compiled
on first use, with a test after each equation (``if bad(v5): report(graph, 2, (v3, c0), (v5,))``): the
first equation that turns finite inputs into NaN/Inf raises ``NonFiniteError`` naming the graph, the
equation and the primitive (``minims.interpreters.nan_check``).  Without the option the plain code
runs, unchanged.

With the fast path on (``minims.fast.enabled``) a plan runs a third variant, built on first use:
the code of ``fuse_elementwise(graph)`` (``fuse.py``), where chains of elementwise equations are
single Numba kernels.  The switch is read at every run, so turning the fast path off gives the
plain code again; ``check_nan`` always runs the plain checking code (no fusion), so the equation
it names is the primitive that made the NaN.

A Parameter the graph writes (an effect: an optimizer's update) takes the array the graph computed
for it as it is, without a copy, when nothing else holds that array's memory: not an input, a
constant, another output or another write of the same run (``_unshared``).  minims never modifies an
array in place (``minims.tensors.undo``), so an array only the Parameter holds is safe to keep; any
other value (a view of an input, a number, another dtype) is copied, as before.  A W3 step writes
2.6 MB of weights: the copies took ~0.25 ms of its ~8 ms (issue 28, item 4).
"""
from __future__ import annotations

import numpy as np

from .. import fast
from ..tensors import undo
from ..interpreters import nan_check
from ..core.stack import MinimsError
from ..tracebacks import explained
from ..core.ir import Graph, Var

_CAUGHT = (ValueError, TypeError, IndexError, ZeroDivisionError, OverflowError)


class Plan:
    """``run(arrays)`` evaluates ``graph`` on NumPy arrays and returns the flat outputs."""

    def __init__(self, graph: Graph):
        self.graph = graph
        names: dict[int, str] = {}
        namespace: dict = {}
        lines = []

        def name_of(x) -> str:
            if isinstance(x, Var):
                return names.setdefault(x.index, f"v{x.index}")
            const = f"c{len(namespace)}"
            namespace[const] = x.value._data if x.is_tensor else x.value
            return const

        params = [name_of(v) for v in graph.inputs]
        checks = []             # per equation: (its line, its inputs, its outputs) for the checking code
        for i, eq in enumerate(graph.equations):
            kernel = f"k{i}"
            namespace[kernel] = eq.prim.impl
            args = ", ".join(name_of(a) for a in eq.ins)
            outs = [name_of(v) for v in eq.outs]
            lhs = (", ".join(outs) + ("," if len(outs) == 1 else "")) if eq.multiple else outs[0]
            lines.append(f"    {lhs} = {kernel}({args})")
            checks.append((lines[-1], args, outs))
        results = [name_of(o) for o in graph.outputs] + [name_of(v) for _, v in graph.effects]
        lines.append(f"    return ({', '.join(results)}{',' if len(results) == 1 else ''})")
        header = f"def run({', '.join(params)}):\n"
        self.source = header + "\n".join(lines) + "\n"
        exec(compile(self.source, f"<graph {graph.name}>", "exec"), namespace)   # noqa: S102
        self._fn = namespace.pop("run")     # not left in its own globals: no reference cycle
        self._n_out = len(graph.outputs)
        self._namespace = namespace
        self._constants = [v for v in namespace.values() if type(v) is np.ndarray]
        self._checking_parts = (header, checks, lines[-1])
        self._checking_fn = None
        self._fused_plan = None         # the Plan of the fused graph; False when nothing fuses

    @property
    def fused_plan(self) -> "Plan":
        """The plan of ``fuse_elementwise(graph)`` (itself when nothing fuses); built on first use."""
        if self._fused_plan is None:
            from .fuse import fuse_elementwise
            fused = fuse_elementwise(self.graph)
            # False, not self, when nothing fuses: a plan holding itself would be a reference cycle
            self._fused_plan = False if fused is self.graph else Plan(fused)
        return self._fused_plan or self

    def checking_source(self) -> str:
        """The code run under ``check_nan``: each equation followed by the test of its outputs."""
        header, checks, ret = self._checking_parts
        lines = []
        for i, (line, args, outs) in enumerate(checks):
            lines.append(line)
            test = " or ".join(f"bad({o})" for o in outs) or "False"
            lines.append(f"    if {test}: report(graph, {i}, ({args}{',' if args else ''}), "
                         f"({', '.join(outs)}{',' if outs else ''}))")
        return header + "\n".join(lines + [ret]) + "\n"

    def _checking(self):
        if self._checking_fn is None:
            namespace = dict(self._namespace, bad=nan_check.nonfinite, report=nan_check.check_equation,
                             graph=self.graph)
            exec(compile(self.checking_source(), f"<graph {self.graph.name}, checked>", "exec"),  # noqa: S102
                 namespace)
            self._checking_fn = namespace.pop("run")
        return self._checking_fn

    def run(self, arrays) -> list:
        fn = self._fn
        if nan_check.enabled:
            nan_check.note_composite()
            fn = self._checking()
        elif fast.enabled:
            fn = self.fused_plan._fn
        try:
            results = fn(*arrays)
        except MinimsError:
            raise
        except _CAUGHT:
            self._locate_failure(arrays)
            raise
        if self.graph.effects:
            self._write_effects(arrays, results)
        return [r if type(r) is np.ndarray else np.asarray(r) for r in results[:self._n_out]]

    def _write_effects(self, arrays, results) -> None:
        """Each written Parameter takes its new value: the computed array itself where only it holds
        that memory (module docstring), else a copy in the Parameter's dtype."""
        held = _roots(arrays) + _roots(self._constants) + _roots(results)
        for (param, _), value in zip(self.graph.effects, results[self._n_out:]):
            if not _unshared(value, param._data.dtype, held):
                value = np.array(value, dtype=param._data.dtype)
            undo.write(param, value)

    def _locate_failure(self, arrays) -> None:
        """Run the equations one by one and raise the failing primitive's own error."""
        env = {v.index: a for v, a in zip(self.graph.inputs, arrays)}

        def read(x):
            return env[x.index] if isinstance(x, Var) else (x.value._data if x.is_tensor else x.value)
        for eq in self.graph.equations:
            ins = [read(a) for a in eq.ins]
            try:
                out = eq.prim.impl(*ins)
            except _CAUGHT as exc:
                raise explained(eq.prim, exc, ins) from None
            for v, o in zip(eq.outs, out if eq.multiple else (out,)):
                env[v.index] = o


def _root(a):
    """The array that owns ``a``'s memory (``a`` itself, or the base its view chain ends at); None
    when that memory belongs to something other than an ndarray (a buffer NumPy wraps)."""
    while isinstance(a, np.ndarray) and a.base is not None:
        a = a.base
    return a if isinstance(a, np.ndarray) else None


def _roots(values) -> list:
    return [id(r) for r in map(_root, values) if r is not None]


def _unshared(value, dtype, held: list) -> bool:
    """True when a Parameter may keep ``value`` as its array: a C-contiguous ndarray of its dtype
    whose owning array appears once among ``held`` (the ids of the owners of the run's inputs,
    constants and results, ``value`` among them) — so nothing else refers to its memory."""
    if type(value) is not np.ndarray or value.dtype != dtype or not value.flags.c_contiguous:
        return False
    root = _root(value)
    return root is not None and held.count(id(root)) == 1
