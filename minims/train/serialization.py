"""``mindspore.train.serialization``: the module where MindSpore defines its checkpoint functions
(minims' are in ``minims/checkpoint/``)."""
from ..checkpoint import load_checkpoint, load_param_into_net, save_checkpoint

from ..layout.runtime_only import runtime_only

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net"]

# the graph files of MindSpore's compiler (MindIR, AIR): their names import, a call refuses
export = runtime_only("mindspore.train.serialization.export",
                      "writes the network as a MindIR or AIR graph for MindSpore's compiler",
                      "save the weights with save_checkpoint(net, 'net.ckpt'); print(jit(net).graph(*inputs)) "
                      "shows minims' graph.")
load = runtime_only("mindspore.train.serialization.load", "reads a MindIR graph into MindSpore's compiler",
                    "rebuild the network in Python and load_checkpoint its weights.")
_save_graph = runtime_only("mindspore.train.serialization._save_graph",
                           "writes the compiled graph in MindSpore's protobuf format",
                           "print(jit(net).graph(*inputs)) shows the graph minims compiles.")

from ..layout import missing_name  # noqa: E402

__getattr__ = missing_name(__name__, "mindspore.train.serialization")
