"""``mindspore.common.api``: the module where MindSpore defines ``jit`` (``minims.graph``'s) and
``jit_class``, and ``_pynative_executor``, which MindSpore's own tests import to wait for queued
operators."""
from ..graph import jit
from ..layout import missing_name
from ..tensors.convert import _describe

__all__ = ["jit", "jit_class"]


def jit_class(cls):
    """``@jit_class``: MindSpore marks a class whose instances a compiled graph may use. minims compiles
    by running the Python code, which can use any object, so the class is returned as it is."""
    if not isinstance(cls, type):       # TypeError, as MindSpore 2.10
        raise TypeError(f"jit_class: decorates a class, but got {_describe(cls)}. Fix: put @jit_class "
                        "above a class statement.")
    return cls


class _PynativeExecutor:
    """MindSpore's executor of PyNative operators, as far as code outside MindSpore touches it."""

    def sync(self):
        """Wait for the operators launched so far: minims runs each one when it is called, so none is pending."""


_pynative_executor = _PynativeExecutor()

__getattr__ = missing_name(__name__, "mindspore.common.api")
