"""Float32 ``sin`` and ``cos`` are the float32 nearest the true value (issue 25, func_vmap blocks 7 and 8).

Expected values: MindSpore 2.10 (CPU, the oracle) prints ``cos([5, 8, 11, 14])`` in float32 as
0.28366219997406006, -0.1455000340938568, 0.004425697959959507, 0.13673721253871918 (the float64 cos
rounded to float32); NumPy's own float32 cos(5) is 0.28366217 (1 ULP off).
"""
import numpy as np

from minims import Tensor, grad, ops, vmap


def test_float32_cos_is_rounded_once_from_float64():
    """Oracle values of ``ops.cos`` on float32 [5, 8, 11, 14]."""
    x = Tensor(np.array([5.0, 8.0, 11.0, 14.0], np.float32))
    assert ops.cos(x).asnumpy().tolist() == [0.28366219997406006, -0.1455000340938568, 0.004425697959959507,
                                             0.13673721253871918]


def test_float32_sin_cos_match_float64_rounded_on_many_points():
    """The reference is NumPy's float64 sin/cos rounded to float32 (one rounding)."""
    x = np.linspace(-50, 50, 4001, dtype=np.float32)
    for op, ref in ((ops.sin, np.sin), (ops.cos, np.cos)):
        assert op(Tensor(x)).asnumpy().tobytes() == ref(x.astype(np.float64)).astype(np.float32).tobytes()


def test_the_pages_grad_of_vmap_of_sin():
    """func_vmap:7: grad(vmap(forward_fn), (0, 1)); oracle's first row of dx: 2.83662200e-01,
    -1.45500034e-01, 4.42569796e-03 (cos of x + 2y)."""
    def forward_fn(x, y):
        return ops.ReduceSum()(ops.sin(x + 2 * y))

    x = Tensor([[1.0, 2.0, 3.0], [2.0, 3.0, 4.0]])
    y = Tensor([[2.0, 3.0, 4.0], [3.0, 4.0, 5.0]])
    dx, _ = grad(vmap(forward_fn), grad_position=(0, 1))(x, y)
    assert repr(dx).splitlines()[1] == "[[ 2.83662200e-01, -1.45500034e-01,  4.42569796e-03],"
