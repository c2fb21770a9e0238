"""Values at the edges: Tensors too large for the machine, integers no dtype holds, reductions of
nothing.  Each is refused with a clear error or gives the mathematical answer, never NumPy's raw
``MemoryError``/``OverflowError``, a wrapped integer, or a leaked warning."""
import warnings

import numpy as np
import pytest

import minims as ms
import minims.ops as ops
from minims import Tensor
from minims.tensors.initializer import One, initializer
from minims.tensors.memory import physical_memory


@pytest.mark.parametrize("make", [
    lambda: ops.zeros((10 ** 6, 10 ** 6)),
    lambda: ops.ones((10 ** 12,)),
    lambda: ops.full((10 ** 6, 10 ** 6), 2.0),
    lambda: Tensor(shape=(10 ** 6, 10 ** 6), dtype=ms.float32, init=One()),
    lambda: initializer("normal", (10 ** 6, 10 ** 6), ms.float32),
], ids=["zeros", "ones", "full", "Tensor(init)", "initializer"])
def test_a_tensor_larger_than_the_machine_is_refused_before_allocating(make):
    """3.64 TiB of float32: MindSpore 2.10 raises RuntimeError ("Allocate memory failed") when the
    value is read; minims computes eagerly and refuses at once, naming the shape and the size."""
    with pytest.raises(RuntimeError, match=r"Float32 Tensor of shape \[1000000.*needs 3\.64 TiB.*Fix"):
        make()


def test_a_size_just_above_the_machine_memory_is_refused_too():
    """Linux grants a lazy allocation larger than free memory and kills the process while filling
    it; the guard compares with the machine's RAM, so this never starts."""
    ram = physical_memory()
    if ram is None:
        pytest.skip("the OS does not report its physical memory")
    n = ram // 4 + 1                                   # float32 elements: one byte beyond the RAM
    with pytest.raises(MemoryError, match="Fill: a Float32 Tensor"):
        ops.ones((n,))


def test_numpy_running_out_of_memory_inside_an_op_names_the_op():
    """A MemoryError from NumPy inside an op's kernel is reported with the op and its inputs."""
    from minims.core.primitive import Primitive

    class Greedy(Primitive):
        def impl(self, x):
            raise MemoryError("Unable to allocate 1.00 TiB for an array with shape (2, 2)")
    with pytest.raises(RuntimeError, match=r"Greedy: Unable to allocate 1\.00 TiB .*inputs: .*Fix"):
        Greedy()(Tensor([1.0]))


@pytest.mark.parametrize("value, words", [
    (10 ** 30, r"100000000000\.\.\.\(31 digits\) does not fit Int64"),
    (2 ** 63, r"9223372036854775808 does not fit Int64 .*UInt64"),
    (-2 ** 63 - 1, r"-9223372036854775809 does not fit Int64"),
])
def test_a_python_int_beyond_int64_is_refused(value, words):
    # MindSpore 2.10: RuntimeError "Unsupported tensor type!" (2**63 becomes UInt64 there)
    with pytest.raises(RuntimeError, match=words):
        Tensor(value)


def test_the_int64_extremes_are_kept_exactly():
    assert Tensor(2 ** 63 - 1).item() == 2 ** 63 - 1 and Tensor(-2 ** 63).item() == -2 ** 63


@pytest.mark.parametrize("value, dtype", [(300, ms.int8), (-1, ms.uint8), (2 ** 31, ms.int32)])
def test_an_int_outside_the_dtype_asked_for_is_refused_not_wrapped(value, dtype):
    # MindSpore 2.10 wraps silently: Tensor(300, int8) is 44 and Tensor(-1, uint8) is 255 (oracle)
    with pytest.raises(OverflowError, match=f"does not fit {dtype}"):
        Tensor(value, dtype)


def test_a_huge_int_with_a_float_dtype_is_rounded_as_a_float_literal():
    # MindSpore 2.10 refuses Tensor(10**30, float32) ("unsupported data type"); the float is exact math
    assert Tensor(10 ** 30, ms.float32).item() == float(np.float32(1e30))
    assert Tensor(10 ** 30, ms.float64).item() == 1e30
    with pytest.raises(OverflowError, match="beyond every float dtype"):
        Tensor(10 ** 400, ms.float64)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_the_mean_of_nothing_is_nan_without_a_warning(mode):
    """Mathematics (and NumPy) say NaN; MindSpore 2.10 returns uninitialised memory (±inf, varying
    between runs), so it gives no reference here."""
    ms.set_context(mode=mode)
    try:
        empty = Tensor(np.ones((0,), np.float32))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert np.isnan(ms.jit(ops.mean)(empty).item())
            assert np.isnan(empty.mean().item())
            assert np.isnan(ops.mean(Tensor(np.ones((0, 3), np.float32)), 0).asnumpy()).all()
            assert np.isnan(ops.var(empty).item()) and np.isnan(ops.std(empty).item())
            assert ops.sum(empty).item() == 0.0
            assert ms.grad(ops.mean)(empty).shape == (0,)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
