"""The first Graph-mode W2 step of a fresh process, with the fast path on (issue 16: <= 1 s).

In ``benchmarks/run.py`` every peer's first call comes after the checks, which already compiled the
graph and loaded the Numba kernels in that process; what a learner waits for is the first step of a
*new* process: tracing and optimising the graph, splitting it into forward and backward, and loading
the kernels from Numba's disk cache (the cache is warm: the checks, or an earlier run, filled it).
This script measures that in a subprocess of its own:

    .venv/bin/python -m benchmarks.first_call          # prints JSON: import, first and second step (s)

``run.py`` runs it when W2 is selected and the fast path is available, and reports the first step
as the issue's target.
"""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def measure_here() -> dict:
    t0 = time.perf_counter()
    import minims as ms
    from benchmarks.peers import fast_path, graph_mode
    from benchmarks.workloads import w2_lenet
    imported = time.perf_counter() - t0
    weights = w2_lenet.initial_weights()
    xb, yb = w2_lenet.batch(0)
    fast = fast_path(False)
    if not fast.available:
        return {"available": False, "why": fast.how}
    with fast.on(), graph_mode():
        step = w2_lenet.minims_make(weights, xb, yb)()
        t1 = time.perf_counter()
        step()
        first = time.perf_counter() - t1
        t1 = time.perf_counter()
        step()
        second = time.perf_counter() - t1
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return {"available": True, "import_s": imported, "first_step_s": first, "second_step_s": second}


def measure_in_subprocess(timeout: float = 600) -> dict:
    """Run this module in a fresh interpreter (same environment and thread settings)."""
    proc = subprocess.run([sys.executable, "-m", "benchmarks.first_call"], cwd=ROOT, env=dict(os.environ),
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        return {"available": False, "why": f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    print(json.dumps(measure_here()))
