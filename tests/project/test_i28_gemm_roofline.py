"""Issue 28, item 4: the GEMM roofline benchmark times the very products a compiled W3 step and W5
call run.  No timing is asserted.

Expected values by closed form: an MLP 784-512-512-10 on a batch of 256 runs three products forward,
two backward for the inputs of fc3 and fc2 (fc1's input, the data, needs no gradient) and three for
the weights; a product of an (m, k) and a (k, n) matrix is 2 m k n floating-point operations.
W5's gradient from a ones cotangent needs ``ones @ yᵀ`` and ``xᵀ @ ones`` (the forward product is
dead code).  Bits: the benchmark's NumPy call against ``MatMul.impl`` on the same operands.
"""
import pathlib
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import minims as ms                                                     # noqa: E402
from benchmarks import gemm_roofline as roofline                        # noqa: E402

B, D0, D1, D2, D3 = 256, 784, 512, 512, 10


def _products(step):
    """``(shape of the left factor as multiplied, of the right one)`` of each product, sorted."""
    out = []
    for a, b, ta, tb in roofline.gemm_operands(step):
        out.append((a.shape[::-1] if ta else a.shape, b.shape[::-1] if tb else b.shape))
    return sorted(out)


@pytest.mark.slow
def test_w3_roofline_times_the_eight_products_of_the_step(graph_mode):
    """Item 4 (a): the products of one W3 step, their FLOP count, and the very NumPy call MatMul
    makes — transposed operands passed as views of the step's arrays, not copies."""
    step = roofline.w3_step(None)
    forward = [((B, D0), (D0, D1)), ((B, D1), (D1, D2)), ((B, D2), (D2, D3))]
    inputs = [((B, D3), (D3, D2)), ((B, D2), (D2, D1))]
    weights = [((D1, B), (B, D0)), ((D2, B), (B, D1)), ((D3, B), (B, D2))]
    assert _products(step) == sorted(forward + inputs + weights)
    operands = roofline.gemm_operands(step)
    flop = 2 * B * (3 * (D0 * D1 + D1 * D2 + D2 * D3) - D0 * D1)
    assert sum(roofline.flops(*o) for o in operands) == flop == 821_559_296
    for (a, b, ta, tb), (_, eq) in zip(operands, step.gemms):
        assert np.array_equal(roofline.matmul_call(a, b, ta, tb)(), eq.prim.impl(a, b))
    a, b, ta, tb = next(o for o in operands if o[3])          # x @ Wᵀ: W read through a view
    assert roofline.matmul_call(a, b, ta, tb)().shape == (a.shape[0], b.shape[0])
    assert np.shares_memory(b.swapaxes(-1, -2), b)


def test_w5_roofline_times_the_two_backward_products(graph_mode):
    """Item 4 (a): W5's compiled gradient is two 256x256x256 products (2 x 2 x 256^3 FLOP)."""
    step = roofline.w5_step(None)
    assert _products(step) == [((256, 256), (256, 256))] * 2
    assert sum(roofline.flops(*o) for o in roofline.gemm_operands(step)) == 2 * 2 * 256 ** 3
