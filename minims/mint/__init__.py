"""``mindspore.mint``: MindSpore's PyTorch-like functions, as far as minims has them (issue 25).

Today ``narrow`` (compile_static_graph's page uses it); any other name says that MindSpore 2.10 may
have it and minims does not (``minims.layout.missing_name``).
"""
import numbers

from ..core.tensor import Tensor
from ..layout import missing_name
from ..tensors.convert import describe

__all__ = ["narrow"]


def _integer(arg, value, fix):
    if isinstance(value, Tensor) and value.dtype.name.startswith(("Int", "UInt")) and value.size == 1:
        return int(value.item())
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    raise TypeError(f"narrow: '{arg}' must be an int, but got {describe(value)}. Fix: {fix}")


def narrow(input, dim, start, length):  # noqa: A002 - MindSpore's names
    """``mint.narrow(input, dim, start, length)``: the entries ``start, ..., start + length - 1`` of axis
    ``dim`` (``start`` may be negative, counted from the end, or an integer Tensor); a slice of ``input``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"narrow: 'input' must be a Tensor, but got {describe(input)}. "
                        "Fix: mint.narrow(Tensor(...), ...).")
    dim = _integer("dim", dim, "give the axis as an int, e.g. 1.")
    start = _integer("start", start, "give the first index as an int.")
    length = _integer("length", length, "give the number of entries as an int.")
    if not -input.ndim <= dim < input.ndim:
        raise ValueError(f"narrow: Dimension out of range (expected to be in range of [{-input.ndim}, "
                         f"{input.ndim}), but got {dim}). Fix: pick an axis of the input's shape {list(input.shape)}.")
    size = input.shape[dim]
    if not -size <= start <= size:
        raise ValueError(f"narrow: start value error, start: {start}, start should be in [{-size}, {size}]. "
                         f"Fix: axis {dim} has {size} entries.")
    start = start + size if start < 0 else start
    if length < 0 or start + length > size:
        raise ValueError(f"narrow: start ({start}), + length ({length}) exceeds dimension size ({size}). Fix: "
                         f"take at most {size - start} entries from {start}.")
    index = (slice(None),) * (dim % input.ndim) + (slice(start, start + length),)
    return input[index]


__getattr__ = missing_name(__name__, "mindspore.mint")
