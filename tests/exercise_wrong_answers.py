"""Typical wrong answers to the chapters' exercises, each with the diagnosis it must get.

``WRONG`` lists ``(exercise id, what the slip is, answer, expected diagnosis kind)``; the answers are
the solutions of ``chapters/solutions/`` with one slip each (a sign, a missing ``sum_to``, gradients in
the wrong order, NumPy inside a rule, a Python ``if`` in Graph mode, a constant written in where an
argument should be used, a rule right only near 0 ...).  The kinds are those of
``minims.testing.exercises.feedback``.
"""
import math

import mpmath
import numpy as np

import minims.nn as nn
import minims.ops as ops
from minims import Parameter, Tensor
from minims.control_flow import cond, scan
from minims.core.stack import bind
from minims.primitives.operands import sum_to
from minims.testing.exercises.chapter09 import example_loss

from chapters.solutions import ch01, ch02, ch03, ch04, ch05, ch08, ch09, ch10, ch11, ch12


# ----- chapter 01 -----------------------------------------------------------------------------------
class SoftplusSign(ch01.Softplus):
    def bprop(self, x, out, dout):
        return (ops.mul(dout, -ops.sigmoid(x)),)


class SoftplusNoDout(ch01.Softplus):
    def bprop(self, x, out, dout):
        return (ops.sigmoid(x),)


class SoftplusNumpy(ch01.Softplus):
    def bprop(self, x, out, dout):          # right values, but a constant to an outer grad
        return (ops.mul(dout, Tensor(1 / (1 + np.exp(-x.asnumpy())))),)


class SoftplusBare(ch01.Softplus):
    def bprop(self, x, out, dout):
        return ops.mul(dout, ops.sigmoid(x))


class SoftplusSaturatesEarly(ch01.Softplus):
    def bprop(self, x, out, dout):          # "sigmoid is 1 for large x": right only up to x = 3
        return (dout * ops.select(x > 3, ops.ones_like(x), ops.sigmoid(x)),)


class ScaleExpNoSumTo(ch01.ScaleExp):
    def bprop(self, x, y, out, dout):
        return sum_to(ops.mul(dout, ops.exp(y)), x), ops.mul(dout, out)


class ScaleExpSwapped(ch01.ScaleExp):
    def bprop(self, x, y, out, dout):
        return sum_to(ops.mul(dout, out), y), sum_to(ops.mul(dout, ops.exp(y)), x)


class ScaleExpTwice(ch01.ScaleExp):
    def bprop(self, x, y, out, dout):
        return sum_to(ops.mul(dout, ops.exp(y)), x) * 2, sum_to(ops.mul(dout, out), y)


def var_exp_local_is_x(self):
    import math
    return type(self)(math.exp(self.value), ((self, self.value),))


def var_exp_float(self):
    return math.exp(self.value)               # a number: a constant to the engine


# ----- chapter 02 -----------------------------------------------------------------------------------
class AffineNoTanh(ch02.Affine):
    def construct(self, x):
        return ops.matmul(x, self.w) + self.b


class AffineTensors(nn.Cell):
    def __init__(self, w, b):
        super().__init__()
        self.w, self.b = w, b                 # Tensors, not Parameters: nothing to train

    def construct(self, x):
        return ops.tanh(ops.matmul(x, self.w) + self.b)


def _sgd(update):
    def sgd_step(net, x, lr):
        params = net.trainable_params()
        grads = ops.grad(lambda x: ops.sum(net(x) ** 2), None, params)(x)
        for p, g in zip(params, grads):
            update(p, g, lr)
    return sgd_step


def _rebind(p, g, lr):
    p = p - lr * g                            # rebinds the name; the Parameter is unchanged  # noqa: F841


def _lr_written_in(p, g, lr):
    p.set_data(p - 0.1 * g)                   # the learning rate of the chapter's example, not lr


# ----- chapter 03 -----------------------------------------------------------------------------------
class LeakyReLUIf(ch03.LeakyReLU):
    def construct(self, x):
        if x > 0:
            return x
        return self.alpha * x


