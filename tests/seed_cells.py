"""The documentation pages' example Cells, as the pages write them (only the import changed).

Shared by the tests that check them: the custom-bprop tests, Graph mode, the mode-equivalence
harness and the layer tests.  Seed 000: MatMulBpropNet, GradNet, ReluNet, Relu6Net, relusigmoid,
IFNode; seed 002: Threshold, NetWithParam; seed 003: TensorAddNet, XYYNet.
"""
import numpy as np

import minims as ms
import minims.nn as nn
import minims.ops as ops
from minims import Parameter, Tensor


class MatMulBpropNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.matmul = ops.MatMul()

    def construct(self, x, y):
        out = self.matmul(x, y)
        return out

    def bprop(self, x, y, out, dout):
        dx = x + 1
        dy = y + 1
        return dx, dy


class GradNet(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.grad_op = ops.GradOperation(get_all=True)

    def construct(self, x, y):
        gradient_function = self.grad_op(self.net)
        return gradient_function(x, y)


class ReluNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu = ops.ReLU()

    def construct(self, x):
        return self.relu(x)


class Relu6Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.relu6 = ops.ReLU6()
        self.relu = ReluNet()

    def construct(self, x):
        return self.relu6(x)

    def bprop(self, x, out, dout):
        dx = self.relu(x)
        return (dx, )


class relusigmoid(nn.Cell):  # noqa: N801 - the page's name
    def __init__(self):
        super().__init__()
        self.sigmoid = ops.Sigmoid()
        self.greater = ops.Greater()

    def construct(self, x):
        spike = self.greater(x, 0)
        return spike.astype(ms.float32)

    def bprop(self, x, out, dout):
        sgax = self.sigmoid(x * 5.0)
        grad_x = dout * (1 - sgax) * sgax * 5.0
        return (grad_x,)


class IFNode(nn.Cell):
    def __init__(self, v_threshold=1.0, fire=True, surrogate_function=relusigmoid()):
        super().__init__()
        self.v_threshold = v_threshold
        self.fire = fire
        self.surrogate_function = surrogate_function

    def construct(self, x, v):
        v = v + x
        if self.fire:
            spike = self.surrogate_function(v - self.v_threshold) * self.v_threshold
            v -= spike
            return spike, v
        return v, v


class Threshold(nn.Cell):
    def __init__(self, threshold, value):
        super().__init__()
        self.threshold = threshold
        self.value = value

    def construct(self, inputs):
        cond = ops.gt(inputs, self.threshold)
        value = ops.fill(inputs.dtype, inputs.shape, self.value)
        return ops.select(cond, inputs, value)


class NetWithParam(nn.Cell):
    def __init__(self):
        super(NetWithParam, self).__init__()
        self.w = Parameter(Tensor(np.array([2.0], dtype=np.float32)), name='weight')
        self.internal_params = [self.w]

    def construct(self, x):
        output = self.w * x
        return output

    def bprop(self, *args):
        return (self.w * args[-1],), {self.w: args[0] * args[-1]}


class TensorAddNet(nn.Cell):
    def __init__(self):
        super(TensorAddNet, self).__init__()
        self.add = ops.Add()

    @ms.ms_function
    def construct(self, x, y):
        res = self.add(x, y)
        return res


class XYYNet(nn.Cell):
    def __init__(self):
        super(XYYNet, self).__init__()

    def construct(self, x, y):
        z = x * y
        z = z * y
        return z

    def bprop(self, x, y, out, dout):
        x_dout = x + y
        y_dout = x * y
        return x_dout, y_dout
