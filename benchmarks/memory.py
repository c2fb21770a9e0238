"""Issue 6's memory criterion on W2: the peak memory of 1,000 LeNet-5 training steps must be no
more than 10% above that of 10 steps (nothing may grow with the number of steps: tapes, caches,
hooks).

Memory is what ``tracemalloc`` traces: every Python allocation and every NumPy array buffer (NumPy
reports its data allocations to tracemalloc).  For each mode the training Cell is built and run
for two warm-up steps (Graph mode compiles then), ``tracemalloc`` starts, and the steps run on
batches that cycle through the digits' training split; the peak after ``baseline`` steps and the
peak after ``steps`` steps are read from the same session, so the second includes the first (the
snapshot taken at the baseline, for the growth report below, is measured and left out of both).  The
memory still held at the end (``current``) is reported too: a leak shows in both.  To say where
growth comes from, the allocations still alive at the end that were not at the baseline are
grouped by call stack, and the largest few are reported with their minims frames.  CPython's
table of interned strings is rebuilt on purpose when tracing starts and at the baseline (see
``rebuild_interned_strings``): otherwise one rebuild at a random step shows as 1-4 MB of growth.  Both modes run
on the NumPy path (``fast_path=False`` where minims has the switch): memory that Numba's kernels
allocate through their own runtime is not visible to tracemalloc.
"""
from __future__ import annotations

import contextlib
import gc
import sys
import time
import tracemalloc

from minims import Tensor

from .peers import GRAPH, PYNATIVE, graph_mode
from .workloads.w2_lenet import batch, initial_weights, minims_train_step

LIMIT = 1.10
FRAMES = 10          # call-stack depth tracemalloc records (the growth report shows the minims frames)
TOP = 3


def rebuild_interned_strings(limit=1 << 21) -> bool:
    """Make CPython rebuild its table of interned strings now, while ``tracemalloc`` traces.

    NumPy's ``ndarray.__array_interface__`` (reached through ``sliding_window_view`` in the pooling
    primitives) interns key strings that die at once.  That churn fills CPython's interned-string dict
    with dead slots, and every few ten thousand calls the dict is rebuilt, at the same size while the
    number of live interned strings stays the same.  The first rebuild after ``tracemalloc`` started
    shows up as growth by one whole table (1-4 MB: 961,216 bytes is exactly a 2**16-slot table of string
    keys, 1,922,416 a 2**17-slot one), because the table it replaces was allocated before tracing began
    and its release is not seen.  Called once when tracing starts and once at the end of warm-up, the
    table is traced from the start (so the warm-up peak and the later one stand on the same base) and
    freshly rebuilt at the baseline.  A rebuild shows as a jump of the peak: old and new table are
    alive together for a moment.  Resets the peak.  Returns whether a rebuild was seen.
    """
    current = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    for i in range(limit):
        sys.intern(f"minims-soak-{i}")             # a new interned string, freed at once
        if i % 64 == 0 and tracemalloc.get_traced_memory()[1] - current > 100_000:
            return True
    return False


def _growth(before, after, top=TOP):
    """The call stacks whose live allocations grew most between two snapshots."""
    rows = []
    for stat in after.compare_to(before, "traceback")[:top]:
        if stat.size_diff <= 0:
            break
        frames = [f"{f.filename.split('/minims/', 1)[-1] if '/minims/' in f.filename else f.filename}:{f.lineno}"
                  for f in stat.traceback if "/minims/" in f.filename and "/benchmarks/" not in f.filename]
        rows.append({"size_diff_bytes": stat.size_diff, "count_diff": stat.count_diff,
                     "minims_frames": frames[::-1] or [str(stat.traceback[0])]})
    return rows


def measure(steps=1000, baseline=10, modes=(PYNATIVE, GRAPH), fast=None, progress=print) -> dict:
    if steps < baseline:
        raise ValueError(f"memory: steps ({steps}) must be at least the baseline ({baseline}).")
    weights = initial_weights()
    data = [tuple(Tensor(a) for a in batch(i)) for i in range(44)]   # 44 batches = the whole split
    out = {"steps": steps, "baseline_steps": baseline, "limit_ratio": LIMIT, "tool": "tracemalloc",
           "path": "NumPy (fast path off)", "modes": {}}
    for mode in modes:
        ctx = graph_mode if mode == GRAPH else contextlib.nullcontext
        off = fast.off if fast is not None else contextlib.nullcontext
        with off(), ctx():
            _, _, train = minims_train_step(weights)
            for i in range(2):
                train(*data[i])
            gc.collect()
            tracemalloc.start(FRAMES)
            rebuild_interned_strings()      # the interned-string table traced from the start
            tracemalloc.reset_peak()
            t0 = time.perf_counter()
            base_current = base_peak = base_snapshot = None
            snapshot_bytes = 0
            try:
                for i in range(steps):
                    train(*data[(i + 2) % len(data)])
                    if i + 1 == baseline:
                        base_current, base_peak = tracemalloc.get_traced_memory()
                        rebuild_interned_strings()  # rebuilt here, not at a random step after
                        base_current = tracemalloc.get_traced_memory()[0]
                        # the snapshot is traced memory too: measure it, and take it out of what follows
                        base_snapshot = tracemalloc.take_snapshot()
                        snapshot_bytes = tracemalloc.get_traced_memory()[0] - base_current
                        tracemalloc.reset_peak()
                current, later_peak = tracemalloc.get_traced_memory()
                current -= snapshot_bytes
                peak = max(base_peak, later_peak - snapshot_bytes)
                growth = _growth(base_snapshot, tracemalloc.take_snapshot())
            finally:
                tracemalloc.stop()
            seconds = time.perf_counter() - t0
        ratio = peak / base_peak
        row = {"peak_baseline_bytes": base_peak, "peak_bytes": peak, "ratio": ratio,
               "current_baseline_bytes": base_current, "current_bytes": current,
               "retained_growth_bytes": current - base_current, "seconds": seconds, "met": ratio <= LIMIT,
               "largest_growth": growth}
        out["modes"][mode] = row
        progress(f"  memory {mode:16s} peak {base_peak / 2**20:7.2f} MiB after {baseline} steps, "
                 f"{peak / 2**20:7.2f} MiB after {steps}: ratio {ratio:.3f} (limit {LIMIT}); still held "
                 f"{(current - base_current) / 2**10:+.1f} KiB  [{seconds:.0f} s]")
        for g in growth:
            progress(f"    grew {g['size_diff_bytes'] / 2**10:+8.1f} KiB in {g['count_diff']:+d} blocks allocated at "
                     + " <- ".join(g["minims_frames"][:3]))
    return out
