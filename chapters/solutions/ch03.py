"""Solutions of chapter 03's exercises (custom layers)."""
import minims.nn as nn
import minims.ops as ops
from minims import Parameter


class LeakyReLU(nn.Cell):
    """3.1: x where x > 0, alpha * x elsewhere, built from ops (autodiff derives the gradient)."""

    def __init__(self, alpha):
        super().__init__()
        self.alpha = alpha

    def construct(self, x):
        return ops.select(x > 0, x, self.alpha * x)


class Scale(nn.Cell):
    """3.2: y = w * x with a custom bprop that also returns the gradient of its Parameter w."""

    def __init__(self, w):
        super().__init__()
        self.w = Parameter(w, name="w")
        self.internal_params = [self.w]

    def construct(self, x):
        return self.w * x

    def bprop(self, x, out, dout):
        dw = ops.sum(x * dout, keepdim=True)        # w (shape [1]) was broadcast over x: sum back
        return (self.w * dout,), {self.w: dw}


SOLUTIONS = {"3.1": LeakyReLU, "3.2": Scale}
