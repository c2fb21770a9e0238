"""W5: a custom Cell ``bprop`` around a 256x256 matmul, against the same computation without one.

The Cell computes ``ops.MatMul()(x, y)``; the custom version defines ``bprop(x, y, out, dout) =
(MatMul(transpose_b=True)(dout, y), MatMul(transpose_a=True)(x, dout))`` — the true gradient, the
same two GEMMs MatMul's own backward rule uses — so the two versions compute identical numbers and
their times differ only by what a custom bprop costs.  One timed call is forward + gradient:
``GradOperation(get_all=True)(net)(x, y)`` (the backward pass starts from ones), as in the custom-bprop
page; in Graph mode the grad Cell is called under ``GRAPH_MODE``.  x and y are standard-normal float32.

Columns: the minims and PyTorch columns come twice, with the custom backward (``minims PyNative``,
``minims Graph``, ``PyTorch eager`` with a ``torch.autograd.Function``) and without
(``..., no bprop`` / ``PyTorch eager, no custom backward``); NumPy by hand is one forward GEMM and two
backward GEMMs; JAX jit: ``jax.custom_vjp`` with the same two GEMMs, jitted with ``jax.grad``'s
pullback from ones; ``torch.compile``: the custom ``autograd.Function`` step compiled.
"""
from __future__ import annotations

import numpy as np

import minims.nn as nn
import minims.ops as ops
from minims import Tensor

from . import Env, Target, Variant, standard_peers
from ..peers import GRAPH, JAX, NUMBA_GRAPH, PYNATIVE, TORCH, chain_contexts, graph_mode
from ..timing import Peer

N = 256
PYN_PLAIN = "minims PyNative, no bprop"
GRAPH_PLAIN = "minims Graph, no bprop"
TORCH_PLAIN = "PyTorch eager, no custom backward"


def data(seed=5):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((N, N)).astype(np.float32), rng.standard_normal((N, N)).astype(np.float32))


class MatMulCell(nn.Cell):
    def __init__(self):
        super().__init__()
        self.matmul = ops.MatMul()

    def construct(self, x, y):
        return self.matmul(x, y)


class MatMulWithBprop(MatMulCell):
    def __init__(self):
        super().__init__()
        self.matmul_bt = ops.MatMul(transpose_b=True)
        self.matmul_at = ops.MatMul(transpose_a=True)

    def bprop(self, x, y, out, dout):
        return self.matmul_bt(dout, y), self.matmul_at(x, dout)


class GradNet(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.grad_op = ops.GradOperation(get_all=True)

    def construct(self, x, y):
        return self.grad_op(self.net)(x, y)


def minims_pair(cell_cls, xa, ya):
    def make():
        net, x, y = GradNet(cell_cls()), Tensor(xa), Tensor(ya)
        return lambda: net(x, y)

    def outputs():
        dx, dy = make()()
        return {"dx": dx.asnumpy(), "dy": dy.asnumpy()}
    return make, outputs


def np_grads(x, y):
    out = x @ y
    dout = np.ones_like(out)
    return dout @ y.T, x.T @ dout


def numpy_pair(xa, ya):
    def make():
        x, y = xa.copy(), ya.copy()
        return lambda: np_grads(x, y)

    def outputs():
        dx, dy = np_grads(xa, ya)
        return {"dx": dx, "dy": dy}
    return make, outputs


def torch_pair(xa, ya, custom):
    def factory(torch):
        class MatMulFn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                ctx.save_for_backward(x, y)
                return x @ y

            @staticmethod
            def backward(ctx, dout):
                x, y = ctx.saved_tensors
                return dout @ y.T, x.T @ dout

        matmul = MatMulFn.apply if custom else torch.matmul

        def make():
            x = torch.tensor(xa, requires_grad=True)
            y = torch.tensor(ya, requires_grad=True)

            def step():
                out = matmul(x, y)
                return torch.autograd.grad(out, (x, y), grad_outputs=torch.ones_like(out))
            return step

        def outputs():
            dx, dy = make()()
            return {"dx": dx, "dy": dy}
        return make, outputs
    return factory


def jax_pair(xa, ya):
    def factory(jax):
        from ..peers import jax_peer

        def program(jax):
            @jax.custom_vjp
            def matmul(x, y):
                return x @ y

            def fwd(x, y):
                return x @ y, (x, y)

            def bwd(res, dout):
                x, y = res
                return dout @ y.T, x.T @ dout
            matmul.defvjp(fwd, bwd)

            def grads(x, y):
                out, pullback = jax.vjp(matmul, x, y)
                dx, dy = pullback(jax.numpy.ones_like(out))
                return {"dx": dx, "dy": dy}
            return grads
        return jax_peer(jax, program, lambda: [xa, ya])
    return factory


def compile_pair(xa, ya):
    def factory(torch):
        make, outputs = torch_pair(xa, ya, custom=True)(torch)

        def compiled_make():
            return torch.compile(make())
        return compiled_make, lambda: {k: v for k, v in zip(("dx", "dy"), compiled_make()())}
    return factory


def variants(env: Env) -> list:
    xa, ya = data()
    custom, plain = minims_pair(MatMulWithBprop, xa, ya), minims_pair(MatMulCell, xa, ya)
    peers, missing = standard_peers(env, pynative=custom, graph=(*custom, graph_mode), numpy=numpy_pair(xa, ya),
                                    torch_factory=torch_pair(xa, ya, custom=True), jax_factory=jax_pair(xa, ya),
                                    compile_factory=compile_pair(xa, ya))
    extra = [Peer(PYN_PLAIN, *plain, context=env.fast.off),
             Peer(GRAPH_PLAIN, *plain, context=chain_contexts(env.fast.off, graph_mode))]
    if env.torch is not None:
        extra.append(Peer(TORCH_PLAIN, *torch_pair(xa, ya, custom=False)(env.torch)))
    else:
        missing[TORCH_PLAIN] = env.torch_reason
    # column order: each custom column followed by its plain twin
    order = [PYNATIVE, PYN_PLAIN, GRAPH, GRAPH_PLAIN]
    by_name = {p.name: p for p in peers + extra}
    ordered = [by_name[n] for n in order] + [p for p in peers + extra if p.name not in order]
    return [Variant(
        "W5", "W5", "W5: custom Cell bprop around a 256x256 matmul (forward + gradient)", "ms/call", 1e3, 1,
        ordered, missing,
        ratios=[("minims PyNative: custom bprop / none", PYNATIVE, PYN_PLAIN),
                ("minims Graph: custom bprop / none", GRAPH, GRAPH_PLAIN),
                ("PyTorch: autograd.Function / none", TORCH, TORCH_PLAIN)],
        targets=[Target("W5: a custom bprop costs <= 1.2x none (minims PyNative)", PYNATIVE, PYN_PLAIN, 1.2),
                 Target("W5: a custom bprop costs <= 1.2x none (minims Graph)", GRAPH, GRAPH_PLAIN, 1.2),
                 Target("W5: minims + Numba, Graph <= 1.5x JAX jit (issue 28)", NUMBA_GRAPH, JAX, 1.5)],
        notes=["the reference of the check is minims PyNative with the custom bprop"])]

