"""The Numba fast path (``minims.fast``) against the NumPy path, and the switch that selects it.

Where the expected values come from: the NumPy ``impl`` of the same primitive (the reference
path, itself tested against loop-based references and MindSpore in test_nn_primitives.py).
Every fast kernel is compared with it on random shapes, padding, strides and dilations, in float32
(rtol 1e-5, with an absolute floor of 1e-5 x the largest value for sums that cancel) and float64
(1e-12); gradients are checked to second order with ``minims.testing.check_grads`` with the fast
path on (check_grads works in float64, so those run the float64 kernels).  A spy makes sure each
comparison really ran the kernel and did not fall back to NumPy.

Without Numba the kernel tests skip, and the tests of the switch simulate Numba's absence.
"""
from __future__ import annotations

import os
import subprocess
import sys
import warnings
from contextlib import contextmanager

import numpy as np
import pytest

import minims as ms
from minims import Tensor, fast, ops
from minims.primitives import nn_functional as NF
from minims.primitives import nn as P
from minims.testing import check_grads

needs_numba = pytest.mark.skipif(not fast.numba_available(), reason="Numba is not installed")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def restore_the_switch():
    """Each test starts on the NumPy path; afterwards the switch is as it was (MINIMS_FAST=1 runs
    of the whole suite keep the fast path on for the other test files)."""
    before = fast.enabled
    ms.set_context(fast_path=False)
    yield
    ms.set_context(fast_path=before, mode=ms.PYNATIVE_MODE)


@contextmanager
def fast_path(on=True):
    before = fast.enabled
    ms.set_context(fast_path=on)
    try:
        yield
    finally:
        ms.set_context(fast_path=before)


@contextmanager
def spy(monkeypatch, module_name, function):
    """Count the calls of a kernel wrapper that returned a result (not None = "not mine")."""
    module = getattr(fast, module_name)
    original = getattr(module, function)
    calls = []

    def counted(*args):
        out = original(*args)
        if out is not None:
            calls.append(function)
        return out
    monkeypatch.setattr(module, function, counted)
    yield calls
    monkeypatch.setattr(module, function, original)


def both_paths(fn, *args):
    """``fn(*args)`` as NumPy arrays, first on the NumPy path, then on the fast path."""
    def run():
        out = fn(*args)
        out = out if isinstance(out, (tuple, list)) else [out]
        return [o.asnumpy() if isinstance(o, Tensor) else o for o in out]
    with fast_path(False):
        ref = run()
    with fast_path(True):
        got = run()
    return ref, got


def assert_close(ref, got, dtype):
    tol = 1e-5 if np.dtype(dtype) == np.float32 else 1e-12
    for r, g in zip(ref, got, strict=True):
        assert g.dtype == r.dtype and g.shape == r.shape
        floor = tol * max(float(np.max(np.abs(r))) if r.size else 0.0, 1.0)
        np.testing.assert_allclose(g, r, rtol=tol, atol=floor)


def T(a, dtype=np.float64):
    return Tensor(np.asarray(a, dtype=dtype))


DTYPES = [np.float32, np.float64]


# ================================================================================================
# the switch
# ================================================================================================
def _fresh_process(code, **env_changes):
    env = {k: v for k, v in os.environ.items() if k != "MINIMS_FAST"}
    env.update(env_changes)
    res = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
    return res.stdout.split()


@pytest.mark.slow
@needs_numba
def test_the_fast_path_is_on_by_default_and_importing_minims_does_not_import_numba():
    code = ("import sys, minims; print(minims.get_context('fast_path'), minims.fast.enabled, "
            "'numba' in sys.modules)")
    assert _fresh_process(code) == ["True", "True", "False"]


@pytest.mark.slow
def test_notebooks_default_to_the_numpy_path():
    """Inside a Jupyter kernel (ipykernel imported before minims) the default is the NumPy path, so
    a chapter prints the same bits on every machine."""
    code = ("import sys, types; sys.modules['ipykernel'] = types.ModuleType('ipykernel'); import minims; "
            "print(minims.get_context('fast_path'), minims.fast.enabled)")
    assert _fresh_process(code) == ["False", "False"]
    assert _fresh_process(code, MINIMS_FAST="1")[:2] == (["True", "True"] if fast.numba_available()
                                                          else ["False", "False"])


