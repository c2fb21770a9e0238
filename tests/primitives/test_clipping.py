"""Issue 26 item 5: ``ops.clamp``, ``ops.clip_by_value``, ``ops.clip_by_norm``, ``ops.clip_by_global_norm``
(``minims/primitives/clip.py``).  Expected values: MindSpore 2.10 oracle runs (quoted per test) and
closed forms."""
import numpy as np
import pytest

import minims as ms
from minims import Tensor, ops


def _f32(a):
    return Tensor(np.array(a, np.float32))


def test_clamp_values_dtypes_and_reversed_bounds():
    """Item 5, clamp.  MindSpore 2.10: clip_by_value(x, -1, 1) = [-1, 0.5, 1]; min > max gives max
    ([-1, -1, -1]); an int32 input with float bounds is Float32 ([0.5, 0.5, 2.5]), with int bounds
    Int32; a Float16 input with float numbers stays Float16; a [2] bound broadcasts over [2, 2]."""
    x = _f32([-2., 0.5, 3.])
    np.testing.assert_array_equal(ops.clip_by_value(x, -1, 1).asnumpy(), [-1., 0.5, 1.])
    np.testing.assert_array_equal(ops.clamp(x, _f32(1.0), _f32(-1.0)).asnumpy(), [-1., -1., -1.])
    xi = Tensor(np.array([-2, 0, 3], np.int32))
    out = ops.clamp(xi, 0.5, 2.5)
    assert out.dtype == ms.float32
    np.testing.assert_array_equal(out.asnumpy(), [0.5, 0.5, 2.5])
    assert ops.clamp(xi, 0, 2).dtype == ms.int32
    assert ops.clamp(Tensor(np.array([1, 2], np.float16)), 0.5, 1.5).dtype == ms.float16
    np.testing.assert_array_equal(ops.clamp(_f32([[1, 2], [3, 4]]), _f32([0, 3])).asnumpy(), [[1, 3], [3, 4]])


def test_clamp_nan_becomes_the_bound():
    """Item 5, clamp.  MindSpore 2.10: clamp([nan, 1], 0, 0.5) = [0, 0.5]; clamp([nan, 1], max=0.5)
    = [0.5, 0.5]."""
    x = _f32([np.nan, 1.])
    np.testing.assert_array_equal(ops.clamp(x, 0.0, 0.5).asnumpy(), [0., 0.5])
    np.testing.assert_array_equal(ops.clamp(x, max=0.5).asnumpy(), [0.5, 0.5])


def test_clamp_gradients_go_to_the_input_at_the_bounds():
    """Item 5, clamp.  MindSpore 2.10, x = [-2, -1, 0.5, 1, 3], bounds -1 and 1: dx = [0, 1, 1, 1, 0],
    dmin = [1, 0, 0, 0, 0], dmax = [0, 0, 0, 0, 1]; the same under jit."""
    x, lo, hi = _f32([-2., -1., 0.5, 1., 3.]), _f32([-1.] * 5), _f32([1.] * 5)
    grads = ms.grad(lambda a, b, c: ops.clamp(a, b, c).sum(), grad_position=(0, 1, 2))(x, lo, hi)
    expected = ([0, 1, 1, 1, 0], [1, 0, 0, 0, 0], [0, 0, 0, 0, 1])
    for g, e in zip(grads, expected):
        np.testing.assert_array_equal(g.asnumpy(), e)
    jitted = ms.jit(ms.grad(lambda a: ops.clamp(a, -1.0, 1.0).sum()))(x)
    np.testing.assert_array_equal(jitted.asnumpy(), expected[0])


def test_clip_by_value_on_a_list_returns_a_tuple_and_needs_a_bound():
    """Item 5, clip_by_value.  MindSpore 2.10: a list gives a tuple ([0, 0.5, 2], [0, 1, 2]); no bound
    raises ValueError "at least one of 'clip_value_min' or 'clip_value_max' must not be None";
    ops.clamp(x, None, None) raises ValueError "at least one of 'min' or 'max'"."""
    x = _f32([-2., 0.5, 3.])
    out = ops.clip_by_value([x, x * 2], 0, 2)
    assert isinstance(out, tuple)
    np.testing.assert_array_equal(out[0].asnumpy(), [0, 0.5, 2])
    np.testing.assert_array_equal(out[1].asnumpy(), [0, 1, 2])
    with pytest.raises(ValueError, match="clip_value_min"):
        ops.clip_by_value(x)
    with pytest.raises(ValueError, match="'min' or 'max'"):
        ops.clamp(x, None, None)


