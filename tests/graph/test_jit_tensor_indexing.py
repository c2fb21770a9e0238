"""Indexing by Tensors in every mode: ``a[i]``, ``a[mask]``, ``ops.gather`` and ``y[i] = v``.

An index Tensor is an operand of the indexing primitive, so a compiled graph reads each call's index
(it used to be refused inside ``jit``, and before that frozen to the placeholder's zeros).  Expected
values are MindSpore 2.10's (CPU), checked on the real MindSpore, for ``a = Tensor([3., 4., 5.])``:

* ``a[Tensor([2])]`` is ``Tensor(shape=[1], Float32, [5.])`` for int32, int64 and default-int
  indices, ``a[Tensor(2)]`` is 5.0 of shape ``()``, and ``a[Tensor([True, False, True])]`` is
  ``[3., 5.]``, in PyNative, ``jit`` and a GRAPH_MODE Cell;
* ``ops.gather(a, Tensor([5]), 0)`` raises ``RuntimeError: For 'Gather', the 'input_indices' should be
  in the range [0, 3), but got 5`` in all three modes, ``a[Tensor([5])]`` the same in PyNative and
  ``jit``; a negative index Tensor counts from the end.

The other expected values are plain arithmetic: the gradient of ``sum(a[i] * 3)`` is 3 at each
position ``i`` names, counted as often as it is named.
"""
import numpy as np
import pytest

import minims as ms
import minims.nn as nn
from minims import Tensor, jit, ops
from minims.graph import StaticGraphError
from minims.testing import check_modes, leftover_state

A = [3.0, 4.0, 5.0]


@pytest.fixture(autouse=True)
def back_to_pynative_with_nothing_left():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)           # the GRAPH_MODE tests leave it set
    assert not leftover_state(), leftover_state()


class Take(nn.Cell):
    def construct(self, a, i):
        return a[i]


class Gather(nn.Cell):
    def construct(self, a, i):
        return ops.gather(a, i, 0)


def take_pynative(a, i):
    return a[i]


def take_in_graph_mode(a, i):
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        return Take()(a, i)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


MODES = {"pynative": take_pynative, "jit": lambda a, i: jit(take_pynative)(a, i),
         "graph_mode_cell": take_in_graph_mode}


def a32():
    return Tensor(A, ms.float32)


# ----- values ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", [ms.int32, ms.int64, None], ids=["int32", "int64", "default"])
def test_an_index_tensor_gives_mindsporess_values_in_every_mode(mode, dtype):
    take = MODES[mode]
    one = take(a32(), Tensor([2], dtype) if dtype else Tensor([2]))
    assert one.shape == (1,) and one.dtype == ms.float32 and one.asnumpy().tolist() == [5.0]
    scalar = take(a32(), Tensor(2, dtype) if dtype else Tensor(2))
    assert scalar.shape == () and float(scalar) == 5.0


@pytest.mark.parametrize("mode", MODES)
def test_a_bool_mask_selects_the_true_entries_in_every_mode(mode):
    out = MODES[mode](a32(), Tensor([True, False, True]))
    assert out.shape == (2,) and out.asnumpy().tolist() == [3.0, 5.0]


@pytest.mark.parametrize("mode", MODES)
def test_a_negative_index_tensor_counts_from_the_end_in_every_mode(mode):
    assert MODES[mode](a32(), Tensor([-1])).asnumpy().tolist() == [5.0]
    assert MODES[mode](a32(), Tensor([-3, -1])).asnumpy().tolist() == [3.0, 5.0]


def test_a_compiled_function_reads_each_calls_index():
    f = jit(take_pynative)
    assert f(a32(), Tensor([0])).asnumpy().tolist() == [3.0]
    assert f(a32(), Tensor([2])).asnumpy().tolist() == [5.0]     # same signature: the cached graph
    assert f(a32(), Tensor([1, 0])).asnumpy().tolist() == [4.0, 3.0]
    assert f.traces == 2                                         # one graph per index shape
    assert "%1" in str(f.graph(a32(), Tensor([0])).equations[0].ins)   # the index is a graph input


def test_a_graph_mode_cell_reads_each_calls_index():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Take()
    assert net(a32(), Tensor([0])).asnumpy().tolist() == [3.0]
    assert net(a32(), Tensor([2])).asnumpy().tolist() == [5.0]


