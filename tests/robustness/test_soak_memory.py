"""Memory soak: LeNet-5 training mixed with hooks, second-order gradients and Graph-mode retracing
keeps its memory flat, and a gradient call's tape is freed by reference counting when it returns.

The workload is ``tools/soak.py`` (its docstring gives the schedule): every step trains LeNet-5 once
(PyNative, and twice per 16 steps under ``GRAPH_MODE``), registers and removes hooks, differentiates
twice (a plain function with ``HookBackward``, a Cell with a custom ``bprop``), calls ``jit`` functions on
a cycling set of shapes, a Graph-mode ``Dense`` on a cycling set of batch sizes, and compiles a brand-new
``jit`` function every 16 steps.  Compiled caches grow by design with each new shape, so the shapes come
from a fixed set and the caches must stop growing once each has been seen.

It runs on the NumPy path and, when Numba is installed, on the Numba fast path (whose residual store
keeps forward results for the backward kernels: it must stay bounded too).  Bounded by default: 48
warm-up steps and 256 measured steps per path (about 10 s each).  ``MINIMS_DEEP=1`` runs 5,008 steps and
prints the figures; ``python tools/soak.py --steps 5000 [--fast-path on|off]`` prints them without pytest.

Tolerance of the memory growth, 128 KiB over the 256 measured steps: anything a step leaves behind
that scales with the work — one activation of the smallest layer (fc3's output, 32 x 10 float32 = 1.3 KB
with its headers), a tape node with its saved inputs, a trace — would add at least 256 x 1.3 KB = 330 KB;
so would a leak of 512 bytes per step.  What is seen on the NumPy path is about 15 KB (21 KB after
5,000 steps), all of it 57-byte blocks that NumPy's ``as_strided(writeable=False)`` leaves behind, at a
rate that falls off with the number of calls (reached from ``sliding_window_view`` in max-pooling; a
bare loop of 300,000 calls leaves 17 KB); on the fast path about 1 KB.  Smaller leaks of minims objects
are caught exactly by the second check: the count of live minims objects, type by type, must not change.
CPython's interned-string table, rebuilt now and then because NumPy churns interned strings, would
otherwise show up once as 1-4 MB; the soak has it rebuilt while tracing (``rebuild_interned_strings``).
"""
import gc
import importlib.util
import os
import pathlib

import numpy as np
import pytest

import minims as ms
import minims.nn as nn
from minims import Tensor

# the slow tier (`pytest -m "not slow"` leaves it out): runs thousands of steps to see memory stay flat (~55 s)
pytestmark = pytest.mark.slow


DEEP = os.environ.get("MINIMS_DEEP") == "1"
HAVE_NUMBA = importlib.util.find_spec("numba") is not None
PATHS = [pytest.param(False, id="numpy"),
         pytest.param(True, id="numba", marks=pytest.mark.skipif(not HAVE_NUMBA, reason="Numba is not installed"))]
ROOT = pathlib.Path(__file__).resolve().parents[2]
STEPS = 5008 if DEEP else 304
KIB = 1024
GROWTH_LIMIT = 128 * KIB


