"""W2: one LeNet-5 training step, batch 32, 1x32x32 inputs, Momentum(0.01, 0.9).

The LeNet-5 of the "Debugging in PyNative Mode" page (tests/nn/test_lenet_training.py): conv 5x5 (1->6,
no bias) - ReLU - max-pool 2 - conv 5x5 (6->16, no bias) - ReLU - max-pool 2 - dense 400->120 - ReLU
- dense 120->84 - ReLU - dense 84->10, ``SoftmaxCrossEntropyWithLogits(sparse=True,
reduction='mean')``, trained with ``nn.TrainOneStepCell``; the batch is the first 32 images of the
shipped digits (``minims.dataset.load_digits``), the weights are drawn once from a seeded NumPy
generator and copied into every peer.

Peers: minims PyNative (``TrainOneStepCell`` called eagerly); minims Graph (the same Cell called
under ``GRAPH_MODE``: the whole step — forward, backward, Momentum update — is one compiled graph);
NumPy by hand (im2col convolution, reshape max-pooling with first-maximum ties, the softmax
cross-entropy and every backward pass written out, Momentum by hand); PyTorch eager (``nn.Conv2d``,
``nn.Linear``, ``F.max_pool2d``, ``F.cross_entropy``, ``optim.SGD(momentum=0.9)``, whose update is
MindSpore's ApplyMomentum: ``accum = 0.9 accum + g; p -= lr accum``); ``torch.compile`` (the same
module compiled, ``torch.compile(net)``); JAX jit (``jax_peers.py``: ``lax.conv_general_dilated``,
``lax.reduce_window`` max-pooling, the step with its Momentum update in one ``jax.jit``).

The check runs two steps from the same weights on every peer and compares both losses, the
gradients of the first step and the parameters after the second.
"""
from __future__ import annotations

import numpy as np

import minims as ms
import minims.nn as nn
import minims.ops as ops
from minims import Tensor
from minims.tensors.initializer import TruncatedNormal
from minims.dataset import load_digits

from . import Env, Target, Variant, standard_peers
from .jax_peers import lenet_forward, training_peer
from .numpy_dense import dense_head_loss_and_grads
from ..peers import GRAPH, JAX, NUMPY, NUMBA, NUMBA_GRAPH, PYNATIVE, TORCH, graph_mode

BATCH = 32
LR, MOMENTUM = 0.01, 0.9
SHAPES = [("conv1.weight", (6, 1, 5, 5)), ("conv2.weight", (16, 6, 5, 5)), ("fc1.weight", (120, 400)),
          ("fc1.bias", (120,)), ("fc2.weight", (84, 120)), ("fc2.bias", (84,)), ("fc3.weight", (10, 84)),
          ("fc3.bias", (10,))]


def initial_weights(seed=2024) -> dict:
    """normal / sqrt(fan_in) for weights, 0.1 * normal for biases, float32."""
    rng = np.random.default_rng(seed)
    out = {}
    for name, shape in SHAPES:
        scale = 1 / np.sqrt(np.prod(shape[1:])) if len(shape) > 1 else 0.1
        out[name] = (rng.standard_normal(shape) * scale).astype(np.float32)
    return out


def batch(index=0):
    """Batch ``index`` of the digits' training split: float32 (32, 1, 32, 32), int32 (32,)."""
    x, y = load_digits("train")
    n = x.shape[0] // BATCH
    i = (index % n) * BATCH
    return x[i:i + BATCH], y[i:i + BATCH]


# ----- minims -------------------------------------------------------------------------------------
class LeNet5(nn.Cell):
    """The page's LeNet-5 (seed 003), weights set afterwards."""

    def __init__(self, num_class=10):
        super().__init__()
        self.batch_size = BATCH
        self.conv1 = nn.Conv2d(1, 6, 5, weight_init=TruncatedNormal(0.02), has_bias=False, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, weight_init=TruncatedNormal(0.02), has_bias=False, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 5 * 5, 120, TruncatedNormal(0.02), TruncatedNormal(0.02))
        self.fc2 = nn.Dense(120, 84, TruncatedNormal(0.02), TruncatedNormal(0.02))
        self.fc3 = nn.Dense(84, num_class, TruncatedNormal(0.02), TruncatedNormal(0.02))
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.reshape = ops.Reshape()

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.reshape(x, (self.batch_size, -1))
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def minims_train_step(weights, return_grad=False):
    """``(net, optimizer, TrainOneStepCell)`` from ``weights``."""
    net = LeNet5()
    for p in net.get_parameters():
        p.set_data(Tensor(weights[p.name]))
    opt = nn.Momentum(net.trainable_params(), LR, MOMENTUM)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt, return_grad=return_grad)
    train.set_train()
    return net, opt, train


