"""Fusion: chains of elementwise equations become one ``Fused`` equation, run by one Numba loop.

Why: the executor calls one NumPy function per equation, and on small tensors that call's fixed
cost (~1 us) is the whole cost — W1's 200 elementwise ops on 4 floats.  A loop that computes the
whole chain per element pays it once, and for large tensors it reads and writes memory once instead
of once per op.

When: only with the fast path on.  This is a graph pass, but the executor runs it, not ``jit``:
``Plan`` (``executor.py``) keeps the plain code it always had, and builds the fused variant from
``fuse_elementwise(graph)`` the first time it runs with ``minims.fast.enabled`` — so switching the
fast path off at any moment gives exactly today's execution, ``jit``'s cache, the graphs it shows
and differentiation (which always works on the unfused graph: a ``Fused`` equation has no rules)
are untouched, and under ``check_nan`` the plain checking code runs, so a NaN is reported at the
primitive that made it.  ``jit_fn.graph(*args, fused=True)`` shows the fused graph.

What fuses (one cluster = one kernel):

* equations of the elementwise primitives in :data:`ELEMENTWISE` whose result is float32/float64,
  whose tensor operands are float (a Select's condition: Bool) and whose SymPy rule the printer of
  ``minims.fast.fusion`` can write; every member of a cluster has the same result shape (the loop's),
  operands broadcast into it;
* an equation joins the cluster of an operand's producer (merging two clusters when both feed it)
  only if every operand from outside the cluster was computed before the cluster's first member —
  then the fused equation can take the first member's place, nothing else moves (the order of
  Prints and random draws is kept) and no cycle can form;
* a value a member computes that is also used outside the cluster (or returned) is not recomputed
  elsewhere: the kernel stores it as one more output.  (A compiled gradient's forward graph
  returns its residuals: they are such outputs.)
* a ``ReduceSum``/``ReduceMean`` of a member joins as a reduction output (summed in the same loop);
  nothing in the cluster may use its result.
* a cluster of a single elementwise equation stays as it was (NumPy does one op as well);
* a cluster larger than one kernel's budget — :data:`MAX_STEPS` equations, :data:`MAX_PARAMETERS`
  arguments (inputs, stored outputs) — is cut, in order, into several kernels run one after the
  other, the values crossing a cut stored by one and read by the next.

Why a budget: Numba's compile time grows about linearly with a kernel's equations (~5 ms each) but
faster than linearly with its arguments — 0.5 s for 16 array inputs, 1.5 s for 64, 14 s for 256 —
and a compiled gradient's graphs pass one argument per residual: ``grad(jit(f))`` of a chain of 500
elementwise ops made a backward kernel of 254 arguments, and the first call took ~30 s of CPU
(1,000 ops: ~100 s; 10,000: never finished) where the unfused graph runs in 0.1 s.  Within the
budget it takes ~5 s of CPU for 200 to 1,000 ops and ~12 s for 10,000, since a repeating chain cut
into equal pieces reuses one compiled kernel per piece (the kernel cache is keyed by the source);
later calls run 2-9 times faster than unfused.  The first call still costs seconds that an unfused
graph does not (a later process loads the kernels from Numba's disk cache).  Arguments are counted
as the kernel takes them: stored outputs of a small loop share one block per dtype.
``python -m benchmarks.fusion_compile`` measures it.

Transcendental functions (:data:`VECTORISED_IN_NUMPY`) stay with NumPy on loops of
:data:`NUMPY_LOOP_AT` elements or more: the kernel calls the C library once per element (~15-30 ns
for tanh, sin, cosh), where NumPy's own loops are vectorised (float32 tanh of 1,000 elements: 0.8 µs
in NumPy, 22 µs in a Numba loop; ``python -m benchmarks.higher_order`` shows W4).  On W1's four
floats the kernel wins (one NumPy call costs ~0.5 µs whatever its size).  Those equations then give
the NumPy path's bits; the arithmetic around them still fuses.

``FloorDiv``/``FloorMod`` are left out: their SymPy forms, ``floor(x / y)`` and ``Mod``, are exact
arithmetic, and rounding ``x / y`` first gives another float answer than ``np.floor_divide``.
Integer and Bool results are left to NumPy (overflow and division by zero differ).
"""
from __future__ import annotations

import functools
import heapq
import warnings
from collections import Counter

import numpy as np

