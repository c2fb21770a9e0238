"""``vmap``: in_axes and out_axes forms, outputs, Cells and the misuse errors.

Expected structures and exception types were recorded by running MindSpore 2.10 (every misuse is a
RuntimeError there); expected values are the per-example computations done with NumPy.
"""
import numpy as np
import pytest

import minims as ms
import minims.nn as nn
import minims.ops as ops
from minims import Tensor
from minims.testing import leftover_state

A = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
C = Tensor(np.array([100.0, 200.0, 300.0], np.float32))


@pytest.fixture(autouse=True)
def clean():
    yield
    assert not leftover_state(), leftover_state()


def test_in_axes_forms():
    a = A.asnumpy()
    np.testing.assert_array_equal(ops.vmap(lambda r, c: r + c, (0, None))(A, C).asnumpy(), a + C.asnumpy())
    np.testing.assert_array_equal(ops.vmap(lambda col: col * 2, 1)(A).asnumpy(), (a * 2).T)
    np.testing.assert_array_equal(ops.vmap(lambda col: col * 2, -1)(A).asnumpy(), (a * 2).T)
    # a nested in_axes for a tuple argument; an int maps inside containers too
    out = ops.vmap(lambda pair, z: pair[0] * pair[1] + z, ((0, None), 0))((A, C), A)
    np.testing.assert_array_equal(out.asnumpy(), a * C.asnumpy() + a)
    np.testing.assert_array_equal(ops.vmap(lambda p: p[0] + p[1])([A, A]).asnumpy(), 2 * a)
    assert ops.vmap(lambda r, s: r * s, (0, None))(A, 3.0).tolist() == (a * 3).tolist()   # a shared scalar


def test_out_axes_and_outputs_that_do_not_depend_on_the_batch():
    a = A.asnumpy()
    out = ops.vmap(lambda r: r * 2, out_axes=1)(A)
    np.testing.assert_array_equal(out.asnumpy(), (2 * a).T)
    first, shared = ops.vmap(lambda r, c: (r + c, c), (0, None), (0, None))(A, C)
    assert shared.shape == (3,) and first.shape == (2, 3)
    broadcast = ops.vmap(lambda r, c: c, (0, None))(A, C)                  # broadcast along the batch
    np.testing.assert_array_equal(broadcast.asnumpy(), np.stack([C.asnumpy()] * 2))
    assert ops.vmap(lambda r: Tensor(np.float32(5.0)))(A).tolist() == [5.0, 5.0]
    out = ops.vmap(lambda r: [r, r * 2])(A)                                # a list comes back a tuple
    assert isinstance(out, tuple) and out[1].shape == (2, 3)


def test_nested_vmap_and_cells():
    x, y = Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([3.0, 4.0, 5.0], np.float32))
    outer = ops.vmap(ops.vmap(ops.mul, (None, 0)), (0, None))(x, y)
    np.testing.assert_array_equal(outer.asnumpy(), np.outer([1, 2], [3, 4, 5]))
    net = nn.Dense(3, 1)
    rows = ops.vmap(lambda r: net(ops.reshape(r, (1, 3))))(A)
    np.testing.assert_allclose(rows.asnumpy().reshape(2, 1), net(A).asnumpy(), rtol=1e-6)


def test_vmap_of_a_cell_list_runs_each_cell():
    """Oracle: vmap(CellList) is an ensemble: with in_axes None every Cell sees the same input and the
    outputs are stacked."""
    ms.set_seed(3)
    cells = nn.CellList([nn.Dense(3, 2), nn.Dense(3, 2)])
    x = Tensor(np.ones((1, 3), np.float32))
    out = ops.vmap(cells, in_axes=None)(x)
    assert out.shape == (2, 1, 2)
    for k in range(2):
        np.testing.assert_array_equal(out[k].asnumpy(), cells[k](x).asnumpy())


@pytest.mark.parametrize("call, words", [
    (lambda: ops.vmap(ops.sin, 2)(A), "out of bounds"),
    (lambda: ops.vmap(ops.add, (0, 0, 0))(A, A), "size of in_axes must equal"),
    (lambda: ops.vmap(ops.add)(A, Tensor(np.ones((3, 3), np.float32))), "different sizes"),
    (lambda: ops.vmap(ops.add, (None, None))(A, A), "every in_axes entry is None"),
    (lambda: ops.vmap(ops.sin, None), "single None"),
    (lambda: ops.vmap(ops.sin, "a")(A), "in_axes must be"),
    (lambda: ops.vmap(3), "function or Cell"),
    (lambda: ops.vmap(ops.add)(A, y=A), "positional"),
    (lambda: ops.vmap(ops.sin, out_axes=3)(A), "out of bounds"),
    (lambda: ops.vmap(lambda r: (r, r), out_axes=(0,))(A), "out_axes has 1 entries"),
    (lambda: ops.vmap(lambda r: r)([1.0, 2.0]), "must be a Tensor"),
    (lambda: ops.vmap(lambda r: r)(np.ones(3)), "must be a Tensor"),
    (lambda: ops.vmap(lambda r: {"a": r})(A), "Tensors"),
])
def test_misuse_raises_runtime_error(call, words):
    with pytest.raises(RuntimeError, match=words):
        call()


def test_a_batched_value_has_no_single_value():
    with pytest.raises(RuntimeError, match="no single value"):
        ops.vmap(lambda r: float(ops.sum(r)))(A)