@pytest.mark.slow
def test_the_environment_variable_switches_the_default_off():
    code = "import sys, minims; print(minims.get_context('fast_path'), 'numba' in sys.modules)"
    assert _fresh_process(code, MINIMS_FAST="0") == ["False", "False"]


@pytest.mark.slow
def test_without_numba_the_default_is_the_numpy_path_silently():
    code = ("import sys, warnings; sys.modules['numba'] = None; warnings.simplefilter('error'); "
            "import minims; print(minims.get_context('fast_path'), minims.fast.enabled)")
    assert _fresh_process(code) == ["False", "False"]


def test_fast_path_must_be_a_bool():
    with pytest.raises(TypeError, match="fast_path must be a bool"):
        ms.set_context(fast_path=1)
    assert ms.get_context("fast_path") is False


@needs_numba
def test_set_and_get_the_switch():
    ms.set_context(fast_path=True)
    assert ms.get_context("fast_path") is True and fast.enabled is True
    ms.set_context(fast_path=False)
    assert ms.get_context("fast_path") is False and fast.enabled is False


@pytest.mark.slow
@needs_numba
def test_the_environment_variable_switches_it_on_at_import():
    code = "import minims; print(minims.get_context('fast_path'), minims.fast.enabled)"
    env = dict(os.environ, MINIMS_FAST="1")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["True", "True"]


@needs_numba
def test_the_switch_decides_which_path_runs(monkeypatch):
    x, w = T(np.ones((1, 1, 4, 4)), np.float32), T(np.ones((2, 1, 3, 3)), np.float32)
    conv = P.Conv2D(2, 3)
    with spy(monkeypatch, "conv", "conv2d") as calls:
        conv(x, w)
        assert calls == []                      # off: the NumPy impl ran
        with fast_path(True):
            conv(x, w)
        assert calls == ["conv2d"]
        conv(x, w)
        assert calls == ["conv2d"]              # off again


@needs_numba
def test_unsupported_configurations_take_the_numpy_path(monkeypatch):
    """float16 and integer inputs are not the kernels' business: they return None, NumPy computes."""
    x16 = Tensor(np.arange(32, dtype=np.float16).reshape(1, 2, 4, 4))
    w16 = Tensor(np.ones((3, 2, 2, 2), np.float16))
    xi = Tensor(np.arange(16, dtype=np.int32).reshape(1, 1, 4, 4))
    ref = (P.Conv2D(3, 2)(x16, w16).asnumpy(), P.MaxPool(2, 2)(xi).asnumpy())
    with fast_path(True), spy(monkeypatch, "conv", "conv2d") as c, spy(monkeypatch, "pooling", "max_pool") as m:
        got = (P.Conv2D(3, 2)(x16, w16).asnumpy(), P.MaxPool(2, 2)(xi).asnumpy())
    assert c == [] and m == []
    for r, g in zip(ref, got):
        assert g.dtype == r.dtype
        np.testing.assert_array_equal(g, r)


def _hide_numba(monkeypatch):
    """Make ``import numba`` fail, as if it were not installed."""
    monkeypatch.setitem(sys.modules, "numba", None)
    monkeypatch.setattr(fast, "_warned_missing", False)


def test_without_numba_one_warning_then_the_numpy_path(monkeypatch):
    _hide_numba(monkeypatch)
    assert fast.numba_available() is False
    with pytest.warns(RuntimeWarning, match="fast_path=True needs Numba") as caught:
        ms.set_context(fast_path=True)
    assert len(caught) == 1
    assert ms.get_context("fast_path") is False and fast.enabled is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # the second request is silent
        ms.set_context(fast_path=True)
    x = T(np.random.default_rng(0).standard_normal((2, 3, 6, 6)))
    w = T(np.random.default_rng(1).standard_normal((4, 3, 3, 3)))

    def f(a, b):
        return NF.max_pool2d(ops.relu(P.Conv2D(4, 3, pad_mode="same")(a, b)), 2)
    check_grads(f, (x, w), order=2)