from ..core.ir import Equation, Graph, Literal, Var

__all__ = ["Fused", "fuse_elementwise", "ELEMENTWISE", "REDUCTIONS"]

#: Primitives whose result at an index depends only on their operands at that (broadcast) index.
ELEMENTWISE = frozenset({
    "Add", "Sub", "Mul", "Div", "Pow", "Maximum", "Minimum", "Neg", "Exp", "Log", "Sqrt", "Square",
    "Abs", "Sign", "Sin", "Cos", "Tanh", "Sigmoid", "Reciprocal", "Floor", "ReLU", "ReluGrad", "ReLU6",
    "ReLU6Grad", "Select", "Cast", "BroadcastTo", "Identity", "StopGradient", "TanhGrad", "SigmoidGrad"})

#: Elementwise primitives NumPy computes with vectorised loops and a kernel with one C library call
#: per element: left to NumPy on large loops (module docstring).
VECTORISED_IN_NUMPY = frozenset({"Exp", "Log", "Sin", "Cos", "Tanh", "Sigmoid", "TanhGrad", "SigmoidGrad", "Pow"})

#: ... from this many elements on (NumPy's SIMD tanh costs ~0.5 µs + 1 ns per element, a kernel's
#: ~20 ns per element: even at ~30 elements; sin and cos, rounded once through float64, ~100).
NUMPY_LOOP_AT = 256

#: Reductions a cluster may end in (summed in float64 in the same loop).
REDUCTIONS = {"ReduceSum": "sum", "ReduceMean": "mean"}

#: The budget of one kernel: at most this many member equations ...  (128 until issue 28: W1's
#: compiled value and gradient, ~400 equations, then ran as four kernels passing ~80 residual
#: arrays from one to the next; as one loop they stay in registers, 2-3x faster, and one kernel of
#: 400 equations compiled no slower than four of 100.)
MAX_STEPS = 512
#: ... and at most this many arguments (array and number inputs, outputs or their blocks).
#: Numba's compile time grows linearly with the equations but faster than linearly with the
#: arguments (module docstring); a longer chain becomes several kernels, one after the other.
MAX_PARAMETERS = 32

#: Operand positions that are static values, not data (a dtype, a shape).
_STATIC = {"Cast": (1,), "BroadcastTo": (1,)}

_FLOAT = ("float32", "float64")
_warned = set()


def _np_dtype(x):
    if isinstance(x, Var):
        return x.dtype.np_dtype
    return x.value._data.dtype


def _data_ok(eq, pos, x) -> bool:
    """May operand ``pos`` of ``eq`` be an input of a kernel?"""
    if isinstance(x, Literal) and not x.is_tensor:
        return isinstance(x.value, (int, float, np.integer, np.floating)) and not isinstance(x.value, bool)
    kind = np.dtype(_np_dtype(x)).name
    if eq.prim.name == "Select" and pos == 0:
        return kind == "bool"
    return kind in _FLOAT


def _template(eq, numpy_loop_at):
    """The scalar code of an elementwise equation, or None if it cannot be fused."""
    name = eq.prim.name
    if name not in ELEMENTWISE or eq.multiple or len(eq.outs) != 1 or not getattr(eq.prim, "pure", True):
        return None
    out = eq.outs[0]
    if numpy_loop_at is not None and name in VECTORISED_IN_NUMPY and int(np.prod(out.shape)) >= numpy_loop_at:
        return None
    if np.dtype(out.dtype.np_dtype).name not in _FLOAT:
        return None
    static = _STATIC.get(name, ())
    operands = []
    for pos, a in enumerate(eq.ins):
        if pos in static:
            operands.append(a.value if isinstance(a, Literal) else None)
            if not isinstance(a, Literal):
                return None
        elif not _data_ok(eq, pos, a):
            return None
        else:
            operands.append(None)
    if name == "Cast" and np.dtype(_np_dtype(eq.ins[0])).name not in _FLOAT:
        return None
    from ..fast.fusion import Unfusable, scalar_template   # no Numba imported: only SymPy
    try:
        return scalar_template(eq.prim, tuple(operands), np.dtype(out.dtype.np_dtype).name)
    except Unfusable:
        return None


