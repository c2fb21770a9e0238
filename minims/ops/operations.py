"""``mindspore.ops.operations`` (``P``): the Primitive classes of ``minims.ops``, under MindSpore's
module name, so ``from mindspore.ops import operations as P; P.Mul()(x, y)`` runs unchanged.

A view (``minims.layout.view``): ``P.Name`` is ``ops.Name`` when that is a class MindSpore keeps
here (a Primitive, or a name MindSpore 2.10 lists in ``ops.operations``), read when it is asked for.
"""
from ..core.primitive import Primitive
from ..layout import mindspore_names, view


def _is_operation(name, value):
    return isinstance(value, type) and (issubclass(value, Primitive)
                                        or name in mindspore_names("mindspore.ops.operations"))


__getattr__, __dir__ = view(__name__, "mindspore.ops.operations", "minims.ops", _is_operation)
