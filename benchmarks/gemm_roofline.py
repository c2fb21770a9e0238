"""The GEMM roofline of W3 and W5 under ``jit``: how close minims' compiled step is to NumPy's own GEMMs.

    python -m benchmarks.gemm_roofline --threads 1                    # W3 and W5
    OPENBLAS_CORETYPE=Haswell python -m benchmarks.gemm_roofline --threads 1 --only W3 --json out.json
    python -m benchmarks.gemm_roofline --threads 1 --clock cpu         # on cores other processes share

A W3 step (MLP 784-512-512-10, batch 256, SGD) and a W5 call (custom bprop around a 256x256 matmul)
are GEMM-bound: their floating-point work is matrix products.  The *roofline* here is what those
products cost when NumPy runs them and nothing else: the compiled graph's ``MatMul`` equations are
taken from the graph minims runs (shapes, transpose flags, float32), their operands captured from one
run of it, and each is timed as the single ``np.matmul`` call ``MatMul.impl`` makes — a transposed
operand passed as the transposed view it is, which OpenBLAS reads as a transposed layout without a
copy — in the same process, so with the same OpenBLAS kernel and thread count.  Timed interleaved
(``benchmarks.timing.measure``, medians):

* ``minims jit step``: the compiled call as the workload makes it (Graph mode, the Numba fast path on,
  the "minims + Numba, Graph" column of ``benchmarks.run``), Cell call and Parameter writes included;
* ``plan only``: the compiled graph's generated code on the same arrays (no Cell call, no writes);
* ``GEMMs alone``: the graph's products one after the other, nothing else (the roofline);
* ``JAX jit step`` where JAX is installed, the workload's own JAX peer.

Then, one by one: each product alone in NumPy and as its own ``jax.jit`` (XLA's own kernel, not
OpenBLAS), and a profile of the compiled graph run equation by equation — each product's time inside
the step against its time alone, and where the time outside the products goes.  The run names the
BLAS kernel (``OPENBLAS_CORETYPE`` chooses it when OpenBLAS loads, so run the module once per kernel).
``--clock cpu`` times with the process's CPU clock instead of the wall clock: where other processes
share the two cores, their turns on the CPU then do not count (their cache and memory traffic still
does), so the ratios stay readable on a busy machine.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

WORKLOADS = ("W3", "W5")


def _set_threads(n):
    """Before NumPy and JAX load: their thread pools read these once."""
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ[var] = str(n)
    from benchmarks.peers import xla_thread_flags
    os.environ["XLA_FLAGS"] = xla_thread_flags(n)


class Step:
    """One compiled workload: ``call()`` runs it as the workload does; ``plan`` is the code it runs
    and ``arrays`` that code's inputs; ``jax`` the JAX jit peer's timed callable (or None)."""

    def __init__(self, name, call, plan, arrays, jax_call):
        self.name, self.call, self.plan, self.arrays, self.jax = name, call, plan, arrays, jax_call
        self.gemms = [(i, eq) for i, eq in enumerate(plan.graph.equations) if eq.prim.name.startswith("MatMul")]


def _plan_of(compiled_fn, args):
    """``(plan the executor runs, its input arrays)`` for a compiled function called with ``args``."""
    from minims import fast
    entry = compiled_fn._compiled(args)
    plan = entry.call.plan
    plan = plan.fused_plan if fast.enabled else plan
    graph = entry.call.graph
    arrays = [a.asnumpy() for a in args] + [p._data for p in graph.implicit]
    assert len(arrays) == len(graph.inputs), "the compiled graph takes other inputs than expected"
    return plan, arrays


def w3_step(jax) -> Step:
    from minims import Tensor
    from benchmarks.workloads import w3_mlp as w
    from benchmarks.workloads.jax_peers import mlp_forward, training_peer
    weights = w.initial_weights()
    xb, yb = w.data()
    _, _, train = w.minims_train_step(weights)
    x, y = Tensor(xb), Tensor(yb)
    train(x, y)
    plan, arrays = _plan_of(train._graph_call, (x, y))
    jax_call = training_peer(jax, mlp_forward, weights, xb, yb, w.LR)[0]() if jax is not None else None
    return Step("W3", lambda: train(x, y), plan, arrays, jax_call)


def w5_step(jax) -> Step:
    from minims import Tensor
    from benchmarks.workloads import w5_custom_bprop as w
    xa, ya = w.data()
    net, x, y = w.GradNet(w.MatMulWithBprop()), Tensor(xa), Tensor(ya)
    net(x, y)
    plan, arrays = _plan_of(net._graph_call, (x, y))
    jax_call = w.jax_pair(xa, ya)(jax)[0]() if jax is not None else None
    return Step("W5", lambda: net(x, y), plan, arrays, jax_call)


# ----- the graph run equation by equation ---------------------------------------------------------
def _read(env, x):
    from minims.core.ir import Var
    return env[x.index] if isinstance(x, Var) else (x.value._data if x.is_tensor else x.value)


def run_equations(plan, arrays, times=None, clock=time.perf_counter) -> dict:
    """Run ``plan``'s graph one equation at a time (each kernel as the plan calls it); adds each
    equation's seconds to ``times``; returns the environment (every value, by Var index)."""
    env = {v.index: a for v, a in zip(plan.graph.inputs, arrays)}
    for i, eq in enumerate(plan.graph.equations):
        ins = [_read(env, a) for a in eq.ins]
        t0 = clock()
        out = eq.prim.impl(*ins)
        if times is not None:
            times[i].append(clock() - t0)
        for v, o in zip(eq.outs, out if eq.multiple else (out,)):
            env[v.index] = o
    return env


