"""The workloads of issue 6 (W1-W5), each a module with ``variants(env) -> list[Variant]``.

A *variant* is one table: W1 has two (forward; forward + gradient), the others one each.  Every
variant lists its peers (``benchmarks.timing.Peer``), the peers it could not run and why, the extra
ratios worth printing, and the issue's targets that concern it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..checks import DEFAULT_TOL
from ..peers import (GRAPH, JAX, NUMBA, NUMBA_GRAPH, NUMPY, PYNATIVE, TORCH, TORCH_COMPILE, FastPath,
                     chain_contexts)
from ..timing import Peer


@dataclass
class Env:
    torch: Any                  # the torch module, or None
    torch_reason: str
    fast: FastPath
    quick: bool
    threads: int | None = None  # --threads N (None: each library's default)
    jax: Any = None             # the jax module, or None
    jax_reason: str = "not loaded"
    compile: bool = False       # --compile: the torch.compile column


@dataclass
class Target:
    """``numerator / denominator <= limit`` (medians), as the issue states it; with
    ``denominator=None``, a time in seconds ``<= limit``: ``measure()`` (e.g. a first call in a fresh
    process, ``benchmarks/first_call.py``), or else the numerator's first call in this run."""
    text: str
    numerator: str
    denominator: str | None
    limit: float
    measure: Any = None


@dataclass
class Variant:
    key: str                    # "W1.forward"
    workload: str               # "W1"
    title: str
    unit: str                   # how medians are printed, e.g. "us/op"
    scale: float                # seconds -> unit, e.g. 1e6
    per: int                    # timed call = ``per`` units (W1: a chain of 200 ops)
    peers: list
    unavailable: dict = field(default_factory=dict)
    tol: float = DEFAULT_TOL
    ratios: list = field(default_factory=list)      # (label, numerator, denominator)
    targets: list = field(default_factory=list)
    notes: list = field(default_factory=list)


def standard_peers(env: Env, pynative, graph, numpy, torch_factory, jax_factory=None, compile_factory=None):
    """The standard columns from ``(make, outputs)`` pairs (``graph`` may add a third item, a
    context factory such as ``graph_mode``); ``torch_factory(torch)`` gives the PyTorch pair,
    ``jax_factory(jax)`` the ``JAX jit`` pair and ``compile_factory(torch)`` the ``torch.compile``
    pair (None: the workload has no such version).  Returns ``(peers, unavailable)``: the columns
    that cannot run go to ``unavailable``, with the reason."""
    off = env.fast.off
    peers = [Peer(PYNATIVE, *pynative, context=off),
             Peer(GRAPH, *graph[:2], context=chain_contexts(off, graph[2]) if len(graph) > 2 else off)]
    unavailable = {}
    if env.fast.available:
        peers.append(Peer(NUMBA, *pynative, context=env.fast.on))
        peers.append(Peer(NUMBA_GRAPH, *graph[:2],
                          context=chain_contexts(env.fast.on, graph[2]) if len(graph) > 2 else env.fast.on))
    else:
        unavailable[NUMBA] = unavailable[NUMBA_GRAPH] = env.fast.how
    peers.append(Peer(NUMPY, *numpy))
    if env.torch is not None:
        peers.append(Peer(TORCH, *torch_factory(env.torch)))
    else:
        unavailable[TORCH] = env.torch_reason
    if not env.compile:
        unavailable[TORCH_COMPILE] = "not run (--compile adds it: a minute or more of compiling per workload)"
    elif env.torch is None or compile_factory is None:
        unavailable[TORCH_COMPILE] = env.torch_reason if env.torch is None else "no torch.compile version written"
    else:
        peers.append(Peer(TORCH_COMPILE, *compile_factory(env.torch)))
    if env.jax is None or jax_factory is None:
        unavailable[JAX] = env.jax_reason if env.jax is None else "no JAX version of this workload written"
    else:
        peers.append(Peer(JAX, *jax_factory(env.jax)))
    return peers, unavailable
