"""``mindspore._c_expression``: the Python binding of MindSpore's C++ runtime (issue 25).

MindSpore's own tests import two of its names beside what they test: ``security`` (was MindSpore
built in security mode, which turns off graph dumps and printing? ``security.enable_security()``)
and ``CreationType`` (how a Tensor was made, for the view and in-place checks of its Ascend
runtime). minims answers both truthfully: it has no security build, and the enum is MindSpore's.
Every other name is the C++ runtime itself, which minims replaces with Python: reading one raises
``MissingNameError`` saying so.
"""
import enum

from ..layout.runtime_only import refusing_getattr
from . import security

__all__ = []        # private, as in MindSpore


class CreationType(enum.Enum):
    """MindSpore's ``CreationType``: how a Tensor was made (its values, as MindSpore 2.10 numbers them)."""

    DEFAULT = 0
    NO_GRAD_MODE = 1
    MULTI_OUTPUT = 2
    CUSTOM_BPROP = 3


__getattr__ = refusing_getattr(__name__, lambda name: (
    f"mindspore._c_expression.{name} belongs to MindSpore's C++ runtime, which minims replaces with Python "
    "(it has only security.enable_security() and CreationType there). Fix: use the public API (mindspore.ops, "
    "nn, jit, grad) that reaches it."))
