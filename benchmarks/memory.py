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
grouped by call stack, and the largest few are reported with their minims frames.  Both modes run
on the NumPy path (``fast_path=False`` where minims has the switch): memory that Numba's kernels
allocate through their own runtime is not visible to tracemalloc.
"""
from __future__ import annotations

import contextlib
import gc
import time
import tracemalloc

from minims import Tensor

from .peers import GRAPH, PYNATIVE, graph_mode
from .workloads.w2_lenet import batch, initial_weights, minims_train_step

LIMIT = 1.10
FRAMES = 10          # call-stack depth tracemalloc records (the growth report shows the minims frames)
TOP = 3


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
            tracemalloc.reset_peak()
            t0 = time.perf_counter()
            base_current = base_peak = base_snapshot = None
            snapshot_bytes = 0
            try:
                for i in range(steps):
                    train(*data[(i + 2) % len(data)])
                    if i + 1 == baseline:
                        base_current, base_peak = tracemalloc.get_traced_memory()
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