def test_gather_reads_each_calls_indices_when_compiled():
    f = jit(lambda a, i: ops.gather(a, i, 0))
    assert f(a32(), Tensor([0, 2])).asnumpy().tolist() == [3.0, 5.0]
    assert f(a32(), Tensor([2, 1])).asnumpy().tolist() == [5.0, 4.0]
    x = Tensor(np.arange(6.0).reshape(2, 3))
    g = jit(lambda x, i: ops.gather(x, i, 1))
    np.testing.assert_array_equal(g(x, Tensor([2, 0])).asnumpy(), [[2.0, 0.0], [5.0, 3.0]])
    np.testing.assert_array_equal(g(x, Tensor([1, 1])).asnumpy(), [[1.0, 1.0], [4.0, 4.0]])


def test_a_constant_index_tensor_inside_jit_is_a_constant_of_the_graph():
    i = Tensor([2, 0])
    f = jit(lambda a: a[i] * 2)
    assert f(a32()).asnumpy().tolist() == [10.0, 6.0]


# ----- masks: a shape that depends on values ----------------------------------------------------------
def test_a_compiled_mask_selecting_another_count_compiles_again_with_the_right_values():
    f = jit(take_pynative)
    assert f(a32(), Tensor([True, False, True])).asnumpy().tolist() == [3.0, 5.0]
    assert f(a32(), Tensor([False, True, True])).asnumpy().tolist() == [4.0, 5.0]   # same count
    assert f.traces == 1
    assert f(a32(), Tensor([True, True, True])).asnumpy().tolist() == [3.0, 4.0, 5.0]
    assert f(a32(), Tensor([False, False, False])).asnumpy().tolist() == []
    assert f(a32(), Tensor([False, True, False])).asnumpy().tolist() == [4.0]
    assert f.traces == 4


def test_a_mask_computed_inside_the_compiled_function_follows_its_input():
    f = jit(lambda x: x[x > 3.5].sum() * 10)
    assert float(f(a32())) == 90.0
    assert float(f(Tensor([4.0, 4.0, 1.0]))) == 80.0
    assert float(f(Tensor([1.0, 1.0, 1.0]))) == 0.0
    g = jit(ms.grad(lambda x: (x[x > 3.5] ** 2).sum()))
    np.testing.assert_array_equal(g(a32()).asnumpy(), [0.0, 8.0, 10.0])
    np.testing.assert_array_equal(g(Tensor([4.0, 1.0, 1.0])).asnumpy(), [8.0, 0.0, 0.0])


def test_a_mask_inside_a_jit_called_from_a_jit_reads_the_outer_call():
    inner = jit(lambda x, m: x[m] * 2)
    outer = jit(lambda x, m: inner(x + 1, m).sum())
    assert float(outer(a32(), Tensor([True, False, True]))) == 2 * (4 + 6)
    assert float(outer(a32(), Tensor([True, True, True]))) == 2 * (4 + 5 + 6)


def test_a_mask_computed_inside_a_jit_differentiated_inside_a_jit_reads_the_outer_call():
    """Found by the fuzzer: in ``jit(grad(jit(f)))`` the inner graph's inputs are the gradient
    level's values over the outer graph's placeholders; the mask's count is read through the level
    from the outer call (it was refused, blaming vmap)."""
    def f(x):
        return (x[ops.gt(x, 3.5)] ** 2).sum()
    g = jit(ms.grad(jit(f)))
    np.testing.assert_array_equal(g(a32()).asnumpy(), [0.0, 8.0, 10.0])
    np.testing.assert_array_equal(g(Tensor([4.0, 1.0, 6.0])).asnumpy(), [8.0, 0.0, 12.0])


def test_a_mask_whose_values_differ_between_vmap_examples_is_refused_inside_jit():
    xs = Tensor(np.arange(6.0).reshape(2, 3))
    masks = Tensor(np.array([[True, False, True], [True, True, True]]))
    with pytest.raises(StaticGraphError, match="ops.select"):
        ms.vmap(jit(lambda x, m: x[m].sum()))(xs, masks)


def test_a_mask_shared_by_every_vmap_example_works_inside_jit():
    xs = Tensor(np.arange(6.0).reshape(2, 3))
    out = jit(ms.vmap(lambda x, m: x[m], (0, None)))(xs, Tensor([True, False, True]))
    np.testing.assert_array_equal(out.asnumpy(), [[0.0, 2.0], [3.0, 5.0]])