def _reduction(eq):
    """("sum" | "mean", axes) for a float reduction of one tensor, else None."""
    kind = REDUCTIONS.get(eq.prim.name)
    if kind is None or len(eq.ins) != 2 or not isinstance(eq.ins[0], Var) or not isinstance(eq.ins[1], Literal):
        return None
    x, axes = eq.ins[0], eq.ins[1].value
    if np.dtype(x.dtype.np_dtype).name not in _FLOAT or eq.outs[0].dtype != x.dtype:
        return None
    if not isinstance(axes, tuple) or not all(isinstance(a, int) for a in axes):
        return None
    return kind, tuple(sorted({a % max(len(x.shape), 1) for a in axes})) if x.shape else ()


class _Cluster:
    __slots__ = ("members", "first", "ext_max", "shape", "reductions")

    def __init__(self, position, shape):
        self.members = [position]       # equation positions, in order
        self.first = position
        self.ext_max = -1               # latest position of an operand's producer outside the cluster
        self.shape = shape
        self.reductions = set()         # positions of reduction members


class Fused:
    """The primitive of a fused equation: its member equations, run by one generated kernel.

    Not a row of the primitive table (it has no rules: a fused graph is only executed, never
    differentiated) but it quacks like a primitive for the executor, the text form and ``draw``.
    """

    pure = True
    has_effect = False
    differentiable = False

    def __init__(self, equations, ins, outs, spec, label):
        self.equations = equations      # the member equations, in order (the NumPy reference)
        self.ins, self.outs = ins, outs
        self.spec = spec
        self.label = label
        self._run = None

    @property
    def name(self) -> str:
        return f"Fused[{self.label}]"

    def _attrs(self) -> dict:
        return {}

    def __repr__(self) -> str:
        return f"Prim[{self.name}]"

    def body_text(self) -> str:
        """The member equations, as the unfused graph shows them."""
        return "\n".join(eq.text() for eq in self.equations)

    def impl(self, *arrays):
        run = self._run
        if run is None:
            run = self._run = self._build()
        return run(*arrays)

    def _build(self):
        try:
            from ..fast.fusion import compile_kernel
            run = compile_kernel(self.spec)
            # the constants as they are (a read-only array is another Numba signature), zeros for the rest
            probe = [(x.value._data if x.is_tensor else x.value) if isinstance(x, Literal)
                     else np.zeros(i.shape, i.dtype) for x, i in zip(self.ins, self.spec.inputs)]
            with np.errstate(all="ignore"):
                run(*probe)                 # compile now: a typing error is caught here, not later
            return run
        except Exception as exc:            # noqa: BLE001 - any failure: the NumPy path, said once
            if self.label not in _warned:
                _warned.add(self.label)
                warnings.warn(f"minims: could not compile the fused kernel {self.name} ({type(exc).__name__}: "
                              f"{exc}); running its equations with NumPy.", RuntimeWarning, stacklevel=2)
            return self._numpy

    def _numpy(self, *arrays):
        """The member equations one by one with their NumPy ``impl`` (the reference)."""
        env = {}
        for x, a in zip(self.ins, arrays):
            env[id(x) if isinstance(x, Literal) else x.index] = a

        def read(x):
            if isinstance(x, Var):
                return env[x.index]
            if id(x) in env:
                return env[id(x)]
            return x.value._data if x.is_tensor else x.value
        for eq in self.equations:
            env[eq.outs[0].index] = eq.prim.impl(*[read(a) for a in eq.ins])
        return tuple(env[v.index] for v in self.outs)

    def explain_failure(self, exc, args):
        return type(exc)(f"{self.name}: {exc}")


def _label(eqs) -> str:
    """``tanh∘add∘mul∘sin``: the members' names, the last applied first (composition order)."""
    names = [eq.prim.name.lower() for eq in reversed(eqs)]
    if len(names) > 8:
        return "∘".join(names[:4]) + "∘…∘" + "∘".join(names[-3:]) + f"; {len(names)} ops"
    return "∘".join(names)


