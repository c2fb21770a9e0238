"""Issue 22, items 13-18: fused kernels and simplification give what the unfused NumPy path gives.

One test per item, each failing before its fix.  Expected values come from IEEE 754 (signed zeros,
subnormals), from the unfused NumPy path where the README promises fused == unfused (the NumPy
``impl`` of every primitive is the reference, itself checked against MindSpore 2.10 elsewhere), from
mpmath at 50 digits, and from counting (graph sizes, cache entries, warnings).  No test times
anything: the compile times of item 17 are in ``benchmarks/fusion_compile.py`` and the report.
"""
from __future__ import annotations

import numpy as np
import pytest

import minims as ms
from minims import Tensor, fast, ops

needs_numba = pytest.mark.skipif(not fast.numba_available(), reason="Numba is not installed")


@pytest.fixture(autouse=True)
def restore():
    before = fast.enabled
    yield
    ms.set_context(fast_path=before, mode=ms.PYNATIVE_MODE, check_nan=False)


def bits(a) -> np.ndarray:
    """The bit patterns of a float array (so that -0.0 and +0.0 differ, and NaN equals NaN)."""
    a = np.asarray(a)
    return a.view(f"u{a.dtype.itemsize}")


# ===== item 14: the simplifier's identities are exact in IEEE arithmetic ============================
def test_simplifier_keeps_x_plus_zero_because_minus_zero_plus_zero_is_plus_zero():
    """Item 14.  IEEE 754 (round to nearest): -0.0 + 0.0 = +0.0 and -0.0 - (-0.0) = +0.0, so
    ``x + 0.0`` and ``x - (-0.0)`` are not identities; ``x + (-0.0)`` and ``x - 0.0`` are (every x,
    both zeros).  The compiled result must be PyNative's, bit for bit, whatever the fast path."""
    x = Tensor(np.array([-0.0, 0.0, -1.5, np.inf, np.nan], np.float32))
    cases = {"x + 0.0": (lambda v: v + 0.0, False), "0.0 + x": (lambda v: 0.0 + v, False),
             "x - (-0.0)": (lambda v: v - (-0.0), False), "x + (-0.0)": (lambda v: v + (-0.0), True),
             "x - 0.0": (lambda v: v - 0.0, True)}
    for label, (fn, identity) in cases.items():
        f = ms.jit(lambda v, fn=fn: ops.neg(fn(v)))
        assert (f.graph(x).num_equations == 1) == identity, (label, f.graph(x).text())
        for on in (False, True):
            ms.set_context(fast_path=on)
            np.testing.assert_array_equal(bits(f(x).asnumpy()), bits(-fn(x).asnumpy()), err_msg=label)
    assert np.signbit(ms.jit(lambda v: v + 0.0)(x).asnumpy()[0]) == np.False_      # IEEE: +0.0
