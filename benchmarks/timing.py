"""Interleaved timing, summary statistics, and the thread counts the measurements ran with.

``measure(peers, rounds, min_time)`` times several implementations of one workload in the same
process, taking turns: each round times every peer once (one *sample* = ``number`` back-to-back
calls, ``number`` chosen so a sample lasts at least ``min_time``), and the order rotates from round to
round, so a burst of machine noise hits all peers alike instead of one of them.  Each peer's first
call (which includes Graph-mode tracing and compilation, PyTorch's lazy set-up, or a JIT compile)
is timed on its own and reported apart.  The garbage collector stays on (its cost is part of what a
learner pays) but runs before every sample, so that one peer's garbage is not collected in another
peer's sample.

``thread_report()`` says how many threads NumPy's BLAS (OpenBLAS, queried through ctypes),
PyTorch, JAX and Numba use, and which BLAS kernel each runs (OpenBLAS's core name, which
``OPENBLAS_CORETYPE`` overrides; PyTorch's BLAS library and CPU capability; XLA's own kernels);
``blas_report()`` says it in one line, printed above every table; ``pin_threads(n)`` sets the threads.
"""
from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable

THREAD_ENV_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")
KERNEL_ENV_VARS = ("OPENBLAS_CORETYPE", "ATEN_CPU_CAPABILITY", "XLA_FLAGS")   # choose the kernels, not threads


# ----- peers and their timings -------------------------------------------------------------------
@dataclass
class Peer:
    """One implementation of a workload.

    ``make()`` builds fresh state (weights, optimiser, compiled function) and returns the callable
    that is timed (no arguments).  ``outputs()`` builds its own fresh state from the same data and
    weights and returns the loss and gradients (a dict of name -> array) that the correctness check
    compares with the reference peer.  ``context()`` is entered around every sample and every check
    (e.g. Graph mode on, or the Numba fast path on).
    """

    name: str
    make: Callable[[], Callable[[], Any]]
    outputs: Callable[[], dict]
    context: Callable[[], contextlib.AbstractContextManager] = contextlib.nullcontext
    note: str = ""


@dataclass
class Timing:
    samples: list                  # seconds per call, one entry per sample
    number: int                    # calls per sample
    first_call: float              # seconds, the very first call (compilation, lazy set-up)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def min(self) -> float:
        return min(self.samples)

    @property
    def max(self) -> float:
        return max(self.samples)


@dataclass
class _Live:
    peer: Peer
    fn: Callable[[], Any] = None
    number: int = 1
    first_call: float = 0.0
    samples: list = field(default_factory=list)


def _time_calls(fn, number: int, clock=time.perf_counter) -> float:
    t0 = clock()
    for _ in range(number):
        fn()
    return (clock() - t0) / number


def measure(peers: list, rounds: int, min_time: float, warmup: int = 2, clock=time.perf_counter) -> dict:
    """Time every peer, interleaved; returns ``{name: Timing}``.  ``clock``: wall time by default;
    ``time.process_time`` counts only this process's CPU time (all its threads), which other processes
    sharing the cores do not advance (their cache and memory traffic still slow it)."""
    live = [_Live(p) for p in peers]
    for lv in live:
        with lv.peer.context():
            lv.fn = lv.peer.make()
            t0 = time.perf_counter()
            lv.fn()
            lv.first_call = time.perf_counter() - t0
            for _ in range(warmup):
                lv.fn()
            # calls per sample: enough to last min_time (one call if a single call already does)
            single = min(_time_calls(lv.fn, 1, clock) for _ in range(3))
            lv.number = max(1, int(round(min_time / max(single, 1e-9))))
    n = len(live)
    for r in range(rounds):
        for i in range(n):
            lv = live[(i + r) % n]
            with lv.peer.context():
                gc.collect()
                lv.samples.append(_time_calls(lv.fn, lv.number, clock))
    return {lv.peer.name: Timing(lv.samples, lv.number, lv.first_call) for lv in live}