def fuse_elementwise(graph: Graph, min_members: int = 2, numpy_loop_at: int | None = NUMPY_LOOP_AT) -> Graph:
    """The graph with its elementwise clusters replaced by ``Fused`` equations (module docstring);
    the graph itself if there is nothing to fuse.  ``min_members=1`` fuses a lone elementwise
    equation too, and ``numpy_loop_at=None`` every size of transcendental (the accuracy harness
    measures each primitive's fused form that way)."""
    original, graph = graph, _numpy_first(graph, numpy_loop_at)
    eqs = graph.equations
    producer = {}                   # var index -> position of the equation computing it
    for i, eq in enumerate(eqs):
        for v in eq.outs:
            producer[v.index] = i
    templates = [None] * len(eqs)
    cluster_of: dict = {}           # position -> _Cluster
    clusters = []
    readers: dict = {}              # var index -> clusters reading it from outside
    for i, eq in enumerate(eqs):
        template = _template(eq, numpy_loop_at)
        if template is not None:
            templates[i] = template
            _join(i, eq, eq.outs[0].shape, producer, cluster_of, clusters, readers)
            continue
        red = _reduction(eq)
        if red is not None:
            src = producer.get(eq.ins[0].index)
            c = cluster_of.get(src)
            if c is not None and src not in c.reductions and eqs[src].outs[0].shape == c.shape:
                c.members.append(i)
                c.reductions.add(i)
                cluster_of[i] = c
    clusters = [c for c in clusters if c.members and cluster_of.get(c.first) is c]
    used_outside = _uses_outside(graph, cluster_of)
    kernels = []
    for c in clusters:
        kernels += _split(c, eqs, producer, used_outside)
    for k in kernels:
        for m in k.members:
            cluster_of[m] = k
    fused = [k for k in kernels if len(k.members) >= min_members]
    if not fused:
        return original
    used_outside = _uses_outside(graph, cluster_of)        # now with the values passed between kernels
    replaced = {k.first: _fused_equation(graph, k, templates, producer, used_outside) for k in fused}
    kept = []
    for i, eq in enumerate(eqs):
        k = cluster_of.get(i)
        if k is None or len(k.members) < min_members:
            kept.append(eq)
        elif i == k.first:
            kept.append(replaced[i])
    g = graph.copy()
    g.equations = kept
    return g


def _numpy_first(graph: Graph, numpy_loop_at) -> Graph:
    """``graph`` with each pure equation that will not fuse moved up to just after the last equation
    it reads from (or to the top).

    A cluster takes an equation only if its outside operands were computed before the cluster's
    first member; W4's ``Mul(tanh x, -2)`` came before ``TanhGrad(x, 1)``, which stays NumPy, and the
    products of both could not join one kernel.  Computed first, the NumPy values are ready for one
    cluster.  Only the order changes (the same equations on the same inputs); effects, random draws
    and reductions keep their places."""
    eqs = graph.equations
    anchor: dict = {}               # var index -> the kept equation after which it exists (-1: inputs)
    after: dict = {}                # kept position -> the moved equations that follow it
    kept, moved = [], 0
    for i, eq in enumerate(eqs):
        movable = (not eq.multiple and getattr(eq.prim, "pure", True) and not getattr(eq.prim, "has_effect", False)
                   and _template(eq, numpy_loop_at) is None and _reduction(eq) is None)
        if movable:
            at = max((anchor.get(a.index, -1) for a in eq.ins if isinstance(a, Var)), default=-1)
            moved += at < (kept[-1] if kept else -1)
            after.setdefault(at, []).append(eq)
        else:
            at = i
            kept.append(i)
        for v in eq.outs:
            anchor[v.index] = at
    if not moved:
        return graph
    order = list(after.get(-1, ()))
    for i in kept:
        order.append(eqs[i])
        order.extend(after.get(i, ()))
    g = graph.copy()
    g.equations = order
    return g


