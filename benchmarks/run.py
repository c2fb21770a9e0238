"""minims benchmark suite: issue 6's workloads W1-W5, minims against its peers, in one invocation.

How to run it (from the repository root, in the project's virtual environment)::

    .venv/bin/python benchmarks/run.py                 # everything, ~3-4 minutes on 2 cores
    .venv/bin/python benchmarks/run.py --quick         # a few repeats: checks the suite, not the speed
    .venv/bin/python benchmarks/run.py --only W2,W5    # some workloads (W1, W2 ... or W1.grad)
    .venv/bin/python benchmarks/run.py --memory        # also W2's memory criterion (~1.5 minutes more)
    .venv/bin/python benchmarks/run.py --threads 1     # pin NumPy's BLAS, PyTorch, JAX and Numba to 1 thread
    .venv/bin/python benchmarks/run.py --threads 1 --compile   # also torch.compile (minutes of compiling)
    .venv/bin/python benchmarks/run.py --only W1,W2 --profile "minims PyNative"   # cProfile, top 15
                                                       # by cumulative time (--profile-sort tottime)

``python -m benchmarks.run`` works as well.  The PyTorch column appears when ``import torch`` works
(``pip install torch==2.13.0`` gives a CPU build on this machine kind; it is not a dependency of
minims); ``--no-torch`` (or ``MINIMS_BENCH_NO_TORCH=1``) runs as if it were absent, and
``--no-numba`` (or ``MINIMS_BENCH_NO_NUMBA=1``) leaves the fast-path column out.  Likewise the
``JAX jit`` column appears when ``import jax`` works (``pip install jax``; ``--no-jax`` or
``MINIMS_BENCH_NO_JAX=1`` leaves it out), and ``torch.compile`` with ``--compile`` (issue 28; both
are optional dependencies of the benchmarks, never of minims).  The smoke test
``tests/project/test_benchmarks_smoke.py`` runs ``--quick --no-torch --no-numba`` (no timing is asserted).

The workloads (issue 6; each module under ``benchmarks/workloads/`` says exactly what it computes):

====  ===================================================================  ===========
W1    per elementwise op on a [4] float32 tensor, chain of 200: forward;    us per op
      forward + gradient
W2    LeNet-5 training step, batch 32, 1x32x32, Momentum                    ms per step
W3    MLP 784-512-512-10, batch 256, SGD step                               ms per step
W4    third derivative of sum(tanh(x)), x of 1000 elements                  us per call
W5    custom Cell bprop around a 256x256 matmul, vs. no custom bprop        ms per call
====  ===================================================================  ===========

The peers (columns): ``minims PyNative`` (eager), ``minims Graph`` (``jit`` / ``GRAPH_MODE``),
``minims + Numba`` (PyNative with ``set_context(fast_path=True)``; the two columns before it run
with ``fast_path=False``, the pure-NumPy path; "n/a" where minims has no such switch, Numba cannot be
imported, or with ``--no-numba``: see the FAST-PATH HOOK in ``benchmarks/peers.py``), ``NumPy by
hand`` (forward and backward written out, same math, same float32), ``PyTorch eager`` (CPU),
``torch.compile`` and ``JAX jit`` (each workload written as those libraries' users write it).
The fast path's first use (Numba compiling its kernels, or loading them from its disk cache) is
timed during the checks and printed there.

What a run does:

1. **Checks first.**  Every peer computes the loss and gradients of its workload (training steps:
   two steps, both losses, the first step's gradients, the parameters after the second) from the
   same data and weights, and each is compared with minims PyNative: the largest difference,
   relative to the reference's largest magnitude, must be <= 1e-4.  Any disagreement stops the run
   with exit status 2 before anything is timed — a benchmark of a wrong computation is worthless.
2. **Timing, interleaved.**  Per workload, every peer's first call is timed apart (it includes
   Graph-mode compilation and PyTorch's lazy set-up: the "1st call" column); then ``--rounds``
   rounds each take one sample of every peer, in an order that rotates each round.  A sample is as
   many back-to-back calls as last ``--min-time`` seconds.  The garbage collector stays on but runs
   before each sample.
3. **Report.**  A table per workload — median, min-max over the samples, and the median's ratio to
   NumPy by hand and to PyTorch eager — then issue 6's targets (met / missed / n/a), measured as
   ratios of medians in this run.  The same, with every sample, the thread counts (recorded, not
   changed unless ``--threads``: a learner's default is what is measured) and the BLAS kernel each
   library ran (printed under every table: ``benchmarks.timing.blas_report``), the machine and the
   versions, goes to a JSON file (``--json PATH``; by default ``benchmarks/results/run-<time>.json``,
   a git-ignored folder).

Times are noisy on a shared 2-core machine: compare ratios within one run, and read min-max.  Each
table ends with a "machine noise" line — how many cores other processes kept busy, and how much
time the hypervisor stole, while that table was being timed (from ``/proc/stat``; also in the JSON):
above ~0.2 cores, a neighbour was competing (with NumPy's BLAS on 2 threads, one busy core can slow
a GEMM many times over), and that table is worth running again.
"""
from __future__ import annotations

