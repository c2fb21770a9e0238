"""``mindspore.common.dtype`` (``mstype``): ``minims.dtype`` under MindSpore's name."""
from ..dtype import *  # noqa: F401,F403
from ..dtype import __all__  # noqa: F401