def gemm_operands(step) -> list:
    """``(a, b, transpose_a, transpose_b)`` of each product, as the step computes it (its operands
    captured from one run of the graph)."""
    env = run_equations(step.plan, step.arrays)
    return [(_read(env, eq.ins[0]), _read(env, eq.ins[1]), eq.prim.transpose_a, eq.prim.transpose_b)
            for _, eq in step.gemms]


def matmul_call(a, b, ta, tb):
    """The one NumPy call ``MatMul.impl`` makes: transposed operands as views (no copy)."""
    import numpy as np
    a2, b2 = (a.swapaxes(-1, -2) if ta else a), (b.swapaxes(-1, -2) if tb else b)
    return lambda: np.matmul(a2, b2)


def flops(a, b, ta, tb) -> int:
    m, k = (a.shape[-1], a.shape[-2]) if ta else a.shape[-2:]
    n = b.shape[-2] if tb else b.shape[-1]
    return 2 * m * k * n


def _median_us(samples):
    return statistics.median(samples) * 1e6


def per_gemm(step, operands, jax, repeats, clock=time.perf_counter) -> list:
    """Each product alone: NumPy (and ``jax.jit`` of the same product where JAX is installed), taking
    turns, ``repeats`` samples each; medians in microseconds."""
    rows = []
    for (a, b, ta, tb) in operands:
        call = matmul_call(a, b, ta, tb)
        peers = [("numpy", call)]
        if jax is not None:
            f = jax.jit(lambda u, v, ta=ta, tb=tb: (u.T if ta else u) @ (v.T if tb else v))
            ja, jb = jax.device_put(a), jax.device_put(b)
            f(ja, jb).block_until_ready()
            peers.append(("jax", lambda f=f, ja=ja, jb=jb: f(ja, jb).block_until_ready()))
        samples = {name: [] for name, _ in peers}
        for _, fn in peers:
            fn()
        for _ in range(repeats):
            for name, fn in peers:
                t0 = clock()
                fn()
                samples[name].append(clock() - t0)
        shape_a = tuple(a.shape[::-1]) if ta else tuple(a.shape)
        shape_b = tuple(b.shape[::-1]) if tb else tuple(b.shape)
        rows.append({"product": f"{shape_a}{'ᵀ' if ta else ''} @ {shape_b}{'ᵀ' if tb else ''}".replace(" ", ""),
                     "mflop": flops(a, b, ta, tb) / 1e6,
                     **{f"{name}_us": _median_us(s) for name, s in samples.items()}})
    return rows


def profile(step, rounds, clock=time.perf_counter) -> list:
    """Median seconds of each equation of the graph, run one at a time ``rounds`` times."""
    times = [[] for _ in step.plan.graph.equations]
    for _ in range(rounds):
        run_equations(step.plan, step.arrays, times, clock)
    return [statistics.median(t) for t in times]


def jax_gemms(jax, operands):
    """One ``jax.jit`` function computing the same products, nothing else (XLA's own GEMM kernels)."""
    flags = [(ta, tb) for _, _, ta, tb in operands]

    @jax.jit
    def products(*xs):
        return [(a.T if ta else a) @ (b.T if tb else b) for (ta, tb), a, b in zip(flags, xs[::2], xs[1::2])]
    xs = [jax.device_put(x) for a, b, _, _ in operands for x in (a, b)]
    return lambda: jax.block_until_ready(products(*xs))


def measure_step(step, jax, rounds, min_time, clock=time.perf_counter) -> dict:
    """The interleaved medians (seconds): the step, its plan alone, its GEMMs alone, JAX's step and
    JAX's products alone."""
    from benchmarks.timing import Peer, measure
    operands = gemm_operands(step)
    gemm_calls = [matmul_call(*o) for o in operands]

    def gemms_alone():
        for c in gemm_calls:
            c()
    fn, arrays = step.plan._fn, step.arrays
    peers = [Peer("minims jit step", lambda: step.call, dict),
             Peer("plan only", lambda: (lambda: fn(*arrays)), dict),
             Peer("GEMMs alone", lambda: gemms_alone, dict)]
    if step.jax is not None:
        peers.append(Peer("JAX jit step", lambda: step.jax, dict))
        peers.append(Peer("JAX GEMMs alone", lambda: jax_gemms(jax, operands), dict))
    timings = measure(peers, rounds, min_time, clock=clock)
    return {name: (t.median, t.min) for name, t in timings.items()}, operands


