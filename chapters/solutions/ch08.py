"""Solutions of chapter 08's exercises (common mistakes)."""
import minims.nn as nn
import minims.ops as ops
from minims import Parameter


class ScaleW(nn.Cell):
    """8.1: x * w with a bprop that may use w, because w is declared in internal_params."""

    def __init__(self, w):
        super().__init__()
        self.w = Parameter(w, name="w")
        self.internal_params = [self.w]

    def construct(self, x):
        return x * self.w

    def bprop(self, x, out, dout):
        return (dout * self.w,), {self.w: dout * x}


def predict(x, w):
    """8.2: one dtype per product: the float64 weight cast to the input's float32."""
    return ops.matmul(x, w.astype(x.dtype))


SOLUTIONS = {"8.1": ScaleW, "8.2": predict}
