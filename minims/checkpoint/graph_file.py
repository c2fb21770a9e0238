"""``mindspore.export`` and ``mindspore.load``: a network's graph written to a file and read back (issue 25).

``export(net, *inputs, file_name=..., file_format="MINDIR")`` traces ``net`` on ``inputs`` as
Graph mode does (``minims.graph.tracing``), with its Parameters' values baked in as constants, and
writes the graph to ``<file_name>.mindir``; ``load`` reads it back for ``nn.GraphCell`` to run.

**The file is minims' own, not MindSpore's MindIR**: it keeps the name and the ``.mindir`` ending so
MindSpore's code runs unchanged, but holds minims' graph (its primitives and constants) pickled
behind a header line. MindSpore cannot read it, and minims refuses a MindIR that MindSpore wrote
(it says so). Reading unpickles only minims' and NumPy's classes; as with any pickle, load only
files you trust.
"""
from __future__ import annotations

import io
import os
import pickle

from ..core.tensor import Tensor
from ..graph.tracing import trace_to_graph
from ..nn.cell import Cell
from ..tensors.convert import describe
from .atomic import write_atomically

__all__ = ["export", "load", "GraphFileError"]

HEADER = b"minims graph file 1 (not MindSpore MindIR; read by minims.load)\n"
FORMATS = ("AIR", "ONNX", "MINDIR")
_BUILTINS = frozenset({"slice", "tuple", "list", "dict", "set", "frozenset", "complex", "float", "int",
                       "bool", "range", "getattr"})


class GraphFileError(ValueError):
    """A file ``load`` cannot read: missing, not ending in .mindir, or not written by minims' export."""


def _no_options(name, options):
    """MindSpore's further options (encryption keys, obfuscation) would be ignored silently: refused."""
    if options:
        raise ValueError(f"{name}: minims' graph file has none of MindSpore's options {sorted(options)} "
                         f"(encryption, obfuscation). Fix: call {name} without them.")


def export(net, *inputs, file_name, file_format="MINDIR", **kwargs):
    """``mindspore.export(net, *inputs, file_name, file_format='MINDIR')``: write ``net``'s graph for
    ``inputs`` to ``file_name`` (``.mindir`` appended when missing). Only ``MINDIR`` is written, in
    minims' own format (see the module's docstring)."""
    _no_options("export", kwargs)
    if file_format not in FORMATS:
        raise ValueError(f"For 'export', 'file_format' must be one of {list(FORMATS)}, but got {file_format}. "
                         "Fix: file_format='MINDIR'.")
    if file_format != "MINDIR":
        raise ValueError(f"export: minims writes only file_format='MINDIR' (its own graph file), not "
                         f"{file_format}. Fix: file_format='MINDIR', and read it back with minims.load.")
    if not callable(net):
        raise TypeError(f"export: 'net' must be a Cell or a function, but got {describe(net)}.")
    if not all(isinstance(x, Tensor) for x in inputs):
        raise TypeError(f"export: the inputs must be Tensors (the example inputs the graph is traced on), but "
                        f"got ({', '.join(describe(x) for x in inputs)}). "
                        "Fix: export(net, Tensor(...), file_name=...).")
    graph = trace_to_graph(net, inputs, name=type(net).__name__ if isinstance(net, Cell) else None,
                           parameters_as_inputs=False)
    if graph.effects or graph.attributes:
        raise ValueError(f"export: {type(net).__name__} writes to its Parameters or attributes when it runs "
                         "(an optimizer step, BatchNorm's statistics in training), which a graph file cannot "
                         "carry. Fix: net.set_train(False) before export, or export the network without the step.")
    path = file_name if file_name.endswith(".mindir") else file_name + ".mindir"
    write_atomically(path, [HEADER, pickle.dumps(graph, protocol=4)])


class _GraphUnpickler(pickle.Unpickler):
    """Rebuilds only minims' and NumPy's classes (and a few builtins): no other code runs on load."""

    def find_class(self, module, name):
        top = module.split(".")[0]
        if top in ("minims", "numpy") or (module == "builtins" and name in _BUILTINS):
            return super().find_class(module, name)
        raise GraphFileError(f"load: the file asks for {module}.{name}, which a minims graph file never holds. "
                             "Fix: load only graph files minims' export wrote.")


def load(file_name, **kwargs):
    """``mindspore.load(file_name)``: the graph a minims ``export`` wrote, for ``nn.GraphCell(graph)``."""
    _no_options("load", kwargs)
    if not str(file_name).endswith(".mindir"):
        raise GraphFileError(f"For 'load', the argument 'file_name'(MindIR file) should end with '.mindir', "
                             f"please input the correct 'file_name'. Got {file_name!r}.")
    if not os.path.isfile(file_name):
        raise GraphFileError(f"For 'load', the argument 'file_name'(MindIR file) does not exist, please check "
                             f"whether the 'file_name' is correct. Got {file_name!r}.")
    with open(file_name, "rb") as f:
        data = f.read()
    if not data.startswith(HEADER):
        raise GraphFileError(f"load: {file_name!r} is not a graph file written by minims' export (a MindIR file "
                             "MindSpore wrote is a protobuf minims cannot run). Fix: export the network with "
                             "minims.export, or load its weights from a checkpoint with minims.load_checkpoint.")
    return _GraphUnpickler(io.BytesIO(data[len(HEADER):])).load()
