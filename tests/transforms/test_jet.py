"""Issue 26 item 5: ``ops.jet(fn, primals, series)`` (``minims/transforms/jet.py``).  Expected values:
SymPy (the derivatives of ``fn(x0 + x1 t + x2 t^2/2! + ...)`` at ``t = 0``, MindSpore's convention) and
MindSpore 2.10 oracle runs (quoted per test)."""
import numpy as np
import pytest

import minims as ms
from minims import Tensor, ops

sympy = pytest.importorskip("sympy")


def _sympy_jet(expr_of, primals, series):
    """``(y0, [y1, ..., yn])`` per element, by SymPy: the curve through each primal with the given
    derivatives, pushed through ``expr_of`` and differentiated ``n`` times in ``t`` at 0."""
    t = sympy.Symbol("t")
    n = series[0].shape[0]
    out0, outs = [], []
    for idx in np.ndindex(primals[0].shape):
        curves = [sympy.Float(p[idx]) + sum(sympy.Float(s[k][idx]) * t ** (k + 1) / sympy.factorial(k + 1)
                                            for k in range(n)) for p, s in zip(primals, series)]
        y = expr_of(*curves)
        out0.append(float(y.subs(t, 0)))
        outs.append([float(sympy.diff(y, t, k).subs(t, 0)) for k in range(1, n + 1)])
    shape = primals[0].shape
    return np.array(out0).reshape(shape), np.array(outs).T.reshape((n,) + shape)


def test_jet_of_a_composition_matches_sympy_and_mindspore():
    """Item 5.  f(x) = exp(sin x) x at x0 = [0.5, 1], series [[1, 2], [0.5, -1], [0.25, 0.3]]:
    SymPy in float64; MindSpore 2.10 (float32) gives primal [0.80757314, 2.319777] and series
    [[2.3238583, 7.1463156], [4.23156, 1.3546066], [5.411883, -69.3276825]]."""
    x0 = np.array([0.5, 1.0])
    s = np.array([[1., 2.], [0.5, -1.], [0.25, 0.3]])
    out, series = ops.jet(lambda a: ops.exp(ops.sin(a)) * a, Tensor(x0), Tensor(s))
    want0, want = _sympy_jet(lambda a: sympy.exp(sympy.sin(a)) * a, [x0], [s])
    np.testing.assert_allclose(out.asnumpy(), want0, rtol=1e-12)
    np.testing.assert_allclose(series.asnumpy(), want, rtol=1e-10)
    out32, series32 = ops.jet(lambda a: ops.exp(ops.sin(a)) * a, Tensor(x0.astype(np.float32)),
                              Tensor(s.astype(np.float32)))
    assert series32.dtype == ms.float32 and series32.shape == (3, 2)
    np.testing.assert_allclose(out32.asnumpy(), [0.80757314, 2.319777], rtol=1e-6)
    np.testing.assert_allclose(series32.asnumpy(), [[2.3238583, 7.1463156], [4.23156, 1.3546066],
                                                    [5.411883, -69.3276825]], rtol=2e-6)


def test_jet_of_two_inputs_matches_sympy():
    """Item 5.  g(a, b) = a cos(b), a tuple of primals and series (MindSpore 2.10 float32: primal
    [0.27015114, -0.41614684], series [[0.32993454, -1.741591], [-0.74404156, -2.3502474],
    [-1.6336644, 7.9765034]]); float64 against SymPy."""
    a0, b0 = np.array([0.5, 1.0]), np.array([1.0, 2.0])
    sa = np.array([[1., 2.], [0.5, -1.], [0.25, 0.3]])
    out, series = ops.jet(lambda a, b: a * ops.cos(b), (Tensor(a0), Tensor(b0)), (Tensor(sa), Tensor(sa * 0.5)))
    want0, want = _sympy_jet(lambda a, b: a * sympy.cos(b), [a0, b0], [sa, sa * 0.5])
    np.testing.assert_allclose(out.asnumpy(), want0, rtol=1e-12)
    np.testing.assert_allclose(series.asnumpy(), want, rtol=1e-10)
    out32, series32 = ops.jet(lambda a, b: a * ops.cos(b), (Tensor(a0.astype(np.float32)), Tensor(b0.astype(np.float32))),
                              (Tensor(sa.astype(np.float32)), Tensor((sa * 0.5).astype(np.float32))))
    np.testing.assert_allclose(series32.asnumpy(), [[0.32993454, -1.741591], [-0.74404156, -2.3502474],
                                                    [-1.6336644, 7.9765034]], rtol=2e-6)


def test_jet_with_a_series_of_one_term_given_without_its_axis():
    """Item 5.  MindSpore 2.10: jet(sin, [0.5, 1], [1, 2]) gives a series of shape (1, 2),
    [[cos(0.5), 2 cos(1)]] (closed form)."""
    out, series = ops.jet(ops.sin, Tensor(np.array([0.5, 1.0])), Tensor(np.array([1., 2.])))
    assert series.shape == (1, 2)
    np.testing.assert_allclose(series.asnumpy(), [[np.cos(0.5), 2 * np.cos(1.0)]], rtol=1e-14)
    np.testing.assert_allclose(out.asnumpy(), np.sin([0.5, 1.0]), rtol=1e-14)


def test_jet_refuses_a_series_of_another_dtype():
    """Item 5.  MindSpore 2.10: a Float32 primal with an Int32 series raises TypeError "the elements'
    types of primals and series must be the same and belong to ... int32, int64, float32, float64"."""
    with pytest.raises(TypeError, match="must be the same and belong to int32, int64, float32, float64"):
        ops.jet(ops.sin, Tensor(np.array([0.5], np.float32)), Tensor(np.array([[1]], np.int32)))
