"""``Tensor(shape=[None, 3], dtype=...)``: MindSpore's placeholder for an input of unknown size.

MindSpore declares the inputs a Graph-mode Cell may take with ``cell.set_inputs(Tensor(shape=[None, 3],
dtype=...))``, so that one graph serves every batch size.  Such a Tensor has a dtype and a shape in
which an unknown dimension is -1, and no values.  minims compiles one graph per shape anyway, so the
declaration changes nothing here; the placeholder exists so that MindSpore's code runs, and it refuses
every use of values (MindSpore 2.10 raises ValueError for them too: "negative dimensions are not
allowed"), never computing with a made-up array.
"""
from __future__ import annotations

from .. import dtype as mstype
from ..core import install
from ..core.tensor import Tensor

__all__ = ["DynamicInput", "is_dynamic_shape"]


def is_dynamic_shape(shape) -> bool:
    """Does ``shape`` (a list or tuple) have an unknown dimension (None or -1)?"""
    return isinstance(shape, (list, tuple)) and any(d is None or (isinstance(d, int) and d < 0) for d in shape)


class DynamicInput:
    """The shape and dtype of an input whose size is not known; it has no values (module docstring)."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype=None):
        self.shape = tuple(-1 if d is None else int(d) for d in shape)
        self.dtype = mstype.float32 if dtype is None else mstype.to_dtype(dtype, "Tensor")

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value=\n)"

    def _refuse(self, *args, **kwargs):
        raise ValueError(
            f"Tensor(shape={list(self.shape)}, dtype={self.dtype}) declares an input of unknown size "
            "(for Cell.set_inputs); it has no values to compute with. Fix: pass a Tensor with data, "
            "e.g. Tensor(np.zeros((2, 3), np.float32)).")

    def __getattr__(self, name):
        if name.startswith("_"):        # a probe (hasattr, getattr with a default) answers as usual
            raise AttributeError(name)
        self._refuse()


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
              "__rtruediv__", "__matmul__", "__neg__", "__getitem__", "__array__", "__bool__", "__float__",
              "__len__", "__iter__"):
    setattr(DynamicInput, _name, DynamicInput._refuse)


def _tensor_new(cls, input_data=None, dtype=None, shape=None, init=None, *args, **kwargs):
    if cls is Tensor and input_data is None and init is None and is_dynamic_shape(shape):
        return DynamicInput(shape, dtype)
    return object.__new__(cls)


install(Tensor, __new__=staticmethod(_tensor_new))