@pytest.mark.slow
def test_everything_works_in_a_process_without_numba():
    """A fresh interpreter where Numba cannot be imported, with MINIMS_FAST=1: one warning, and a
    small CNN still trains (forward, gradients, an optimizer step) on the NumPy path."""
    code = """
import sys, warnings
sys.modules["numba"] = None                      # numba "not installed"
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    import minims as ms
import numpy as np
import minims.nn as nn
from minims import Tensor
assert [str(w.message).split(" (")[0] for w in caught] == ["minims: fast_path=True needs Numba, which cannot be imported"], caught
assert ms.get_context("fast_path") is False and ms.fast.enabled is False
ms.set_seed(0)
net = nn.SequentialCell([nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2, 2),
                         nn.AvgPool2d(2, 2), nn.Flatten(), nn.Dense(16, 3)])
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.1, 0.9))
x = Tensor(np.random.default_rng(0).standard_normal((8, 1, 10, 10)).astype(np.float32))
y = Tensor(np.arange(8) % 3, ms.int32)
losses = [float(train(x, y).asnumpy()) for _ in range(5)]
assert losses[-1] < losses[0], losses
assert "numba" not in sys.modules or sys.modules["numba"] is None
print("ok")
"""
    env = dict(os.environ, MINIMS_FAST="1")
    res = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr[-3000:]


@needs_numba
def test_warmup_reports_every_kernel_and_the_cache():
    seconds = fast.warmup(dtypes=("float32",))
    names = {name for name, _, _ in fast.kernels()}
    assert set(seconds) == {f"{n}[float32]" for n in names}
    assert all(isinstance(s, float) and s >= 0 for s in seconds.values())
    info = fast.cache_info()
    assert set(info) == names
    assert all(v["hits"] + v["misses"] >= 1 for v in info.values())   # each signature compiled or loaded


@needs_numba
def test_the_parallel_versions_agree_and_have_their_own_cache_entries(monkeypatch):
    """``minims.fast.parallel``: the same kernels with the plane loop split over threads (float32)."""
    rng = np.random.default_rng(11)
    x = T(rng.standard_normal((3, 2, 9, 8)), np.float32)
    w = T(rng.standard_normal((4, 2, 3, 3)), np.float32)
    scale, bias = T(rng.random(4) + 0.5, np.float32), T(rng.standard_normal(4), np.float32)
    stats = T(np.zeros(4), np.float32), T(np.ones(4), np.float32)
    conv = P.Conv2D(4, 3, pad_mode="pad", pad=(1, 0, 2, 1), stride=(1, 2))

    def f(a, b, s):
        y = P.BatchNorm(True)(conv(a, b), s, bias, *stats)[0]
        return ops.sum(ops.sin(NF.max_pool2d(y, 2, 1, padding=1) + P.AvgPool(2, 2, "same")(y).mean()))

    def run():
        loss = f(x, w, scale)
        return [loss.asnumpy()] + [g.asnumpy() for g in ops.grad(f, grad_position=(0, 1, 2))(x, w, scale)]

    monkeypatch.setattr(fast, "parallel", True)
    assert_close(*both_paths(run), np.float32)
    splittable = [k for _, k, _ in fast.kernels() if k.splittable]
    used = [k for k in splittable if k._parallel is not None]
    assert {k.__name__ for k in used} >= {"_im2col", "_col2im", "_pad_into", "_max_pool_where", "_scatter_at",
                                            "_avg_pool", "_avg_pool_grad", "_bn_training"}
    for k in used:      # a cache file of its own: serial processes never load parallel code
        assert k._parallel.py_func.__qualname__ == k.py_func.__qualname__ + "_parallel"
        assert k._parallel._cache._cache_file._index_name != k.serial._cache._cache_file._index_name


