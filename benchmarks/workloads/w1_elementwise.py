"""W1: per elementwise op on a [4] float32 tensor, in a chain of 200 ops; forward, and forward +
gradient — two chains.

**The W1 of record** (``W1.forward``, ``W1.grad``) is issue 6's chain, restored by issue 16: ``mul``
and ``add`` by **Tensor** constants, ``sin`` and ``tanh``.  40 repetitions of five ops,
``y = sin(x); y = y * c1; y = y + c2; y = tanh(y); x = x + y``, with ``c1``, ``c2`` float32 Tensors
of shape [4] (a Tensor constant goes through dtype promotion and broadcasting like any operand,
where a Python number is a cheap weak scalar).  ``c1`` ~ 0.01 and ``c2`` ~ 0.001 keep the map close
to the identity, so value and gradient stay O(1).

**The Python-scalar variant** (``W1.scalar-forward``, ``W1.scalar-grad``): 50 repetitions of four
ops, ``y = sin(x); y = y * 0.01; x = x + y; x = x * 0.9999`` (a unary transcendental, two
scalar ops and a binary op whose two inputs both depend on ``x``, so the backward pass also
accumulates).  The suite's W1 until issue 16; it flatters minims (Python numbers skip the Tensor
operand path), so it is kept as a variant.

In both, float32 results of all peers agree to ~1e-6.  Times are per op: the time of one chain
divided by 200 (the forward + gradient variants differentiate ``chain(x).sum()``; the sum and the
gradient bookkeeping are included in the 200 ops' share).

Graph mode: ``jit(chain)`` for the forward, ``value_and_grad(jit(loss))`` for forward + gradient
(the compiled forward graph, returning its residuals, and the compiled backward graph).  With the
fast path on (``minims + Numba, Graph``) each of those graphs runs as fused Numba kernels
(``minims/graph/fuse.py``): issue 16's target is forward + gradient <= 0.5x NumPy by hand.

JAX jit: ``jax.jit`` of the chain, and of ``jax.value_and_grad`` of its sum; ``torch.compile``: the
PyTorch chain (forward; forward and ``autograd.grad``) compiled.
"""
from __future__ import annotations

import numpy as np

import minims as ms
from minims import Tensor, ops

from . import Env, Target, Variant, standard_peers
from ..peers import GRAPH, JAX, NUMBA_GRAPH, NUMPY, PYNATIVE, TORCH

CHAIN = 200                          # ops per chain, in both chains
X0 = np.linspace(0.1, 0.4, 4).astype(np.float32)
C1 = np.array([0.010, 0.012, 0.008, 0.011], np.float32)         # the Tensor constants of the record chain
C2 = np.array([0.001, -0.002, 0.0015, 0.0005], np.float32)
TENSOR_GROUPS, SCALAR_GROUPS = CHAIN // 5, CHAIN // 4


# ----- the chains, written once for minims, NumPy and PyTorch (``m`` is the module of ops) ----------
def tensor_chain(m, x, c1, c2):
    """The W1 of record: mul and add by Tensor constants, sin, tanh (5 ops per group)."""
    for _ in range(TENSOR_GROUPS):
        y = m.sin(x)
        y = y * c1
        y = y + c2
        y = m.tanh(y)
        x = x + y
    return x


def scalar_chain(m, x):
    """The Python-scalar variant (4 ops per group)."""
    for _ in range(SCALAR_GROUPS):
        y = m.sin(x)
        y = y * 0.01
        x = x + y
        x = x * 0.9999
    return x


# ----- NumPy by hand: forward keeping what backward needs, then the chain rule --------------------
def np_tensor_value_and_grad(x, c1, c2):
    saved = []
    for _ in range(TENSOR_GROUPS):
        y = np.sin(x)
        y = y * c1
        y = y + c2
        t = np.tanh(y)
        saved.append((x, t))
        x = x + t
    value = x.sum()
    g = np.ones_like(x)                       # d sum / d x
    for x_in, t in reversed(saved):
        gy = g * (1 - t * t)                  # x = x + tanh(...): g flows to x and to tanh
        g = g + gy * c1 * np.cos(x_in)        # + c2, * c1, sin
    return value, g


def np_scalar_value_and_grad(x):
    saved = []
    for _ in range(SCALAR_GROUPS):
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


def _jax_pairs(np_fn):
    """``(forward, forward + gradient)`` JAX factories of a chain written for any module of ops."""
    def forward(jax):
        from ..peers import jax_peer
        return jax_peer(jax, lambda jax: (lambda x: {"out": np_fn(jax.numpy, x)}), lambda: [X0])

    def with_grad(jax):
        from ..peers import jax_peer

        def program(jax):
            def value_and_grad(x):
                value, g = jax.value_and_grad(lambda v: np_fn(jax.numpy, v).sum())(x)
                return {"value": value, "grad x": g}
            return value_and_grad
        return jax_peer(jax, program, lambda: [X0])
    return forward, with_grad


