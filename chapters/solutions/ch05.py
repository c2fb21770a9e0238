"""Solutions of chapter 05's exercises (debugging in PyNative mode)."""
import minims.nn as nn
import minims.ops as ops


class Net(nn.Cell):
    """5.1: the page's z = x * y * y, with a bprop that is the true gradient."""

    def construct(self, x, y):
        z = x * y
        z = z * y
        return z

    def bprop(self, x, y, out, dout):
        return dout * y * y, dout * 2 * x * y


def ce_grad(logits, labels):
    """5.2: d/dz of the mean softmax cross-entropy: (softmax(z) - one_hot(label)) / N."""
    n, classes = logits.shape
    return (ops.softmax(logits) - ops.one_hot(labels, classes, 1.0, 0.0)) / n


SOLUTIONS = {"5.1": Net, "5.2": ce_grad}
