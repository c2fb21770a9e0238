"""W1: per elementwise op on a [4] float32 tensor, in a chain of 200 ops; forward, and forward +
gradient.

The chain is 50 repetitions of four ops, ``y = sin(x); y = y * 0.01; x = x + y; x = x * 0.9999``
(a unary transcendental, two scalar ops and a binary op whose two inputs both depend on ``x``, so
the backward pass also accumulates).  The map stays close to the identity, so the value and the
gradient stay O(1) over the 200 ops, and float32 results of all peers agree to ~1e-6.  Times are
per op: the time of one chain divided by 200 (the forward + gradient variant differentiates
``chain(x).sum()``; the sum and the gradient bookkeeping are included in the 200 ops' share).

Graph mode: ``jit(chain)`` for the forward, ``value_and_grad(jit(loss))`` for forward + gradient
(the compiled forward graph with its compiled backward graph).
"""
from __future__ import annotations

import numpy as np

import minims as ms
from minims import Tensor, ops

from . import Env, Target, Variant, standard_peers
from ..peers import GRAPH, PYNATIVE, TORCH

GROUPS = 50
CHAIN = 4 * GROUPS                   # ops per chain
X0 = np.linspace(0.1, 0.4, 4).astype(np.float32)


# ----- minims -------------------------------------------------------------------------------------
def ms_chain(x):
    for _ in range(GROUPS):
        y = ops.sin(x)
        y = y * 0.01
        x = x + y
        x = x * 0.9999
    return x


def ms_loss(x):
    return ms_chain(x).sum()


# ----- NumPy by hand ------------------------------------------------------------------------------
def np_chain(x):
    for _ in range(GROUPS):
        y = np.sin(x)
        y = y * 0.01
        x = x + y
        x = x * 0.9999
    return x


def np_value_and_grad(x):
    """Forward keeping what backward needs (the inputs of sin), then the chain rule by hand."""
    saved = []
    for _ in range(GROUPS):
        saved.append(x)
        y = np.sin(x)
        y = y * 0.01
        x = x + y
        x = x * 0.9999
    value = x.sum()
    g = np.ones_like(x)                       # d sum / d x
    for x_in in reversed(saved):
        g = g * 0.9999                        # x = x * 0.9999
        gy = g * 0.01                         # x = x + y: g flows to x and to y; y = y * 0.01
        g = g + gy * np.cos(x_in)             # y = sin(x)
    return value, g


# ----- PyTorch ------------------------------------------------------------------------------------
def torch_pairs(torch):
    def chain(x):
        for _ in range(GROUPS):
            y = torch.sin(x)
            y = y * 0.01
            x = x + y
            x = x * 0.9999
        return x

    def forward_make():
        x = torch.tensor(X0)
        return lambda: chain(x)

    def forward_outputs():
        return {"out": chain(torch.tensor(X0))}

    def grad_make():
        x = torch.tensor(X0, requires_grad=True)

        def step():
            value = chain(x).sum()
            (g,) = torch.autograd.grad(value, x)
            return value, g
        return step

    def grad_outputs():
        value, g = grad_make()()
        return {"value": value, "grad x": g}

    return (forward_make, forward_outputs), (grad_make, grad_outputs)


def variants(env: Env) -> list:
    torch_fwd = lambda torch: torch_pairs(torch)[0]            # noqa: E731
    torch_grad = lambda torch: torch_pairs(torch)[1]           # noqa: E731

    # forward ------------------------------------------------------------------------------------
    def pyn_fwd_make():
        x = Tensor(X0)
        return lambda: ms_chain(x)

    def graph_fwd_make():
        x, f = Tensor(X0), ms.jit(ms_chain)
        return lambda: f(x)

    def np_fwd_make():
        x = X0.copy()
        return lambda: np_chain(x)

    fwd_peers, fwd_missing = standard_peers(
        env,
        pynative=(pyn_fwd_make, lambda: {"out": ms_chain(Tensor(X0))}),
        graph=(graph_fwd_make, lambda: {"out": ms.jit(ms_chain)(Tensor(X0))}),
        numpy=(np_fwd_make, lambda: {"out": np_chain(X0.copy())}),
        torch_factory=torch_fwd)

    # forward + gradient -------------------------------------------------------------------------
    def pyn_grad_make():
        x, f = Tensor(X0), ms.value_and_grad(ms_loss)
        return lambda: f(x)

    def graph_grad_make():
        x, f = Tensor(X0), ms.value_and_grad(ms.jit(ms_loss))
        return lambda: f(x)

    def ms_outputs(make):
        def outputs():
            value, g = make()()
            return {"value": value, "grad x": g}
        return outputs

    def np_grad_make():
        x = X0.copy()
        return lambda: np_value_and_grad(x)

    def np_grad_outputs():
        value, g = np_value_and_grad(X0.copy())
        return {"value": value, "grad x": g}

    grad_peers, grad_missing = standard_peers(
        env,
        pynative=(pyn_grad_make, ms_outputs(pyn_grad_make)),
        graph=(graph_grad_make, ms_outputs(graph_grad_make)),
        numpy=(np_grad_make, np_grad_outputs),
        torch_factory=torch_grad)

    return [
        Variant("W1.forward", "W1", f"W1 forward: per elementwise op, [4] float32, chain of {CHAIN}",
                "us/op", 1e6, CHAIN, fwd_peers, fwd_missing,
                targets=[Target("W1 forward: minims PyNative <= 2x PyTorch eager per op", PYNATIVE, TORCH, 2.0)]),
        Variant("W1.grad", "W1", f"W1 forward + gradient: per op, [4] float32, chain of {CHAIN}",
                "us/op", 1e6, CHAIN, grad_peers, grad_missing,
                targets=[Target("W1 forward + gradient: minims PyNative <= 1.5x PyTorch eager", PYNATIVE,
                                TORCH, 1.5),
                         Target("W1 forward + gradient: minims Graph <= PyTorch eager", GRAPH, TORCH, 1.0)]),
    ]
