"""``mindspore.common.parameter``: ``minims.tensors.parameter`` under MindSpore's name."""
from ..tensors.parameter import *  # noqa: F401,F403