# ----- gradients ----------------------------------------------------------------------------------------
def three_times_taken(a, i):
    return (a[i] * 3).sum()


GRADIENT_MODES = {"pynative": ms.grad(three_times_taken), "jit(grad)": jit(ms.grad(three_times_taken)),
                  "grad(jit)": ms.grad(jit(three_times_taken))}


@pytest.mark.parametrize("mode", GRADIENT_MODES)
@pytest.mark.parametrize("index, expected", [
    ([2], [0.0, 0.0, 3.0]),
    ([0], [3.0, 0.0, 0.0]),
    ([2, 2], [0.0, 0.0, 6.0]),                       # named twice: counted twice
    ([-1, 0], [3.0, 0.0, 3.0]),
    ([True, False, True], [3.0, 0.0, 3.0]),
], ids=["2", "0", "2_2", "minus1_0", "mask"])
def test_the_gradient_flows_to_the_indexed_tensor_as_a_one_hot_times_three(mode, index, expected):
    grad = GRADIENT_MODES[mode](a32(), Tensor(index))
    assert grad.dtype == ms.float32
    np.testing.assert_array_equal(grad.asnumpy(), expected)


def test_the_gradient_in_a_graph_mode_cell_is_a_one_hot_times_three():
    class Loss(nn.Cell):
        def construct(self, a, i):
            return (a[i] * 3).sum()
    ms.set_context(mode=ms.GRAPH_MODE)
    grad = ms.grad(Loss())
    np.testing.assert_array_equal(grad(a32(), Tensor([2, 2])).asnumpy(), [0.0, 0.0, 6.0])
    np.testing.assert_array_equal(grad(a32(), Tensor([1])).asnumpy(), [0.0, 3.0, 0.0])


def test_the_integer_index_gets_no_gradient_only_zeros():
    _, di = ms.grad(three_times_taken, grad_position=(0, 1))(a32(), Tensor([2]))
    assert di.asnumpy().tolist() == [0]


def test_second_derivatives_through_an_index_tensor_agree_in_every_mode():
    """d2/da2 sum(a[i]^3) = 6 a at each named position, as often as it is named (float64)."""
    a = Tensor(A, ms.float64)
    for index, expected in (([2, 0, 2], [18.0, 0.0, 60.0]), ([True, False, True], [18.0, 0.0, 30.0])):
        result = check_modes(lambda x, i: (x[i] ** 3).sum(), (a, Tensor(index)), argnums=0)
        for mode in ("grad(grad(f))", "grad(grad(jit(f)))", "grad(jit(grad(f)))", "jit(grad(grad(f)))"):
            np.testing.assert_allclose(result[mode][0], expected, rtol=1e-12)


def test_forward_mode_and_vmap_take_the_index_as_it_is():
    a = a32()
    out, tangent = ms.jvp(lambda x, i: x[i], (a, Tensor([2, 0])), (Tensor([1.0, 2.0, 3.0]), Tensor([0, 0])))
    assert out.asnumpy().tolist() == [5.0, 3.0] and tangent.asnumpy().tolist() == [3.0, 1.0]
    out, tangent = ms.jvp(jit(lambda x, i: x[i]), (a, Tensor([1])), (Tensor([1.0, 2.0, 3.0]), Tensor([0])))
    assert out.asnumpy().tolist() == [4.0] and tangent.asnumpy().tolist() == [2.0]
    xs = Tensor(np.arange(6.0).reshape(2, 3))
    per_example = ms.vmap(jit(lambda x, i: x[i]))(xs, Tensor([[2], [0]]))
    np.testing.assert_array_equal(per_example.asnumpy(), [[2.0], [3.0]])


# ----- writes -------------------------------------------------------------------------------------------
def written(a, i, v):
    y = a * 1
    y[i] = v
    return y


@pytest.mark.parametrize("index, value, expected", [
    ([1], [10.0], [3.0, 10.0, 5.0]),
    ([2, 0], [10.0, 20.0], [20.0, 4.0, 10.0]),
    ([True, False, True], [10.0, 20.0], [10.0, 4.0, 20.0]),
], ids=["int", "two_ints", "mask"])
def test_a_write_through_an_index_tensor_inside_jit_reads_each_calls_index(index, value, expected):
    f = jit(written)
    assert f(a32(), Tensor(index), Tensor(value)).asnumpy().tolist() == expected
    assert written(a32(), Tensor(index), Tensor(value)).asnumpy().tolist() == expected


