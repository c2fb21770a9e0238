"""What fusion costs on the first call: ``grad(jit(f))`` of a chain of N elementwise ops, fused or not.

Issue 22, item 17: a chain of 500 ops took ~114 s to compile with the fast path on (one kernel per
graph, the backward one taking 252 arrays; Numba's compile time grows faster than linearly with a
kernel's arguments), 0.1-0.5 s with it off.  ``minims/graph/fuse.py`` now splits a cluster into
kernels of at most ``MAX_STEPS`` equations and ``MAX_PARAMETERS`` arguments.  This script measures,
for each N, in a fresh process with an empty fusion cache (so kernels are compiled, not loaded from
disk) and Numba already imported and warm:

* the CPU seconds of the first call (tracing, optimising, splitting, compiling), fast path off and on;
* the seconds of a later call (median of 7), both ways: what fusion buys once compiled;
* the kernels of the two graphs: how many, how many distinct sources (a repeating chain reuses its
  kernels), and the largest number of equations and arguments in one.

    .venv/bin/python -m benchmarks.fusion_compile                 # N = 50, 200, 500, 2000
    .venv/bin/python -m benchmarks.fusion_compile --chains 500 10000 --json out.json

CPU time rather than wall time, because other processes share the cores; no test times anything.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def chain(n):
    from minims import ops

    def f(x):
        for i in range(n):
            k = i % 4
            x = ops.sin(x) if k == 0 else x * 1.01 if k == 1 else ops.tanh(x) if k == 2 else x + 0.1
        return ops.sum(x)
    return f


def measure_here(n: int, fast: bool) -> dict:
    import numpy as np

    import minims as ms
    from minims import Tensor
    from minims.graph.fuse import Fused, fuse_elementwise
    ms.set_context(fast_path=fast)
    if fast:
        import numba
        numba.njit(lambda a: a + 1)(1.0)            # import and warm Numba outside the timing
    x = Tensor(np.linspace(-1, 1, 8).astype(np.float32))
    jf = ms.jit(chain(n))
    g = ms.grad(jf)
    t0 = time.process_time()
    g(x)
    first = time.process_time() - t0
    later = []
    for _ in range(7):
        t0 = time.perf_counter()
        g(x)
        later.append(time.perf_counter() - t0)
    out = {"n": n, "fast": fast, "first_cpu_s": first, "later_s": statistics.median(later)}
    if fast:
        from minims.fast.fusion import source_of
        split = jf.residual_graphs(x)
        kernels = [eq.prim for graph in (split.forward, split.backward)
                   for eq in fuse_elementwise(graph).equations if isinstance(eq.prim, Fused)]
        out.update(kernels=len(kernels), distinct=len({source_of(k.spec)[0] for k in kernels}),
                   max_steps=max((len(k.equations) for k in kernels), default=0),
                   max_arguments=max((source_of(k.spec)[1]["arguments"] for k in kernels), default=0))
    return out


def measure_in_subprocess(n: int, fast: bool, timeout: float) -> dict:
    env = dict(os.environ, MINIMS_FUSION_CACHE=tempfile.mkdtemp(prefix="minims-fusion-bench-"))
    try:
        proc = subprocess.run([sys.executable, "-m", "benchmarks.fusion_compile", "--one", str(n), str(int(fast))],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"n": n, "fast": fast, "first_cpu_s": None, "why": f"no result within {timeout:g} s"}
    if proc.returncode != 0:
        return {"n": n, "fast": fast, "first_cpu_s": None, "why": proc.stderr.strip()[-300:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chains", type=int, nargs="+", default=[50, 200, 500, 2000])
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--json", type=pathlib.Path)
    parser.add_argument("--one", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure_here(args.one[0], bool(args.one[1]))))
        return
    rows = []
    for n in args.chains:
        off, on = (measure_in_subprocess(n, fast, args.timeout) for fast in (False, True))
        rows.append({"off": off, "on": on})
        first = "n/a" if on["first_cpu_s"] is None else f"{on['first_cpu_s']:.2f} s"
        print(f"N={n:6d}  first call: off {off['first_cpu_s']:.2f} s, on {first}"
              + (f"  | later call: off {off['later_s'] * 1e3:.2f} ms, on {on['later_s'] * 1e3:.2f} ms"
                 f"  | kernels {on['kernels']} ({on['distinct']} distinct), at most {on['max_steps']} "
                 f"equations and {on['max_arguments']} arguments in one" if on["first_cpu_s"] is not None
                 else f"  ({on['why']})"), flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    main()
