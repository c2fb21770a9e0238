"""Checkpoints in MindSpore's own ``.ckpt`` format: ``save_checkpoint``, ``load_checkpoint`` and
``load_param_into_net``, also at the top level (``minims.save_checkpoint``) and in
``minims.train``/``minims.train.serialization``, where MindSpore has them.

A file written by minims loads in MindSpore 2.10 and a file written by MindSpore loads in minims
(``tests/checkpoint/test_checkpoint_interop.py``).  One purpose per file:

* ``checkpoint.proto`` — the schema (protobuf); ``checkpoint_pb2.py`` is generated from it by
  ``tools/make_checkpoint_pb2.py``;
* ``fileformat.py`` — named arrays to bytes and back, with every check on a file read;
* ``atomic.py`` — writing a file so that an interrupted save never leaves a torn one;
* ``save.py``, ``load.py``, ``into_net.py`` — the three MindSpore functions and their rules.
"""
from .fileformat import CheckpointFileError
from .into_net import load_param_into_net
from .load import load_checkpoint
from .save import save_checkpoint

__all__ = ["save_checkpoint", "load_checkpoint", "load_param_into_net", "CheckpointFileError"]
