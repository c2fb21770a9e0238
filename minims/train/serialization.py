"""``mindspore.train.serialization``: the module where MindSpore defines its checkpoint functions
(minims' are in ``minims/checkpoint/``)."""
from ..checkpoint import load_checkpoint, load_param_into_net, save_checkpoint

from ..layout.runtime_only import runtime_only

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net"]

# ``mindspore.export``/``load`` are these very functions in MindSpore: minims' own graph file
# (``minims/checkpoint/graph_file.py``, not MindIR); the compiler's protobuf dump has no counterpart
from ..checkpoint.graph_file import export, load  # noqa: E402

_save_graph = runtime_only("mindspore.train.serialization._save_graph",
                           "writes the compiled graph in MindSpore's protobuf format",
                           "print(jit(net).graph(*inputs)) shows the graph minims compiles.")

from ..layout import missing_name  # noqa: E402

__getattr__ = missing_name(__name__, "mindspore.train.serialization")
