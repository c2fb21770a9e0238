"""Memory soak: thousands of LeNet-5 training steps mixed with everything that could leave memory behind.

Usage::

    python tools/soak.py                  # 5,000 steps (a few minutes), prints the figures
    python tools/soak.py --steps 304      # what tests/robustness/test_soak_memory.py runs
    python tools/soak.py --json out.json  # the figures as JSON too

The schedule repeats every ``PERIOD`` = 16 steps.  Every step trains the LeNet-5 of the benchmarks'
workload W2 (``benchmarks/workloads/w2_lenet.py``: ``TrainOneStepCell``, Momentum, batches of the shipped
digits) once, and besides:

* PyNative training, except steps 11 and 15 of each period, which call the same training Cell under
  ``GRAPH_MODE`` (compiled once) and also call a small ``nn.Dense`` in Graph mode, and its gradient,
  with a batch size cycling through 1, 2, 3, 5 (a retrace the first time each size is seen);
* hooks: at step 0 a forward-pre hook (``conv1``), a forward hook (``relu``, called four times per
  forward), a backward hook (``fc2``) and a fresh ``ops.HookBackward`` are registered; at step 8 they
  are removed through their handles (twice each: ``remove`` is idempotent) and the HookBackward dropped;
* steps 1, 5, 9, 13: ``grad(grad(f))`` of ``f(x) = sum(hook(sin x) * x)``, compared with
  ``f'' = 2 cos x - x sin x``;
* steps 2, 6, 10, 14: ``grad(grad(cube))`` through a Cell whose custom ``bprop`` returns ``3 x^2 dout``,
  compared with ``6 x``;
* every step: a ``jit`` function on one of three shapes in turn, and its gradient (``grad(jit(f))``);
  its compiled cache holds one entry per shape by design, so the shapes cycle through a fixed set;
* step 5: a brand-new ``jit`` function closing over a new Parameter, compiled, run, differentiated and
  dropped.

Measurement: after ``--warmup`` steps (every cache filled, every code path taken; CPython's table of
interned strings rebuilt, see ``rebuild_interned_strings``) the cyclic GC runs and the baseline is read; then at the end of every period (hooks removed) again.  Figures: ``tracemalloc``
current memory at the baseline and at the end and its least-squares slope over the checkpoints,
``tracemalloc`` peak during warm-up and after it, the resident set size, the live gc-tracked objects of
minims' types at the baseline and at the end, what the cyclic GC had to free, the compiled caches and
retrace counts, and the hook calls (which must match the schedule).  The bookkeeping allocates nothing
per step (preallocated NumPy arrays), so it does not show up as growth.

``cycle_check()`` runs one instance of each action with the cyclic GC disabled and reports what only
the GC could free: a gradient level's ``TapeTrace``, ``Node``s and tracers must be freed by reference
counting the moment the gradient call returns, and so should a finished staging pass (``StagingTrace``).
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import gc
import json
import os
import pathlib
import sys
import time
import tracemalloc
import weakref

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:                # the LeNet workload lives in benchmarks/
    sys.path.insert(0, str(ROOT))

import minims as ms                                               # noqa: E402
import minims.nn as nn                                            # noqa: E402
import minims.ops as ops                                          # noqa: E402
from minims import Parameter, Tensor, context, jit                # noqa: E402
from minims.core.stack import active_traces               # noqa: E402

from benchmarks.memory import rebuild_interned_strings                                 # noqa: E402
from benchmarks.workloads.w2_lenet import batch, initial_weights, minims_train_step   # noqa: E402

PERIOD = 16
WARMUP = 3 * PERIOD
GRAPH_STEPS = (11, 15)            # steps of a period that train under GRAPH_MODE
HOOKS_ON, HOOKS_OFF = 0, 8        # steps of a period at which hooks are registered / removed
JIT_SHAPES = [(3,), (4, 2), (2, 5)]
DENSE_BATCHES = [1, 2, 3, 5]
N_BATCHES = 8
# objects of these types are one gradient level's or one staging pass's working state
TAPE_TYPES = ("TapeTrace", "TapeTracer", "Node")
STAGING_TYPES = ("StagingTrace", "StagingTracer")


class Cube(nn.Cell):
    """``x ** 3`` with a custom bprop ``3 x^2 dout``: second order goes through the user's rule."""

    def construct(self, x):
        return x * x * x

    def bprop(self, x, out, dout):
        return (3 * x * x * dout,)


