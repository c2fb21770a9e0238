"""``nn.Embedding``: a lookup table of vectors, one row per token id (MindSpore 2.10).

The table is a Parameter ``(vocab_size, embedding_size)``, initialised ``'normal'`` (``N(0, 0.01²)``)
by default, with the row ``padding_idx`` (if given) set to zeros.  ``construct(ids)`` reads one row
per id — an indexing primitive, so the table's gradient adds each id's gradient into its row — or,
with ``use_one_hot=True``, multiplies the one-hot rows of the ids with the table (the same numbers,
as a matrix product).
"""
from __future__ import annotations

from ... import dtype as mstype
from ... import ops
from ...core.tensor import Tensor
from ...tensors.convert import _describe
from ...tensors.initializer import initializer
from ...tensors.parameter import Parameter
from ..cell import Cell
from .basic import _check_bool, _positive_int

__all__ = ["Embedding"]


class Embedding(Cell):
    """``nn.Embedding(vocab_size, embedding_size, use_one_hot=False, embedding_table='normal',
    dtype=mindspore.float32, padding_idx=None)``: ``ids (...)`` -> ``(..., embedding_size)``."""

    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
                 dtype=mstype.float32, padding_idx=None):
        super().__init__()
        self.vocab_size = _positive_int("Embedding", "vocab_size", vocab_size)
        self.embedding_size = _positive_int("Embedding", "embedding_size", embedding_size)
        self.use_one_hot = _check_bool("Embedding", "use_one_hot", use_one_hot)
        self.dtype = mstype.to_dtype(dtype, "Embedding(dtype)")
        if padding_idx is not None and (isinstance(padding_idx, bool) or not isinstance(padding_idx, int)
                                        or not 0 <= padding_idx < vocab_size):
            raise ValueError(f"Embedding: padding_idx must be None or an int in [0, {vocab_size}), but got "
                             f"{padding_idx!r}.")
        self.padding_idx = padding_idx
        table = initializer(embedding_table, [vocab_size, embedding_size], self.dtype)
        if padding_idx is not None:
            table = Tensor._make(table.asnumpy())
            table._data[padding_idx] = 0
        self.embedding_table = Parameter(table, name="embedding_table")

    def construct(self, ids):
        if not isinstance(ids, Tensor) or ids.dtype.kind != "int":
            raise TypeError(f"{self.path}: ids must be an int Tensor of token ids, but got {_describe(ids)}. Fix: "
                            "Tensor(ids, mindspore.int32).")
        if not self.use_one_hot:
            return ops.gather(self.embedding_table, ids, 0)
        rows = ops.one_hot(ops.reshape(ids, (-1,)), self.vocab_size, dtype=self.dtype)
        return ops.reshape(ops.matmul(rows, self.embedding_table), tuple(ids.shape) + (self.embedding_size,))

    def extend_repr(self):
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"use_one_hot={self.use_one_hot}, embedding_table={self.embedding_table!r}, dtype={self.dtype}, "
                f"padding_idx={self.padding_idx}")