def report(step, jax, rounds, min_time, clock=time.perf_counter, out=print) -> dict:
    timed, operands = measure_step(step, jax, rounds, min_time, clock)
    medians = {name: m for name, (m, _) in timed.items()}
    total_flop = sum(flops(*o) for o in operands)
    gemm_s = medians["GEMMs alone"]
    out(f"\n{step.name}: {len(operands)} products, {total_flop / 1e6:.1f} MFLOP per step "
        f"[medians (minima) of {rounds} interleaved samples; ratios of medians]")
    for name, (s, low) in timed.items():
        ratio = f"{s / gemm_s:5.2f}x GEMMs alone"
        vs_jax = f", {s / medians['JAX jit step']:.2f}x JAX jit" if "JAX jit step" in medians else ""
        out(f"  {name:16s} {s * 1e3:7.3f} ({low * 1e3:6.3f}) ms  {total_flop / s / 1e9:6.1f} GFLOP/s-equivalent"
            f"  {ratio}{vs_jax}")
    rows = per_gemm(step, operands, jax, max(rounds, 15), clock)
    eq_times = profile(step, max(rounds, 15), clock)
    out("  each product: alone in NumPy, as its own jax.jit, and inside the step (run equation by equation)")
    out(f"    {'product':28s} {'MFLOP':>7s} {'NumPy µs':>9s} {'GFLOP/s':>8s} {'JAX µs':>8s} {'in step µs':>10s}")
    for row, (i, _) in zip(rows, step.gemms):
        row["in_step_us"] = eq_times[i] * 1e6
        jax_us = f"{row['jax_us']:8.0f}" if "jax_us" in row else f"{'n/a':>8s}"
        out(f"    {row['product']:28s} {row['mflop']:7.1f} {row['numpy_us']:9.0f} "
            f"{row['mflop'] / row['numpy_us'] * 1e3:8.1f} {jax_us} {row['in_step_us']:10.0f}")
    gemm_idx = {i for i, _ in step.gemms}
    outside = {}
    for i, eq in enumerate(step.plan.graph.equations):
        if i not in gemm_idx:
            outside[eq.prim.name] = outside.get(eq.prim.name, 0.0) + eq_times[i]
    in_gemms = sum(eq_times[i] for i in gemm_idx)
    rest = sum(outside.values())
    out(f"  equation by equation: {in_gemms * 1e3:.3f} ms in the products, {rest * 1e3:.3f} ms in the "
        f"{len(eq_times) - len(gemm_idx)} other equations; the step's call and writes add "
        f"{(medians['minims jit step'] - medians['plan only']) * 1e3:.3f} ms to the plan")
    for name, s in sorted(outside.items(), key=lambda kv: -kv[1])[:8]:
        out(f"    {s * 1e6:8.0f} µs  {name}")
    return {"medians_s": medians, "minima_s": {name: low for name, (_, low) in timed.items()},
            "mflop": total_flop / 1e6, "products": rows,
            "outside_us": {k: v * 1e6 for k, v in outside.items()}, "in_products_s": in_gemms}


def main(argv=None):
    p = argparse.ArgumentParser(prog="benchmarks/gemm_roofline.py", description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=1, help="threads of NumPy's BLAS, Numba and XLA (default 1)")
    p.add_argument("--only", choices=WORKLOADS, action="append", help="W3 or W5 (default both)")
    p.add_argument("--rounds", type=int, default=21, help="interleaved samples per peer (default 21)")
    p.add_argument("--min-time", type=float, default=0.1, help="seconds per sample, at least (default 0.1)")
    p.add_argument("--no-jax", action="store_true", help="leave JAX out")
    p.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                   help="wall time (default), or this process's CPU time: on cores other processes share, "
                        "their work does not count (their cache and memory traffic still does)")
    p.add_argument("--json", metavar="PATH", help="write the figures to this file")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    _set_threads(args.threads)

    import minims as ms
    from benchmarks.peers import load_jax
    from benchmarks.timing import blas_report, other_processes, pin_threads, thread_report
    jax, _ = load_jax(args.no_jax)
    pin_threads(args.threads)
    kernels = blas_report(thread_report(jax=jax))
    print(f"GEMM roofline, kernels: {kernels}")
    results = {"kernels": kernels, "clock": args.clock}
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    print(f"clock: {'CPU time of this process' if args.clock == 'cpu' else 'wall time'}")
    ms.set_context(mode=ms.GRAPH_MODE, fast_path=True)
    try:
        for name in args.only or WORKLOADS:
            step = (w3_step if name == "W3" else w5_step)(jax)
            noise = {}
            with other_processes(noise):
                results[name] = report(step, jax, args.rounds, args.min_time, clock)
            results[name]["other_cores"] = noise.get("other_cores")
            if noise.get("other_cores") is not None:
                print(f"  machine noise: other processes kept {noise['other_cores']:.2f} of "
                      f"{os.cpu_count()} cores busy on average")
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE, fast_path=False)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1, default=float)
    return 0


if __name__ == "__main__":
    sys.exit(main())
