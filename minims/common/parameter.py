"""``mindspore.common.parameter``: ``minims.tensors.parameter`` under MindSpore's name."""
from ..tensors.parameter import *  # noqa: F401,F403

from ..layout import missing_name  # noqa: E402

__getattr__ = missing_name(__name__, "mindspore.common.parameter")
