"""The peers every workload is run with, and the switches between them.

Peer names (the table's columns):

* ``minims PyNative`` — minims as a learner uses it (eager); the reference of every check;
* ``minims Graph``    — the same code compiled (``jit``, or ``GRAPH_MODE`` for Cells);
* ``minims + Numba``  — minims PyNative with the Numba fast path on (see FAST-PATH HOOK below);
* ``minims + Numba, Graph`` — minims Graph with the fast path on;
* ``NumPy by hand``   — forward and backward written out in NumPy, same math, same float32;
* ``PyTorch eager``   — PyTorch CPU, when ``import torch`` works;
* ``JAX jit``         — ``jax.jit`` of the workload written in JAX, when ``import jax`` works and the
  workload has a JAX version (issue 28; an optional dependency of the benchmarks only);
* ``torch.compile``   — the PyTorch peer under ``torch.compile``, with ``--compile`` (its first call
  compiles with a C++ compiler: a minute or more per workload on 2 cores).

FAST-PATH HOOK.  The ``minims + Numba`` column needs minims' switch for its Numba fast path
(issue 6, item 2) and an importable Numba; without either (and with ``--no-numba``) it is reported
as "n/a", with the reason.  ``fast_path()`` finds the switch, and checks that switching on really
turns the fast path on (minims reads ``fast_path`` back as False when Numba cannot be imported):

1. a context option: ``minims.get_context("fast_path")`` works, and ``set_context(fast_path=...)``
   turns the fast path on and off at run time.  The suite then runs ``minims PyNative`` (and
   ``minims Graph``) with ``fast_path=False`` — the pure-NumPy reference path — and ``minims + Numba``
   with ``fast_path=True``, interleaved, in the same process;
2. or an environment variable named by ``minims.context.FAST_PATH_ENV`` (a str attribute), read by
   minims at call time: the suite sets it to "1" / "0" around each sample.

If minims spells its switch differently, change ``CONTEXT_KEY`` or ``ENV_ATTRIBUTE`` here: nothing
else in the suite needs to know.
"""
from __future__ import annotations

import contextlib
import os
import warnings

import numpy as np

import minims as ms

PYNATIVE = "minims PyNative"
GRAPH = "minims Graph"
NUMBA = "minims + Numba"
NUMBA_GRAPH = "minims + Numba, Graph"   # a variant: ranked right after its base column
NUMPY = "NumPy by hand"
TORCH = "PyTorch eager"
JAX = "JAX jit"
TORCH_COMPILE = "torch.compile"

CONTEXT_KEY = "fast_path"             # minims.set_context(fast_path=True/False)
ENV_ATTRIBUTE = "FAST_PATH_ENV"       # minims.context.FAST_PATH_ENV = "MINIMS_..." (name of the env switch)
NO_TORCH_ENV = "MINIMS_BENCH_NO_TORCH"  # =1: behave as if torch were not installed (tests use this)
NO_NUMBA_ENV = "MINIMS_BENCH_NO_NUMBA"  # =1: leave the fast path out (no "minims + Numba" column)
NO_JAX_ENV = "MINIMS_BENCH_NO_JAX"      # =1: behave as if jax were not installed


# ----- PyTorch -----------------------------------------------------------------------------------
def load_torch(disabled: bool = False):
    """``(torch module or None, reason)``."""
    if disabled or os.environ.get(NO_TORCH_ENV, "") not in ("", "0"):
        return None, "disabled (--no-torch or MINIMS_BENCH_NO_TORCH=1)"
    try:
        import torch
    except ImportError as exc:
        return None, f"not installed ({type(exc).__name__}: {exc}; pip install torch==2.13.0 adds it)"
    return torch, f"torch {torch.__version__}"


# ----- JAX ---------------------------------------------------------------------------------------
def load_jax(disabled: bool = False):
    """``(jax module or None, reason)``; float32 throughout (JAX's default, ``jax_enable_x64`` off)."""
    if disabled or os.environ.get(NO_JAX_ENV, "") not in ("", "0"):
        return None, "disabled (--no-jax or MINIMS_BENCH_NO_JAX=1)"
    try:
        import jax
    except ImportError as exc:
        return None, f"not installed ({type(exc).__name__}: {exc}; pip install jax adds it)"
    return jax, f"jax {jax.__version__} ({jax.default_backend()})"


def xla_thread_flags(n: int) -> str:
    """``XLA_FLAGS`` for ``n`` threads: XLA:CPU reads them once, when JAX starts its backend."""
    flags = os.environ.get("XLA_FLAGS", "")
    if "intra_op_parallelism_threads" in flags:     # the user's own choice stands
        return flags
    eigen = " --xla_cpu_multi_thread_eigen=false" if n == 1 else ""
    return f"{flags}{eigen} intra_op_parallelism_threads={n}".strip()


