"""Solutions of chapter 04's exercises (custom bprop)."""
import minims.nn as nn
import minims.ops as ops


class Spike(nn.Cell):
    """4.1: a step forward; backward, the derivative of the fast sigmoid x / (1 + 10|x|)."""

    def construct(self, x):
        return ops.gt(x, 0).astype(x.dtype)

    def bprop(self, x, out, dout):
        return (dout / ops.square(1 + 10 * ops.abs(x)),)


class Hypot(nn.Cell):
    """4.2: sqrt(x^2 + y^2); the bprop reuses the forward output."""

    def construct(self, x, y):
        return ops.sqrt(x * x + y * y)

    def bprop(self, x, y, out, dout):
        return dout * x / out, dout * y / out


SOLUTIONS = {"4.1": Spike, "4.2": Hypot}
