"""Solutions of chapter 02's exercises (Cell and Parameter)."""
import minims.nn as nn
import minims.ops as ops
from minims import Parameter


class Affine(nn.Cell):
    """2.1: tanh(x w + b), with w and b Parameters named 'w' and 'b'."""

    def __init__(self, w, b):
        super().__init__()
        self.w = Parameter(w, name="w")
        self.b = Parameter(b, name="b")

    def construct(self, x):
        return ops.tanh(ops.matmul(x, self.w) + self.b)


def sgd_step(net, x, lr):
    """2.2: one step of gradient descent on sum(net(x) ** 2), Parameters updated in place."""
    params = net.trainable_params()
    grads = ops.grad(lambda x: ops.sum(net(x) ** 2), None, params)(x)
    for p, g in zip(params, grads):
        p.set_data(p - lr * g)


SOLUTIONS = {"2.1": Affine, "2.2": sgd_step}
