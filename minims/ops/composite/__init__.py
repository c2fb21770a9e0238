"""``mindspore.ops.composite`` (``C``): the names of ``minims.ops`` that MindSpore 2.10 keeps in
``ops.composite`` (``C.GradOperation``, ``C.zeros_like`` ...), under MindSpore's module name.

A view (``minims.layout.view``), read when a name is asked for; ``base`` is the module where
MindSpore defines ``GradOperation``.
"""
from ...layout import mindspore_names, view
from . import base  # noqa: F401 - mindspore.ops.composite.base


def _is_composite(name, value):
    return name in mindspore_names("mindspore.ops.composite")


__getattr__, __dir__ = view(__name__, "mindspore.ops.composite", "minims.ops", _is_composite)
