"""``mindspore.train.serialization``: the module where MindSpore defines its checkpoint functions
(minims' are in ``minims/checkpoint/``)."""
from ..checkpoint import load_checkpoint, load_param_into_net, save_checkpoint

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net"]

from ..layout import missing_name  # noqa: E402

__getattr__ = missing_name(__name__, "mindspore.train.serialization")
