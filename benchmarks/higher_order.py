"""W4's jitted third derivative before and after the derivative passes (issue 28, item 3).

    .venv/bin/python -m benchmarks.higher_order            # equation counts, then µs per call and ratios

The graph of ``jit(grad(grad(grad(f))))`` for ``f = sum(tanh(x))`` (W4: 1000 float32) optimised
without and with ``minims/graph/derivatives.py`` (``optimize(raw, share_derivatives=False)`` and the
default), each run by its executor on the NumPy path and on the Numba fast path (fused kernels), next
to the closed form in NumPy (``-2 (1 - t²)(1 - 3 t²)``, ``t = tanh x``), all interleaved in one
process (``benchmarks.timing.measure``): compare the ratios, not the times of another run.
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import sys

import numpy as np

import minims as ms
from minims import Tensor
from minims.graph.executor import Plan
from minims.graph.fuse import VECTORISED_IN_NUMPY
from minims.graph.passes import optimize

from benchmarks.timing import Peer, blas_report, measure, thread_report
from benchmarks.workloads.w4_third_derivative import X0, np_third, third


def graphs() -> dict:
    """``{"before": graph, "after": graph}``: W4's optimised graph without and with the passes."""
    raw = ms.jit(third()).graph(Tensor(X0), optimized=False)
    return {"before": optimize(raw, share_derivatives=False), "after": optimize(raw)}


def counts(graph) -> dict:
    """Equations in all and per primitive."""
    return {"equations": len(graph.equations),
            **collections.Counter(eq.prim.name for eq in graph.equations)}


def transcendentals(graph) -> int:
    """Transcendental evaluations per element (tanh, and the cosh of each ``TanhGrad``): the
    noise-free part of the cost; the closed form has one (its tanh)."""
    return sum(eq.prim.name in VECTORISED_IN_NUMPY for eq in graph.equations)


def _fast(on: bool):
    @contextlib.contextmanager
    def switch():
        before = ms.get_context("fast_path")
        ms.set_context(fast_path=on)
        try:
            yield
        finally:
            ms.set_context(fast_path=before)
    return switch


def peers(gs: dict, numba: bool) -> list:
    out = [Peer("NumPy closed form", lambda: (lambda x: lambda: np_third(x))(X0.copy()), dict)]
    for label, g in gs.items():
        modes = [("NumPy path", False)] + ([("Numba, fused", True)] if numba else [])
        for mode, on in modes:
            out.append(Peer(f"minims jit, {label} the passes, {mode}",
                            (lambda g: lambda: (lambda plan, x: lambda: plan.run([x]))(Plan(g), X0.copy()))(g),
                            dict, context=_fast(on)))
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="benchmarks/higher_order.py", description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--min-time", type=float, default=0.05)
    args = p.parse_args(argv)
    gs = graphs()
    for label, g in gs.items():
        print(f"{label} the passes: {counts(g)}; transcendentals per element {transcendentals(g)} "
              "(closed form: 1)")
        print("  " + "\n  ".join(str(g).splitlines()))
    ms.set_context(fast_path=True)
    numba = bool(ms.get_context("fast_path"))
    timings = measure(peers(gs, numba), args.rounds, args.min_time)
    closed = timings["NumPy closed form"].median
    print(f"\nµs per call, median and min of {args.rounds} interleaved samples, ratio of medians to the closed form")
    print(f"  kernels and threads: {blas_report(thread_report())}")
    for name, t in timings.items():
        print(f"  {name:52s} {t.median * 1e6:8.1f} {t.min * 1e6:8.1f} {t.median / closed:7.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
