"""Solutions of chapter 09's exercises (forward mode, Jacobians, vmap)."""
import numpy as np

import minims.ops as ops
from minims.core.stack import bind
from minims.testing.exercises.chapter09 import example_loss


class Softplus(ops.Primitive):
    """9.1: log(1 + e^x) with a forward-mode rule (tangent times sigmoid(x)), written in ops."""

    def impl(self, x):
        return np.log1p(np.exp(x))

    def jvp(self, primals, tangents):
        (x,), (t,) = primals, tangents
        return bind(self, x), ops.mul(t, ops.sigmoid(x))


def hvp(f, x, v):
    """9.2: H v = the derivative of grad(f) along v (forward over reverse)."""
    return ops.jvp(ops.grad(f), (x,), (v,))[1]


def per_example_grads(w, xs, ys):
    """9.3: the gradient for w of each example's loss, w shared by all examples."""
    return ops.vmap(ops.grad(example_loss), in_axes=(None, 0, 0))(w, xs, ys)


SOLUTIONS = {"9.1": Softplus, "9.2": hvp, "9.3": per_example_grads}