class LeakyReLUWrongSide(ch03.LeakyReLU):
    def construct(self, x):
        return ops.select(x > 0, self.alpha * x, x)


class LeakyReLUAlphaWrittenIn(nn.Cell):
    def __init__(self, alpha):
        super().__init__()                    # alpha not kept: 0.1 written into construct

    def construct(self, x):
        return ops.select(x > 0, x, 0.1 * x)


class ScaleNoSum(ch03.Scale):
    def bprop(self, x, out, dout):
        return (self.w * dout,), {self.w: x * dout}


class ScaleNoDout(ch03.Scale):
    def bprop(self, x, out, dout):
        return (self.w * ops.ones_like(dout),), {self.w: ops.sum(x, keepdim=True)}


class ScaleWeightNoDout(ch03.Scale):
    def bprop(self, x, out, dout):            # dx right; dw = sum(x), not sum(x * dout)
        return (self.w * dout,), {self.w: ops.sum(x, keepdim=True)}


# ----- chapter 04 -----------------------------------------------------------------------------------
class SpikeTrueDerivative(ch04.Spike):
    def bprop(self, x, out, dout):
        return (ops.zeros_like(x),)


class SpikeNoSquare(ch04.Spike):
    def bprop(self, x, out, dout):
        return (dout / (1 + 10 * ops.abs(x)),)


class SpikeNoDout(ch04.Spike):
    def bprop(self, x, out, dout):
        return (1 / ops.square(1 + 10 * ops.abs(x)),)


class HypotSwapped(ch04.Hypot):
    def bprop(self, x, y, out, dout):
        return dout * y / out, dout * x / out


class HypotNumpy(ch04.Hypot):
    def bprop(self, x, y, out, dout):
        r = Tensor(np.hypot(x.asnumpy(), y.asnumpy()))
        return dout * x / r, dout * y / r


# ----- chapter 05 -----------------------------------------------------------------------------------
class PageBprop(ch05.Net):
    def bprop(self, x, y, out, dout):         # the page's example: not the gradient
        return x + y, x * y


class NetSwapped(ch05.Net):
    def bprop(self, x, y, out, dout):
        return dout * 2 * x * y, dout * y * y


class NetHalfDy(ch05.Net):
    def bprop(self, x, y, out, dout):
        return dout * y * y, dout * x * y


def ce_grad_sum(logits, labels):
    n, classes = logits.shape
    return ops.softmax(logits) - ops.one_hot(labels, classes, 1.0, 0.0)


def ce_grad_sign(logits, labels):
    return -ch05.ce_grad(logits, labels)


def ce_grad_four_examples(logits, labels):
    classes = logits.shape[1]
    return (ops.softmax(logits) - ops.one_hot(labels, classes, 1.0, 0.0)) / 4     # N of the page's batch


# ----- chapter 06 -----------------------------------------------------------------------------------
def clip_unchanged(grad):
    return grad


def clip_above_only(grad):
    return (ops.minimum(grad[0], 1.0),)


def clip_to_unit(grad):
    return (ops.minimum(ops.maximum(grad[0], 0.0), 1.0),)


def halve_nothing(cell_id, grad_input, grad_output):
    return None


def halve_grad_input(cell_id, grad_input, grad_output):
    return tuple(g * 0.5 for g in grad_input)


# ----- chapter 07 -----------------------------------------------------------------------------------
def soft_threshold_if(x):
    if x > 1:
        return x - 1
    if x < -1:
        return x + 1
    return ops.zeros_like(x)


def soft_threshold_swapped(x):
    return ops.select(x > 1, x + 1, ops.select(x < -1, x - 1, ops.zeros_like(x)))


def newton_while(a):
    x = a
    while float(ops.abs(x * x - a).max()) > 1e-12:
        x = (x + a / x) / 2
    return x


def newton_three_steps(a):
    x = a
    for _ in range(3):
        x = (x + a / x) / 2
    return x