def test_a_compiled_write_is_cached_and_still_follows_the_index():
    f = jit(written)
    assert f(a32(), Tensor([0]), Tensor([9.0])).asnumpy().tolist() == [9.0, 4.0, 5.0]
    assert f(a32(), Tensor([2]), Tensor([9.0])).asnumpy().tolist() == [3.0, 4.0, 9.0]
    assert f.traces == 1


def test_the_gradient_of_a_write_goes_to_the_last_write_of_a_repeated_index_in_every_mode():
    """y = a; y[[2, 2]] = (v0, v1): v1 is what stays (NumPy and MindSpore keep the last write)."""
    weights = Tensor([1.0, 2.0, 3.0])

    def loss(a, i, v):
        return (written(a, i, v) * weights).sum()
    for grad in (ms.grad(loss, (0, 2)), jit(ms.grad(loss, (0, 2))), ms.grad(jit(loss), (0, 2))):
        da, dv = grad(a32(), Tensor([2, 2]), Tensor([10.0, 20.0]))
        assert da.asnumpy().tolist() == [1.0, 2.0, 0.0] and dv.asnumpy().tolist() == [0.0, 3.0]
        da, dv = grad(a32(), Tensor([False, True, True]), Tensor([10.0, 20.0]))
        assert da.asnumpy().tolist() == [1.0, 0.0, 0.0] and dv.asnumpy().tolist() == [2.0, 3.0]
        da, dv = grad(a32(), Tensor([True, True, True]), Tensor([10.0, 20.0, 30.0]))   # another count
        assert da.asnumpy().tolist() == [0.0, 0.0, 0.0] and dv.asnumpy().tolist() == [1.0, 2.0, 3.0]


def test_a_value_that_does_not_fit_the_mask_is_refused_while_compiling():
    with pytest.raises(ValueError, match="SetItem"):
        jit(written)(a32(), Tensor([True, False, True]), Tensor([1.0, 2.0, 3.0]))


# ----- out of range -------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [ms.int32, ms.int64])
@pytest.mark.parametrize("mode", ["pynative", "jit", "graph_mode_cell"])
def test_gather_out_of_range_is_a_runtime_error_in_every_mode(mode, dtype):
    index = Tensor([5], dtype)
    if mode == "pynative":
        call = lambda: ops.gather(a32(), index, 0)            # noqa: E731
    elif mode == "jit":
        call = lambda: jit(lambda a, i: ops.gather(a, i, 0))(a32(), index)    # noqa: E731
    else:
        def call():
            ms.set_context(mode=ms.GRAPH_MODE)
            return Gather()(a32(), index)
    with pytest.raises(RuntimeError, match=r"Gather: index 5 is out of range for axis 0 of size 3") as info:
        call()
    assert "Fix: keep the indices in 0..2" in str(info.value)


@pytest.mark.parametrize("mode", MODES)
def test_an_index_tensor_out_of_range_is_a_runtime_error_in_every_mode(mode):
    with pytest.raises(RuntimeError, match="Gather: index 5 is out of range"):
        MODES[mode](a32(), Tensor([5]))
    with pytest.raises(RuntimeError, match="index -4 is out of range"):
        MODES[mode](a32(), Tensor([-4]))


def test_a_cached_graph_refuses_an_index_out_of_range_instead_of_giving_a_number():
    f = jit(take_pynative)
    assert f(a32(), Tensor([1])).asnumpy().tolist() == [4.0]
    with pytest.raises(RuntimeError, match="index 3 is out of range"):
        f(a32(), Tensor([3]))
    g = jit(ms.grad(three_times_taken))
    g(a32(), Tensor([1]))
    with pytest.raises(RuntimeError, match="index 7 is out of range"):
        g(a32(), Tensor([7]))
    with pytest.raises(RuntimeError, match="index 3 is out of range"):
        jit(written)(a32(), Tensor([3]), Tensor([1.0]))


def test_a_python_int_out_of_range_stays_an_index_error():
    """As in Python and MindSpore: ``a[5]`` with an int is an IndexError, not the Gather error."""
    with pytest.raises(IndexError, match="GetItem"):
        a32()[5]
    with pytest.raises(IndexError, match="GetItem"):
        jit(lambda a: a[5])(a32())
