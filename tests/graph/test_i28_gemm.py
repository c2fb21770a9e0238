"""Issue 28, item 4: GEMM-bound steps under ``jit`` — what the compiled step does around its products.

Expected values: the SGD update ``w - lr * g`` worked in float32 by NumPy (one rounding per operation,
as IEEE 754 and the primitives' NumPy ``impl`` define it); bytes by counting (a float32 array of
n entries is 4n bytes, ``tracemalloc`` counts what NumPy allocates).  No test times anything: the
figures are in ``benchmarks/gemm_roofline.py`` and docs/benchmarks.md.
"""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import minims as ms
from minims import Parameter, Tensor, ops

N = 512 * 784            # fc1.weight of W3: 1.6 MB of float32


@pytest.fixture(autouse=True)
def restore():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_a_parameter_write_keeps_the_computed_array_without_copying_it():
    """Item 4 (memory plan): the updated weight is the array the graph computed, not a copy of it —
    the update ``w - d`` allocates the new weight (4N bytes) and never a second 4N buffer for a
    copy; the value is NumPy's float32 ``w - d``, twice."""
    rng = np.random.default_rng(0)
    w0, d0 = rng.standard_normal(N).astype(np.float32), rng.standard_normal(N).astype(np.float32)
    w, d = Parameter(Tensor(w0.copy()), name="w"), Tensor(d0)

    @ms.jit
    def step(delta):
        ops.assign(w, w - delta)
        return delta.shape[0]
    step(d)                                     # compiled; the weight is now w0 - d0
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        step(d)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert np.array_equal(w.asnumpy(), (w0 - d0) - d0)
    assert peak < 1.5 * 4 * N, f"{peak / (4 * N):.2f} weight-sized buffers at once: a copy was made"


def test_a_parameter_write_copies_an_array_something_else_holds():
    """Item 4 (memory plan): an input, a constant or an output of the graph is written into the
    Parameter as a copy, so the Parameter never shares memory with them."""
    w = Parameter(Tensor(np.zeros(N, np.float32)), name="w")
    x = Tensor(np.ones(N, np.float32))

    @ms.jit
    def from_input(v):
        ops.assign(w, v)
        return v * 1

    @ms.jit
    def also_returned(v):
        new = v + 1
        ops.assign(w, new)
        return new
    from_input(x)
    assert not np.shares_memory(w._data, x._data)
    out = also_returned(x)
    assert not np.shares_memory(w._data, out._data)
    assert np.array_equal(w.asnumpy(), np.full(N, 2, np.float32))
