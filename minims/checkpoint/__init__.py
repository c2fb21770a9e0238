"""Checkpoints in MindSpore's own ``.ckpt`` format.

* ``checkpoint.proto`` — the schema (protobuf); ``checkpoint_pb2.py`` is generated from it by
  ``tools/make_checkpoint_pb2.py``.
"""
