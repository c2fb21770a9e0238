"""Initializers: shapes, dtypes, the distributions' statistics, truncation, fan-in/fan-out, names,
reproducibility under ``set_seed``.

Expected statistics come from the definitions (e.g. U(-a, a) has standard deviation a / sqrt(3));
fan-in/fan-out as MindSpore and PyTorch define them.
"""
import math

import numpy as np
import pytest

import minims as ms
from minims import Parameter, Tensor
from minims.tensors import initializer as init_mod
from minims.tensors.initializer import (Constant, HeNormal, HeUniform, Initializer, Normal, One,
                                       TruncatedNormal, Uniform, XavierNormal, XavierUniform, Zero,
                                       initializer)

N = 200_000          # large draws: the standard error of a mean is sigma / sqrt(N) ~ 0.2% of sigma


@pytest.mark.parametrize("name, cls", [
    ("normal", Normal), ("truncatedNormal", TruncatedNormal), ("TruncatedNormal", TruncatedNormal),
    ("uniform", Uniform), ("xavier_uniform", XavierUniform), ("xavier_normal", XavierNormal),
    ("he_uniform", HeUniform), ("he_normal", HeNormal), ("ones", One), ("zeros", Zero)])
def test_names_give_the_class(name, cls):
    assert init_mod._ALIASES[name.lower()] is cls
    t = initializer(name, [4, 5], ms.float32)
    assert isinstance(t, Tensor) and t.shape == (4, 5) and t.dtype == ms.float32


@pytest.mark.parametrize("dtype", [ms.float16, ms.float32, ms.float64, ms.int32])
def test_shape_and_dtype(dtype):
    t = initializer("ones", (2, 3, 4), dtype)
    assert t.shape == (2, 3, 4) and t.dtype == dtype
    np.testing.assert_array_equal(t.asnumpy(), np.ones((2, 3, 4)))
    assert initializer("zeros", 3).shape == (3,)            # an int shape
    assert initializer(Normal(), [2, 2], ms.float64).dtype == ms.float64


def test_numbers_constants_and_tensors():
    np.testing.assert_array_equal(initializer(3, [2], ms.int32).asnumpy(), [3, 3])
    np.testing.assert_array_equal(initializer(Constant(0.5), [2, 2]).asnumpy(), np.full((2, 2), 0.5))
    t = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert initializer(t, [2, 3]) is t
    with pytest.raises(ValueError, match=r"shape \[2, 3\].*\[3, 2\]"):
        initializer(t, [3, 2])


def test_errors():
    with pytest.raises(ValueError, match="unknown initializer name 'gaussian'"):
        initializer("gaussian", [2])
    with pytest.raises(TypeError, match="init must be"):
        initializer([1, 2], [2])
    with pytest.raises(ValueError, match="positive int"):
        initializer("ones", [2, 0])
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        initializer("xavier_uniform", [5])
    with pytest.raises(ValueError, match="sigma"):
        Normal(sigma=-1.0)


def _draw(init, shape=(N,), dtype=ms.float64):
    return initializer(init, list(shape), dtype).asnumpy()


@pytest.mark.parametrize("sigma, mean", [(0.01, 0.0), (2.0, -3.0)])
def test_normal_statistics(sigma, mean):
    x = _draw(Normal(sigma, mean))
    assert abs(x.mean() - mean) < 5 * sigma / math.sqrt(N)
    assert abs(x.std() / sigma - 1) < 0.01


def test_default_normal_and_uniform():
    assert abs(_draw("normal").std() - 0.01) < 1e-4                 # Normal(sigma=0.01)
    x = _draw("uniform")                                            # Uniform(scale=0.07)
    assert -0.07 <= x.min() and x.max() <= 0.07
    assert abs(x.std() - 0.07 / math.sqrt(3)) < 1e-3 * 0.07


