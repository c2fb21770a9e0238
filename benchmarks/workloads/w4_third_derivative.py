"""W4: the third derivative of ``sum(tanh(x))`` for ``x`` of 1000 float32 elements.

minims PyNative: ``grad(grad(grad(f)))`` (each ``grad`` of a vector-valued function starts from
ones, so the result is the elementwise third derivative); minims Graph: ``jit`` of that whole
function (the three nested tapes compiled into one graph); NumPy by hand: the derivative worked out
on paper, ``tanh''' = -2 (1 - t^2)(1 - 3 t^2)`` with ``t = tanh(x)``; PyTorch: ``autograd.grad``
three times with ``create_graph=True``.
"""
from __future__ import annotations

import numpy as np

import minims as ms
from minims import Tensor, ops

from . import Env, Target, Variant, standard_peers
from ..peers import PYNATIVE, TORCH

X0 = np.linspace(-2.0, 2.0, 1000).astype(np.float32)


def f(x):
    return ops.tanh(x).sum()


def third():
    return ops.grad(ops.grad(ops.grad(f)))


def np_third(x):
    t = np.tanh(x)
    t2 = t * t
    return -2.0 * (1.0 - t2) * (1.0 - 3.0 * t2)


def torch_factory(torch):
    def d3(x):
        y = torch.tanh(x).sum()
        (g1,) = torch.autograd.grad(y, x, create_graph=True)
        (g2,) = torch.autograd.grad(g1.sum(), x, create_graph=True)
        (g3,) = torch.autograd.grad(g2.sum(), x)
        return g3

    def make():
        x = torch.tensor(X0, requires_grad=True)
        return lambda: d3(x)
    return make, lambda: {"d3": d3(torch.tensor(X0, requires_grad=True))}


def variants(env: Env) -> list:
    def pyn_make():
        x, g = Tensor(X0), third()
        return lambda: g(x)

    def graph_make():
        x, g = Tensor(X0), ms.jit(third())
        return lambda: g(x)

    def np_make():
        x = X0.copy()
        return lambda: np_third(x)

    peers, missing = standard_peers(
        env,
        pynative=(pyn_make, lambda: {"d3": pyn_make()()}),
        graph=(graph_make, lambda: {"d3": graph_make()()}),
        numpy=(np_make, lambda: {"d3": np_third(X0.copy())}),
        torch_factory=torch_factory)
    return [Variant("W4", "W4", "W4: third derivative of sum(tanh(x)), x of 1000 float32", "us/call", 1e6, 1,
                    peers, missing,
                    targets=[Target("W4: minims PyNative <= 1.5x PyTorch eager (issue 16)", PYNATIVE, TORCH, 1.5)])]