# ----- what else ran ----------------------------------------------------------------------------
def _busy_seconds():
    """``(busy, steal)``: CPU seconds spent by all processes since boot, and those a hypervisor took
    from this (virtual) machine (``/proc/stat``); ``(None, None)`` off Linux."""
    try:
        with open("/proc/stat") as fh:
            fields = fh.readline().split()[1:]
        user, nice, system, idle, iowait, irq, softirq, steal = (int(v) for v in fields[:8])
        hz = os.sysconf("SC_CLK_TCK")
        return (user + nice + system + irq + softirq) / hz, steal / hz
    except (OSError, ValueError):
        return None, None


@contextlib.contextmanager
def other_processes(into: dict):
    """Fill ``into`` with how much CPU other processes used while the block ran: ``other_cpu_s``
    (all CPU time on the machine minus this process's own), ``wall_s``, and ``other_cores``, the
    average number of cores they kept busy (0 on a quiet machine; 1 means one core of two taken),
    and ``steal_cores``, the cores' worth of time a hypervisor gave to other virtual machines."""
    (busy0, steal0), own0, wall0 = _busy_seconds(), time.process_time(), time.perf_counter()
    try:
        yield into
    finally:
        (busy1, steal1), own1, wall1 = _busy_seconds(), time.process_time(), time.perf_counter()
        wall = max(wall1 - wall0, 1e-9)
        into["wall_s"] = wall
        if busy0 is None or busy1 is None:
            into["other_cpu_s"] = into["other_cores"] = into["steal_cores"] = None
        else:
            other = max(0.0, (busy1 - busy0) - (own1 - own0))
            into["other_cpu_s"] = other
            into["other_cores"] = other / wall
            into["steal_cores"] = (steal1 - steal0) / wall


# ----- threads -----------------------------------------------------------------------------------
def _openblas_libs():
    """ctypes handles of the OpenBLAS libraries loaded in this process (NumPy's, maybe others)."""
    paths = set()
    try:
        with open("/proc/self/maps") as fh:
            for line in fh:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                if "openblas" in os.path.basename(path).lower():
                    paths.add(path)
    except OSError:                               # not Linux: report "unknown"
        return []
    libs = []
    for path in sorted(paths):
        try:
            libs.append((path, ctypes.CDLL(path)))
        except OSError:
            pass
    return libs


def _blas_symbol(lib, suffix: str):
    for prefix, tail in (("scipy_openblas_", "64_"), ("scipy_openblas_", ""), ("openblas_", "64_"),
                         ("openblas_", "")):
        fn = getattr(lib, f"{prefix}{suffix}{tail}", None)
        if fn is not None:
            return fn
    return None


def blas_threads() -> dict:
    """``{library path: thread count}`` for each loaded OpenBLAS (NumPy must be imported)."""
    out = {}
    for path, lib in _openblas_libs():
        fn = _blas_symbol(lib, "get_num_threads")
        if fn is not None:
            fn.restype = ctypes.c_int
            out[os.path.basename(path)] = int(fn())
    return out


def _blas_text(lib, suffix: str):
    fn = _blas_symbol(lib, suffix)
    if fn is None:
        return None
    fn.restype = ctypes.c_char_p
    value = fn()
    return value.decode(errors="replace").strip() if value else None


def blas_kernels() -> dict:
    """``{library: {"threads", "corename", "config"}}`` for each loaded OpenBLAS: the core name is the
    kernel it runs (e.g. Haswell, SkylakeX), chosen from the CPU unless ``OPENBLAS_CORETYPE`` says."""
    out = {}
    for path, lib in _openblas_libs():
        threads = _blas_symbol(lib, "get_num_threads")
        if threads is not None:
            threads.restype = ctypes.c_int
        out[os.path.basename(path)] = {"threads": int(threads()) if threads is not None else None,
                                       "corename": _blas_text(lib, "get_corename"),
                                       "config": _blas_text(lib, "get_config")}
    return out


