"""Right answers to the chapters' exercises, written otherwise than the model solutions.

``RIGHT`` lists ``(exercise id, how it differs from the solution, answer)``: another order of
statements, another op for the same function, another API for the same step (``TrainOneStepCell``
with ``SGD`` instead of ``ops.grad`` by hand), another composition of transforms.  The checker must
accept every one of them (issue 22, item 20: a right answer rejected is as wrong as a wrong one
accepted).
"""
import math

import mpmath
import numpy as np

import minims
import minims.dtype as mstype
import minims.nn as nn
import minims.ops as ops
from minims import Parameter, Tensor
from minims.control_flow import cond, scan
from minims.core.stack import bind
from minims.primitives.operands import sum_to
from minims.testing.exercises.chapter09 import example_loss

from chapters.solutions import ch01, ch03, ch04, ch05, ch08, ch09, ch11


# ----- chapter 01 -----------------------------------------------------------------------------------
class SoftplusExpRatio(ch01.Softplus):
    def bprop(self, x, out, dout):          # e^x / (1 + e^x): the same function as sigmoid
        return (dout * ops.exp(x) / (1 + ops.exp(x)),)


class SoftplusFromOut(ch01.Softplus):
    def bprop(self, x, out, dout):          # 1 - e^(-out) = 1 - 1/(1 + e^x) = sigmoid(x)
        return (dout * (1 - ops.exp(-out)),)


class SoftplusTensorMethods(ch01.Softplus):
    def bprop(self, x, out, dout):
        return (dout / (1 + (-x).exp()),)


class ScaleExpSumAxis0(ch01.ScaleExp):
    def bprop(self, x, y, out, dout):       # y was broadcast over the rows: sum them
        return dout * ops.exp(y), ops.reduce_sum(dout * out, 0)


class ScaleExpSumToFirst(ch01.ScaleExp):
    def bprop(self, x, y, out, dout):
        ey = ops.exp(y)
        return sum_to(dout * ey, x), sum_to(dout * x * ey, y)


def var_exp_math_e(self):
    value = math.e ** self.value
    return type(self)(value, ((self, value),))


def var_exp_numpy(self):
    value = float(np.exp(self.value))
    return type(self)(value, [(self, value)])


# ----- chapter 02 -----------------------------------------------------------------------------------
class AffineBiasFirst(nn.Cell):
    def __init__(self, w, b):
        super().__init__()
        self.b = Parameter(b, name="b")       # b assigned before w: trainable_params() lists b first
        self.w = Parameter(w, name="w")

    def construct(self, x):
        return ops.tanh(ops.matmul(x, self.w) + self.b)


class AffineUnnamed(nn.Cell):
    def __init__(self, w, b):
        super().__init__()
        self.w = Parameter(w)                 # a Parameter without a name takes its attribute's
        self.b = Parameter(b)

    def construct(self, x):
        return ops.tanh(x @ self.w + self.b)


class AffineTanhCell(nn.Cell):
    def __init__(self, w, b):
        super().__init__()
        self.act = nn.Tanh()
        self.w = Parameter(Tensor(w), "w")
        self.b = Parameter(Tensor(b), "b")

    def construct(self, x):
        return self.act(ops.add(ops.matmul(x, self.w), self.b))