import argparse
import datetime
import io
import json
import os
import pathlib
import platform
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
WORKLOADS = ("W1", "W2", "W3", "W4", "W5")
SCHEMA = 1


def parse_args(argv):
    p = argparse.ArgumentParser(prog="benchmarks/run.py", description="minims benchmark suite (issue 6).",
                                epilog="See the docstring of benchmarks/run.py for what is measured and how.")
    p.add_argument("--quick", action="store_true",
                   help="few repeats and short samples (checks the suite works; the figures mean little)")
    p.add_argument("--only", action="append", default=[], metavar="W2[,W5]",
                   help="run only these workloads (W1..W5, or a variant such as W1.grad); repeatable")
    p.add_argument("--json", metavar="PATH", help="where to write the results (default: benchmarks/results/)")
    p.add_argument("--threads", type=int, metavar="N",
                   help="pin NumPy's BLAS, PyTorch, JAX and Numba to N threads (default: leave them as they are)")
    p.add_argument("--no-torch", action="store_true", help="run as if PyTorch were not installed")
    p.add_argument("--no-jax", action="store_true", help="run as if JAX were not installed")
    p.add_argument("--compile", action="store_true",
                   help="add the torch.compile column (its first calls compile C++: minutes on 2 cores)")
    p.add_argument("--no-numba", action="store_true",
                   help='leave out the "minims + Numba" column (no Numba compilation: fast smoke tests)')
    p.add_argument("--rounds", type=int, help="samples per peer (default 21; --quick: 3)")
    p.add_argument("--min-time", type=float, help="seconds per sample, at least (default 0.1; --quick: 0.002)")
    p.add_argument("--memory", action="store_true",
                   help="also measure W2's memory criterion: peak of --memory-steps steps vs 10 steps")
    p.add_argument("--memory-steps", type=int, default=1000, metavar="N", help="steps for --memory (default 1000)")
    p.add_argument("--profile", action="append", default=[], metavar="PEER",
                   help='cProfile this peer (e.g. "minims PyNative") on every selected workload; repeatable')
    p.add_argument("--profile-top", type=int, default=15, metavar="N", help="rows of each profile (default 15)")
    p.add_argument("--profile-sort", default="cumulative", choices=("cumulative", "tottime", "ncalls"),
                   help="order of the profile's rows (default cumulative)")
    args = p.parse_args(argv)
    if args.threads is not None and args.threads < 1:
        p.error("--threads must be at least 1")
    selected = []
    for item in args.only:
        for name in item.split(","):
            name = name.strip()
            if not name:
                continue
            if name.split(".")[0].upper() not in WORKLOADS:
                p.error(f"--only: unknown workload {name!r}; choose among {', '.join(WORKLOADS)} "
                        "(or a variant such as W1.forward, W1.grad)")
            selected.append(name[0].upper() + name[1:])
    args.selected = selected
    args.rounds = args.rounds or (3 if args.quick else 21)
    args.min_time = args.min_time if args.min_time is not None else (0.002 if args.quick else 0.1)
    return args


def _wanted(variant, selected) -> bool:
    return not selected or any(variant.key == s or variant.workload == s for s in selected)


def _git_commit():
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                                timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return {"commit": commit or None, "modified_files": bool(dirty)}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "modified_files": None}


def _loadavg():
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except OSError:
        return None


def _cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def machine_info(torch, jax=None):
    import numpy as np
    import minims
    try:
        import numba
        numba_version = numba.__version__
    except ImportError:
        numba_version = None
    return {"python": platform.python_version(), "platform": platform.platform(), "cpu": _cpu_model(),
            "cpu_count": os.cpu_count(), "numpy": np.__version__, "minims": minims.__version__,
            "torch": torch.__version__ if torch is not None else None, "numba": numba_version,
            "jax": jax.__version__ if jax is not None else None,
            "git": _git_commit()}


# ----- printing ---------------------------------------------------------------------------------------
def _fmt(v):
    if v is None:
        return "n/a"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}" if v >= 1 else f"{v:.3f}"


def _fmt_ratio(v):
    return "n/a" if v is None else (f"{v:.2f}x" if v < 100 else f"{v:.0f}x")


