"""``mindspore.common.initializer``: ``minims.tensors.initializer`` under MindSpore's name."""
from ..tensors.initializer import *  # noqa: F401,F403

from ..layout import missing_name  # noqa: E402

__getattr__ = missing_name(__name__, "mindspore.common.initializer")