# ================================================================================================
# convolution: Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter
# ================================================================================================
def _random_conv(rng):
    """A random convolution geometry: (prim kwargs, x shape, weight shape)."""
    group = int(rng.choice([1, 1, 1, 2]))
    c = group * int(rng.integers(1, 4))
    o = group * int(rng.integers(1, 4))
    k = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    stride = (int(rng.integers(1, 3)), int(rng.integers(1, 4)))
    dilation = (int(rng.integers(1, 3)), int(rng.integers(1, 3)))
    mode = str(rng.choice(["valid", "same", "pad"]))
    pad = tuple(int(p) for p in rng.integers(0, 3, size=4)) if mode == "pad" else 0
    span = [(kk - 1) * d + 1 for kk, d in zip(k, dilation)]
    h, w = span[0] + int(rng.integers(0, 6)), span[1] + int(rng.integers(0, 6))
    kwargs = dict(out_channel=o, kernel_size=k, pad_mode=mode, pad=pad, stride=stride, dilation=dilation,
                  group=group)
    return kwargs, (int(rng.integers(1, 4)), c, h, w), (o, c // group) + k


@needs_numba
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("seed", range(12))
def test_conv_family_agrees_with_numpy(seed, dtype, monkeypatch):
    from minims.fast import conv as fast_conv
    if seed % 2:        # the batch in slices of one sample (as for big inputs)
        monkeypatch.setattr(fast_conv, "CHUNK_BYTES", 1)
    rng = np.random.default_rng(seed)
    kwargs, xs, ws = _random_conv(rng)
    x, w = T(rng.standard_normal(xs), dtype), T(rng.standard_normal(ws), dtype)
    conv = P.Conv2D(**kwargs)
    dy = T(rng.standard_normal(conv(x, w).shape), dtype)
    bpi = P.Conv2DBackpropInput(**kwargs)
    bpf = P.Conv2DBackpropFilter(**kwargs)
    with spy(monkeypatch, "conv", "conv2d") as a, spy(monkeypatch, "conv", "conv2d_backprop_input") as b, \
            spy(monkeypatch, "conv", "conv2d_backprop_filter") as c:
        for fn, args in ((conv, (x, w)), (bpi, (dy, w, xs)), (bpf, (dy, x, ws))):
            assert_close(*both_paths(fn, *args), dtype)
    assert len(a) == len(b) == len(c) == 1, kwargs


def _conv_family_on_both_paths(kwargs, x, w, dy):
    """The three convolution primitives on both paths: the same values, infs and NaNs."""
    for fn, args in ((P.Conv2D(**kwargs), (x, w)), (P.Conv2DBackpropInput(**kwargs), (dy, w, x.shape)),
                     (P.Conv2DBackpropFilter(**kwargs), (dy, x, w.shape))):
        ref, got = both_paths(fn, *args)
        for r, g in zip(ref, got, strict=True):
            np.testing.assert_array_equal(np.isnan(g), np.isnan(r))
            np.testing.assert_array_equal(np.isinf(g), np.isinf(r))
            ok = np.isfinite(r)
            assert_close([r[ok]], [g[ok]], x.dtype.np_dtype)


@needs_numba
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("seed", range(6))
def test_stride_one_convolutions_in_wide_rows_agree_with_numpy(seed, dtype, monkeypatch):
    """Stride 1 takes the wide-row layout: odd sizes, padding, dilation, groups, and batch slices
    of one sample with the weight gradient from BLAS instead of ``_a_bt`` (odd seeds)."""
    from minims.fast import conv as fast_conv
    if seed % 2:
        monkeypatch.setattr(fast_conv, "CHUNK_BYTES", 1)
        monkeypatch.setattr(fast_conv, "SMALL_PRODUCT", 0)
    rng = np.random.default_rng(400 + seed)
    kwargs, xs, ws = _random_conv(rng)
    kwargs["stride"] = 1
    x, w = T(rng.standard_normal(xs), dtype), T(rng.standard_normal(ws), dtype)
    dy = T(rng.standard_normal(P.Conv2D(**kwargs)(x, w).shape), dtype)
    calls = []
    for name in ("_im2col_wide", "_col2im_wide", "_widen", "_unwiden"):
        original = getattr(fast_conv, name)
        monkeypatch.setattr(fast_conv, name, lambda *a, f=original, n=name: calls.append(n) or f(*a))
    _conv_family_on_both_paths(kwargs, x, w, dy)
    assert {"_im2col_wide", "_col2im_wide", "_widen", "_unwiden"} <= set(calls)


@needs_numba
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("shape", [(1, 1, 1), (2, 4, 9), (3, 5, 7), (6, 25, 3001), (7, 9, 33), (2, 3, 0)])
def test_the_small_long_product_kernel_agrees_with_numpy(shape, dtype):
    """``_a_bt(a, b) = a @ b.T`` (blocks of 2 x 4, odd rows and columns left over), against NumPy's
    product in float64."""
    from minims.fast.conv import _a_bt
    m, r, q = shape
    rng = np.random.default_rng(q)
    a, b = rng.standard_normal((m, q)).astype(dtype), rng.standard_normal((r, q)).astype(dtype)
    got = _a_bt(a, b)
    assert got.dtype == dtype and got.shape == (m, r)
    ref = a.astype(np.float64) @ b.astype(np.float64).T
    tol = (1e-5 if dtype == np.float32 else 1e-12) * max(np.sqrt(q), 1.0)
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)