def test_truncated_normal_bounds_and_statistics():
    # a and b are absolute bounds (MindSpore 2.x, PyTorch's trunc_normal_)
    x = _draw(TruncatedNormal(sigma=1.0, mean=0.0, a=-1.0, b=1.5))
    assert x.min() >= -1.0 and x.max() <= 1.5
    assert x.min() < -0.99 and x.max() > 1.49                      # the whole interval is used
    # the mean of N(0, 1) truncated to [a, b] is (phi(a) - phi(b)) / (Phi(b) - Phi(a))
    phi = lambda v: math.exp(-v * v / 2) / math.sqrt(2 * math.pi)   # noqa: E731
    Phi = lambda v: 0.5 * (1 + math.erf(v / math.sqrt(2)))          # noqa: E731
    expected = (phi(-1.0) - phi(1.5)) / (Phi(1.5) - Phi(-1.0))
    assert abs(x.mean() - expected) < 0.01
    # TruncatedNormal(0.02): bounds +-2 are 100 sigma away, so it is a plain N(0, 0.02**2)
    y = _draw(TruncatedNormal(0.02))
    assert abs(y.std() / 0.02 - 1) < 0.01 and abs(y).max() < 0.2
    assert np.abs(_draw("truncatedNormal")).max() <= 2.0


def test_fan_in_and_fan_out():
    assert init_mod._calculate_fan_in_and_fan_out((7, 5)) == (5, 7)              # Dense (out, in)
    assert init_mod._calculate_fan_in_and_fan_out((16, 6, 5, 5)) == (150, 400)   # Conv2d (out, in, kh, kw)


def test_xavier_uniform_bound():
    shape = (300, 200, 3, 3)            # fan_in 1800, fan_out 2700
    bound = math.sqrt(6 / (1800 + 2700))
    x = _draw(XavierUniform(), shape)
    assert x.max() <= bound and x.min() >= -bound and x.max() > 0.99 * bound
    x = _draw(XavierUniform(gain=2), shape)
    assert x.max() > 1.98 * bound


def test_he_uniform_default_of_dense_is_one_over_sqrt_fan_in():
    # gain of leaky_relu with slope sqrt(5) is sqrt(2 / 6): bound = sqrt(3) * gain / sqrt(fan_in)
    x = _draw(HeUniform(math.sqrt(5)), (1000, 400))
    bound = 1 / math.sqrt(400)
    assert x.max() <= bound and x.max() > 0.999 * bound and x.min() >= -bound
    x = _draw(HeUniform(nonlinearity="relu", mode="fan_out"), (400, 1000))
    assert abs(x.max() - math.sqrt(6 / 400)) < 1e-3 * math.sqrt(6 / 400)


def test_he_normal_std():
    x = _draw(HeNormal(nonlinearity="relu"), (500, 100, 2, 2))     # fan_in = 400
    assert abs(x.std() / math.sqrt(2 / 400) - 1) < 0.01
    x = _draw(HeNormal(), (500, 400))                               # leaky_relu slope 0: gain sqrt(2)
    assert abs(x.std() / math.sqrt(2 / 400) - 1) < 0.01


def test_xavier_normal_std():
    x = _draw(XavierNormal(), (400, 600))
    assert abs(x.std() / math.sqrt(2 / 1000) - 1) < 0.01


@pytest.mark.parametrize("init", ["normal", "truncatedNormal", "uniform", "xavier_uniform", "he_uniform",
                                  "he_normal", TruncatedNormal(0.02)])
def test_reproducible_under_set_seed(init):
    ms.set_seed(123)
    a = initializer(init, [8, 9]).asnumpy()
    b = initializer(init, [8, 9]).asnumpy()
    ms.set_seed(123)
    np.testing.assert_array_equal(initializer(init, [8, 9]).asnumpy(), a)
    assert not np.array_equal(a, b)                  # the stream moves on between draws


def test_parameter_and_tensor_accept_initializers():
    y = Parameter(default_input=initializer("ones", [1, 2, 3], ms.float32), name="y")   # seed 004
    assert repr(y) == "Parameter (name=y, shape=(1, 2, 3), dtype=Float32, requires_grad=True)"
    t = Tensor(shape=(2, 3), dtype=ms.float64, init="zeros")
    assert t.dtype == ms.float64 and t.shape == (2, 3) and not t.asnumpy().any()
    ms.set_seed(5)
    a = Tensor(shape=(4,), dtype=ms.float32, init=Normal(1.0)).asnumpy()
    ms.set_seed(5)
    np.testing.assert_array_equal(Tensor(shape=(4,), dtype=ms.float32, init=Normal(1.0)).asnumpy(), a)


def test_custom_initializer_subclass():
    class Arange(Initializer):
        def _initialize(self, arr):
            arr[...] = np.arange(arr.size).reshape(arr.shape)

    np.testing.assert_array_equal(initializer(Arange(), [2, 2]).asnumpy(), [[0, 1], [2, 3]])
