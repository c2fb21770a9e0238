"""Tensor construction, dtypes, MindSpore promotion, methods and operators."""
import numpy as np
import pytest

import minims as ms
from minims import Tensor, ops
from minims import dtype as mstype


def test_python_scalars_get_mindspore_default_dtypes():
    assert Tensor(1.0).dtype is ms.float32
    assert Tensor(1).dtype is ms.int64
    assert Tensor(True).dtype is ms.bool_
    assert Tensor([1.0, 2]).dtype is ms.float32
    assert Tensor([1, 2, 3]).dtype is ms.int64


def test_numpy_arrays_keep_their_dtype():
    assert Tensor(np.ones(3)).dtype is ms.float64
    assert Tensor(np.ones(3, np.int32)).dtype is ms.int32
    assert Tensor(np.float16(1.5)).dtype is ms.float16


def test_dtype_argument_converts():
    t = Tensor([1, 2], dtype=ms.float32)
    assert t.dtype is ms.float32
    np.testing.assert_array_equal(t.asnumpy(), np.array([1.0, 2.0], np.float32))
    assert Tensor(1, mstype.int32).dtype is mstype.int32


def test_attributes():
    t = Tensor(np.zeros((2, 3, 4), np.float32))
    assert t.shape == (2, 3, 4) and isinstance(t.shape, tuple)
    assert (t.ndim, t.size) == (3, 24)


def test_asnumpy_is_a_copy():
    t = Tensor([1.0, 2.0])
    a = t.asnumpy()
    a[0] = 100
    assert t.asnumpy()[0] == 1.0


def test_tensor_does_not_alias_the_callers_array():
    a = np.ones(3, np.float32)
    t = Tensor(a)
    a[0] = 5
    assert t.asnumpy()[0] == 1.0


def test_dtype_names_print_as_mindspore():
    assert str(ms.float32) == "Float32"
    assert str(ms.int32) == "Int32"
    assert str(ms.bool_) == "Bool"
    assert str(ms.uint8) == "UInt8"
    assert mstype.float32 is ms.float32


def test_seed_style_import_of_dtype():
    from minims import dtype as mstype2
    assert mstype2.float32 is ms.float32


@pytest.mark.parametrize("a,b,expected", [
    # promotion pairs printed by MindSpore 2.10 (tests/ values checked against the oracle)
    (("int32", [1, 2]), ("float16", [1.0, 2.0]), "Float16"),
    (("float16", [1, 2]), ("float32", [1.0, 2.0]), "Float32"),
    (("int32", [1, 2]), ("int64", [1, 2]), "Int64"),
    (("uint8", [1, 2]), ("int8", [1, 2]), "Int16"),
    (("bool_", [True, False]), ("bool_", [True, False]), "Bool"),
])
def test_tensor_tensor_promotion_follows_mindspore(a, b, expected):
    x = Tensor(a[1], getattr(ms, a[0]))
    y = Tensor(b[1], getattr(ms, b[0]))
    assert str((x + y).dtype) == expected


@pytest.mark.parametrize("dt,scalar,expected", [
    # MindSpore 2.10: a Python scalar never widens a tensor; float with int tensor gives Float32
    ("float32", 2.5, "Float32"), ("float16", 2.0, "Float16"), ("float64", 2.0, "Float64"),
    ("int32", 2.5, "Float32"), ("int32", 2, "Int32"), ("bool_", 1, "Int64"), ("bool_", 1.0, "Float32"),
])
def test_tensor_scalar_promotion_follows_mindspore(dt, scalar, expected):
    x = Tensor([1, 2], getattr(ms, dt))
    assert str((x * scalar).dtype) == expected


def test_int_tensor_times_float_gives_the_float_values():
    out = Tensor([1, 2], ms.int32) * 2.5          # MindSpore 2.10 prints [2.5 5. ]
    np.testing.assert_array_equal(out.asnumpy(), np.array([2.5, 5.0], np.float32))


def test_integer_division_gives_float32():
    out = Tensor([1, 2], ms.int32) / Tensor([2, 4], ms.int32)
    assert out.dtype is ms.float32
    np.testing.assert_allclose(out.asnumpy(), [0.5, 0.5])
    assert (Tensor([1, 2], ms.int32) / 2).dtype is ms.float32


