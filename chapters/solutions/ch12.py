"""Solutions of chapter 12's exercises (gradient tools)."""
import minims.ops as ops


def clip_hook(grad):
    """12.1: the gradient arriving at the Tensor, clipped to [-1, 1]."""
    return ops.clamp(grad, -1.0, 1.0)


def softplus_bprop(x, out, dout):
    """12.2: d/dx log(1 + e^x) = sigmoid(x), times dout, as a tuple."""
    return (dout * ops.sigmoid(x),)


SOLUTIONS = {"12.1": clip_hook, "12.2": softplus_bprop}
