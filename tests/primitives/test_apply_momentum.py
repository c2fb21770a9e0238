"""``ops.ApplyMomentum`` (issue 25, tutorial pages: advanced_optimizer block 9).

Expected values: MindSpore 2.10 (CPU, the oracle) on the same call — ``ApplyMomentum()(v, a, 0.1,
[1, 1], 0.9)`` with ``v = [1, 2]``, ``a = [0.5, 0.5]`` returns ``[0.855, 1.855]`` and leaves ``v =
[0.855, 1.855]``, ``a = [1.45, 1.45]`` — and the closed form of the documented formulas.
"""
import numpy as np
import pytest

import minims as ms
from minims import Parameter, Tensor, nn, ops


def _state():
    return Parameter(Tensor([1.0, 2.0]), name="v"), Parameter(Tensor([0.5, 0.5]), name="a")


def test_apply_momentum_updates_variable_and_accumulation():
    """Oracle: returns [0.855, 1.855]; v = [0.855, 1.855], a = [1.45, 1.45]."""
    v, a = _state()
    out = ops.ApplyMomentum()(v, a, 0.1, Tensor([1.0, 1.0]), 0.9)
    np.testing.assert_allclose(out.asnumpy(), [0.855, 1.855], rtol=1e-6)
    np.testing.assert_allclose(v.asnumpy(), [0.855, 1.855], rtol=1e-6)
    np.testing.assert_allclose(a.asnumpy(), [1.45, 1.45], rtol=1e-6)


def test_apply_momentum_in_a_compiled_step_writes_each_call():
    """Two steps in jit; closed form: a = 1.45 * 0.9 + 1 = 2.305, v = 0.855 - 0.1 * 2.305 = 0.6245."""
    v, a = _state()

    @ms.jit
    def step(g):
        return ops.ApplyMomentum()(v, a, Tensor(0.1), g, 0.9)

    step(Tensor([1.0, 1.0]))
    step(Tensor([1.0, 1.0]))
    np.testing.assert_allclose(v.asnumpy(), [0.6245, 1.6245], rtol=1e-6)
    np.testing.assert_allclose(a.asnumpy(), [2.305, 2.305], rtol=1e-6)


@pytest.mark.parametrize("kwargs, variable", [({"use_nesterov": True}, 0.7695), ({"gradient_scale": 2.0}, 0.755)])
def test_apply_momentum_documented_options(kwargs, variable):
    """MindSpore's documented formulas (closed form): Nesterov v = 1 - 0.1 * (1 + 0.9 * 1.45) = 0.7695;
    gradient_scale 2: a = 0.45 + 2 = 2.45, v = 1 - 0.245 = 0.755 (the 2.10 CPU kernel ignores both)."""
    v, a = _state()
    ops.ApplyMomentum(**kwargs)(v, a, 0.1, Tensor([1.0, 1.0]), 0.9)
    assert v.asnumpy()[0] == pytest.approx(variable, rel=1e-6)


def test_the_pages_momentum_optimizer_trains_a_dense_layer():
    """advanced_optimizer:9's optimizer: one step with ApplyMomentum over the trainable params equals
    w - lr * g (zero moments, closed form)."""
    class Momentum(nn.Optimizer):
        def __init__(self, params, learning_rate, momentum=0.9):
            super().__init__(learning_rate, params)
            self.moments = self.parameters.clone(prefix="moments", init="zeros")
            self.momentum = momentum
            self.opt = ops.ApplyMomentum()

        def construct(self, gradients):
            success = None
            for param, mom, grad in zip(self.parameters, self.moments, gradients):
                success = self.opt(param, mom, self.learning_rate, grad, self.momentum)
            return success

    net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    opt = Momentum(net.trainable_params(), 0.01)
    x = Tensor([[1.0, 2.0]])
    grads = ms.grad(lambda x: net(x).sum(), None, net.trainable_params())(x)
    opt(grads)
    np.testing.assert_allclose(net.weight.asnumpy(), [[0.99, 0.98]], rtol=1e-6)
    np.testing.assert_allclose(net.bias.asnumpy(), [-0.01], rtol=1e-6)