# ----- chapter 08 -----------------------------------------------------------------------------------
class ScaleWReadsWeight(ch08.ScaleW):
    def __init__(self, w):
        nn.Cell.__init__(self)
        self.w = Parameter(w, name="w")       # no internal_params

    def bprop(self, x, out, dout):
        return (dout * self.w,)


def predict_uncast(x, w):
    return ops.matmul(x, w)


def predict_float64(x, w):
    return ops.matmul(x.astype(w.dtype), w)


# ----- chapter 09 -----------------------------------------------------------------------------------
class SoftplusJvpNoTangent(ch09.Softplus):
    def jvp(self, primals, tangents):
        return bind(self, primals[0]), ops.sigmoid(primals[0])


class SoftplusJvpSign(ch09.Softplus):
    def jvp(self, primals, tangents):
        return bind(self, primals[0]), -ops.mul(tangents[0], ops.sigmoid(primals[0]))


class SoftplusJvpNumpy(ch09.Softplus):
    def jvp(self, primals, tangents):
        x = primals[0]
        return bind(self, x), ops.mul(tangents[0], Tensor(1 / (1 + np.exp(-x.asnumpy()))))


class SoftplusJvpSaturatesEarly(ch09.Softplus):
    def jvp(self, primals, tangents):         # "sigmoid is 1 for large x": right only up to x = 3
        x, t = primals[0], tangents[0]
        return bind(self, x), t * ops.select(x > 3, ops.ones_like(x), ops.sigmoid(x))


def hvp_gradient_times_v(f, x, v):
    return ops.grad(f)(x) * v


def per_example_summed(w, xs, ys):
    return ops.grad(lambda w: ops.sum(ops.vmap(example_loss, in_axes=(None, 0, 0))(w, xs, ys)))(w)


def per_example_four(w, xs, ys):
    g = ops.grad(example_loss)
    return ops.stack([g(w, xs[i], ys[i]) for i in range(4)])        # the batch size of one example


# ----- chapter 10 -----------------------------------------------------------------------------------
def tanh_derivative_textbook(x):
    return 1 - ops.tanh(x) ** 2             # cancels once tanh(x) rounds to 1


def tanh_derivative_half(x):
    u = ops.exp(-2 * ops.abs(x))
    return 2 * u / (1 + u) ** 2


def tanh_derivative_no_abs(x):
    u = ops.exp(-2 * x)                     # right in exact arithmetic; (1 + u)**2 overflows for x < -177
    return 4 * u / (1 + u) ** 2


def ulp_error_52_bits(c, t):                # 2**(e - 52) for |t| in [2**(e-1), 2**e): one bit short
    return float(abs(mpmath.mpf(c) - t) / mpmath.ldexp(1, math.frexp(float(t))[1] - 52))


def ulp_error_of_computed(c, t):            # the ULP of c, not of the true value
    return abs(c - float(t)) / np.spacing(abs(c))


# ----- chapter 12 -------------------------------------------------------------------------------------
def tensor_clip_unchanged(grad):
    return grad


def tensor_clip_to_unit(grad):
    return ops.clamp(grad, 0.0, 1.0)


def softplus_bprop_numpy(x, out, dout):     # right values, but a constant to an outer grad
    return (dout * Tensor(1 / (1 + np.exp(-x.asnumpy()))),)


def softplus_bprop_bare(x, out, dout):
    return dout * ops.sigmoid(x)


# ----- chapter 11 -------------------------------------------------------------------------------------
class SinOrCubeSwapped(ch11.SinOrCube):
    def bprop(self, x, out, dout):
        return (cond(x.sum() > 0, lambda a, d: 3 * a * a * d, lambda a, d: d * ops.cos(a), x, dout),)


class SinOrCubeNoDout(ch11.SinOrCube):
    def bprop(self, x, out, dout):
        return (cond(x.sum() > 0, lambda a, d: ops.cos(a), lambda a, d: 3 * a * a, x, dout),)


