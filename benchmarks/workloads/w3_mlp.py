"""W3: one training step of an MLP 784-512-512-10 (ReLU), batch 256, SGD(0.01).

Inputs are standard-normal float32 (256, 784) and labels uniform in 0..9 from a seeded generator;
weights ``normal / sqrt(fan_in)``, biases ``0.1 * normal``.  minims: ``nn.Dense`` layers, the
sparse ``SoftmaxCrossEntropyWithLogits`` (mean), ``nn.SGD`` in ``nn.TrainOneStepCell`` (PyNative, and
Graph via ``GRAPH_MODE``); NumPy by hand: three GEMMs forward, five backward, the softmax
cross-entropy and the update written out; PyTorch: ``nn.Linear``, ``F.cross_entropy``,
``optim.SGD`` (and the same under ``torch.compile(net)``); JAX jit: ``jax_peers.py``.  The check runs two steps and compares both losses, the first step's gradients and
the parameters after the second.
"""
from __future__ import annotations

import numpy as np

import minims.nn as nn
from minims import Tensor

from . import Env, Target, Variant, standard_peers
from .jax_peers import mlp_forward, training_peer
from .numpy_dense import dense_head_loss_and_grads
from ..peers import JAX, NUMBA_GRAPH, NUMPY, PYNATIVE, graph_mode

BATCH, SIZES, LR = 256, (784, 512, 512, 10), 0.01
NAMES = ["fc1", "fc2", "fc3"]


def initial_weights(seed=7) -> dict:
    rng = np.random.default_rng(seed)
    out = {}
    for name, fan_in, fan_out in zip(NAMES, SIZES[:-1], SIZES[1:]):
        out[f"{name}.weight"] = (rng.standard_normal((fan_out, fan_in)) / np.sqrt(fan_in)).astype(np.float32)
        out[f"{name}.bias"] = (0.1 * rng.standard_normal(fan_out)).astype(np.float32)
    return out


def data(seed=8):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((BATCH, SIZES[0])).astype(np.float32),
            rng.integers(0, SIZES[-1], BATCH).astype(np.int32))


# ----- minims -------------------------------------------------------------------------------------
class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(SIZES[0], SIZES[1])
        self.fc2 = nn.Dense(SIZES[1], SIZES[2])
        self.fc3 = nn.Dense(SIZES[2], SIZES[3])
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


def minims_train_step(weights, return_grad=False):
    net = MLP()
    for p in net.get_parameters():
        p.set_data(Tensor(weights[p.name]))
    opt = nn.SGD(net.trainable_params(), LR)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt, return_grad=return_grad)
    train.set_train()
    return net, opt, train


def minims_pair(weights, xb, yb):
    def make():
        _, _, train = minims_train_step(weights)
        x, y = Tensor(xb), Tensor(yb)
        return lambda: train(x, y)

    def outputs():
        net, opt, train = minims_train_step(weights, return_grad=True)
        x, y = Tensor(xb), Tensor(yb)
        loss1, grads = train(x, y)
        loss2, _ = train(x, y)
        out = {"loss 1": loss1, "loss 2": loss2}
        out.update({f"grad {p.name}": g for p, g in zip(opt.parameters, grads)})
        out.update({f"{p.name} after 2 steps": p for p in net.get_parameters()})
        return {k: np.array(v.asnumpy()) for k, v in out.items()}
    return make, outputs


# ----- NumPy by hand ------------------------------------------------------------------------------
class NumpyMLP:
    def __init__(self, weights):
        self.p = {k: v.copy() for k, v in weights.items()}

    def step(self, x, labels):
        p = self.p
        loss, g, _ = dense_head_loss_and_grads(x, p, labels)
        for k, gk in g.items():
            p[k] -= LR * gk
        return loss, g


def numpy_pair(weights, xb, yb):
    def make():
        net, x, y = NumpyMLP(weights), xb.copy(), yb.astype(np.int64)
        return lambda: net.step(x, y)

    def outputs():
        net, y = NumpyMLP(weights), yb.astype(np.int64)
        loss1, grads = net.step(xb, y)
        loss2, _ = net.step(xb, y)
        out = {"loss 1": loss1, "loss 2": loss2}
        out.update({f"grad {k}": v for k, v in grads.items()})
        out.update({f"{k} after 2 steps": v for k, v in net.p.items()})
        return out
    return make, outputs


# ----- PyTorch ------------------------------------------------------------------------------------
def torch_pair(weights, xb, yb, compiled=False):
    def factory(torch):
        F = torch.nn.functional

        class TorchMLP(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = torch.nn.Linear(SIZES[0], SIZES[1])
                self.fc2 = torch.nn.Linear(SIZES[1], SIZES[2])
                self.fc3 = torch.nn.Linear(SIZES[2], SIZES[3])

            def forward(self, x):
                return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))

        def build():
            net = TorchMLP()
            with torch.no_grad():
                for name, p in net.named_parameters():
                    p.copy_(torch.from_numpy(weights[name]))
            opt = torch.optim.SGD(net.parameters(), lr=LR)
            x, y = torch.from_numpy(xb.copy()), torch.from_numpy(yb.astype(np.int64))
            model = torch.compile(net) if compiled else net

            def step():
                opt.zero_grad(set_to_none=True)
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
                return loss
            return net, step

        def outputs():
            net, step = build()
            loss1 = step()
            grads = {f"grad {k}": p.grad.clone() for k, p in net.named_parameters()}
            loss2 = step()
            out = {"loss 1": loss1, "loss 2": loss2, **grads}
            out.update({f"{k} after 2 steps": p for k, p in net.named_parameters()})
            return out
        return (lambda: build()[1]), outputs
    return factory


def variants(env: Env) -> list:
    weights = initial_weights()
    xb, yb = data()
    mk, out = minims_pair(weights, xb, yb)
    peers, missing = standard_peers(env, pynative=(mk, out), graph=(mk, out, graph_mode),
                                    numpy=numpy_pair(weights, xb, yb), torch_factory=torch_pair(weights, xb, yb),
                                    jax_factory=lambda jax: training_peer(jax, mlp_forward, weights, xb, yb, LR),
                                    compile_factory=torch_pair(weights, xb, yb, compiled=True))
    return [Variant("W3", "W3", "W3: MLP 784-512-512-10, batch 256, SGD step", "ms/step", 1e3, 1, peers, missing,
                    targets=[Target("W3: minims PyNative <= 1.2x NumPy by hand", PYNATIVE, NUMPY, 1.2),
                             Target("W3: minims + Numba, Graph <= 1.5x JAX jit (issue 28)", NUMBA_GRAPH, JAX, 1.5)])]
