"""W4: the third derivative of ``sum(tanh(x))`` for ``x`` of 1000 float32 elements.

minims PyNative: ``grad(grad(grad(f)))`` (each ``grad`` of a vector-valued function starts from
ones, so the result is the elementwise third derivative); minims Graph: ``jit`` of that whole
function (the three nested tapes compiled into one graph); NumPy by hand: the derivative worked out
on paper, ``tanh''' = -2 (1 - t^2)(1 - 3 t^2)`` with ``t = tanh(x)``; PyTorch: ``autograd.grad``
three times with ``create_graph=True``, each level seeded with a ones tensor made once
(``grad_outputs=``; until issue 28 each level was summed first, ``g.sum()``, which adds a reduction
and its backward to every level: ``python -m benchmarks.w4_peers`` times both); JAX: ``jax.jit`` of
``vmap(grad(grad(grad(tanh))))``; ``torch.compile``: of ``torch.func``'s ``vmap(grad(grad(grad(tanh))))``.
"""
from __future__ import annotations

import numpy as np

import minims as ms
from minims import Tensor, ops

from . import Env, Target, Variant, standard_peers
from ..peers import JAX, NUMBA_GRAPH, PYNATIVE, TORCH

X0 = np.linspace(-2.0, 2.0, 1000).astype(np.float32)


def f(x):
    return ops.tanh(x).sum()


def third():
    return ops.grad(ops.grad(ops.grad(f)))


def np_third(x):
    t = np.tanh(x)
    t2 = t * t
    return -2.0 * (1.0 - t2) * (1.0 - 3.0 * t2)


def torch_third_summed(torch, x):
    """The suite's PyTorch peer until issue 28: each level summed to a scalar before the next grad."""
    y = torch.tanh(x).sum()
    (g1,) = torch.autograd.grad(y, x, create_graph=True)
    (g2,) = torch.autograd.grad(g1.sum(), x, create_graph=True)
    (g3,) = torch.autograd.grad(g2.sum(), x)
    return g3


def torch_third_seeded(torch, x, ones):
    """Each level seeded with ``ones`` (made once, outside the timed call): the elementwise
    derivatives without a reduction and its backward per level."""
    y = torch.tanh(x)
    (g1,) = torch.autograd.grad(y, x, ones, create_graph=True)
    (g2,) = torch.autograd.grad(g1, x, ones, create_graph=True)
    (g3,) = torch.autograd.grad(g2, x, ones)
    return g3


def torch_factory(torch):
    def make():
        x = torch.tensor(X0, requires_grad=True)
        ones = torch.ones_like(x)
        return lambda: torch_third_seeded(torch, x, ones)
    return make, lambda: {"d3": make()()}


def compile_factory(torch):
    from torch.func import grad, vmap

    def make():
        f = torch.compile(vmap(grad(grad(grad(torch.tanh)))))
        x = torch.tensor(X0)
        return lambda: f(x)
    return make, lambda: {"d3": make()()}


def jax_factory(jax):
    from ..peers import jax_peer, jax_third
    return jax_peer(jax, lambda jax: (lambda x: {"d3": jax_third(jax)(x)}), lambda: [X0])


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
        torch_factory=torch_factory, jax_factory=jax_factory, compile_factory=compile_factory)
    return [Variant("W4", "W4", "W4: third derivative of sum(tanh(x)), x of 1000 float32", "us/call", 1e6, 1,
                    peers, missing,
                    targets=[Target("W4: minims PyNative <= 1.5x PyTorch eager (issue 16)", PYNATIVE, TORCH, 1.5),
                             Target("W4: minims PyNative <= PyTorch eager (issue 28)", PYNATIVE, TORCH, 1.0),
                             Target("W4: minims + Numba, Graph <= JAX jit (issue 28)", NUMBA_GRAPH, JAX, 1.0)])]
