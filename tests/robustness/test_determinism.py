"""The same ``set_seed`` gives the same bits: within one process, across processes, in both modes.

A *fingerprint* of one run is a SHA-256 per item over the arrays' dtype, shape and bytes:

* the initial weights of the benchmarks' LeNet-5 (``TruncatedNormal(0.02)`` draws from the seed's stream);
* dropout masks: ``ops.Dropout`` (its mask output), ``ops.dropout``, ``ops.Dropout2D`` and ``nn.Dropout``
  in training mode — in Graph mode each one compiled (``jit``, or the Cell called under ``GRAPH_MODE``);
* three LeNet-5 training steps (``TrainOneStepCell``, Momentum) on batches shuffled from the seed's
  stream: the losses and the final weights;
* three training steps of a small MLP with ``nn.Dropout`` inside (a fresh mask every step, drawn inside
  the compiled step in Graph mode): the losses and the final weights.

Each fingerprint is taken in PyNative and in Graph mode, on the NumPy path and (when Numba is installed)
on the Numba fast path, each set explicitly: the two paths agree to float32 rounding, not to the last
bit, and the default differs between a Jupyter kernel and other processes (``minims.context``).

Checked: two runs in one process agree bit for bit (with other random draws and a different seed in
between), so do two fresh Python processes with different ``PYTHONHASHSEED``s (no dependence on set or
dict order of strings, addresses or leftover state) and this process; a different seed changes every
item (the fingerprint is not vacuous); Graph mode, and the fast path, draw the same initial weights and
the same masks as PyNative on the NumPy path from the same seed (one random stream, whatever the mode
and the kernels).

Regenerating a chapter is not repeated here: nbval (``make test``) already re-executes every chapter in
a fresh kernel and requires its stored outputs exactly.

The backward pass of a compiled function must use the dropout mask of its own forward pass; it does
not yet (an expected failure, see ``test_backward_of_a_compiled_dropout_uses_the_forward_mask``).

Run as a script (``python tests/robustness/test_determinism.py``) it prints the fingerprints of both modes as JSON:
the cross-process test runs exactly that.
"""
import contextlib
import hashlib
import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:                # the LeNet-5 of the benchmarks' workload W2
    sys.path.insert(0, str(ROOT))

import minims as ms                                               # noqa: E402
import minims.nn as nn                                            # noqa: E402
import minims.ops as ops                                          # noqa: E402
from minims import Parameter, Tensor, context, jit                # noqa: E402
from minims.dataset import batches, load_digits                   # noqa: E402

from benchmarks.workloads.w2_lenet import LeNet5                  # noqa: E402

SEED = 11
MODES = {"pynative": context.PYNATIVE_MODE, "graph": context.GRAPH_MODE}
HAVE_NUMBA = importlib.util.find_spec("numba") is not None
PATHS = {"numpy": False, **({"numba": True} if HAVE_NUMBA else {})}
CONFIGS = [f"{path}/{mode}" for path in PATHS for mode in MODES]     # e.g. "numba/graph"
# the items drawn from the random stream (the rest is computed from them)
DRAWN = ["LeNet-5 initial weights", "ops.Dropout mask", "ops.dropout output", "ops.Dropout2D mask",
         "nn.Dropout output"]


def digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a.asnumpy() if isinstance(a, Tensor) else a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(32 * 32, 32)
        self.relu = nn.ReLU()
        self.drop = nn.Dropout(p=0.3)
        self.fc2 = nn.Dense(32, 10)

    def construct(self, x):
        return self.fc2(self.drop(self.relu(self.fc1(self.flatten(x)))))


def train_steps(net, data, steps=3):
    """``steps`` Momentum steps on the first shuffled batches; returns (losses, weights digest)."""
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.05, 0.9))
    train.set_train()
    losses = []
    for xb, yb in data:
        losses.append(train(xb, yb).asnumpy())
        if len(losses) == steps:
            break
    return np.array(losses), digest(*net.get_parameters())


@contextlib.contextmanager
def fast_path(on):
    before = context.get_context("fast_path")
    context.set_context(fast_path=on)
    try:
        yield
    finally:
        context.set_context(fast_path=before)


def fingerprint(config, seed=SEED) -> dict:
    """The digests of one seeded run; ``config`` is "path/mode" (see the module docstring)."""
    path, mode_name = config.split("/")
    mode = MODES[mode_name]
    compiled = jit if mode == context.GRAPH_MODE else (lambda f: f)
    with fast_path(PATHS[path]):
        return _fingerprint(mode, seed, compiled)