class SinOrCubeIf(ch11.SinOrCube):
    def bprop(self, x, out, dout):          # a Python if on a Tensor: refused by jit(fullgraph=True)
        if x.sum() > 0:
            return (dout * ops.cos(x),)
        return (3 * x * x * dout,)


class SinOrCubeBoth(ch11.SinOrCube):
    def bprop(self, x, out, dout):          # both branches' gradients added
        return (dout * ops.cos(x) + 3 * x * x * dout,)


def fori_loop_python(lower, upper, loop_func, init_val):
    val = init_val
    for i in range(lower, upper):           # unrolled while tracing: no Scan
        val = loop_func(i, val)
    return val


def fori_loop_while(lower, upper, loop_func, init_val):
    return ops.ForiLoop()(lower, upper, loop_func, init_val, unroll=False)     # a While, not a Scan


def fori_loop_inclusive(lower, upper, loop_func, init_val):
    return ch11.fori_loop(lower, upper + 1, loop_func, init_val)


def rnn_python(h0, xs, W, U):
    h, hs = h0, []
    for t in range(xs.shape[0]):            # unrolled while tracing: no Scan
        h = ops.tanh(ops.matmul(h, W) + ops.matmul(xs[t], U))
        hs.append(h)
    return ops.stack(hs)


def rnn_last_state(h0, xs, W, U):
    def step(h, x):
        h = ops.tanh(ops.matmul(h, W) + ops.matmul(x, U))
        return h, h
    return scan(step, h0, xs)[0]