def minims_make(weights, xb, yb):
    def make():
        _, _, train = minims_train_step(weights)
        x, y = Tensor(xb), Tensor(yb)
        return lambda: train(x, y)
    return make


def minims_outputs(weights, xb, yb):
    def outputs():
        net, opt, train = minims_train_step(weights, return_grad=True)
        x, y = Tensor(xb), Tensor(yb)
        loss1, grads = train(x, y)
        loss2, _ = train(x, y)
        out = {"loss 1": loss1, "loss 2": loss2}
        out.update({f"grad {p.name}": g for p, g in zip(opt.parameters, grads)})
        out.update({f"{p.name} after 2 steps": p for p in net.get_parameters()})
        return {k: np.array(v.asnumpy()) for k, v in out.items()}
    return outputs


# ----- NumPy by hand ------------------------------------------------------------------------------
def conv_forward(x, w):
    """Valid cross-correlation by im2col: ``(out (N, O, Ho, Wo), cols (N*Ho*Wo, C*kh*kw))``."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    ho, wo = h - kh + 1, wd - kw + 1
    win = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(2, 3))    # (N, C, Ho, Wo, kh, kw)
    cols = win.transpose(0, 2, 3, 1, 4, 5).reshape(n * ho * wo, c * kh * kw)
    out = cols @ w.reshape(o, -1).T                                               # (N*Ho*Wo, O)
    return out.reshape(n, ho, wo, o).transpose(0, 3, 1, 2), cols


def conv_backward(dy, cols, w, x_shape, need_dx):
    """``(dw, dx or None)`` of ``conv_forward``."""
    n, c, h, wd = x_shape
    o, _, kh, kw = w.shape
    ho, wo = dy.shape[2:]
    dy2 = dy.transpose(0, 2, 3, 1).reshape(-1, o)
    dw = (dy2.T @ cols).reshape(w.shape)
    if not need_dx:
        return dw, None
    dcols = (dy2 @ w.reshape(o, -1)).reshape(n, ho, wo, c, kh, kw)
    dx = np.zeros(x_shape, dtype=dy.dtype)
    for i in range(kh):                              # col2im: add each kernel offset's slice back
        for j in range(kw):
            dx[:, :, i:i + ho, j:j + wo] += dcols[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    return dw, dx


def pool_forward(x):
    """2x2 max-pooling, stride 2: ``(out, argmax of each window)`` (the first maximum on ties)."""
    n, c, h, w = x.shape
    win = x.reshape(n, c, h // 2, 2, w // 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(n, c, h // 2, w // 2, 4)
    idx = win.argmax(axis=-1)
    return np.take_along_axis(win, idx[..., None], axis=-1)[..., 0], idx


def pool_backward(dout, idx):
    n, c, hh, ww = dout.shape
    d = np.zeros((n, c, hh, ww, 4), dtype=dout.dtype)
    np.put_along_axis(d, idx[..., None], dout[..., None], axis=-1)
    return d.reshape(n, c, hh, ww, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(n, c, 2 * hh, 2 * ww)


class NumpyLeNet:
    """LeNet-5, its backward pass and Momentum, in NumPy."""

    def __init__(self, weights):
        self.p = {k: v.copy() for k, v in weights.items()}
        self.accum = {k: np.zeros_like(v) for k, v in weights.items()}

    def loss_and_grads(self, x, labels):
        p = self.p
        n = x.shape[0]
        c1, cols1 = conv_forward(x, p["conv1.weight"])
        r1 = np.maximum(c1, 0)
        m1, i1 = pool_forward(r1)
        c2, cols2 = conv_forward(m1, p["conv2.weight"])
        r2 = np.maximum(c2, 0)
        m2, i2 = pool_forward(r2)
        f = m2.reshape(n, -1)
        loss, g, df = dense_head_loss_and_grads(f, p, labels)
        dm2 = df.reshape(m2.shape)
        dc2 = pool_backward(dm2, i2) * (c2 > 0)
        g["conv2.weight"], dm1 = conv_backward(dc2, cols2, p["conv2.weight"], m1.shape, need_dx=True)
        dc1 = pool_backward(dm1, i1) * (c1 > 0)
        g["conv1.weight"], _ = conv_backward(dc1, cols1, p["conv1.weight"], x.shape, need_dx=False)
        return loss, g

    def step(self, x, labels):
        loss, grads = self.loss_and_grads(x, labels)
        for k, gk in grads.items():
            acc = self.accum[k]
            acc *= MOMENTUM
            acc += gk
            self.p[k] -= LR * acc
        return loss, grads


def numpy_make(weights, xb, yb):
    def make():
        net, x, y = NumpyLeNet(weights), xb.copy(), yb.astype(np.int64)
        return lambda: net.step(x, y)
    return make


def numpy_outputs(weights, xb, yb):
    def outputs():
        net, y = NumpyLeNet(weights), yb.astype(np.int64)
        loss1, grads = net.step(xb, y)
        loss2, _ = net.step(xb, y)
        out = {"loss 1": loss1, "loss 2": loss2}
        out.update({f"grad {k}": v for k, v in grads.items()})
        out.update({f"{k} after 2 steps": v for k, v in net.p.items()})
        return out
    return outputs


# ----- PyTorch ------------------------------------------------------------------------------------
def torch_pair(weights, xb, yb, compiled=False):
    def factory(torch):
        F = torch.nn.functional

        class TorchLeNet(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = torch.nn.Conv2d(1, 6, 5, bias=False)
                self.conv2 = torch.nn.Conv2d(6, 16, 5, bias=False)
                self.fc1 = torch.nn.Linear(400, 120)
                self.fc2 = torch.nn.Linear(120, 84)
                self.fc3 = torch.nn.Linear(84, 10)

            def forward(self, x):
                x = F.max_pool2d(F.relu(self.conv1(x)), 2, 2)
                x = F.max_pool2d(F.relu(self.conv2(x)), 2, 2)
                x = x.reshape(x.shape[0], -1)
                x = F.relu(self.fc1(x))
                x = F.relu(self.fc2(x))
                return self.fc3(x)

        def build():
            net = TorchLeNet()
            with torch.no_grad():
                for name, p in net.named_parameters():
                    p.copy_(torch.from_numpy(weights[name]))
            opt = torch.optim.SGD(net.parameters(), lr=LR, momentum=MOMENTUM)
            x, y = torch.from_numpy(xb.copy()), torch.from_numpy(yb.astype(np.int64))
            model = torch.compile(net) if compiled else net

            def step():
                opt.zero_grad(set_to_none=True)
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
                return loss
            return net, step

        def make():
            return build()[1]

        def outputs():
            net, step = build()
            loss1 = step()
            grads = {f"grad {k}": p.grad.clone() for k, p in net.named_parameters()}
            loss2 = step()
            out = {"loss 1": loss1, "loss 2": loss2, **grads}
            out.update({f"{k} after 2 steps": p for k, p in net.named_parameters()})
            return out
        return make, outputs
    return factory


def _fresh_first_step():
    from ..first_call import measure_in_subprocess
    result = measure_in_subprocess()
    if not result.get("available"):          # the Numba column ran in this process: this must too
        raise RuntimeError(f"the fresh-process first Graph step could not be measured: {result.get('why')}")
    return result["first_step_s"]


def graph_target(env: Env) -> Target:
    """Issue 16: Graph + Numba <= 0.8x PyTorch eager with one thread each, <= 1.0x with both
    libraries on their default threads (both cores)."""
    if env.threads == 1:
        return Target("W2: minims + Numba, Graph <= 0.8x PyTorch eager, one thread each (issue 16)",
                      NUMBA_GRAPH, TORCH, 0.8)
    return Target(f"W2: minims + Numba, Graph <= PyTorch eager, "
                  f"{'default threads' if env.threads is None else f'{env.threads} threads each'} (issue 16)",
                  NUMBA_GRAPH, TORCH, 1.0)


def variants(env: Env) -> list:
    weights = initial_weights()
    xb, yb = batch(0)
    peers, missing = standard_peers(
        env,
        pynative=(minims_make(weights, xb, yb), minims_outputs(weights, xb, yb)),
        graph=(minims_make(weights, xb, yb), minims_outputs(weights, xb, yb), graph_mode),
        numpy=(numpy_make(weights, xb, yb), numpy_outputs(weights, xb, yb)),
        torch_factory=torch_pair(weights, xb, yb),
        jax_factory=lambda jax: training_peer(jax, lenet_forward, weights, xb, yb, LR, MOMENTUM),
        compile_factory=torch_pair(weights, xb, yb, compiled=True))
    return [Variant(
        "W2", "W2", "W2: LeNet-5 training step, batch 32, 1x32x32, Momentum", "ms/step", 1e3, 1, peers, missing,
        targets=[Target("W2: minims PyNative (NumPy path) <= 1.5x NumPy by hand", PYNATIVE, NUMPY, 1.5),
                 Target("W2: minims + Numba <= PyTorch eager (PyNative)", NUMBA, TORCH, 1.0),
                 graph_target(env),
                 Target("W2: minims Graph never slower than PyNative", GRAPH, PYNATIVE, 1.0),
                 Target("W2: minims + Numba, Graph <= JAX jit (issue 28)", NUMBA_GRAPH, JAX, 1.0),
                 Target("W2: first Graph-mode step with Numba of a fresh process (warm Numba cache) <= 1 s "
                        "(issue 16)", NUMBA_GRAPH, None, 1.0, measure=_fresh_first_step)],
        notes=["one W2 step is 72 MFLOP of GEMM/convolution work (issue 6)"])]