def test_clip_by_norm_matches_mindspore():
    """Item 5, clip_by_norm.  MindSpore 2.10: [[3, 4]] with max_norm 1 -> [[0.5999999, 0.7999998]]
    (coef 1 / (5 + 1e-6)); max_norm 10 leaves it; the tuple ([[3, 4]], [1, -2, 2]) with max_norm 2 ->
    [[1.0289915, 1.3719885]], [0.34299713, -0.68599427, 0.68599427]; norm_type inf ->
    [[1.4999996, 1.9999995]], [0.4999999, -0.9999998, 0.9999998]."""
    x, y = _f32([[3., 4.]]), _f32([1., -2., 2.])
    np.testing.assert_allclose(ops.clip_by_norm(x, 1.0).asnumpy(), [[0.5999999, 0.7999998]], rtol=1e-6)
    np.testing.assert_array_equal(ops.clip_by_norm(x, 10.0).asnumpy(), [[3., 4.]])
    a, b = ops.clip_by_norm((x, y), 2.0)
    np.testing.assert_allclose(a.asnumpy(), [[1.0289915, 1.3719885]], rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), [0.34299713, -0.68599427, 0.68599427], rtol=1e-6)
    a, b = ops.clip_by_norm((x, y), 2.0, norm_type=float("inf"))
    np.testing.assert_allclose(a.asnumpy(), [[1.4999996, 1.9999995]], rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), [0.4999999, -0.9999998, 0.9999998], rtol=1e-6)


def test_clip_by_global_norm_keeps_each_dtype():
    """Item 5, clip_by_global_norm.  MindSpore 2.10 on ([[3, 4]], [1, -2, 2], float16 [1, 2]) with
    clip_norm 1 (global norm sqrt(39)): Float32 [[0.48038447, 0.64051265]], [0.16012816, -0.32025632,
    0.32025632], Float16 [0.16015625, 0.3203125]; a single Tensor with clip_norm 2 -> [[1.2, 1.6]]."""
    x, y, h = _f32([[3., 4.]]), _f32([1., -2., 2.]), Tensor(np.array([1., 2.], np.float16))
    a, b, c = ops.clip_by_global_norm((x, y, h), 1.0)
    assert (a.dtype, b.dtype, c.dtype) == (ms.float32, ms.float32, ms.float16)
    np.testing.assert_allclose(a.asnumpy(), [[0.48038447, 0.64051265]], rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), [0.16012816, -0.32025632, 0.32025632], rtol=1e-6)
    np.testing.assert_array_equal(c.asnumpy(), np.array([0.16015625, 0.3203125], np.float16))
    np.testing.assert_allclose(ops.clip_by_global_norm(x, 2.0).asnumpy(), [[1.2, 1.6]], rtol=1e-6)


def test_clip_by_global_norm_gradient_matches_closed_form():
    """Item 5: clipping is a composition of differentiable ops.  Above clip_norm 1 the result is
    x / |x|, so d(c . x/|x|)/dx = c/|x| - (c . x) x / |x|^3 (closed form; the norm is summed in Float32
    as MindSpore does, hence the tolerance)."""
    x0, c = np.array([3., 4., -1.]), np.array([1., 2., 3.])
    g = ms.grad(lambda a: (ops.clip_by_global_norm(a, 1.0) * Tensor(c)).sum())(Tensor(x0)).asnumpy()
    n = np.linalg.norm(x0)
    np.testing.assert_allclose(g, c / n - c.dot(x0) * x0 / n ** 3, rtol=1e-6)


def test_clip_is_clamp():
    """Item 5 (MindSpore's test_ops_clip_func uses ops.clip): ops.clip is MindSpore's other name for
    clamp; MindSpore 2.10: clip([-2, 0.5, 3], -1, 1) = [-1, 0.5, 1]."""
    np.testing.assert_array_equal(ops.clip(_f32([-2., 0.5, 3.]), -1, 1).asnumpy(), [-1., 0.5, 1.])


def test_tan_value_and_gradient():
    """Item 5 (MindSpore's jet tests differentiate ops.tan, here sin / cos).  MindSpore 2.10: tan([0.5, 1]) =
    [0.5463025, 1.5574077], grad [1.2984464, 3.4255188] (= 1 / cos^2, closed form); Float16 stays
    Float16."""
    x = _f32([0.5, 1.0])
    np.testing.assert_allclose(ops.tan(x).asnumpy(), [0.5463025, 1.5574077], rtol=1e-6)
    np.testing.assert_allclose(ms.grad(ops.tan)(x).asnumpy(), [1.2984464, 3.4255188], rtol=1e-6)
    assert ops.tan(Tensor(np.array([0.5], np.float16))).dtype == ms.float16