class _SquaredOutput(nn.Cell):
    """sum(net(x) ** 2), the loss of exercise 2.2, as a Cell."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x):
        return ops.sum(self.net(x) ** 2)


def sgd_train_one_step(net, x, lr):
    """TrainOneStepCell + SGD: the wrapper renames the Parameters ('net.weight')."""
    nn.TrainOneStepCell(_SquaredOutput(net), nn.SGD(net.trainable_params(), learning_rate=lr))(x)


def sgd_optimizer(net, x, lr):
    params = net.trainable_params()
    grads = ops.grad(lambda x: ops.sum(net(x) ** 2), None, params)(x)
    nn.SGD(params, learning_rate=lr)(grads)


def sgd_assign(net, x, lr):
    loss = lambda x: (net(x) ** 2).sum()    # noqa: E731
    _, grads = ops.value_and_grad(loss, None, net.trainable_params())(x)
    for p, g in zip(net.trainable_params(), grads):
        ops.assign(p, p - g * lr)


# ----- chapter 03 -----------------------------------------------------------------------------------
class LeakyReLUMaximum(ch03.LeakyReLU):
    def construct(self, x):                 # max(x, alpha x): the same for 0 < alpha < 1
        return ops.maximum(x, self.alpha * x)


class LeakyReLUWhere(nn.Cell):
    def __init__(self, alpha=0.01):
        super().__init__()
        self.negative_slope = alpha

    def construct(self, x):
        return ops.where(x > 0, x, x * self.negative_slope)


class LeakyReLURelu(ch03.LeakyReLU):
    def construct(self, x):
        return ops.relu(x) - self.alpha * ops.relu(-x)


class ScaleReduceSum(ch03.Scale):
    def bprop(self, x, out, dout):
        return (dout * self.w,), {self.w: ops.reduce_sum(dout * x, 0, keep_dims=True)}


class ScaleSumTo(ch03.Scale):
    def bprop(self, x, out, dout):
        return (self.w * dout,), {self.w: sum_to(x * dout, self.w)}


class ScaleReshape(ch03.Scale):
    def bprop(self, x, out, dout):
        return (self.w * dout,), {self.w: (x * dout).sum().reshape((1,))}


# ----- chapter 04 -----------------------------------------------------------------------------------
class SpikePow(ch04.Spike):
    def bprop(self, x, out, dout):
        return (dout * ops.pow(1 + 10 * ops.abs(x), -2),)


class SpikeRatio(ch04.Spike):
    def bprop(self, x, out, dout):
        d = 1 + 10 * x.abs()
        return (dout / (d * d),)


class HypotNoOut(ch04.Hypot):
    def bprop(self, x, y, out, dout):
        r = ops.sqrt(x * x + y * y)
        return dout * x / r, dout * y / r


class HypotScaled(ch04.Hypot):
    def bprop(self, x, y, out, dout):
        scale = dout / out
        return x * scale, y * scale


# ----- chapter 05 -----------------------------------------------------------------------------------
class NetSquare(ch05.Net):
    def bprop(self, x, y, out, dout):
        return dout * ops.square(y), 2 * x * y * dout


class NetFactors(ch05.Net):
    def bprop(self, x, y, out, dout):
        return y * y * dout, 2 * y * x * dout


def ce_grad_exp(logits, labels):
    n, classes = logits.shape
    e = ops.exp(logits - logits.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    return (p - ops.one_hot(labels, classes, 1.0, 0.0)) / n


def ce_grad_shape0(logits, labels):
    onehot = ops.one_hot(labels, logits.shape[1], Tensor(1.0), Tensor(0.0))
    return ops.softmax(logits, axis=-1) / logits.shape[0] - onehot / logits.shape[0]


# ----- chapter 06 -----------------------------------------------------------------------------------
def clip_select(grad):
    g = grad[0]
    return (ops.select(g > 1, ops.ones_like(g), ops.select(g < -1, -ops.ones_like(g), g)),)


def clip_tuple(grad):
    return tuple(ops.maximum(ops.minimum(g, 1.0), -1.0) for g in grad)


def halve_divide(cell_id, grad_input, grad_output):
    return (grad_output[0] / 2,)


# ----- chapter 07 -----------------------------------------------------------------------------------
def soft_threshold_clip(x):
    return x - ops.minimum(ops.maximum(x, -1.0), 1.0)


def soft_threshold_sign(x):
    return ops.sign(x) * ops.relu(ops.abs(x) - 1)


def newton_ten_steps(a):
    x = a
    for _ in range(10):
        x = 0.5 * (x + a / x)
    return x


def newton_from_one(a):
    x = ops.ones_like(a)
    for _ in range(12):
        x = (x + a / x) / 2
    return x


def newton_sqrt_op(a):                      # not Newton, but jit compiles it and it is sqrt(a)
    return ops.sqrt(a)


# ----- chapter 08 -----------------------------------------------------------------------------------
class ScaleWSumTo(ch08.ScaleW):
    def bprop(self, x, out, dout):
        return (self.w * dout,), {self.w: x * dout}


def predict_cast(x, w):
    return ops.matmul(x, ops.cast(w, mstype.float32))


def predict_astype_float32(x, w):
    return ops.matmul(x, w.astype(mstype.float32))


# ----- chapter 09 -----------------------------------------------------------------------------------
class SoftplusJvpExp(ch09.Softplus):
    def jvp(self, primals, tangents):
        x, t = primals[0], tangents[0]
        return bind(self, x), t * ops.exp(x) / (1 + ops.exp(x))


def hvp_reverse_over_reverse(f, x, v):
    return ops.grad(lambda x: ops.sum(ops.grad(f)(x) * v))(x)


def hvp_reverse_over_forward(f, x, v):
    return ops.grad(lambda x: ops.jvp(f, (x,), (v,))[1])(x)


def hvp_jit(f, x, v):
    return minims.jit(lambda x, v: ops.jvp(ops.grad(f), (x,), (v,))[1])(x, v)


def hvp_hessian_matrix(f, x, v):            # builds the Hessian: right, and the feedback says so
    return ops.matmul(ops.jacfwd(ops.grad(f))(x), v)


def per_example_closure(w, xs, ys):
    return ops.vmap(lambda x, y: ops.grad(example_loss)(w, x, y))(xs, ys)


def per_example_loop(w, xs, ys):
    g = ops.grad(example_loss)
    return ops.stack([g(w, xs[i], ys[i]) for i in range(xs.shape[0])])


# ----- chapter 10 -----------------------------------------------------------------------------------
def tanh_derivative_sech(x):
    e = ops.exp(-2 * ops.abs(x))
    return ops.square(2 * ops.sqrt(e) / (1 + e))


def ulp_error_mpmath_frexp(c, t):
    _, e = mpmath.frexp(t)                  # exact, from the 50 digits of t
    return float(abs(mpmath.mpf(c) - t) / mpmath.ldexp(1, int(e) - 53))


def ulp_error_spacing(c, t):                # ulp(float(t)): that of t, away from a power of 2
    return float(abs(mpmath.mpf(c) - t) / mpmath.mpf(float(np.spacing(abs(float(t))))))


# ----- chapter 12 -------------------------------------------------------------------------------------
def tensor_clip_min_max(grad):
    return ops.minimum(ops.maximum(grad, -1.0), 1.0)


def softplus_bprop_from_out(x, out, dout):  # sigmoid(x) = 1 - e^(-out), from the forward result
    return (dout * (1 - ops.exp(-out)),)


# ----- chapter 11 -------------------------------------------------------------------------------------
class SinOrCubeLocalDerivative(ch11.SinOrCube):
    def bprop(self, x, out, dout):          # the local derivative picked by cond, then times dout
        return (dout * cond(x.sum() > 0, ops.cos, lambda a: 3 * a * a, x),)


class SinOrCubeSelect(ch11.SinOrCube):
    def bprop(self, x, out, dout):          # both rules computed, one picked: right, without a Cond
        return (ops.select(ops.broadcast_to(x.sum() > 0, x.shape), dout * ops.cos(x), 3 * x * x * dout),)


def fori_loop_ops_scan(lower, upper, loop_func, init_val):
    val, _ = ops.Scan()(lambda v, i: (loop_func(i, v), None), init_val,
                        [Tensor(np.array(i)) for i in range(lower, upper)], unroll=False)
    return val


def rnn_concatenated(h0, xs, W, U):        # [h, x] times [W; U]: one matmul per step
    WU = ops.concat([W, U])

    def step(h, x):
        h = ops.tanh(ops.matmul(ops.concat([h, x]), WU))
        return h, h
    return scan(step, h0, xs)[1]


RIGHT = [
    ("1.1", "e^x / (1 + e^x)", SoftplusExpRatio),
    ("1.1", "1 - e^(-out), from the forward result", SoftplusFromOut),
    ("1.1", "Tensor methods", SoftplusTensorMethods),
    ("1.2", "a sum over axis 0 instead of sum_to", ScaleExpSumAxis0),
    ("1.2", "e^y named once", ScaleExpSumToFirst),
    ("1.3", "math.e ** x", var_exp_math_e),
    ("1.3", "np.exp and a list of parents", var_exp_numpy),
    ("2.1", "b assigned before w", AffineBiasFirst),
    ("2.1", "Parameters named by their attributes", AffineUnnamed),
    ("2.1", "an nn.Tanh sub-Cell and ops.add", AffineTanhCell),
    ("2.2", "TrainOneStepCell with SGD", sgd_train_one_step),
    ("2.2", "ops.grad, then an SGD optimizer", sgd_optimizer),
    ("2.2", "value_and_grad and ops.assign", sgd_assign),
    ("3.1", "maximum(x, alpha x)", LeakyReLUMaximum),
    ("3.1", "ops.where, alpha kept under another name", LeakyReLUWhere),
    ("3.1", "relu(x) - alpha relu(-x)", LeakyReLURelu),
    ("3.2", "reduce_sum with keep_dims", ScaleReduceSum),
    ("3.2", "sum_to", ScaleSumTo),
    ("3.2", "a sum reshaped to [1]", ScaleReshape),
    ("4.1", "ops.pow(..., -2)", SpikePow),
    ("4.1", "d * d", SpikeRatio),
    ("4.2", "the radius recomputed", HypotNoOut),
    ("4.2", "dout / out once", HypotScaled),
    ("5.1", "ops.square", NetSquare),
    ("5.1", "another order of factors", NetFactors),
    ("5.2", "softmax written with exp", ce_grad_exp),
    ("5.2", "N from logits.shape, Tensor on/off values", ce_grad_shape0),
    ("6.1", "two selects", clip_select),
    ("6.1", "minimum first, every gradient of the tuple", clip_tuple),
    ("6.2", "a division by 2", halve_divide),
    ("7.1", "x - clip(x, -1, 1)", soft_threshold_clip),
    ("7.1", "sign(x) relu(|x| - 1)", soft_threshold_sign),
    ("7.2", "10 steps", newton_ten_steps),
    ("7.2", "12 steps from 1", newton_from_one),
    ("7.2", "ops.sqrt itself", newton_sqrt_op),
    ("8.1", "another order of factors", ScaleWSumTo),
    ("8.2", "ops.cast", predict_cast),
    ("8.2", "astype(float32)", predict_astype_float32),
    ("9.1", "e^x / (1 + e^x)", SoftplusJvpExp),
    ("9.2", "reverse over reverse", hvp_reverse_over_reverse),
    ("9.2", "reverse over forward", hvp_reverse_over_forward),
    ("9.2", "forward over reverse, compiled by jit", hvp_jit),
    ("9.2", "the Hessian, then times v", hvp_hessian_matrix),
    ("9.3", "vmap of a closure over w", per_example_closure),
    ("9.3", "a Python loop over the batch", per_example_loop),
    ("10.1", "the square of sech, from exp(-2|x|)", tanh_derivative_sech),
    ("10.2", "mpmath.frexp of the true value", ulp_error_mpmath_frexp),
    ("10.2", "np.spacing of float(t)", ulp_error_spacing),
    ("11.1", "the local derivative picked, times dout", SinOrCubeLocalDerivative),
    ("11.1", "both rules, then select", SinOrCubeSelect),
    ("11.2", "ops.Scan with unroll=False", fori_loop_ops_scan),
    ("11.3", "[h, x] times [W; U]", rnn_concatenated),
    ("12.1", "maximum, then minimum", tensor_clip_min_max),
    ("12.2", "1 - e^(-out), from the forward result", softplus_bprop_from_out),
]
