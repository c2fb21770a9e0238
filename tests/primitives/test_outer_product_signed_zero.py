"""A stack of outer products gives +0.0 where a matrix product does (issue 25, tutorial pages).

func_per_sample_gradients blocks 4-6: ``vmap(grad(td_loss))`` of a ``tensor_dot`` loss. Expected
values: MindSpore 2.10 prints ``[[-4. -8.  0.] [-4. -8.  0.]]`` (oracle, the page); IEEE 754: a sum
that starts from +0.0 turns a product -0.0 (-4 * 0) into +0.0, as every matrix product does.
"""
import numpy as np

from minims import Tensor, grad, ops, vmap


def test_per_sample_gradient_of_a_dot_has_no_negative_zero():
    """Issue 25, func_per_sample_gradients:4; oracle ``[[-4. -8.  0.], [-4. -8.  0.]]``."""
    theta = Tensor([0.2, -0.2, 0.1])
    state = Tensor([1.0, 2.0, 0.0])

    def loss(th, s):
        return (Tensor(1.8) - ops.tensor_dot(th, s, axes=1)) ** 2

    got = vmap(grad(loss))(ops.stack([theta, theta]), ops.stack([state, state])).asnumpy()
    assert str(got) == "[[-4. -8.  0.]\n [-4. -8.  0.]]"
    assert not np.signbit(got[:, 2]).any()


def test_batched_outer_product_matches_numpy_matmul_bit_for_bit():
    """``np.matmul`` of [B, m, 1] and [B, 1, n] (the sum of one product, from +0.0) is the reference."""
    x = Tensor(np.array([[[-4.0], [3.0]]], np.float32))
    y = Tensor(np.array([[[0.0, 2.0, -0.0]]], np.float32))
    got = ops.matmul(x, y).asnumpy()
    want = np.matmul(x.asnumpy(), y.asnumpy())
    assert got.tobytes() == want.tobytes()