def test_integer_floor_division_and_power_stay_integer():
    x = Tensor([1, 2], ms.int32)
    assert (x // 2).dtype is ms.int32 and (x // 2).tolist() == [0, 1]
    assert (x ** 2).dtype is ms.int32 and (x ** 2).tolist() == [1, 4]


def test_reflected_operators():
    x = Tensor([1.0, 2.0])
    np.testing.assert_allclose((1 - x).asnumpy(), [0, -1])
    np.testing.assert_allclose((2 / x).asnumpy(), [2, 1])
    np.testing.assert_allclose((2 ** x).asnumpy(), [2, 4])
    assert (2 ** x).dtype is ms.float32


def test_numpy_array_on_the_left_computes_with_numpy_as_in_mindspore():
    # MindSpore 2.10 (oracle): ndarray * Tensor is NumPy's product, an ndarray
    out = np.array([1.0, 2.0], np.float32) * Tensor([3.0, 4.0])
    assert type(out) is np.ndarray and out.dtype == np.float32 and out.tolist() == [3.0, 8.0]


def test_comparisons_return_bool_tensors():
    x = Tensor([1.0, 2.0, 3.0])
    assert (x > 1.5).dtype is ms.bool_
    assert (x > 1.5).tolist() == [False, True, True]
    assert (x == 2.0).tolist() == [False, True, False]
    assert ops.gt(x, 1.5).tolist() == (x > 1.5).tolist()


def test_methods_match_numpy():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    t = Tensor(a)
    np.testing.assert_array_equal(t.reshape(6, 4).asnumpy(), a.reshape(6, 4))
    np.testing.assert_array_equal(t.reshape((4, -1)).asnumpy(), a.reshape(4, -1))
    np.testing.assert_array_equal(t.transpose().asnumpy(), a.transpose())
    np.testing.assert_array_equal(t.transpose(1, 0, 2).asnumpy(), a.transpose(1, 0, 2))
    np.testing.assert_array_equal(t.T.asnumpy(), a.T)
    np.testing.assert_allclose(t.sum().asnumpy(), a.sum())
    np.testing.assert_allclose(t.sum(axis=1, keepdims=True).asnumpy(), a.sum(axis=1, keepdims=True))
    np.testing.assert_allclose(t.mean(axis=(0, 2)).asnumpy(), a.mean(axis=(0, 2)))
    np.testing.assert_allclose(t.max(axis=-1).asnumpy(), a.max(axis=-1))
    np.testing.assert_array_equal(t[1, :, ::2].asnumpy(), a[1, :, ::2])
    np.testing.assert_array_equal(t[..., None].asnumpy(), a[..., None])
    np.testing.assert_array_equal(t[Tensor([1, 0])].asnumpy(), a[[1, 0]])
    assert t.astype(ms.int32).dtype is ms.int32
    assert t.flatten().shape == (24,)


def test_mindspore_ops_max_returns_values_and_indices():
    # MindSpore 2.10: ops.max(Tensor([1., 3, 2])) -> (value 3, index 0-d Int64 1)
    values, index = ops.max(Tensor([1.0, 3.0, 2.0]))
    assert float(values) == 3.0 and int(index) == 1


def test_scalar_conversion_and_truthiness():
    assert float(Tensor(2.5)) == 2.5 and int(Tensor(3)) == 3
    assert bool(Tensor([1.0]))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(Tensor([1.0, 2.0]))


def test_setitem_writes_in_place_without_touching_earlier_results():
    t = Tensor([1.0, 2.0, 3.0])
    before = t * 1
    t[0] = 10.0
    assert t.tolist() == [10.0, 2.0, 3.0]
    assert before.tolist() == [1.0, 2.0, 3.0]


def test_bad_input_data_is_a_type_error_that_says_what_came():
    with pytest.raises(TypeError, match="str"):
        Tensor("abc")
    with pytest.raises(TypeError, match="dict"):
        Tensor({"a": 1})


def test_ragged_list_is_a_value_error():
    with pytest.raises(ValueError, match="ragged"):
        Tensor([[1, 2], [3]])


def test_bad_dtype_argument_is_a_type_error():
    with pytest.raises(TypeError, match="minims dtype"):
        Tensor([1.0], dtype="complex-ish")


def test_tensor_is_hashable_by_identity():
    a, b = Tensor([1.0]), Tensor([1.0])
    assert len({a, b}) == 2


def test_the_tensor_function_builds_the_same_tensor_as_the_class():
    """mindspore.tensor(...) is a function in MindSpore 2.x (the ops.derivative docstring uses it)."""
    t = ms.tensor([[1, 2], [3, 4]], ms.float32)
    assert type(t) is Tensor and t.dtype == ms.float32 and t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert ms.tensor(2).dtype == Tensor(2).dtype
    assert ms.tensor(shape=(2,), dtype=ms.float32, init="ones").tolist() == [1.0, 1.0]