def _fingerprint(mode, seed, compiled):
    context.set_context(mode=mode)
    try:
        ms.set_seed(seed)
        out = {}
        lenet = LeNet5()
        out["LeNet-5 initial weights"] = digest(*lenet.get_parameters())

        x = Tensor(np.ones((4, 3, 5, 5), np.float32))
        out["ops.Dropout mask"] = digest(compiled(lambda t: ops.Dropout(keep_prob=0.7)(t)[1])(x))
        out["ops.dropout output"] = digest(compiled(lambda t: ops.dropout(t, p=0.4))(x))
        out["ops.Dropout2D mask"] = digest(compiled(lambda t: ops.Dropout2D(keep_prob=0.5)(t)[1])(x))
        drop = nn.Dropout(p=0.5)
        drop.set_train()
        out["nn.Dropout output"] = digest(drop(x))          # a Cell: compiled under GRAPH_MODE

        images, labels = load_digits("train")
        data = batches(images, labels, 32, shuffle=True, drop_remainder=True)     # the seed's stream
        losses, weights = train_steps(lenet, data)
        out["LeNet-5 losses"] = digest(losses)
        out["LeNet-5 weights after 3 steps"] = weights
        losses, weights = train_steps(MLP(), data)
        out["MLP with dropout: losses"] = digest(losses)
        out["MLP with dropout: weights after 3 steps"] = weights
        out["loss values"] = [float(v) for v in losses]     # readable, for a failure message
        return out
    finally:
        context.set_context(mode=context.PYNATIVE_MODE)


def differing(a, b):
    return [k for k in a if a[k] != b.get(k)]


@pytest.fixture(scope="module")
def runs():
    """One fingerprint per configuration, computed once for the tests below."""
    return {config: fingerprint(config) for config in CONFIGS}


@pytest.mark.parametrize("config", CONFIGS)
def test_same_seed_same_bits_within_one_process(runs, config):
    ms.set_seed(SEED + 1)                  # other draws in between must not matter after set_seed
    ops.dropout(Tensor(np.ones((7, 7), np.float32)), p=0.5)
    LeNet5()
    again = fingerprint(config)
    assert differing(runs[config], again) == []


@pytest.mark.parametrize("config", CONFIGS)
def test_another_seed_changes_every_item(runs, config):
    other = fingerprint(config, seed=SEED + 1)
    same = [k for k in runs[config] if runs[config][k] == other[k]]
    assert same == []


@pytest.mark.slow
def test_same_seed_same_bits_across_processes(runs):
    """Two fresh interpreters with different string-hash seeds agree with each other and with this one."""
    procs = [subprocess.Popen([sys.executable, str(pathlib.Path(__file__))], cwd=ROOT, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env={**os.environ, "PYTHONHASHSEED": str(h)})
             for h in (1, 2)]
    results = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=300)
        assert p.returncode == 0, stderr
        results.append(json.loads(stdout.strip().splitlines()[-1]))
    assert sorted(results[0]) == sorted(results[1]) == sorted(CONFIGS)
    for config in CONFIGS:
        assert differing(runs[config], results[0][config]) == [], config
        assert differing(runs[config], results[1][config]) == [], config


@pytest.mark.parametrize("config", CONFIGS[1:])
def test_every_mode_and_path_draws_the_same_random_numbers(runs, config):
    """One random stream whatever the mode and the kernels: the same weights and masks as PyNative on
    the NumPy path."""
    reference = runs[CONFIGS[0]]
    assert [k for k in DRAWN if runs[config][k] != reference[k]] == []


def _dropout_sum_and_grad(fn, x):
    out, g = ms.value_and_grad(fn)(x)
    return float(out.asnumpy()), g.asnumpy()


@pytest.mark.parametrize("how", ["PyNative", "grad of a jit function", "grad of a GRAPH_MODE Cell",
                                 "weight grad of a jit function"])
def test_backward_of_a_dropout_uses_the_forward_mask(how):
    """d/dx sum(dropout(x)) = mask / keep_prob, with the mask the forward pass drew: for x = 1 the
    forward sum is (number kept) / keep_prob, and so is the sum of the gradient (for the weight w = 1
    of dropout(x * w) too)."""
    x = Tensor(np.ones((6, 8), np.float32))
    ms.set_seed(SEED)
    if how == "PyNative":
        out, g = _dropout_sum_and_grad(lambda t: ops.dropout(t, p=0.5).sum(), x)
    elif how == "grad of a jit function":
        out, g = _dropout_sum_and_grad(jit(lambda t: ops.dropout(t, p=0.5).sum()), x)
    elif how == "weight grad of a jit function":
        w = Parameter(Tensor(np.ones((6, 8), np.float32)), name="w")
        f = jit(lambda t: ops.dropout(t * w, p=0.5).sum())
        out, (g,) = ms.value_and_grad(f, grad_position=None, weights=[w])(x)
        out, g = float(out.asnumpy()), g.asnumpy()
    else:
        drop = nn.Dropout(p=0.5)
        drop.set_train()
        context.set_context(mode=context.GRAPH_MODE)
        try:
            out, g = _dropout_sum_and_grad(lambda t: drop(t).sum(), x)
        finally:
            context.set_context(mode=context.PYNATIVE_MODE)
    assert set(np.unique(g)) <= {0.0, 2.0}
    assert 0 < out < 96
    assert float(g.sum()) == out


if __name__ == "__main__":
    print(json.dumps({config: fingerprint(config) for config in CONFIGS}))
