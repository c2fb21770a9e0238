"""Issue 26's recompute figure: the peak memory of one gradient of a deep MLP, with and without
``Cell.recompute()`` on its blocks, and the gradients compared bit for bit.

The network: ``DEPTH`` blocks, each ``Dense(WIDTH, WIDTH) -> Tanh -> Dense(WIDTH, WIDTH) -> Tanh``, on a
batch of ``BATCH`` float32 rows, and the mean of the output as the loss; the gradient of every
weight (``ops.value_and_grad(net, None, weights)``).  Without recompute, the gradient level keeps
what each operation's rule needs — the inputs of both matmuls, the outputs of both tanh, per block —
until the backward pass frees them.  With every block marked ``recompute()``, it keeps each block's
input alone, and the backward pass computes one block's inside again at a time.

Memory is what ``tracemalloc`` traces (every NumPy buffer; the NumPy path, no Numba): the peak during
one gradient call, above what was allocated before it (the network, the batch).  Run with::

    .venv/bin/python -m benchmarks.recompute_memory            # or: python benchmarks/recompute_memory.py

It prints both peaks, their ratio, the time of each call, and whether the gradients are identical.
Nothing here is asserted by the test suite (tests/autodiff/test_recompute.py checks the gradients).
"""
from __future__ import annotations

import gc
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

if __package__ in (None, ""):                  # run as a script: the repository's minims
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import minims as ms  # noqa: E402
from minims import Tensor, nn, ops  # noqa: E402

DEPTH, WIDTH, BATCH = 32, 128, 512


class Block(nn.Cell):
    def __init__(self, width):
        super().__init__()
        self.fc1 = nn.Dense(width, width)
        self.fc2 = nn.Dense(width, width)
        self.act = nn.Tanh()

    def construct(self, x):
        return self.act(self.fc2(self.act(self.fc1(x))))


class DeepMLP(nn.Cell):
    def __init__(self, depth, width, recompute):
        super().__init__()
        self.blocks = nn.SequentialCell([Block(width) for _ in range(depth)])
        if recompute:
            for block in self.blocks:
                block.recompute()

    def construct(self, x):
        return ops.mean(self.blocks(x))


def measure(recompute: bool, depth=DEPTH, width=WIDTH, batch=BATCH, repeats=5):
    """``(peak bytes above the start, seconds, gradients)`` of one gradient call; the time is the
    best of ``repeats`` calls without tracemalloc, which slows every allocation down."""
    ms.set_seed(0)
    net = DeepMLP(depth, width, recompute)
    x = Tensor(np.random.default_rng(0).standard_normal((batch, width)).astype(np.float32))
    grad_fn = ops.value_and_grad(net, None, net.trainable_params())
    seconds = float("inf")
    for _ in range(repeats):                    # the first call warms up: its costs are not the tape's
        began = time.perf_counter()
        grad_fn(x)
        seconds = min(seconds, time.perf_counter() - began)
    gc.collect()
    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    _, grads = grad_fn(x)
    peak = tracemalloc.get_traced_memory()[1] - start
    tracemalloc.stop()
    return peak, seconds, [g.asnumpy() for g in grads]


def main():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    plain, plain_s, plain_grads = measure(False)
    saved, saved_s, saved_grads = measure(True)
    same = all(np.array_equal(a, b) for a, b in zip(plain_grads, saved_grads))
    activation, weights = BATCH * WIDTH * 4, DEPTH * 2 * (WIDTH + 1) * WIDTH * 4
    print(f"deep MLP: {DEPTH} blocks of Dense({WIDTH})-Tanh-Dense({WIDTH})-Tanh, batch {BATCH}, float32 "
          f"(one activation: {activation / 2**20:.3f} MiB; the weights' gradients: {weights / 2**20:.2f} MiB)")
    print(f"  without recompute: peak {plain / 2**20:7.2f} MiB   {plain_s * 1e3:7.1f} ms per gradient")
    print(f"  with recompute:    peak {saved / 2**20:7.2f} MiB   {saved_s * 1e3:7.1f} ms per gradient")
    print(f"  memory: {plain / saved:.2f}x less with recompute; time: {saved_s / plain_s:.2f}x")
    print(f"  gradients identical bit for bit: {same}")


if __name__ == "__main__":
    main()
