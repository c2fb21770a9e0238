"""MindSpore's ``mindspore.train`` namespace, as far as minims has it: the checkpoint functions
(which live in ``minims/checkpoint/``)."""
from ..checkpoint import load_checkpoint, load_param_into_net, save_checkpoint
from . import serialization

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "serialization"]
