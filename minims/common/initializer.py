"""``mindspore.common.initializer``: ``minims.tensors.initializer`` under MindSpore's name."""
from ..tensors.initializer import *  # noqa: F401,F403
