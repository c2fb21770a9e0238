"""``nn.GraphCell``: a Cell that runs a graph read back by ``minims.load`` (issue 25).

The graph's equations run again through ``bind`` (the core's graph interpreter), so a GraphCell runs
in PyNative and Graph mode alike and is differentiable with respect to its inputs; its weights are
the constants ``export`` baked in.
"""
from __future__ import annotations

from ..core.ir import Graph
from ..core.staging import interpret, rebuild
from ..core.tensor import Tensor
from ..tensors.convert import describe
from .cell import Cell

__all__ = ["GraphCell", "GraphInputError"]


class GraphInputError(RuntimeError):
    """A GraphCell called with inputs of other shapes or dtypes than the graph was exported for
    (MindSpore 2.10: RuntimeError from its shape inference)."""


class GraphCell(Cell):
    """``nn.GraphCell(graph)``: run the graph ``minims.load`` returned on new inputs."""

    def __init__(self, graph, params_init=None, obf_random_seed=None):
        super().__init__()
        if not isinstance(graph, Graph):
            raise TypeError(f"For 'GraphCell', the argument 'graph' must be a graph loaded with minims.load, but "
                            f"got {describe(graph)}. Fix: nn.GraphCell(minims.load('net.mindir')).")
        if params_init is not None:
            raise ValueError("GraphCell: params_init is not supported; the exported graph holds its weights. "
                             "Fix: export the network again after loading the new weights into it.")
        self.graph = graph

    def construct(self, *inputs):
        expected = self.graph.inputs[:self.graph.n_explicit]
        got = [(tuple(x.shape), x.dtype) if isinstance(x, Tensor) else None for x in inputs]
        if got != [(tuple(v.shape), v.dtype) for v in expected]:
            raise GraphInputError(
                f"GraphCell '{self.graph.name}': the graph was exported for inputs "
                f"({', '.join(v.type for v in expected)}), but got ({', '.join(describe(x) for x in inputs)}). "
                "Fix: call it with inputs of those shapes and dtypes, or export the network for these.")
        outs = interpret(self.graph, inputs)
        return rebuild(self.graph.out_tree, list(outs) if isinstance(outs, tuple) else [outs])