def _variants(env: Env, key, title, ms_fn, np_fn, np_grad, torch_fn, targets_fwd, targets_grad, jax_fn):
    """The forward and forward + gradient tables of one chain.  ``ms_fn(x)``, ``np_fn(x)`` and
    ``torch_fn(torch)(x)`` compute the chain (``torch_fn(torch)`` makes the PyTorch constants once, outside
    the timed call: until issue 28 two ``torch.tensor`` copies were made in every call); ``np_grad(x)``
    is NumPy's value and gradient."""
    def ms_loss(x):
        return ms_fn(x).sum()

    def torch_pairs(torch, compiled=False):
        wrap = torch.compile if compiled else (lambda f: f)

        def forward_make():
            x, chain = torch.tensor(X0), torch_fn(torch)
            return wrap(lambda: chain(x))

        def grad_make():
            x, chain = torch.tensor(X0, requires_grad=True), torch_fn(torch)

            def step():
                value = chain(x).sum()
                (g,) = torch.autograd.grad(value, x)
                return value, g
            return wrap(step)

        def grad_outputs():
            value, g = grad_make()()
            return {"value": value, "grad x": g}
        return ((forward_make, lambda: {"out": forward_make()()}), (grad_make, grad_outputs))

    def ms_outputs(make):
        def outputs():
            value, g = make()()
            return {"value": value, "grad x": g}
        return outputs

    def pyn_fwd_make():
        x = Tensor(X0)
        return lambda: ms_fn(x)

    def graph_fwd_make():
        x, f = Tensor(X0), ms.jit(ms_fn)
        return lambda: f(x)

    def pyn_grad_make():
        x, f = Tensor(X0), ms.value_and_grad(ms_loss)
        return lambda: f(x)

    def graph_grad_make():
        x, f = Tensor(X0), ms.value_and_grad(ms.jit(ms_loss))
        return lambda: f(x)

    def np_grad_outputs():
        value, g = np_grad(X0.copy())
        return {"value": value, "grad x": g}

    fwd_peers, fwd_missing = standard_peers(
        env,
        pynative=(pyn_fwd_make, lambda: {"out": ms_fn(Tensor(X0))}),
        graph=(graph_fwd_make, lambda: {"out": ms.jit(ms_fn)(Tensor(X0))}),
        numpy=(lambda: (lambda x: lambda: np_fn(x))(X0.copy()), lambda: {"out": np_fn(X0.copy())}),
        torch_factory=lambda torch: torch_pairs(torch)[0], jax_factory=_jax_pairs(jax_fn)[0],
        compile_factory=lambda torch: torch_pairs(torch, compiled=True)[0])
    grad_peers, grad_missing = standard_peers(
        env,
        pynative=(pyn_grad_make, ms_outputs(pyn_grad_make)),
        graph=(graph_grad_make, ms_outputs(graph_grad_make)),
        numpy=(lambda: (lambda x: lambda: np_grad(x))(X0.copy()), np_grad_outputs),
        torch_factory=lambda torch: torch_pairs(torch)[1], jax_factory=_jax_pairs(jax_fn)[1],
        compile_factory=lambda torch: torch_pairs(torch, compiled=True)[1])
    fwd_key, grad_key = (f"{key}.forward", f"{key}.grad") if key == "W1" else (f"W1.{key}-forward",
                                                                            f"W1.{key}-grad")
    return [
        Variant(fwd_key, "W1", f"{title} forward: per elementwise op, [4] float32, chain of {CHAIN}",
                "us/op", 1e6, CHAIN, fwd_peers, fwd_missing, targets=targets_fwd),
        Variant(grad_key, "W1", f"{title} forward + gradient: per op, [4] float32, chain of {CHAIN}",
                "us/op", 1e6, CHAIN, grad_peers, grad_missing, targets=targets_grad),
    ]


def variants(env: Env) -> list:
    c1, c2 = Tensor(C1), Tensor(C2)
    record = _variants(
        env, "W1", "W1 (Tensor constants, sin, tanh)",
        ms_fn=lambda x: tensor_chain(ops, x, c1, c2),
        np_fn=lambda x: tensor_chain(np, x, C1, C2),
        np_grad=lambda x: np_tensor_value_and_grad(x, C1, C2),
        torch_fn=lambda torch: (lambda c1, c2: lambda x: tensor_chain(torch, x, c1, c2))(torch.tensor(C1),
                                                                                        torch.tensor(C2)),
        jax_fn=lambda jnp, x: tensor_chain(jnp, x, C1, C2),
        targets_fwd=[Target("W1 forward: minims PyNative <= 2x PyTorch eager per op", PYNATIVE, TORCH, 2.0)],
        targets_grad=[Target("W1 forward + gradient: minims PyNative <= 1.3x PyTorch eager", PYNATIVE, TORCH, 1.3),
                      Target("W1 forward + gradient: minims Graph <= PyTorch eager", GRAPH, TORCH, 1.0),
                      Target("W1 forward + gradient: minims Graph + Numba (fused) <= 0.5x NumPy by hand",
                             NUMBA_GRAPH, NUMPY, 0.5),
                      Target("W1 forward + gradient: minims + Numba, Graph <= JAX jit (issue 28)", NUMBA_GRAPH, JAX,
                             1.0)])
    scalar = _variants(
        env, "scalar", "W1 variant (Python-scalar constants)",
        ms_fn=lambda x: scalar_chain(ops, x),
        np_fn=lambda x: scalar_chain(np, x),
        np_grad=np_scalar_value_and_grad,
        torch_fn=lambda torch: lambda x: scalar_chain(torch, x),
        jax_fn=scalar_chain,
        targets_fwd=[], targets_grad=[
            Target("W1 variant forward + gradient: minims Graph + Numba (fused) <= 0.5x NumPy by hand",
                   NUMBA_GRAPH, NUMPY, 0.5)])
    return record + scalar
