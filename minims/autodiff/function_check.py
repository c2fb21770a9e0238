"""The check every transform makes of the function it is given (``grad``, ``jvp``, ``vmap``, ...).

The usual slip is to pass the result ``fn(x)`` instead of ``fn``.  Each transform says so when it is
given the value, with the right and the wrong call written out, instead of failing later with
Python's "'Tensor' object is not callable".  The error is a ``TypeError`` (what Python raises for a
call of something that is not a function) and also MindSpore 2.10's type for the same slip where that
differs: ``ValueError`` for ``jvp``, ``jacfwd`` and ``jacrev``, ``RuntimeError`` for ``derivative``
and ``vmap`` (checked by running MindSpore).
"""
from __future__ import annotations

from ..core.errors import MinimsError
from ..tensors.convert import _describe

__all__ = ["NotAFunctionError", "NotAFunctionValueError", "NotAFunctionRuntimeError", "require_function"]


class NotAFunctionError(MinimsError, TypeError):
    """A transform was given something that is not a function (often ``fn(x)`` instead of ``fn``)."""


class NotAFunctionValueError(NotAFunctionError, ValueError):
    """The same, where MindSpore raises ValueError."""


class NotAFunctionRuntimeError(NotAFunctionError, RuntimeError):
    """The same, where MindSpore raises RuntimeError."""


_AS_MINDSPORE = {TypeError: NotAFunctionError, ValueError: NotAFunctionValueError,
                 RuntimeError: NotAFunctionRuntimeError}


def require_function(fn, where: str, right: str, wrong: str, mindspore: type = TypeError,
                     purpose: str = "to differentiate") -> None:
    """Raise unless ``fn`` is callable.  ``right`` and ``wrong`` are the call written with ``fn`` and
    with ``fn(x)`` (``grad(fn)(x)``, ``grad(fn(x))``); ``mindspore``: MindSpore's exception type."""
    if callable(fn):
        return
    raise _AS_MINDSPORE[mindspore](
        f"{where}: expected a function or Cell {purpose}, got {_describe(fn)}. "
        f"Fix: pass the function itself, {right}, not its result {wrong}.")