def _split(c, eqs, producer, used_outside) -> list:
    """The cluster ``c`` as consecutive kernels within the budget (:data:`MAX_STEPS`,
    :data:`MAX_PARAMETERS`; module docstring), each reduction with the member it sums.

    Splitting in order is always valid: every operand from outside ``c`` precedes its first member,
    and a later part reads an earlier part's values after they are computed."""
    from ..fast.fusion import BLOCK_LIMIT
    inside = set(c.members)
    sums = {}                       # member -> the reductions of its value
    for r in sorted(c.reductions):
        sums.setdefault(producer[eqs[r].ins[0].index], []).append(r)
    last_read = {}                  # member -> the last member (not a reduction) reading its value
    for m in c.members:
        for a in eqs[m].ins if m not in c.reductions else ():
            src = producer.get(a.index) if isinstance(a, Var) else None
            if src in inside:
                last_read[src] = max(last_read.get(src, -1), m)
    blocked = int(np.prod(c.shape)) <= BLOCK_LIMIT        # stored outputs share one argument per dtype
    parts, part = [], None
    for m in c.members:
        if m in c.reductions:
            continue
        eq = eqs[m]
        dtype = _dtype_name(eq.outs[0].dtype)
        static = _STATIC.get(eq.prim.name, ())
        operands = [(producer.get(a.index) if isinstance(a, Var) else None, _input_key(a, dtype))
                    for pos, a in enumerate(eq.ins) if pos not in static]
        stored = eq.outs[0].index in used_outside or m in last_read
        member = (m, sums.get(m, []), operands, dtype, stored, last_read.get(m, -1))
        if part is not None and not part.fits(member):
            parts.append(part)
            part = None
        if part is None:
            part = _Part(blocked)
        part.add(member, eq.outs[0].index in used_outside)
    parts.append(part)
    kernels = []
    for p in parts:
        k = _Cluster(p.members[0], c.shape)
        k.members = sorted(p.members)
        k.reductions = c.reductions & set(p.members)
        kernels.append(k)
    return kernels


class _Part:
    """A kernel being filled in member order, and the arguments it would take if it ended at the
    latest member: its inputs, and what it stores — values used outside the cluster, values read by
    a later member of the cluster (which may fall in the next kernel), reductions."""

    def __init__(self, blocked: bool):
        self.members, self.own, self.inputs = [], set(), set()
        self.blocked = blocked
        self.stored = Counter()         # dtype -> stored values
        self.pending = []               # heap of (last member reading it, dtype) of values stored for now

    def _arguments(self, inputs: int, stored: Counter, sums: int) -> int:
        n = sum(stored.values())
        return inputs + (len(+stored) if self.blocked and n > 1 else n) + sums

    def fits(self, member) -> bool:
        m, sums, operands, dtype, stored, _ = member
        while self.pending and self.pending[0][0] <= m:         # read for the last time by now
            self.stored[heapq.heappop(self.pending)[1]] -= 1
        new = {key for src, key in operands if src not in self.own} - self.inputs
        after = self.stored + Counter({dtype: 1}) if stored else self.stored
        n_sums = len(self.members) - len(self.own) + len(sums)          # reductions
        return (len(self.members) + 1 + len(sums) <= MAX_STEPS
                and self._arguments(len(self.inputs) + len(new), after, n_sums) <= MAX_PARAMETERS)

    def add(self, member, used_outside: bool) -> None:
        m, sums, operands, dtype, stored, last = member
        self.inputs |= {key for src, key in operands if src not in self.own}
        self.members += [m] + sums
        self.own.add(m)
        if stored:
            self.stored[dtype] += 1
            if not used_outside:
                heapq.heappush(self.pending, (last, dtype))


def _join(i, eq, shape, producer, cluster_of, clusters, readers):
    """Put equation ``i`` into the cluster(s) of its operands' producers when allowed, else a new one."""
    candidates = []
    for a in eq.ins:
        if isinstance(a, Var):
            c = cluster_of.get(producer.get(a.index, -1))
            if (c is not None and c not in candidates and c.shape == shape
                    and producer[a.index] not in c.reductions):
                candidates.append(c)
    if not candidates:
        # no operand computed by a cluster: join a cluster that reads the same operand (``cos(x)``
        # beside ``sin(x)``: one pass over x instead of two, and one kernel call fewer)
        for a in eq.ins:
            for c in readers.get(a.index, ()) if isinstance(a, Var) else ():
                if c.members and c not in candidates and c.shape == shape:
                    candidates.append(c)
                    break

    def outside(members, reductions):
        # a reduction's result is complete only after the whole loop: for the equation reading it,
        # it comes from outside the kernel, even when the reduction is one of the kernel's members
        return max((producer.get(a.index, -1) for a in eq.ins if isinstance(a, Var)
                    and (producer.get(a.index, -1) not in members or producer[a.index] in reductions)),
                   default=-1)
    chosen = None
    for c in candidates:
        if chosen is None:
            if outside(set(c.members), c.reductions) < c.first:
                chosen = c
            continue
        # merge c into chosen: every outside operand of each must precede the other's first member
        both = set(chosen.members) | set(c.members)
        first = min(chosen.first, c.first)
        if (outside(both, chosen.reductions | c.reductions) < first and chosen.ext_max < c.first
                and c.ext_max < chosen.first):
            chosen.members = sorted(both)
            chosen.first = first
            chosen.ext_max = max(chosen.ext_max, c.ext_max)
            chosen.reductions |= c.reductions
            for m in c.members:
                cluster_of[m] = chosen
            c.members = []
    if chosen is None:
        chosen = _Cluster(i, shape)
        clusters.append(chosen)
    else:
        chosen.members.append(i)
    chosen.ext_max = max(chosen.ext_max, outside(set(chosen.members), chosen.reductions))
    cluster_of[i] = chosen
    for a in eq.ins:
        if isinstance(a, Var) and producer.get(a.index, -1) not in chosen.members:
            readers.setdefault(a.index, []).append(chosen)