def print_table(variant, result, out=print):
    from benchmarks.peers import PYNATIVE, column_rank
    unit = variant.unit
    out("")
    out(f"{variant.title}")
    out(f"  [{unit}; median and min-max of {result['rounds']} interleaved samples; ratios of medians]")
    head = (f"  {'peer':34s} {'median':>9s} {'min - max':>19s} {'vs NumPy':>9s} {'vs PyTorch':>10s} {'vs JAX':>7s} "
            f"{'1st call':>9s} {'calls':>6s}  check")
    out(head)
    out("  " + "-" * (len(head) - 2))
    rows = sorted([*result["results"], *result["unavailable"]], key=column_rank)
    for name in rows:
        if name in result["unavailable"]:
            why = result["unavailable"][name]
            out(f"  {name:34s} {'n/a':>9s}   ({why.split(' (')[0]})")
            continue
        r, check = result["results"][name], result["checks"][name]
        mark = "reference" if name == PYNATIVE else f"ok ({check['max_rel_err']:.1e})"
        span = f"{_fmt(r['min'])} - {_fmt(r['max'])}"
        first = r["first_call_s"]
        first_txt = f"{first * 1e3:.1f} ms" if first < 1 else f"{first:.2f} s"
        out(f"  {name:34s} {_fmt(r['median']):>9s} {span:>19s} {_fmt_ratio(result['ratios'][name]['vs_numpy']):>9s} "
            f"{_fmt_ratio(result['ratios'][name]['vs_torch']):>10s} {_fmt_ratio(result['ratios'][name]['vs_jax']):>7s} "
            f"{first_txt:>9s} {r['number']:>6d}  {mark}")
    for label, value in result["extra_ratios"].items():
        out(f"  ratio {label}: {_fmt_ratio(value)}")
    for note in variant.notes:
        out(f"  note: {note}")
    if result.get("kernels"):
        out(f"  kernels and threads: {result['kernels']}")
    noise = result.get("other_processes") or {}
    if noise.get("other_cores") is not None:
        noisy = noise["other_cores"] + noise["steal_cores"] > 0.2
        out(f"  machine noise: other processes kept {noise['other_cores']:.2f} of {os.cpu_count()} cores busy on "
            f"average during these {noise['wall_s']:.0f} s, hypervisor steal {noise['steal_cores']:.2f} cores"
            + ("  <- noisy: read min-max, or run again" if noisy else ""))


# ----- the run ----------------------------------------------------------------------------------------
def run_checks(variant):
    """Compare every peer's outputs with minims PyNative's; returns ``{peer: check}`` or raises
    ``CheckFailed``.  ``seconds`` is how long the peer took to build and run its check: for the
    Numba column that includes compiling its kernels (or loading them from Numba's disk cache)."""
    import time
    from benchmarks.checks import CheckFailed, compare
    from benchmarks.peers import PYNATIVE
    ref = next(p for p in variant.peers if p.name == PYNATIVE)
    t0 = time.perf_counter()
    with ref.context():
        want = ref.outputs()
    results = {PYNATIVE: {"ok": True, "max_rel_err": 0.0, "worst": None, "compared": sorted(want),
                          "reference": True, "seconds": time.perf_counter() - t0}}
    for peer in variant.peers:
        if peer.name == PYNATIVE:
            continue
        try:
            t0 = time.perf_counter()
            with peer.context():
                got = peer.outputs()
            seconds = time.perf_counter() - t0
            results[peer.name] = compare(peer.name, got, PYNATIVE, want, variant.tol)
            results[peer.name]["seconds"] = seconds
        except CheckFailed:
            raise
        except Exception as exc:      # a peer that cannot even run is as wrong as a wrong one
            raise CheckFailed(f"{peer.name} failed while computing {variant.key}: "
                              f"{type(exc).__name__}: {exc}") from exc
    return results