@jit
def poly(t):
    return ops.tanh(t) * t + 1.0


def poly_grad(t):
    th = np.tanh(t)
    return th + t * (1 - th * th)


def rss_bytes() -> int:
    """Resident set size now (Linux ``/proc``); elsewhere the peak from ``getrusage``."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _in_minims(obj) -> bool:
    module = type(obj).__dict__.get("__module__")
    return isinstance(module, str) and module.startswith("minims.")


@contextlib.contextmanager
def fast_path(on):
    """Run with minims' Numba fast path on or off (``None``: as it is); the setting is restored after.
    Yields whether the fast path is on (off when asked for without Numba)."""
    before = context.get_context("fast_path")
    if on is not None:
        context.set_context(fast_path=on)
    try:
        yield context.get_context("fast_path")
    finally:
        if on is not None:
            context.set_context(fast_path=before)


def residual_store() -> dict:
    """Entries and bytes in the fast path's residual store (bounded by design; empty on the NumPy path)."""
    try:
        from minims.fast import residuals
    except ImportError:
        return {"entries": 0, "bytes": 0}
    return {"entries": len(residuals._store), "bytes": int(residuals._bytes)}


def live_minims_objects() -> collections.Counter:
    """gc-tracked objects whose type is defined in minims, counted by type name."""
    return collections.Counter(type(o).__qualname__ for o in gc.get_objects() if _in_minims(o))


