"""Issue 28, item 4: the fast path's ``Softmax`` over the last axis (W3's loss tail) against the NumPy path.

Expected values: the NumPy ``impl`` of ``Softmax`` (the reference path).  The kernel takes the same
steps, shift by the row maximum (exact), ``exp`` and a division by the row sum, but sums in float64
where NumPy sums float32 pairwise, and its ``exp`` comes from the C library rather than NumPy's own
loop.  Each path is within (2 + ceil(log2 c)) float32 roundings of the exact softmax (one for exp, at most
ceil(log2 c) for a pairwise sum of c terms, one for the division), so they differ by at most twice that,
relative to the value (IEEE 754, unit roundoff 2^-24); special rows (NaN, infinities) give NaN where
the NumPy path does and the same bits elsewhere.  A spy makes sure the kernel ran.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import minims as ms
from minims import Tensor, fast
from minims.primitives import activation as A

needs_numba = pytest.mark.skipif(not fast.numba_available(), reason="Numba is not installed")


@pytest.fixture(autouse=True)
def restore():
    before = fast.enabled
    yield
    ms.set_context(fast_path=before)


def _both(x, axis=-1):
    prim = A.Softmax(axis)
    ms.set_context(fast_path=False)
    ref = prim(Tensor(x)).asnumpy()
    ms.set_context(fast_path=True)
    return ref, prim(Tensor(x)).asnumpy()


@needs_numba
@pytest.mark.slow
def test_fast_softmax_over_the_last_axis_agrees_with_the_numpy_path(monkeypatch):
    """Item 4 (loss tail): float32 within 2 (2 + ceil(log2 c)) roundings of the NumPy path; special rows NaN
    where it is NaN, bit for bit elsewhere; another axis and integer input stay on the NumPy path."""
    ran, original = [], fast.cross_entropy.softmax

    def counted(x, axis):
        out = original(x, axis)
        ran.extend([] if out is None else [x.shape])
        return out
    monkeypatch.setattr(fast.cross_entropy, "softmax", counted)
    rng = np.random.default_rng(28)
    for shape in ((256, 10), (3, 1), (2, 5, 7)):
        x = (rng.standard_normal(shape) * 8).astype(np.float32)
        ref, got = _both(x)
        c = shape[-1]
        tol = 2 * (2 + math.ceil(math.log2(c)) if c > 1 else 2) * 2.0 ** -24
        assert np.all(np.abs(got - ref) <= tol * np.abs(ref) + np.finfo(np.float32).tiny), shape
    special = np.array([[np.nan, 1, 2], [np.inf, 0, 1], [-np.inf, -np.inf, -np.inf], [0.0, -0.0, 0.0]],
                       np.float32)
    ref, got = _both(special)
    assert np.array_equal(np.isnan(ref), np.isnan(got))          # a NaN's sign bit carries no meaning
    ok = ~np.isnan(ref)
    assert np.array_equal(ref[ok].view(np.uint32), got[ok].view(np.uint32))
    assert len(ran) == 4
    ref, got = _both(rng.standard_normal((4, 6)).astype(np.float32), axis=0)
    assert np.array_equal(ref, got) and len(ran) == 4