def time_variant(variant, checks, rounds, min_time):
    from benchmarks.peers import JAX, NUMPY, TORCH
    from benchmarks.timing import measure, other_processes
    noise = {}
    with other_processes(noise):
        timings = measure(variant.peers, rounds=rounds, min_time=min_time)
    k = variant.scale / variant.per
    results = {}
    for name, t in timings.items():
        results[name] = {"median": t.median * k, "min": t.min * k, "max": t.max * k,
                         "samples": [s * k for s in t.samples], "number": t.number,
                         "first_call_s": t.first_call, "unit": variant.unit}

    def ratio(a, b):
        if a in results and b in results:
            return results[a]["median"] / results[b]["median"]
        return None
    ratios = {name: {"vs_numpy": ratio(name, NUMPY), "vs_torch": ratio(name, TORCH), "vs_jax": ratio(name, JAX)}
              for name in results}
    extra = {label: ratio(a, b) for label, a, b in variant.ratios}
    targets = []
    for t in variant.targets:
        if t.denominator is None:       # a time in seconds
            if t.numerator not in results:
                value = None
            elif t.measure is not None:
                value = t.measure()
            else:
                value = results[t.numerator]["first_call_s"]
        else:
            value = ratio(t.numerator, t.denominator)
        missing = [n for n in (t.numerator, t.denominator) if n is not None and n not in results]
        targets.append({"workload": variant.key, "target": t.text, "ratio": value, "limit": t.limit,
                        "unit": "s" if t.denominator is None else "ratio",
                        "status": "n/a" if value is None else ("met" if value <= t.limit else "missed"),
                        "why_na": ("; ".join(f"{n}: {variant.unavailable.get(n, 'not run')}" for n in missing)
                                   or None)})
    return {"title": variant.title, "unit": variant.unit, "per": variant.per, "rounds": rounds,
            "min_time_s": min_time, "checks": checks, "results": results, "ratios": ratios,
            "extra_ratios": extra, "unavailable": dict(variant.unavailable), "notes": list(variant.notes),
            "targets": targets, "other_processes": noise}