WRONG = [
    ("1.1", "sign error", SoftplusSign, "sign"),
    ("1.1", "dout ignored", SoftplusNoDout, "dout"),
    ("1.1", "NumPy inside the rule", SoftplusNumpy, "higher-order"),
    ("1.1", "a bare Tensor, not a tuple", SoftplusBare, "tuple"),
    ("1.1", "sigmoid taken as 1 beyond x = 3", SoftplusSaturatesEarly, "values"),
    ("1.2", "missing sum_to", ScaleExpNoSumTo, "shape"),
    ("1.2", "gradients in the wrong order", ScaleExpSwapped, "swapped"),
    ("1.2", "a factor 2 too many", ScaleExpTwice, "factor"),
    ("1.3", "local derivative x instead of e^x", var_exp_local_is_x, "values"),
    ("1.3", "exp returns a float, not a Var", var_exp_float, "returned"),
    ("2.1", "tanh forgotten", AffineNoTanh, "values"),
    ("2.1", "Tensors instead of Parameters", AffineTensors, "parameters"),
    ("2.2", "sign error (gradient ascent)", _sgd(lambda p, g, lr: p.set_data(p + lr * g)), "sign"),
    ("2.2", "learning rate forgotten", _sgd(lambda p, g, lr: p.set_data(p - g)), "factor"),
    ("2.2", "name rebound, Parameter not updated", _sgd(_rebind), "zero"),
    ("2.2", "learning rate 0.1 written in", _sgd(_lr_written_in), "factor"),
    ("3.1", "a Python if on a Tensor", LeakyReLUIf, "branch"),
    ("3.1", "alpha on the wrong side", LeakyReLUWrongSide, "values"),
    ("3.1", "alpha = 0.1 written in", LeakyReLUAlphaWrittenIn, "setting"),
    ("3.2", "missing sum over the broadcast", ScaleNoSum, "shape"),
    ("3.2", "dout ignored", ScaleNoDout, "dout"),
    ("3.2", "the weight's gradient ignores dout", ScaleWeightNoDout, "dout"),
    ("4.1", "the true derivative of the step", SpikeTrueDerivative, "zero"),
    ("4.1", "square forgotten", SpikeNoSquare, "values"),
    ("4.1", "dout ignored", SpikeNoDout, "dout"),
    ("4.2", "gradients in the wrong order", HypotSwapped, "swapped"),
    ("4.2", "NumPy inside the rule", HypotNumpy, "higher-order"),
    ("5.1", "the page's bprop", PageBprop, "values"),
    ("5.1", "gradients in the wrong order", NetSwapped, "swapped"),
    ("5.1", "factor 2 of dy forgotten", NetHalfDy, "factor"),
    ("5.2", "sum instead of mean", ce_grad_sum, "factor"),
    ("5.2", "sign error", ce_grad_sign, "sign"),
    ("5.2", "N = 4 written in", ce_grad_four_examples, "factor"),
    ("6.1", "gradient returned unchanged", clip_unchanged, "unchanged"),
    ("6.1", "clipped above only", clip_above_only, "values"),
    ("6.1", "clipped to [0, 1]", clip_to_unit, "values"),
    ("6.2", "hook returns None", halve_nothing, "unchanged"),
    ("6.2", "grad_input halved instead (the PyTorch reading)", halve_grad_input, "convention"),
    ("7.1", "a Python if on a Tensor", soft_threshold_if, "graph"),
    ("7.1", "branches swapped", soft_threshold_swapped, "values"),
    ("7.2", "while loop on a Tensor's value", newton_while, "graph"),
    ("7.2", "too few steps", newton_three_steps, "values"),
    ("8.1", "the catalogue's code: Parameter read in bprop", ScaleWReadsWeight, "internal_params"),
    ("8.2", "the catalogue's code: no cast", predict_uncast, "dtype"),
    ("8.2", "cast to float64 instead", predict_float64, "values"),
    ("9.1", "tangent ignored", SoftplusJvpNoTangent, "tangent"),
    ("9.1", "sign error", SoftplusJvpSign, "sign"),
    ("9.1", "NumPy inside the rule", SoftplusJvpNumpy, "higher-order"),
    ("9.1", "sigmoid taken as 1 beyond x = 3", SoftplusJvpSaturatesEarly, "values"),
    ("9.2", "gradient times v", hvp_gradient_times_v, "values"),
    ("9.3", "the gradient of the batch's total loss", per_example_summed, "shape"),
    ("9.3", "a batch of 4 written in", per_example_four, "error"),
    ("10.1", "the textbook 1 - tanh(x)**2", tanh_derivative_textbook, "digits"),
    ("10.1", "2u instead of 4u", tanh_derivative_half, "factor"),
    ("10.1", "sign error", lambda x: -ch10.tanh_derivative(x), "sign"),
    ("10.1", "u = exp(-2x), without |x|", tanh_derivative_no_abs, "digits"),
    ("10.2", "ULP one bit too big (52 bits)", ulp_error_52_bits, "factor"),
    ("10.2", "the ULP of the computed value", ulp_error_of_computed, "values"),
    ("11.1", "branches swapped", SinOrCubeSwapped, "values"),
    ("11.1", "dout ignored", SinOrCubeNoDout, "dout"),
    ("11.1", "a Python if on a Tensor", SinOrCubeIf, "graph"),
    ("11.1", "both branches' gradients added", SinOrCubeBoth, "values"),
    ("11.2", "a Python for loop (unrolled)", fori_loop_python, "unrolled"),
    ("11.2", "ForiLoop with unroll=False (a While)", fori_loop_while, "unrolled"),
    ("11.2", "upper bound included", fori_loop_inclusive, "values"),
    ("11.3", "a Python for loop (unrolled)", rnn_python, "unrolled"),
    ("11.3", "the last state only", rnn_last_state, "shape"),
    ("11.3", "W and U swapped", lambda h0, xs, W, U: ch11.rnn(h0, xs, U, W), "values"),
    ("12.1", "gradient returned unchanged", tensor_clip_unchanged, "values"),
    ("12.1", "clipped to [0, 1]", tensor_clip_to_unit, "values"),
    ("12.2", "sign error", lambda x, out, dout: (-ch12.softplus_bprop(x, out, dout)[0],), "sign"),
    ("12.2", "dout ignored", lambda x, out, dout: (ops.sigmoid(x),), "dout"),
    ("12.2", "NumPy inside the rule", softplus_bprop_numpy, "higher-order"),
    ("12.2", "a bare Tensor, not a tuple", softplus_bprop_bare, "tuple"),
]
