"""A Tensor of one element of any shape is a Python index, as in MindSpore (issue 25, tutorial pages).

compile_static_graph blocks 13 (``x[0][mindspore.tensor([1])]`` on a Python list) and 68
(``range(m)`` with ``m`` a shape-[1] Tensor). Expected values: MindSpore 2.10 (CPU), the oracle.
"""
import minims as ms


def test_shape_one_tensor_indexes_a_list_and_sizes_a_range():
    """Oracle: ``[1, 2, 3, 4][tensor([1])]`` is 2, ``[1, 2, 3][tensor([[2]])]`` is 3,
    ``list(range(tensor([3])))`` is ``[0, 1, 2]``."""
    assert [1, 2, 3, 4][ms.tensor([1])] == 2
    assert [1, 2, 3][ms.tensor([[2]])] == 3
    assert list(range(ms.tensor([3]))) == [0, 1, 2]


def test_range_of_a_traced_shape_one_tensor_in_jit():
    """compile_static_graph:68: ``for _ in range(x * 3)`` with ``x = tensor([1], int32)``; oracle prints
    ``ret:  3``."""
    @ms.jit
    def func(x):
        a = 0
        for _ in range(x * 3):
            a = a + 1
        return a

    assert func(ms.tensor([1], dtype=ms.int32)) == 3
