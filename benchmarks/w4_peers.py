"""W4's peers written every way their own experts would, timed interleaved in one process (issue 28, item 1).

    .venv/bin/python -m benchmarks.w4_peers                 # medians and minima, microseconds per call
    .venv/bin/python -m benchmarks.w4_peers --threads 1 --json out.json

The third derivative of ``sum(tanh(x))`` for the 1000 float32 of W4 (``benchmarks/workloads/w4_third_derivative.py``)
in PyTorch — ``autograd.grad`` three times with ``create_graph=True``, either summing each level
(``g.sum()``: the suite's peer until issue 28, one more ``SumBackward`` node per level, and every
later level differentiates through it) or seeding each level with a ones tensor made once
(``grad_outputs=``, the suite's peer since), nested ``torch.func.grad``, and the closed form under
``torch.no_grad()`` — and, where JAX is installed, ``jax.jit`` of nested ``jax.grad`` and the closed
form in NumPy.  Every way is checked against the closed form before it is timed, and the run says
which BLAS kernel and how many threads each library used (``benchmarks.timing.blas_report``).

What it showed (issue 28): the suite's PyTorch figure (265 µs where an independent harness measured
~74 µs) does not come from PyTorch's threads — 1000 elements are far below ATen's grain size, so
every op runs on the calling thread with one thread or two — nor from warm-up or first calls (the
suite times neither); the ``sum()`` seeds cost each level a reduction forward, a ``ones_like`` seed
and an ``expand`` backward, and each later level differentiates through them: one call dispatches 24
ATen operators (54 with the nested ones) where the seeded peer dispatches 15 (27), counted by
PyTorch's profiler (the last column).  On a machine that other processes kept busy the summed way
took 1.2-1.4x the seeded one; what remains between the two harnesses' figures was not reproduced
there (both cores busy): run this on a quiet machine.  Compare the rows of one run; absolute times
on a loaded machine mean little.
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from benchmarks.timing import Peer, blas_report, measure, pin_threads, thread_report
from benchmarks.workloads.w4_third_derivative import X0, np_third


def aten_ops(torch, fn) -> tuple:
    """``(top-level, all)``: the ATen operators one call dispatches (PyTorch's profiler) — a count
    machine noise cannot blur, unlike a time."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        fn()
    ops = [e for e in prof.events() if e.name.startswith("aten::")]
    top = [e for e in ops if e.cpu_parent is None or not e.cpu_parent.name.startswith("aten::")]
    return len(top), len(ops)


def torch_ways(torch) -> dict:
    """``{name: make}``: each ``make()`` returns the timed call (no arguments)."""
    from benchmarks.workloads.w4_third_derivative import torch_third_summed, torch_third_seeded

    def summed():
        x = torch.tensor(X0, requires_grad=True)
        return lambda: torch_third_summed(torch, x)

    def seeded():
        x = torch.tensor(X0, requires_grad=True)
        ones = torch.ones_like(x)
        return lambda: torch_third_seeded(torch, x, ones)

    def func_grad():
        from torch.func import grad

        def s(x):
            return torch.tanh(x).sum()
        d3 = grad(lambda x: grad(lambda x: grad(s)(x).sum())(x).sum())
        x = torch.tensor(X0)
        return lambda: d3(x)

    def closed():
        x = torch.tensor(X0)

        def d3():
            with torch.no_grad():
                t = torch.tanh(x)
                t2 = t * t
                return -2.0 * (1.0 - t2) * (1.0 - 3.0 * t2)
        return d3
    return {"PyTorch autograd.grad, sum() seeds (the suite's peer until issue 28)": summed,
            "PyTorch autograd.grad, grad_outputs=ones (the suite's peer)": seeded,
            "PyTorch torch.func.grad nested": func_grad,
            "PyTorch closed form, no_grad": closed}


def jax_ways(jax) -> dict:
    from benchmarks.peers import jax_third

    def jitted():
        f = jax.jit(jax_third(jax))
        x = jax.numpy.asarray(X0)
        return lambda: f(x).block_until_ready()
    return {"JAX jit of grad(grad(grad))": jitted}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="benchmarks/w4_peers.py", description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, help="pin NumPy's BLAS, PyTorch and Numba to N threads")
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--min-time", type=float, default=0.05)
    p.add_argument("--json", help="write the results here")
    args = p.parse_args(argv)
    import os
    from benchmarks.peers import load_jax, load_torch, xla_thread_flags
    if args.threads:                          # XLA reads its flags when JAX starts its backend
        os.environ["XLA_FLAGS"] = xla_thread_flags(args.threads)
    torch, torch_why = load_torch()
    jax, jax_why = load_jax()
    if args.threads:
        pin_threads(args.threads, torch)
    ways = {"NumPy closed form": lambda: (lambda x: lambda: np_third(x))(X0.copy())}
    if torch is not None:
        ways.update(torch_ways(torch))
    if jax is not None:
        ways.update(jax_ways(jax))
    want = np_third(X0.astype(np.float64))
    for name, make in ways.items():          # a way that computes something else is not timed
        got = np.asarray(make()(), dtype=np.float64)
        err = float(np.max(np.abs(got - want)) / np.max(np.abs(want)))
        if err > 1e-5:
            raise SystemExit(f"{name}: differs from the closed form by {err:.1e} (relative)")
    timings = measure([Peer(name, make, dict) for name, make in ways.items()], args.rounds, args.min_time)
    print(f"W4 peers, µs per call (median, min of {args.rounds} interleaved samples); PyTorch: {torch_why}; "
          f"JAX: {jax_why}")
    print(f"  {blas_report(thread_report(torch, args.threads, jax))}")
    for name, t in timings.items():
        counted = ""
        if name.startswith("PyTorch autograd"):
            top, every = aten_ops(torch, ways[name]())
            counted = f"   {top} ATen ops dispatched per call ({every} with the nested ones)"
        print(f"  {name:72s} {t.median * 1e6:9.1f} {t.min * 1e6:9.1f}{counted}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({name: {"median_us": t.median * 1e6, "min_us": t.min * 1e6} for name, t in timings.items()},
                      fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