def torch_kernels(torch) -> dict | None:
    """PyTorch's BLAS library (from its build configuration) and the CPU capability its kernels use."""
    if torch is None:
        return None
    config = torch.__config__.show()
    blas = next((part.split("=", 1)[1] for part in config.replace(",", " ").split() if part.startswith("BLAS_INFO=")),
                None)
    try:
        capability = torch.backends.cpu.get_cpu_capability()
    except AttributeError:
        capability = None
    return {"blas": blas, "cpu_capability": capability}


def jax_kernels(jax) -> dict | None:
    """JAX's backend and its devices; XLA:CPU runs its own GEMM kernels (Eigen, or oneDNN), not NumPy's."""
    if jax is None:
        return None
    return {"backend": jax.default_backend(), "devices": len(jax.devices()), "xla_flags": os.environ.get("XLA_FLAGS")}


def blas_report(report: dict) -> str:
    """One line: which kernel and how many threads each library ran with (from ``thread_report``)."""
    parts = []
    for name, info in (report.get("numpy_blas") or {}).items():
        parts.append(f"NumPy BLAS {name.split('-')[0]} {info.get('corename') or 'unknown core'} kernel, "
                     f"{info.get('threads')} thread(s)")
    if not report.get("numpy_blas"):
        parts.append("NumPy BLAS unknown (no OpenBLAS found)")
    core = report["env"].get("OPENBLAS_CORETYPE")
    parts.append(f"OPENBLAS_CORETYPE={core}" if core else "OPENBLAS_CORETYPE unset")
    tk = report.get("torch_kernels")
    if tk:
        parts.append(f"PyTorch {tk['blas']} BLAS, {tk['cpu_capability']} kernels, {report['torch_intra_op']} thread(s)")
    jk = report.get("jax_kernels")
    if jk:
        flags = (jk.get("xla_flags") or "").split()
        n = next((f.split("=", 1)[1] for f in flags if f.startswith("intra_op_parallelism_threads=")), None)
        threads = f"{n} thread(s)" if n else "default threads"
        parts.append(f"JAX XLA:{jk['backend']} own kernels, {threads}")
    parts.append(f"Numba {report.get('numba')} thread(s)")
    return "; ".join(parts)


def pin_threads(n: int, torch=None) -> None:
    """Use ``n`` threads in NumPy's BLAS, PyTorch (intra-op) and Numba, from now on."""
    for var in THREAD_ENV_VARS:
        os.environ[var] = str(n)
    for _, lib in _openblas_libs():
        fn = _blas_symbol(lib, "set_num_threads")
        if fn is not None:
            fn.argtypes = [ctypes.c_int]
            fn(int(n))
    if torch is not None:
        torch.set_num_threads(int(n))
    try:
        import numba
        numba.set_num_threads(min(int(n), numba.config.NUMBA_NUM_THREADS))
    except Exception:                             # numba absent, or its threading layer unavailable
        pass


def thread_report(torch=None, requested=None, jax=None) -> dict:
    report = {
        "requested": requested,
        "cpu_count": os.cpu_count(),
        "env": {var: os.environ.get(var) for var in THREAD_ENV_VARS + KERNEL_ENV_VARS},
        "numpy_openblas": blas_threads(),
        "numpy_blas": blas_kernels(),
        "torch_kernels": torch_kernels(torch),
        "jax_kernels": jax_kernels(jax),
        "torch_intra_op": torch.get_num_threads() if torch is not None else None,
        "torch_inter_op": torch.get_num_interop_threads() if torch is not None else None,
    }
    try:            # the configured count: numba.get_num_threads() would start Numba's thread pool
        import numba
        report["numba"] = numba.config.NUMBA_NUM_THREADS
    except Exception:
        report["numba"] = None
    return report