def _uses_outside(graph, cluster_of) -> set:
    """Var indices used by an equation of another cluster (or none), returned, or written."""
    used = {o.index for o in graph.outputs if isinstance(o, Var)}
    used |= {v.index for _, v in graph.effects if isinstance(v, Var)}
    producer_cluster = {}
    for i, eq in enumerate(graph.equations):
        for v in eq.outs:
            producer_cluster[v.index] = cluster_of.get(i)
    for i, eq in enumerate(graph.equations):
        mine = cluster_of.get(i)
        for a in eq.ins:
            if isinstance(a, Var) and (mine is None or producer_cluster.get(a.index) is not mine):
                used.add(a.index)
    return used


@functools.lru_cache(maxsize=None)
def _dtype_name(dtype) -> str:
    """"float32" for minims' Float32 (cached: NumPy's dtype names cost microseconds)."""
    return np.dtype(dtype.np_dtype).name


def _input_key(a, out_dtype: str):
    """What makes two operands from outside a kernel one input of it."""
    if isinstance(a, Var):
        return ("var", a.index)
    if a.is_tensor:
        # by content when small: a Tensor constant staged once per use is one input, not forty
        data = a.value._data
        return ("tensor", data.dtype.str, data.shape, data.tobytes()) if data.size <= 64 else ("id", id(a.value))
    return ("number", repr(a.value), type(a.value).__name__, out_dtype)


def _fused_equation(graph, c, templates, producer, used_outside) -> Equation:
    from ..fast.fusion import InputSpec, KernelSpec, OutputSpec, StepSpec
    eqs = [graph.equations[m] for m in c.members]
    inside = {eq.outs[0].index: j for j, eq in enumerate(eqs) if c.members[j] not in c.reductions}
    ins, inputs, keys = [], [], {}
    steps, outputs, outs = [], [], []
    step_of = {}                    # member position -> step index
    for pos, eq in zip(c.members, eqs):
        if pos in c.reductions:
            kind, axes = _reduction(eq)
            out = eq.outs[0]
            outputs.append(OutputSpec(kind, step_of[producer[eq.ins[0].index]], axes, out.shape,
                                      np.dtype(out.dtype.np_dtype).name))
            outs.append(out)
            continue
        static = _STATIC.get(eq.prim.name, ())
        out_dtype = np.dtype(eq.outs[0].dtype.np_dtype).name
        refs = []
        for k, a in enumerate(eq.ins):
            if k in static:
                continue
            if isinstance(a, Var) and a.index in inside:
                refs.append(("step", step_of[producer[a.index]]))
                continue
            key = _input_key(a, out_dtype)
            if isinstance(a, Var):
                spec = InputSpec("array", a.shape, np.dtype(a.dtype.np_dtype).name)
            elif a.is_tensor:
                spec = InputSpec("array", tuple(a.value.shape), a.value._data.dtype.name)
            else:                       # a Python number: passed in the dtype of the step reading it
                spec = InputSpec("scalar", (), out_dtype)
            if key not in keys:
                keys[key] = len(ins)
                ins.append(a)
                inputs.append(spec)
            refs.append(("in", keys[key]))
        step_of[pos] = len(steps)
        steps.append(StepSpec(templates[pos], tuple(refs), out_dtype))
        if eq.outs[0].index in used_outside:
            outputs.append(OutputSpec("store", step_of[pos], (), eq.outs[0].shape, out_dtype))
            outs.append(eq.outs[0])
    spec = KernelSpec(tuple(c.shape), tuple(inputs), tuple(steps), tuple(outputs))
    prim = Fused(eqs, ins, outs, spec, _label(eqs))
    return Equation(prim, ins, outs, True)
