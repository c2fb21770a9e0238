"""``mindspore.common.dtype`` (``mstype``): ``minims.dtype`` under MindSpore's name."""
from ..dtype import *  # noqa: F401,F403
from ..dtype import __all__  # noqa: F401

from ..layout import missing_name  # noqa: E402

__getattr__ = missing_name(__name__, "mindspore.common.dtype")