class Soak:
    """The workload: build once, then ``step(i)`` for i = 0, 1, 2, ..."""

    def __init__(self):
        context.set_context(mode=context.PYNATIVE_MODE)
        self.net, self.opt, self.train = minims_train_step(initial_weights())
        self.data = [tuple(Tensor(a) for a in batch(i)) for i in range(N_BATCHES)]
        self.cube = Cube()
        ms.set_seed(0)
        self.dense = nn.Dense(4, 3)
        rng = np.random.default_rng(0)
        self.x_small = Tensor(rng.uniform(-2, 2, (5,)))
        self.jit_inputs = [Tensor(rng.uniform(-2, 2, s)) for s in JIT_SHAPES]
        self.dense_inputs = [Tensor(rng.uniform(-1, 1, (b, 4)).astype(np.float32)) for b in DENSE_BATCHES]
        self.handles = []
        self.hook_op = None
        self.calls = dict.fromkeys(("forward_pre", "forward", "backward", "hook_backward"), 0)
        self.expected = dict.fromkeys(self.calls, 0)
        self.worst = dict.fromkeys(("grad grad f", "grad grad cube", "grad jit"), 0.0)

    # ----- the pieces ---------------------------------------------------------------------------
    def _count(self, key):
        self.calls[key] += 1

    def register_hooks(self):
        net = self.net
        self.handles = [
            net.conv1.register_forward_pre_hook(lambda cell_id, inputs: self._count("forward_pre")),
            net.relu.register_forward_hook(lambda cell_id, inputs, outputs: self._count("forward")),
            net.fc2.register_backward_hook(lambda cell_id, gin, gout: self._count("backward")),
        ]
        self.hook_op = ops.HookBackward(lambda grads: self._count("hook_backward"))

    def remove_hooks(self):
        for h in self.handles:
            h.remove()
            h.remove()
        self.handles = []
        self.hook_op = None

    def train_step(self, i, graph):
        if graph:
            context.set_context(mode=context.GRAPH_MODE)
        try:
            loss = self.train(*self.data[i % N_BATCHES])
        finally:
            context.set_context(mode=context.PYNATIVE_MODE)
        if self.handles and not graph:
            for key, n in (("forward_pre", 1), ("forward", 4), ("backward", 1)):
                self.expected[key] += n
        return float(loss)

    def grad_grad_f(self):
        hook = self.hook_op

        def f(x):
            s = ops.sin(x)
            if hook is not None:
                s = hook(s)
            return (s * x).sum()
        x = self.x_small
        got = ms.grad(ms.grad(f))(x).asnumpy()
        if hook is not None:                 # once in each of the two backward passes
            self.expected["hook_backward"] += 2
        xs = x.asnumpy()
        return np.abs(got - (2 * np.cos(xs) - xs * np.sin(xs))).max()

    def grad_grad_cube(self):
        x = self.x_small
        got = ms.grad(ms.grad(self.cube))(x).asnumpy()
        return np.abs(got - 6 * x.asnumpy()).max()

    def jit_and_grad(self, i):
        x = self.jit_inputs[i % len(JIT_SHAPES)]
        poly(x)
        got = ms.grad(lambda t: poly(t).sum())(x).asnumpy()
        return np.abs(got - poly_grad(x.asnumpy())).max()

    def graph_dense(self, i):
        x = self.dense_inputs[(i // PERIOD * len(GRAPH_STEPS) + GRAPH_STEPS.index(i % PERIOD))
                              % len(DENSE_BATCHES)]
        context.set_context(mode=context.GRAPH_MODE)
        try:
            self.dense(x)
            ms.grad(self.dense)(x)
        finally:
            context.set_context(mode=context.PYNATIVE_MODE)

    def fresh_jit(self, i, seen=None):
        """A new jit function over a new Parameter: traced, run, differentiated, dropped.  ``seen``
        collects weak references to the staging trace and the placeholder of the Parameter."""
        p = Parameter(Tensor(np.full((3,), 0.5 + i % 7)), name="p")

        def f(t):
            y = ops.sin(t) * p
            if seen is not None:
                trace = active_traces()[-1]
                seen.extend([weakref.ref(trace), weakref.ref(trace.implicit(p))])
            return y
        compiled = jit(f)
        x = self.jit_inputs[0]
        compiled(x)
        ms.grad(lambda t: compiled(t).sum(), weights=[p])(x)

    # ----- one step -----------------------------------------------------------------------------
    def step(self, i):
        k = i % PERIOD
        if k == HOOKS_ON:
            self.register_hooks()
        elif k == HOOKS_OFF:
            self.remove_hooks()
        graph = k in GRAPH_STEPS
        loss = self.train_step(i, graph)
        if graph:
            self.graph_dense(i)
        if k % 4 == 1:
            self.worst["grad grad f"] = max(self.worst["grad grad f"], self.grad_grad_f())
        if k % 4 == 2:
            self.worst["grad grad cube"] = max(self.worst["grad grad cube"], self.grad_grad_cube())
        if k == 5:
            self.fresh_jit(i)
        self.worst["grad jit"] = max(self.worst["grad jit"], self.jit_and_grad(i))
        return loss

    def caches(self) -> dict:
        """The compiled caches the soak feeds, and how often each traced (bounded by design)."""
        dense = self.dense.__dict__.get("_graph_call")
        train = self.train.__dict__.get("_graph_call")
        return {"poly": {"entries": len(poly._cache), "traces": poly.traces},
                "Dense (Graph mode)": {"entries": len(dense._cache) if dense else 0,
                                       "traces": dense.traces if dense else 0},
                "TrainOneStepCell (Graph mode)": {"entries": len(train._cache) if train else 0,
                                                  "traces": train.traces if train else 0}}


def _growth_sites(before, after, top):
    """The source lines whose live allocations grew most after warm-up, each with the call stack
    (innermost first) of one allocation made there.  Grouped by the allocating line, not the whole
    stack: the same allocation reached from the warm-up loop and from the measured loop is one site."""
    rows = []
    for stat in after.compare_to(before, "lineno"):
        if stat.size_diff <= 0:
            continue
        line = stat.traceback[0]
        stack = next((t.traceback for t in after.traces if t.traceback[-1] == line), stat.traceback)
        frames = [f"{pathlib.Path(f.filename).name}:{f.lineno}" for f in stack][::-1]
        rows.append({"bytes": stat.size_diff, "blocks": stat.count_diff, "frames": frames})
        if len(rows) == top:
            break
    return rows


def run(steps=5000, warmup=WARMUP, progress=None, sites=0, fast=None) -> dict:
    """Run the soak; returns the figures (see the module docstring).

    ``fast``: True/False runs on the Numba fast path / the NumPy path, None on the current setting.

    ``sites > 0`` records 12 frames per allocation and reports the ``sites`` allocation sites that grew
    most after warm-up (slower; the baseline snapshot is taken before the baseline is read, so it is
    counted in both ends and does not show as growth).
    """
    if steps % PERIOD or warmup % PERIOD or steps <= warmup:
        raise ValueError(f"soak: steps ({steps}) and warmup ({warmup}) must be multiples of {PERIOD}, "
                         "steps > warmup.")
    with fast_path(fast) as fast_on:
        fig = _measure(steps, warmup, progress, sites)
    fig["fast_path"] = fast_on
    return fig


def _measure(steps, warmup, progress, sites):
    n_points = (steps - warmup) // PERIOD + 1
    current = np.zeros(n_points, np.int64)        # preallocated: the bookkeeping must not grow
    rss = np.zeros(n_points, np.int64)
    at_step = np.zeros(n_points, np.int64)
    losses = np.zeros(steps)
    collected = np.zeros(2, np.int64)             # objects the cyclic GC freed: [warm-up, after]
    phase_now = [0]                               # 0 during warm-up, 1 after

    def on_gc(phase, info):
        if phase == "stop":
            collected[phase_now[0]] += info["collected"]

    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start(12 if sites else 1)
    rebuilt = [rebuild_interned_strings()]
    gc.collect()
    start_current = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    gc.callbacks.append(on_gc)
    soak = Soak()
    t0 = time.perf_counter()
    try:
        for i in range(warmup):
            losses[i] = soak.step(i)
        warmup_peak = tracemalloc.get_traced_memory()[1]
        rebuilt.append(rebuild_interned_strings())
        gc.collect()
        baseline_objects = live_minims_objects()
        baseline_caches = soak.caches()
        baseline_residuals = residual_store()
        phase_now[0] = 1
        gc.collect()
        snapshot = tracemalloc.take_snapshot() if sites else None
        current[0], _ = tracemalloc.get_traced_memory()
        rss[0], at_step[0] = rss_bytes(), warmup
        tracemalloc.reset_peak()
        t1 = time.perf_counter()
        point = 1
        for i in range(warmup, steps):
            losses[i] = soak.step(i)
            if (i + 1) % PERIOD == 0:
                gc.collect()
                current[point], _ = tracemalloc.get_traced_memory()
                rss[point], at_step[point] = rss_bytes(), i + 1
                point += 1
                if progress is not None and (i + 1) % (PERIOD * 25) == 0:
                    progress(f"  step {i + 1}: tracemalloc current {current[point - 1] / 2**20:.2f} MiB, "
                             f"RSS {rss[point - 1] / 2**20:.1f} MiB, loss {losses[i]:.4f}")
        end_peak = tracemalloc.get_traced_memory()[1]
        t2 = time.perf_counter()
        end_objects = live_minims_objects()
        end_residuals = residual_store()
        growth_sites = _growth_sites(snapshot, tracemalloc.take_snapshot(), sites) if sites else []
    finally:
        gc.callbacks.remove(on_gc)
        soak.remove_hooks()
        if not was_tracing:
            tracemalloc.stop()
    slope = float(np.polyfit(at_step, current, 1)[0]) if n_points > 2 else 0.0
    objects = {name: (baseline_objects.get(name, 0), end_objects.get(name, 0))
               for name in sorted(set(baseline_objects) | set(end_objects))}
    return {
        "steps": steps, "warmup_steps": warmup, "period": PERIOD, "interned_strings_rebuilt": rebuilt,
        "seconds": {"warmup": t1 - t0, "measured": t2 - t1},
        "tracemalloc": {
            "start_current": start_current,
            "baseline_current": int(current[0]), "end_current": int(current[-1]),
            "growth": int(current[-1] - current[0]), "max_over_baseline": int(current.max() - current[0]),
            "slope_bytes_per_step": slope,
            "warmup_peak": int(warmup_peak), "measured_peak": int(end_peak),
        },
        "rss": {"baseline": int(rss[0]), "end": int(rss[-1]), "max": int(rss.max())},
        "checkpoints": {"step": at_step.tolist(), "current": current.tolist(), "rss": rss.tolist()},
        "live_minims_objects": objects,
        "gc_collected": {"warmup": int(collected[0]), "measured": int(collected[1])},
        "caches": {"baseline": baseline_caches, "end": soak.caches()},
        "residuals": {"baseline": baseline_residuals, "end": end_residuals},
        "hook_calls": {"got": dict(soak.calls), "expected": dict(soak.expected)},
        "max_error": dict(soak.worst),
        "growth_sites": growth_sites,
        "loss": {"first": float(losses[0]), "last": float(losses[-1]),
                 "finite": bool(np.isfinite(losses).all())},
    }


# ----- what only the cyclic GC can free ------------------------------------------------------------
def _tracked(types) -> collections.Counter:
    return collections.Counter(type(o).__name__ for o in gc.get_objects()
                               if type(o).__name__ in types and _in_minims(o))


def actions(soak: Soak) -> dict:
    """One instance of each thing the soak does, each a function of no arguments."""
    x = soak.x_small

    def grad_grad_probe():
        seen = []

        def f(t):
            seen.extend(weakref.ref(level) for level in active_traces())    # both levels' TapeTraces
            seen.extend([weakref.ref(t), weakref.ref(t._primal)])           # the inner, outer tracer
            return (ops.sin(t) * t).sum()
        ms.grad(ms.grad(f))(x)
        return seen

    def fresh_jit_probe():
        seen = []
        soak.fresh_jit(0, seen)
        return seen

    def step_with_hooks():
        soak.register_hooks()
        try:
            soak.train_step(0, graph=False)
            soak.grad_grad_f()
        finally:
            soak.remove_hooks()

    return {
        "PyNative training step": lambda: soak.train_step(1, graph=False),
        "training step with hooks (registered, removed)": step_with_hooks,
        "grad(grad(f)) (weak references to the levels)": grad_grad_probe,
        "grad(grad(Cell with custom bprop))": soak.grad_grad_cube,
        "jit call and grad(jit), cached shape": lambda: soak.jit_and_grad(0),
        "GRAPH_MODE training step, compiled": lambda: soak.train_step(2, graph=True),
        "GRAPH_MODE Dense on a new batch size (retrace)": lambda: _retrace_dense(soak),
        "new jit function over a Parameter (trace, grad)": fresh_jit_probe,
    }


def _retrace_dense(soak):
    soak.dense.__dict__.pop("_graph_call", None)      # forget the compiled calls: trace again
    soak.graph_dense(PERIOD + GRAPH_STEPS[0])


def cycle_check(soak: Soak | None = None, fast=None) -> dict:
    """For each action: what it left alive with the cyclic GC off, and what only the GC then freed.

    ``left_alive`` counts the tape and staging objects (``TAPE_TYPES``, ``STAGING_TYPES``) alive after
    the action that were not before; ``cyclic_garbage`` the minims objects (by type) found in
    reference cycles; ``dead_weakrefs`` whether weak references taken inside the action died by
    reference counting alone.  ``fast`` as for ``run``.
    """
    with fast_path(fast):
        return _cycle_check(soak or Soak())


def _cycle_check(soak):
    acts = actions(soak)
    for act in acts.values():            # first runs compile and fill caches
        act()
    report = {}
    enabled = gc.isenabled()
    try:
        for name, act in acts.items():
            gc.collect()
            gc.disable()
            before = _tracked(TAPE_TYPES + STAGING_TYPES)
            refs = act()
            left = _tracked(TAPE_TYPES + STAGING_TYPES) - before
            alive = [r for r in refs if r() is not None] if isinstance(refs, list) else []
            gc.set_debug(gc.DEBUG_SAVEALL)
            try:
                gc.collect()
                cyclic = collections.Counter(type(o).__name__ for o in gc.garbage if _in_minims(o))
                n_garbage = len(gc.garbage)
            finally:
                gc.set_debug(0)
                gc.garbage.clear()
            report[name] = {"left_alive": dict(left), "cyclic_garbage": dict(cyclic),
                            "cyclic_garbage_objects": n_garbage,
                            "dead_weakrefs": None if not isinstance(refs, list) else
                            f"{len(refs) - len(alive)}/{len(refs)}"}
            gc.enable()
    finally:
        gc.set_debug(0)
        (gc.enable if enabled else gc.disable)()
    return report


# ----- printing --------------------------------------------------------------------------------
def _mib(n):
    return f"{n / 2**20:8.3f} MiB"


def format_report(fig: dict, cycles: dict | None = None) -> str:
    t = fig["tracemalloc"]
    lines = [
        f"soak: {fig['steps']} steps ({fig['warmup_steps']} warm-up) on the "
        f"{'Numba fast path' if fig['fast_path'] else 'NumPy path'}, "
        f"{fig['seconds']['warmup']:.1f} s + {fig['seconds']['measured']:.1f} s, "
        f"loss {fig['loss']['first']:.4f} -> {fig['loss']['last']:.4f}",
        "tracemalloc (Python objects and NumPy buffers):",
        f"  current  at start {_mib(t['start_current'])}, after warm-up {_mib(t['baseline_current'])}, "
        f"at the end {_mib(t['end_current'])}",
        f"  growth after warm-up {t['growth']:+d} bytes (max over baseline {t['max_over_baseline']:+d}), "
        f"slope {t['slope_bytes_per_step']:+.2f} bytes/step",
        f"  peak     during warm-up {_mib(t['warmup_peak'])}, after warm-up {_mib(t['measured_peak'])}",
        f"  (CPython's interned-string table rebuilt at the start and the end of warm-up: "
        f"{fig['interned_strings_rebuilt']}; see rebuild_interned_strings)",
        f"RSS: after warm-up {_mib(fig['rss']['baseline'])}, at the end {_mib(fig['rss']['end'])}, "
        f"max at a checkpoint {_mib(fig['rss']['max'])}",
        f"cyclic GC freed {fig['gc_collected']['warmup']} objects during warm-up, "
        f"{fig['gc_collected']['measured']} after it",
        "live gc-tracked minims objects (after warm-up -> end):",
    ]
    for name, (a, b) in fig["live_minims_objects"].items():
        lines.append(f"  {name:<28} {a:6d} -> {b:6d}{'' if a == b else '   <-- changed'}")
    lines.append("compiled caches (entries/traces, after warm-up -> end):")
    for name, c in fig["caches"]["end"].items():
        b = fig["caches"]["baseline"][name]
        lines.append(f"  {name:<30} {b['entries']}/{b['traces']} -> {c['entries']}/{c['traces']}")
    r = fig["residuals"]
    lines.append(f"fast-path residual store: {r['baseline']['entries']} entries, {r['baseline']['bytes']} bytes "
                 f"-> {r['end']['entries']} entries, {r['end']['bytes']} bytes")
    lines.append(f"hook calls: {fig['hook_calls']['got']} (schedule: {fig['hook_calls']['expected']})")
    lines.append("max |error| against the analytic derivatives: "
                 + ", ".join(f"{k} {v:.1e}" for k, v in fig["max_error"].items()))
    for row in fig.get("growth_sites", []):
        lines.append(f"growth site: {row['bytes']:+d} bytes in {row['blocks']:+d} blocks, at "
                     + " <- ".join(row["frames"][:10]))
    if cycles:
        lines.append("with the cyclic GC disabled, one run of each action (tape objects must be freed "
                     "by reference counting):")
        for name, r in cycles.items():
            weak = f", weak refs dead {r['dead_weakrefs']}" if r["dead_weakrefs"] else ""
            lines.append(f"  {name}: left alive {r['left_alive'] or 'nothing'}; in cycles "
                         f"{r['cyclic_garbage'] or 'nothing'} ({r['cyclic_garbage_objects']} objects in all){weak}")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=5000, help="steps in all (a multiple of 16; default 5000 -> 5008)")
    ap.add_argument("--warmup", type=int, default=WARMUP, help=f"warm-up steps (default {WARMUP})")
    ap.add_argument("--sites", type=int, default=0, help="report this many allocation sites that grew most")
    ap.add_argument("--fast-path", choices=("on", "off"), help="the Numba fast path on or off "
                    "(default: minims' own setting)")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args(argv)
    steps = -(-args.steps // PERIOD) * PERIOD
    print(f"soak: {steps} steps, period {PERIOD}, warm-up {args.warmup}", flush=True)
    fast = None if args.fast_path is None else args.fast_path == "on"
    fig = run(steps, args.warmup, progress=lambda s: print(s, flush=True), sites=args.sites, fast=fast)
    cycles = cycle_check(fast=fast)
    print(format_report(fig, cycles))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"soak": fig, "cycles": cycles}, indent=1))
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
