"""``mindspore.nn.grad``: ``Jvp`` and ``Vjp``, MindSpore's Cells around the functional ``ops.jvp`` and
``ops.vjp`` (``Jvp(net)(*inputs, v)``, ``Vjp(net)(*inputs, v)``).

The last argument is ``v``: the tangent of the inputs (``Jvp``) or the cotangent of the outputs
(``Vjp``) — one Tensor for one input (output), a tuple of as many Tensors for several. Another
structure is a TypeError, as MindSpore 2.10 (which words it "Type Join Failed").
"""
from ..core.tensor import Tensor
from ..layout import missing_name
from ..tensors.convert import _describe
from ..transforms.transforms import jvp, vjp
from .cell import Cell

__all__ = ["Jvp", "Vjp"]


def _split(args, where):
    """``(inputs, v)`` of a call ``(*inputs, v)``; every input must be a Tensor."""
    if len(args) < 2:
        raise TypeError(f"{where}: expected the network's inputs followed by v, but got {len(args)} "
                        f"argument{'s' if len(args) != 1 else ''}. Fix: {where}(net)(x, v).")
    inputs, v = args[:-1], args[-1]
    for i, a in enumerate(inputs):
        if not isinstance(a, Tensor):
            raise TypeError(f"{where}: input {i} must be a Tensor, but got {_describe(a)}. Fix: pass the "
                            f"inputs one by one, {where}(net)(x, y, (vx, vy)), not as a tuple.")
    return inputs, v


def _check_like(v, n, what, where):
    """``v`` must be one Tensor for ``n == 1``, a tuple of ``n`` Tensors otherwise."""
    ok = isinstance(v, Tensor) if n == 1 else (
        isinstance(v, tuple) and len(v) == n and all(isinstance(t, Tensor) for t in v))
    if not ok:
        shape = "one Tensor" if n == 1 else f"a tuple of {n} Tensors"
        raise TypeError(f"{where}: v must be {shape}, one per {what}, but got {_describe(v)}. Fix: "
                        f"{'pass the Tensor itself, not a tuple' if n == 1 else 'one Tensor per ' + what}.")


class Jvp(Cell):
    """``nn.grad.Jvp(fn)``: ``Jvp(fn)(*inputs, v)`` is ``(fn(*inputs), J v)`` (``ops.jvp``)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        inputs, v = _split(args, "Jvp")
        _check_like(v, len(inputs), "input", "Jvp")
        return jvp(self.fn, inputs[0] if len(inputs) == 1 else inputs, v)


class Vjp(Cell):
    """``nn.grad.Vjp(fn)``: ``Vjp(fn)(*inputs, v)`` is ``(fn(*inputs), v^T J)``, the gradients a Tensor
    for one input and a tuple for several (``ops.vjp``)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        inputs, v = _split(args, "Vjp")
        out, vjp_fn = vjp(self.fn, *inputs)
        _check_like(v, len(out) if isinstance(out, tuple) else 1, "output", "Vjp")
        grads = vjp_fn(v)
        return out, grads[0] if len(inputs) == 1 else grads


__getattr__ = missing_name(__name__, "mindspore.nn.grad")