@needs_numba
@pytest.mark.parametrize("where", ["x", "w"])
@pytest.mark.parametrize("value", [np.inf, np.nan], ids=["inf", "nan"])
def test_wide_rows_with_an_inf_or_nan_give_the_numpy_paths_infs_and_nans(where, value):
    """The columns the wide layout throws away read the input's last columns (an input value
    there meets a zero of dy) and, in the input gradient, carry the weight of tap b = 0 (times the
    zeros of dy): with inf or NaN there, 0 * inf would be NaN where the NumPy path has a number."""
    rng = np.random.default_rng(5)
    xv, wv = rng.standard_normal((2, 2, 6, 7)), rng.standard_normal((3, 2, 3, 3))
    if where == "x":
        xv[0, 1, 2, 6] = value          # last column: tap b = 0 never reads it in a real window
    else:
        wv[1, 0, 1, 0] = value          # tap b = 0
    x, w = T(xv, np.float32), T(wv, np.float32)
    dy = T(rng.standard_normal((2, 3, 4, 5)), np.float32)
    _conv_family_on_both_paths(dict(out_channel=3, kernel_size=3), x, w, dy)


@needs_numba
@pytest.mark.parametrize("case", [
    dict(pad_mode="valid"),
    dict(pad_mode="same", stride=2, dilation=2),
    dict(pad_mode="pad", pad=(2, 0, 1, 3), stride=(1, 2), dilation=(2, 1)),
    dict(pad_mode="same", group=2),
], ids=["valid", "same-stride-dilation", "pad-asymmetric", "group2"])
def test_conv_gradients_to_second_order_on_the_fast_path(case, monkeypatch):
    rng = np.random.default_rng(7)
    group = case.get("group", 1)
    x = T(rng.standard_normal((2, 2 * group, 7, 6)) * 0.5)
    w = T(rng.standard_normal((2 * group, 2, 3, 2)) * 0.5)
    conv = P.Conv2D(2 * group, (3, 2), **case)
    with fast_path(True), spy(monkeypatch, "conv", "conv2d_backprop_input") as bpi, \
            spy(monkeypatch, "conv", "conv2d_backprop_filter") as bpf:
        check_grads(lambda a, b: ops.tanh(conv(a, b)), (x, w), order=2)
    assert bpi and bpf                          # the gradient primitives ran on the kernels too