def _load_soak():
    spec = importlib.util.spec_from_file_location("minims_tools_soak", ROOT / "tools" / "soak.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


soak = _load_soak()


@pytest.fixture(scope="module", params=PATHS)
def figures(request):
    fig = soak.run(steps=STEPS, warmup=soak.WARMUP, fast=request.param)
    assert fig["fast_path"] == request.param
    print("\n" + soak.format_report(fig))
    return fig


@pytest.fixture(scope="module", params=PATHS)
def cycles(request):
    return soak.cycle_check(fast=request.param)


def test_traced_memory_is_flat_after_warmup(figures):
    t = figures["tracemalloc"]
    assert figures["steps"] - figures["warmup_steps"] >= 256
    assert t["growth"] <= GROWTH_LIMIT, soak.format_report(figures)
    # the last checkpoint is not a lucky dip: no checkpoint rose above the limit either
    assert t["max_over_baseline"] <= GROWTH_LIMIT, figures["checkpoints"]["current"]


def test_peak_memory_after_warmup_is_no_higher_than_during_it(figures):
    """Every kind of step already ran during warm-up (and compiled there); an accumulating tape or
    cache would push the later peak above it."""
    t = figures["tracemalloc"]
    assert t["measured_peak"] <= t["warmup_peak"] + GROWTH_LIMIT, soak.format_report(figures)


def test_no_minims_object_accumulates(figures):
    changed = {name: counts for name, counts in figures["live_minims_objects"].items() if counts[0] != counts[1]}
    assert changed == {}
    assert figures["live_minims_objects"]["Parameter"][1] >= 8       # the LeNet's weights, at least, are seen


def test_compiled_caches_hold_one_entry_per_shape_and_stop_tracing(figures):
    base, end = figures["caches"]["baseline"], figures["caches"]["end"]
    assert end["poly"] == {"entries": len(soak.JIT_SHAPES), "traces": len(soak.JIT_SHAPES)}
    assert end["Dense (Graph mode)"] == {"entries": len(soak.DENSE_BATCHES), "traces": len(soak.DENSE_BATCHES)}
    assert end["TrainOneStepCell (Graph mode)"] == {"entries": 1, "traces": 1}
    assert base == end


def test_fast_path_residual_store_stays_bounded(figures):
    from minims.fast import residuals
    base, end = figures["residuals"]["baseline"], figures["residuals"]["end"]
    assert end == base and end["entries"] <= residuals.MAX_ENTRIES
    if not figures["fast_path"]:
        assert end == {"entries": 0, "bytes": 0}        # only the fast path keeps residuals


def test_hooks_fire_while_registered_and_never_after_remove(figures):
    got, expected = figures["hook_calls"]["got"], figures["hook_calls"]["expected"]
    assert got == expected
    # hooks are on for 8 of every 16 steps, PyNative steps only
    assert expected["forward_pre"] == STEPS // 2
    assert expected["forward"] == 4 * expected["forward_pre"] == 4 * expected["backward"]
    assert expected["hook_backward"] > 0


def test_second_order_and_jit_gradients_stay_exact(figures):
    """grad(grad(f)) against 2 cos x - x sin x, grad(grad(cube)) against 6x, grad(jit) against its
    derivative, at every use."""
    assert all(err <= 1e-12 for err in figures["max_error"].values()), figures["max_error"]
    assert figures["loss"]["finite"] and figures["loss"]["last"] < figures["loss"]["first"]


# ----- reference cycles: with the cyclic GC off, a finished call must leave nothing behind ----------
TAPE_ACTIONS = ["PyNative training step", "training step with hooks (registered, removed)",
                "grad(grad(f)) (weak references to the levels)", "grad(grad(Cell with custom bprop))",
                "jit call and grad(jit), cached shape", "GRAPH_MODE training step, compiled"]
RETRACE_ACTIONS = ["GRAPH_MODE Dense on a new batch size (retrace)",
                   "new jit function over a Parameter (trace, grad)"]


@pytest.mark.parametrize("action", TAPE_ACTIONS + RETRACE_ACTIONS)
def test_tape_objects_are_freed_by_reference_counting(cycles, action):
    """TapeTrace, Node and TapeTracer: none alive after the call with the GC disabled, none in a cycle."""
    report = cycles[action]
    assert not set(report["left_alive"]) & set(soak.TAPE_TYPES), report
    assert not set(report["cyclic_garbage"]) & set(soak.TAPE_TYPES), report


def test_weak_references_to_a_gradient_level_die_with_the_call(cycles):
    report = cycles["grad(grad(f)) (weak references to the levels)"]
    assert report["dead_weakrefs"] == "4/4", report      # two levels: each one's TapeTrace and tracer


@pytest.mark.parametrize("action", TAPE_ACTIONS)
def test_cached_calls_make_no_cyclic_garbage_at_all(cycles, action):
    assert cycles[action]["cyclic_garbage_objects"] == 0, cycles[action]


@pytest.mark.parametrize("action", RETRACE_ACTIONS)
def test_a_finished_trace_is_freed_by_reference_counting(cycles, action):
    report = cycles[action]
    assert report["left_alive"] == {} and report["cyclic_garbage_objects"] == 0, report
    if report["dead_weakrefs"] is not None:
        assert report["dead_weakrefs"] == "2/2", report


def test_a_cell_that_goes_out_of_use_is_freed_by_reference_counting():
    """A GRAPH_MODE Cell keeps its compiled call, and a ``@jit`` construct its bound JitFunction;
    both refer back to the Cell weakly, so no cycle keeps a dropped Cell (and its Parameters)."""
    import weakref

    class Doubler(nn.Cell):
        @ms.jit
        def construct(self, x):
            return x * 2

    gc.collect()
    gc.disable()
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        dense = nn.Dense(3, 2)
        dense_ref = weakref.ref(dense)
        dense(Tensor(np.ones((4, 3), np.float32)))
        ms.set_context(mode=ms.PYNATIVE_MODE)
        doubler = Doubler()
        doubler_ref = weakref.ref(doubler)
        np.testing.assert_array_equal(doubler(Tensor(np.ones(3, np.float32))).asnumpy(), [2, 2, 2])
        del dense, doubler
        assert dense_ref() is None and doubler_ref() is None
    finally:
        gc.enable()
        ms.set_context(mode=ms.PYNATIVE_MODE)