def profile_peer(variant, peer, result, top, sort="cumulative", out=print):
    import cProfile
    import pstats
    calls = 10
    if result and peer.name in result["results"]:
        per_call = result["results"][peer.name]["median"] * variant.per / variant.scale
        calls = max(1, min(2000, int(1.0 / max(per_call, 1e-9))))       # about one second of calls
    with peer.context():
        fn = peer.make()
        fn()
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(calls):
            fn()
        prof.disable()
    buf = io.StringIO()
    stats = pstats.Stats(prof, stream=buf)
    stats.sort_stats(sort).print_stats(top)
    text = buf.getvalue().replace(str(ROOT) + os.sep, "")
    text = "\n".join(line for line in text.splitlines() if line.strip())
    out("")
    out(f"profile: {peer.name} on {variant.key}, {calls} calls, top {top} by {sort}")
    for line in text.splitlines():
        out("  " + line)
    return {"calls": calls, "sort": sort, "text": text}


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.threads is not None:                  # before NumPy is imported, where it still is not
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
            os.environ[var] = str(args.threads)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from benchmarks.peers import xla_thread_flags
    if args.threads is not None:                  # before JAX starts its backend
        os.environ["XLA_FLAGS"] = xla_thread_flags(args.threads)

    from benchmarks import memory as memory_mod
    from benchmarks.checks import CheckFailed
    from benchmarks.peers import NUMBA, PYNATIVE, fast_path, load_jax, load_torch
    from benchmarks.timing import blas_report, pin_threads, thread_report
    from benchmarks.workloads import Env
    from benchmarks.workloads import (w1_elementwise, w2_lenet, w3_mlp, w4_third_derivative,
                                      w5_custom_bprop)
    import minims as ms

    torch, torch_reason = load_torch(args.no_torch)
    jax, jax_reason = load_jax(args.no_jax)
    if args.threads is not None:
        pin_threads(args.threads, torch)
    fast = fast_path(args.no_numba)
    env = Env(torch=torch, torch_reason=torch_reason, fast=fast, quick=args.quick, threads=args.threads,
              jax=jax, jax_reason=jax_reason, compile=args.compile)
    modules = {"W1": w1_elementwise, "W2": w2_lenet, "W3": w3_mlp, "W4": w4_third_derivative,
               "W5": w5_custom_bprop}
    variants = [v for w, m in modules.items() for v in m.variants(env)]
    variants = [v for v in variants if _wanted(v, args.selected)]
    if not variants:
        print(f"no workload matches --only {','.join(args.selected)}", file=sys.stderr)
        return 2
    ms.set_context(mode=ms.PYNATIVE_MODE)

    threads = thread_report(torch, args.threads, jax)
    load_start = _loadavg()
    print(f"minims benchmark suite{' (--quick)' if args.quick else ''}: "
          f"{', '.join(v.key for v in variants)}")
    print(f"  PyTorch: {torch_reason}")
    print(f"  JAX: {jax_reason}")
    print(f"  Numba fast path: {fast.how}")
    if load_start and load_start[0] > 0.5:
        print(f"  NOTE: the machine is busy before the run (load average {load_start[0]:.2f} over 1 min): "
              "other processes share the cores, expect noisy figures")
    print(f"  threads: NumPy BLAS {threads['numpy_openblas'] or 'unknown'}, PyTorch "
          f"{threads['torch_intra_op'] if torch is not None else 'n/a'}, Numba {threads['numba']}, "
          f"{threads['cpu_count']} CPUs" + (f" (pinned to {args.threads})" if args.threads else
                                            " (defaults; --threads N pins them)"))
    print(f"  kernels: {blas_report(threads)}")

    # 1. checks, all before any timing
    print("checking that every peer computes the same loss and gradients as minims PyNative ...")
    checks = {}
    try:
        for v in variants:
            checks[v.key] = run_checks(v)
            worst = max((c["max_rel_err"] for c in checks[v.key].values()), default=0.0)
            print(f"  {v.key:10s} {len(checks[v.key]) - 1} peer(s) agree with minims PyNative "
                  f"(largest relative difference {worst:.1e}, tolerance {v.tol:g})")
            if NUMBA in checks[v.key]:
                print(f"  {'':10s} first use of the fast path (Numba compile or disk-cache load, 2 calls): "
                      f"{checks[v.key][NUMBA]['seconds']:.2f} s vs {checks[v.key][PYNATIVE]['seconds']:.2f} s "
                      "for minims PyNative")
    except CheckFailed as exc:
        print(f"\nCHECK FAILED: {exc}\nNothing was timed: a benchmark of a wrong computation is worthless.",
              file=sys.stderr)
        return 2
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)

    # 2. timing
    results = {}
    try:
        for v in variants:
            results[v.key] = time_variant(v, checks[v.key], args.rounds, args.min_time)
            results[v.key]["kernels"] = blas_report(threads)      # every figure says what it ran on
            print_table(v, results[v.key])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)

    # 3. targets
    targets = [t for r in results.values() for t in r["targets"]]
    memory = None
    if args.memory and any(v.workload == "W2" for v in variants):
        print(f"\nmemory (W2, tracemalloc): {args.memory_steps} steps vs 10 ...")
        memory = memory_mod.measure(steps=args.memory_steps, baseline=min(10, args.memory_steps), fast=fast)
        for mode, row in memory["modes"].items():
            targets.append({"workload": "W2.memory", "target": f"W2 memory ({mode}): peak of "
                            f"{args.memory_steps} steps <= 1.10x peak of 10 steps", "ratio": row["ratio"],
                            "limit": memory_mod.LIMIT, "status": "met" if row["met"] else "missed",
                            "why_na": None})
    elif args.memory:
        print("\n--memory measures W2: add W2 to --only to run it")
    print("\ntargets of issues 6 and 16 (ratios of medians in this run; a first call in seconds):")
    for t in targets:
        value = "n/a" if t["ratio"] is None else f"{t['ratio']:.2f}"
        why = f"  ({t['why_na']})" if t["status"] == "n/a" and t["why_na"] else ""
        print(f"  [{t['status']:6s}] {t['target']}: {value} (limit {t['limit']:g}){why}")

    # 4. profiles
    profiles = {}
    for name in args.profile:
        for v in variants:
            peer = next((p for p in v.peers if p.name == name), None)
            if peer is None:
                continue
            profiles.setdefault(v.key, {})[name] = profile_peer(v, peer, results.get(v.key), args.profile_top,
                                                                   args.profile_sort)
        if not any(name in p for p in profiles.values()):
            print(f"--profile: no selected workload has a peer named {name!r}", file=sys.stderr)
    ms.set_context(mode=ms.PYNATIVE_MODE)

    # 5. JSON
    report = {
        "schema": SCHEMA,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": [sys.executable, *sys.argv] if argv is None else ["benchmarks/run.py", *argv],
        "quick": args.quick,
        "settings": {"rounds": args.rounds, "min_time_s": args.min_time, "gc": "enabled, collected before each sample",
                     "order": "interleaved, rotating each round", "check_tolerance": "max|diff|/max|ref| <= 1e-4"},
        "machine": {**machine_info(torch, jax), "loadavg_start": load_start, "loadavg_end": _loadavg()},
        "threads": threads,
        "peers": {"torch": {"available": torch is not None, "reason": torch_reason},
                  "jax": {"available": jax is not None, "reason": jax_reason},
                  "torch_compile": {"available": torch is not None and args.compile},
                  "fast_path": {"available": fast.available, "how": fast.how}},
        "workloads": results,
        "targets": targets,
        "memory": memory,
        "profiles": profiles,
    }
    path = pathlib.Path(args.json) if args.json else (
        ROOT / "benchmarks" / "results" /
        f"run-{datetime.datetime.now().strftime('%Y%m%d-%H%M%S')}{'-quick' if args.quick else ''}.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1) + "\n")
    print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