# ================================================================================================
# pooling: MaxPool / MaxPoolGrad / MaxPoolGradGrad, AvgPool / AvgPoolGrad
# ================================================================================================
def _random_pool(rng, kind):
    """A random pooling primitive (the MindSpore constructor or the functional configuration)."""
    k = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    s = (int(rng.integers(1, 4)), int(rng.integers(1, 3)))
    cls = P.MaxPool if kind == "max" else P.AvgPool
    if rng.random() < 0.4:
        return cls(k, s, str(rng.choice(["valid", "same"])))
    pads = tuple(int(rng.integers(0, kk // 2 + 1)) for kk in (k[0], k[0], k[1], k[1]))
    dil = (int(rng.integers(1, 3)), int(rng.integers(1, 3))) if kind == "max" else (1, 1)
    extra = {} if kind == "max" else dict(count_include_pad=bool(rng.random() < 0.5),
                                          divisor_override=int(rng.choice([0, 0, 3])))
    return cls._configured(k, s, pads, dil, bool(rng.random() < 0.5), **extra)


@needs_numba
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("seed", range(10))
def test_max_pool_family_agrees_with_numpy(seed, dtype, monkeypatch):
    rng = np.random.default_rng(100 + seed)
    pool = _random_pool(rng, "max")
    shape = (int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(5, 10)), int(rng.integers(5, 10)))
    xv = rng.standard_normal(shape)
    xv[..., ::3, ::2] = np.round(xv[..., ::3, ::2])       # ties, so "first maximum" matters
    x = T(xv, dtype)
    out = pool(x)
    grad = P.MaxPoolGrad.__new__(P.MaxPoolGrad)
    grad.__dict__.update(pool.__dict__)
    gg = P.MaxPoolGradGrad.__new__(P.MaxPoolGradGrad)
    gg.__dict__.update(pool.__dict__)
    dy, dx = T(rng.standard_normal(out.shape), dtype), T(rng.standard_normal(shape), dtype)
    with spy(monkeypatch, "pooling", "max_pool") as a, spy(monkeypatch, "pooling", "max_pool_grad") as b, \
            spy(monkeypatch, "pooling", "max_pool_grad_grad") as c:
        for fn, args in ((pool, (x,)), (gg, (x, out, dx))):
            ref, got = both_paths(fn, *args)
            np.testing.assert_array_equal(got[0], ref[0])   # picking and gathering are exact
        # the scatter adds overlapping windows in another order: equal up to rounding
        assert_close(*both_paths(grad, x, out, dy), dtype)
    assert len(a) == len(b) == len(c) == 1


@needs_numba
def test_max_pool_ties_nan_and_all_minus_inf_windows_follow_numpy():
    x = np.zeros((1, 2, 5, 5), np.float32)                # channel 0: all ties
    x[0, 1] = -np.inf                                     # channel 1: -inf everywhere ...
    x[0, 1, 2, 2] = np.nan                                # ... and one NaN
    x[0, 1, 3, 4] = 7.0
    pool = P.MaxPool._configured((3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True)
    out = pool(Tensor(x))
    grad = P.MaxPoolGrad.__new__(P.MaxPoolGrad)
    grad.__dict__.update(pool.__dict__)
    dy = Tensor(np.arange(out.size, dtype=np.float32).reshape(out.shape) + 1)
    for fn, args in ((pool, (Tensor(x),)), (grad, (Tensor(x), out, dy))):
        ref, got = both_paths(fn, *args)
        np.testing.assert_array_equal(got[0], ref[0])


@needs_numba
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("seed", range(8))
def test_the_2x2_max_pool_kernel_agrees_with_numpy(seed, dtype, monkeypatch):
    """2x2 windows, stride 2 (LeNet's, VGG's): a kernel of their own.  Odd sizes, padding and
    ceil_mode; ties between equal values, -0.0 against 0.0, windows of -inf; NaN and +-inf in one
    window send the call to the general kernel.  Values and positions must be exact."""
    from minims.fast import pooling as fast_pool
    rng = np.random.default_rng(300 + seed)
    shape = (int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(2, 12)), int(rng.integers(2, 12)))
    xv = np.round(rng.standard_normal(shape) * 2) / 2                  # many ties
    xv[rng.random(shape) < 0.15] = -0.0
    xv[rng.random(shape) < 0.05] = -np.inf
    if seed % 4 == 3:
        xv[rng.random(shape) < 0.1] = np.nan                          # the general kernel's case
    if seed % 2:
        pads = (int(rng.integers(0, 2)), int(rng.integers(0, 2)), int(rng.integers(0, 2)), int(rng.integers(0, 2)))
        pool = P.MaxPool._configured((2, 2), (2, 2), pads, (1, 1), bool(seed % 3))
    else:
        pool = P.MaxPool(2, 2, "same" if seed % 4 == 2 else "valid")
    x = T(xv, dtype)
    calls = []
    original = fast_pool._max_pool_2x2
    monkeypatch.setattr(fast_pool, "_max_pool_2x2", lambda *a: calls.append(original(*a)) or calls[-1])
    grad = P.MaxPoolGrad.__new__(P.MaxPoolGrad)
    grad.__dict__.update(pool.__dict__)
    out = pool(x)
    dy = T(np.arange(out.size).reshape(out.shape) + 1.0, dtype)   # distinct: each lands where its maximum is

    def forward_then_gradient(a):       # the gradient scatters to the positions the forward pass kept
        return pool(a), grad(a, pool(a), dy)
    ref, got = both_paths(forward_then_gradient, x)
    for r, g in zip(ref, got, strict=True):
        np.testing.assert_array_equal(g, r)
        np.testing.assert_array_equal(np.signbit(g), np.signbit(r))
    assert calls and all(clean == (seed % 4 != 3) for _, _, clean in calls)


@needs_numba
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("seed", range(10))
def test_avg_pool_family_agrees_with_numpy(seed, dtype, monkeypatch):
    rng = np.random.default_rng(200 + seed)
    pool = _random_pool(rng, "avg")
    shape = (int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(5, 10)), int(rng.integers(5, 10)))
    x = T(rng.standard_normal(shape), dtype)
    out = pool(x)
    grad = P.AvgPoolGrad.__new__(P.AvgPoolGrad)
    grad.__dict__.update(pool.__dict__)
    dy = T(rng.standard_normal(out.shape), dtype)
    with spy(monkeypatch, "pooling", "avg_pool") as a, spy(monkeypatch, "pooling", "avg_pool_grad") as b:
        for fn, args in ((pool, (x,)), (grad, (x, out, dy))):
            assert_close(*both_paths(fn, *args), dtype)
    assert len(a) == len(b) == 1


@needs_numba
def test_pooling_gradients_to_second_order_on_the_fast_path(monkeypatch):
    x = T(np.random.default_rng(3).permutation(2 * 3 * 7 * 7).reshape(2, 3, 7, 7) / 10.0)  # no ties
    with fast_path(True), spy(monkeypatch, "pooling", "max_pool_grad_grad") as mgg, \
            spy(monkeypatch, "pooling", "avg_pool_grad") as agrad:
        check_grads(lambda a: ops.sin(NF.max_pool2d(a, 3, 2, padding=1, ceil_mode=True)), (x,), order=2)
        check_grads(lambda a: ops.sin(NF.max_pool2d(a, 2, 1, padding=1, dilation=2)), (x,), order=2, seed=1)
        check_grads(lambda a: ops.sin(NF.avg_pool2d(a, 3, 2, padding=1, ceil_mode=True,
                                                    count_include_pad=False)), (x,), order=2, seed=2)
        check_grads(lambda a: ops.sin(P.AvgPool(2, 2, "same")(a)), (x,), order=2, seed=3)
    assert mgg and agrad


# ================================================================================================
# softmax cross-entropy (dense: loss and dlogits; sparse: mean loss or its gradient)
# ================================================================================================
@needs_numba
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_softmax_cross_entropy_agrees_with_numpy(dtype, monkeypatch):
    rng = np.random.default_rng(5)
    with spy(monkeypatch, "cross_entropy", "softmax_cross_entropy") as a, \
            spy(monkeypatch, "cross_entropy", "sparse_softmax_cross_entropy") as b:
        for n, c in ((1, 1), (4, 3), (32, 10), (7, 50)):
            z = T(rng.standard_normal((n, c)) * 5 + 30, dtype)         # large logits: stability matters
            probs = T(rng.dirichlet(np.ones(c), size=n), dtype)
            labels = Tensor(rng.integers(0, c, n).astype(np.int32))
            assert_close(*both_paths(P.SoftmaxCrossEntropyWithLogits(), z, probs), dtype)
            for is_grad in (False, True):
                assert_close(*both_paths(P.SparseSoftmaxCrossEntropyWithLogits(is_grad), z, labels), dtype)
    assert len(a) == 4 and len(b) == 8


@needs_numba
def test_softmax_cross_entropy_gradients_to_second_order_on_the_fast_path():
    rng = np.random.default_rng(6)
    z = T(rng.standard_normal((4, 5)))
    t = T(rng.dirichlet(np.ones(5), size=4))
    labels = Tensor(np.array([0, 4, 2, 2], np.int64))
    with fast_path(True):
        check_grads(lambda a: P.SoftmaxCrossEntropyWithLogits()(a, t), (z,), order=2)
        for is_grad in (False, True):
            check_grads(lambda a: P.SparseSoftmaxCrossEntropyWithLogits(is_grad)(a, labels), (z,), order=2,
                        seed=int(is_grad))


# ================================================================================================
# batch norm (forward on the kernel; the backward rule is minims ops either way)
# ================================================================================================
@needs_numba
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("training", [True, False], ids=["training", "inference"])
def test_batch_norm_agrees_with_numpy(training, dtype, monkeypatch):
    rng = np.random.default_rng(8)
    with spy(monkeypatch, "batch_norm", "batch_norm") as calls:
        for shape in ((4, 3, 5, 6), (2, 1, 1, 1), (6, 5)):
            c = shape[1]
            x = T(rng.standard_normal(shape) * 3 + 10, dtype)       # an offset mean: two-pass variance
            scale, bias = T(rng.standard_normal(c), dtype), T(rng.standard_normal(c), dtype)
            mean, var = T(rng.standard_normal(c), dtype), T(rng.random(c) + 0.5, dtype)
            bn = P.BatchNorm(training, 1e-3)
            assert_close(*both_paths(bn, x, scale, bias, mean, var), dtype)
    assert len(calls) == 3


@needs_numba
@pytest.mark.parametrize("training", [True, False], ids=["training", "inference"])
def test_batch_norm_gradients_to_second_order_on_the_fast_path(training):
    rng = np.random.default_rng(9)
    x = T(rng.standard_normal((3, 2, 3, 2)))
    scale, bias = T(rng.standard_normal(2)), T(rng.standard_normal(2))
    mean, var = T(rng.standard_normal(2)), T(rng.random(2) + 0.5)
    bn = P.BatchNorm(training)
    with fast_path(True):
        check_grads(lambda a, s, b: bn(a, s, b, mean, var), (x, scale, bias), order=2)


# ================================================================================================
# end to end: a small CNN, PyNative and Graph mode, both paths
# ================================================================================================
@needs_numba
@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_a_training_step_agrees_on_both_paths(mode):
    import minims.nn as nn

    def run():
        ms.set_seed(0)
        net = nn.SequentialCell([nn.Conv2d(1, 4, 3, pad_mode="pad", padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                                 nn.MaxPool2d(2, 2), nn.Conv2d(4, 6, 3, stride=2), nn.ReLU(),
                                 nn.AvgPool2d(2, 2), nn.Flatten(), nn.Dense(6, 3)])
        loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.1, 0.9))
        rng = np.random.default_rng(1)
        x = Tensor(rng.standard_normal((8, 1, 10, 10)).astype(np.float32))
        y = Tensor((np.arange(8) % 3).astype(np.int32))
        losses = [float(train(x, y).asnumpy()) for _ in range(3)]
        return losses, [p.asnumpy() for p in net.trainable_params()]

    ms.set_context(mode=mode)
    with fast_path(False):
        ref_losses, ref_params = run()
    with fast_path(True):
        losses, params = run()
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    for p, r in zip(params, ref_params, strict=True):
        np.testing.assert_allclose(p, r, rtol=1e-4, atol=1e-5)