def jax_third(jax):
    """W4 as JAX's users write an elementwise third derivative: ``vmap`` of ``grad`` three times."""
    return jax.vmap(jax.grad(jax.grad(jax.grad(jax.numpy.tanh))))


def jax_peer(jax, make_fn, args):
    """``(make, outputs)`` of a JAX peer: ``make_fn(jax)`` returns the function to ``jax.jit``, which
    returns a dict of named results (those the check compares); ``args()`` gives its arguments (NumPy
    arrays, put on the device once).  The timed call waits for the result (``block_until_ready``):
    JAX dispatches asynchronously."""
    def make():
        f = jax.jit(make_fn(jax))
        xs = [jax.device_put(a) for a in args()]
        return lambda: jax.block_until_ready(f(*xs))

    def outputs():
        return {k: np.asarray(v) for k, v in make()().items()}
    return make, outputs


# ----- the fast path -----------------------------------------------------------------------------
class FastPath:
    """How to turn minims' fast path on and off; ``available`` is False until minims has one (or
    when Numba is missing, or when the run is told not to use it)."""

    def __init__(self, available: bool, how: str, get=None, set_=None):
        self.available, self.how = available, how
        self._get, self._set = get, set_

    @contextlib.contextmanager
    def _switch(self, value: bool):
        if not self.available:
            yield
            return
        before = self._get()
        self._set(value)
        try:
            yield
        finally:
            self._set(before)

    def on(self):
        return self._switch(True)

    def off(self):
        """The NumPy reference path (a no-op while there is no fast path)."""
        return self._switch(False)


def fast_path(disabled: bool = False) -> FastPath:
    """Find minims' fast-path switch (see FAST-PATH HOOK above) and check that it really switches."""
    if disabled or os.environ.get(NO_NUMBA_ENV, "") not in ("", "0"):
        return FastPath(False, "disabled (--no-numba or MINIMS_BENCH_NO_NUMBA=1)")
    try:
        ms.get_context(CONTEXT_KEY)
    except (ValueError, KeyError):
        env = getattr(ms.context, ENV_ATTRIBUTE, None)
        if not (isinstance(env, str) and env):
            return FastPath(False, f"minims has no fast-path switch yet (no context option {CONTEXT_KEY!r}, "
                                   f"no minims.context.{ENV_ATTRIBUTE}: the FAST-PATH HOOK in benchmarks/peers.py)")
        return FastPath(True, f"environment variable {env}=1/0",
                        get=lambda: os.environ.get(env, "0") == "1",
                        set_=lambda v: os.environ.__setitem__(env, "1" if v else "0"))

    def get():
        return bool(ms.get_context(CONTEXT_KEY))

    def set_(value):
        ms.set_context(**{CONTEXT_KEY: bool(value)})

    before = get()
    with warnings.catch_warnings(record=True) as caught:     # minims warns when Numba is missing
        warnings.simplefilter("always")
        try:
            set_(True)
            works = get()
        except Exception as exc:                               # a switch that raises is no switch
            works, caught = False, [f"{type(exc).__name__}: {exc}"]
        finally:
            try:
                set_(before)
            except Exception:
                pass
    if not works:
        why = "; ".join(str(getattr(w, "message", w)) for w in caught) or "it reads back False"
        return FastPath(False, f"set_context({CONTEXT_KEY}=True) does not turn it on here ({why})")
    try:
        import numba
        version = f", Numba {numba.__version__}"
    except ImportError:
        version = ""
    return FastPath(True, f"minims.set_context({CONTEXT_KEY}=True/False){version}", get=get, set_=set_)


ORDER = (PYNATIVE, GRAPH, NUMBA, NUMPY, TORCH, TORCH_COMPILE, JAX)


def column_rank(name: str) -> int:
    """Table order: the standard columns in ORDER; a variant such as "minims Graph, no bprop" right
    after its column."""
    base = name.split(",")[0]
    return ORDER.index(base) if base in ORDER else len(ORDER)


# ----- modes -------------------------------------------------------------------------------------
@contextlib.contextmanager
def graph_mode():
    """``GRAPH_MODE`` for the duration (Cells called inside are compiled); PyNative afterwards."""
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        yield
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def chain_contexts(*factories):
    """A context factory entering each of ``factories`` in turn."""
    @contextlib.contextmanager
    def both():
        with contextlib.ExitStack() as stack:
            for f in factories:
                stack.enter_context(f())
            yield
    return both
