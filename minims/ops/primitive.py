"""``mindspore.ops.primitive``: the Primitive base classes and ``prim_attr_register``, the decorator
MindSpore's own primitives put on ``__init__`` (its arguments become the primitive's attributes)."""
import functools
import inspect

from ..core.primitive import Primitive
from ..layout import missing_name
from ..primitives.base import PrimitiveWithInfer

__all__ = ["Primitive", "PrimitiveWithInfer", "prim_attr_register"]


def prim_attr_register(init):
    """``@prim_attr_register`` on a Primitive's ``__init__``: each argument it is called with (or
    its default) becomes an attribute, ``add_prim_attr(name, value)``, before ``__init__`` runs, as
    MindSpore's: ``P1(3.0)`` with ``__init__(self, alpha=2.0)`` has ``alpha == 3.0`` and prints
    ``Prim[P1]<alpha=3.0>``."""
    signature = inspect.signature(init)

    @functools.wraps(init)
    def registered(self, *args, **kwargs):
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        for name, value in list(bound.arguments.items())[1:]:
            if signature.parameters[name].kind not in (inspect.Parameter.VAR_POSITIONAL,
                                                       inspect.Parameter.VAR_KEYWORD):
                self.add_prim_attr(name, value)
        init(self, *args, **kwargs)
    return registered


__getattr__ = missing_name(__name__, "mindspore.ops.primitive")
