"""The functional transforms against the gradients they generalise (issue 12's speed criteria).

1. Forward mode through the W1 chain: ``jvp`` against ``value_and_grad``, per op, PyNative (and
   Graph mode), on the chain of issue 6: ``mul`` and ``add`` by *Tensor* constants, ``sin``, ``tanh``.
2. Per-example gradients of the W3 MLP (784-512-512-10, ReLU, sparse softmax cross-entropy) for 64
   examples: ``vmap(grad(loss of one example))`` against one ``grad`` of the mean loss of the same 64
   examples (the batched gradient), in PyNative and with ``jit`` (which must compile once).

Each pair runs interleaved in one process after a check that both compute the same numbers (the
mean of the per-example gradients is the batched gradient).  Medians of ``--rounds`` samples.  With
PyTorch importable, the same pairs in PyTorch (``torch.func.jvp``, ``torch.func.vmap(grad)``) run too,
as a peer: how far the per-example ratio is the arithmetic of the problem rather than minims'.
Usage: python benchmarks/transforms.py [--rounds 15] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import minims as ms
import minims.nn as nn
from minims import Parameter, Tensor, ops

GROUPS = 50                                  # 4 ops per group: a chain of 200
X0 = np.linspace(0.1, 0.4, 4).astype(np.float32)
SCALE, SHIFT = Tensor(np.full(4, 0.9999, np.float32)), Tensor(np.full(4, 0.01, np.float32))


def chain(x):
    for _ in range(GROUPS):
        x = ops.add(ops.mul(ops.sin(x), SCALE), ops.tanh(ops.mul(x, SHIFT)))
    return x


def loss(x):
    return ops.sum(chain(x))


def samples(fn, rounds, number):
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        out.append((time.perf_counter() - t0) / number)
    return out


def interleaved(fns: dict, rounds: int, number: int) -> dict:
    """Median seconds per call of each function, taking turns round by round."""
    times = {k: [] for k in fns}
    for r in range(rounds):
        for k in (list(fns) if r % 2 == 0 else list(reversed(fns))):
            times[k].extend(samples(fns[k], 1, number))
    return {k: (statistics.median(v), min(v), max(v)) for k, v in times.items()}


# ----- 1. jvp against grad on the chain ------------------------------------------------------------------
def chain_rows(rounds):
    x, v = Tensor(X0), Tensor(np.ones(4, np.float32))
    jvp = lambda: ops.jvp(chain, x, v)                                       # noqa: E731
    grad = ms.value_and_grad(loss)
    jit_jvp = ms.jit(lambda a, t: ops.jvp(chain, a, t))
    jit_grad = ms.value_and_grad(ms.jit(loss))
    # the same derivative both ways: d/dx sum(chain(x)) . v  ==  sum(J v)
    np.testing.assert_allclose(float(ops.sum(jvp()[1])), float(ops.sum(grad(x)[1] * v)), rtol=1e-5)
    rows = interleaved({"jvp PyNative": jvp, "grad PyNative": lambda: grad(x),
                        "jvp Graph": lambda: jit_jvp(x, v), "grad Graph": lambda: jit_grad(x)}, rounds, 5)
    ops_per_chain = 4 * GROUPS
    return {k: tuple(t / ops_per_chain * 1e6 for t in row) for k, row in rows.items()}   # us per op


# ----- 2. per-example gradients of the MLP ---------------------------------------------------------------
SIZES, N = (784, 512, 512, 10), 64


def mlp_setup():
    rng = np.random.default_rng(7)
    params = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        params.append(Parameter(Tensor((rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)).astype(np.float32)),
                                name=f"w{len(params)}"))
        params.append(Parameter(Tensor((0.1 * rng.standard_normal(fan_out)).astype(np.float32)),
                                name=f"b{len(params)}"))
    x = Tensor(rng.standard_normal((N, SIZES[0])).astype(np.float32))
    y = Tensor(rng.integers(0, SIZES[-1], N).astype(np.int32))
    xent = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def net(inputs, w0, b0, w1, b1, w2, b2):
        h = ops.relu(ops.matmul(inputs, w0) + b0)
        h = ops.relu(ops.matmul(h, w1) + b1)
        return ops.matmul(h, w2) + b2

    def batch_loss(inputs, labels, *ws):
        return xent(net(inputs, *ws), labels)

    def one_loss(example, label, *ws):          # one example: a batch of one row
        return xent(net(ops.reshape(example, (1, SIZES[0])), *ws), ops.reshape(label, (1,)))
    return params, x, y, batch_loss, one_loss


def torch_rows(rounds):
    """The same two pairs in PyTorch (None without PyTorch)."""
    try:
        import torch
        from torch.func import grad as tgrad, jvp as tjvp, vmap as tvmap
    except ImportError:
        return None
    scale, shift = torch.tensor(SCALE.asnumpy()), torch.tensor(SHIFT.asnumpy())

    def tchain(x):
        for _ in range(GROUPS):
            x = torch.sin(x) * scale + torch.tanh(x * shift)
        return x
    x, v = torch.tensor(X0), torch.ones(4)

    def autograd_grad():
        xg = x.clone().requires_grad_(True)
        value = tchain(xg).sum()
        return value, torch.autograd.grad(value, xg)[0]
    chain = interleaved({"jvp": lambda: tjvp(tchain, (x,), (v,)), "grad": autograd_grad}, rounds, 5)
    rng = np.random.default_rng(7)
    ws = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        ws.append(torch.tensor((rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)).astype(np.float32)))
        ws.append(torch.tensor((0.1 * rng.standard_normal(fan_out)).astype(np.float32)))
    xs = torch.tensor(rng.standard_normal((N, SIZES[0])).astype(np.float32))
    ys = torch.tensor(rng.integers(0, SIZES[-1], N).astype(np.int64))

    def net(inp, w0, b0, w1, b1, w2, b2):
        h = torch.relu(inp @ w0 + b0)
        return torch.relu(h @ w1 + b1) @ w2 + b2

    def loss(inp, lab, params):
        return torch.nn.functional.cross_entropy(net(inp, *params), lab)

    def one(example, label, params):
        return loss(example[None], label[None], params)
    per_example = tvmap(tgrad(one, argnums=2), in_dims=(0, 0, None))
    batched = tgrad(loss, argnums=2)
    mlp = interleaved({"vmap(grad)": lambda: per_example(xs, ys, ws), "batched grad": lambda: batched(xs, ys, ws)},
                      max(3, rounds // 3), 1)
    return ({k: tuple(t / (4 * GROUPS) * 1e6 for t in row) for k, row in chain.items()},
            {k: tuple(t * 1e3 for t in row) for k, row in mlp.items()}, torch.__version__, torch.get_num_threads())


def per_example_rows(rounds):
    params, x, y, batch_loss, one_loss = mlp_setup()
    positions = tuple(range(2, 2 + len(params)))
    batched = ops.grad(batch_loss, positions)
    per_example = ops.vmap(ops.grad(one_loss, positions), in_axes=(0, 0) + (None,) * len(params))
    jit_per_example = ms.jit(per_example)
    jit_batched = ms.jit(batched)
    g_batch = batched(x, y, *params)
    g_each = per_example(x, y, *params)
    for gb, ge in zip(g_batch, g_each):
        np.testing.assert_allclose(ge.asnumpy().mean(axis=0), gb.asnumpy(), rtol=2e-4, atol=1e-6)
    jit_per_example(x, y, *params)
    jit_per_example(x, y, *params)
    traces = jit_per_example.traces
    rows = interleaved({"vmap(grad) PyNative": lambda: per_example(x, y, *params),
                        "batched grad PyNative": lambda: batched(x, y, *params),
                        "vmap(grad) Graph": lambda: jit_per_example(x, y, *params),
                        "batched grad Graph": lambda: jit_batched(x, y, *params)}, rounds, 1)
    out = {k: tuple(t * 1e3 for t in row) for k, row in rows.items()}   # ms
    return out, traces


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--json")
    args = parser.parse_args()
    report = {}
    chain_us = chain_rows(args.rounds)
    print(f"1. the W1 chain of issue 6 ({4 * GROUPS} ops on a [4] float32 Tensor), per op:")
    for k, (med, lo, hi) in chain_us.items():
        print(f"   {k:22s} {med:8.2f} us/op   (min {lo:.2f}, max {hi:.2f})")
    for mode in ("PyNative", "Graph"):
        ratio = chain_us[f"jvp {mode}"][0] / chain_us[f"grad {mode}"][0]
        print(f"   jvp / grad, {mode}: {ratio:.2f}" + ("   (target <= 1.5)" if mode == "PyNative" else ""))
        report[f"jvp/grad {mode}"] = ratio
    rows, traces = per_example_rows(max(3, args.rounds // 3))
    print(f"2. per-example gradients of the W3 MLP, {N} examples:")
    for k, (med, lo, hi) in rows.items():
        print(f"   {k:24s} {med:8.2f} ms   (min {lo:.2f}, max {hi:.2f})")
    for mode in ("PyNative", "Graph"):
        ratio = rows[f"vmap(grad) {mode}"][0] / rows[f"batched grad {mode}"][0]
        print(f"   vmap(grad) / batched grad, {mode}: {ratio:.2f}   (target <= 2)")
        report[f"per-example/batched {mode}"] = ratio
    print(f"   jit(vmap(grad)) compiled {traces} time(s) for 3 calls")
    report.update(chain_us_per_op=chain_us, per_example_ms=rows, jit_traces=traces)
    peer = torch_rows(args.rounds)
    if peer is None:
        print("3. PyTorch: not installed (pip install torch), no peer row")
    else:
        t_chain, t_mlp, version, threads = peer
        print(f"3. PyTorch {version} ({threads} threads), the same pairs:")
        print(f"   chain: jvp {t_chain['jvp'][0]:.2f} us/op, grad {t_chain['grad'][0]:.2f} us/op, "
              f"jvp / grad {t_chain['jvp'][0] / t_chain['grad'][0]:.2f}")
        print(f"   MLP: vmap(grad) {t_mlp['vmap(grad)'][0]:.2f} ms, batched grad {t_mlp['batched grad'][0]:.2f} ms, "
              f"ratio {t_mlp['vmap(grad)'][0] / t_mlp['batched grad'][0]:.2f}")
        print(f"   minims PyNative / PyTorch: jvp {chain_us['jvp PyNative'][0] / t_chain['jvp'][0]:.2f}, "
              f"vmap(grad) {rows['vmap(grad) PyNative'][0] / t_mlp['vmap(grad)'][0]:.2f}")
        report["torch"] = {"version": version, "threads": threads, "chain_us_per_op": t_chain, "mlp_ms": t_mlp}
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=2)


if __name__ == "__main__":
    main()
