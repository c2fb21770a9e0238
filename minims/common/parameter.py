"""``mindspore.common.parameter``: ``minims.tensors.parameter`` under MindSpore's name."""
from ..tensors.parameter import *  # noqa: F401,F403
# MindSpore's private spelling, which its own tests import: whether a name was generated (Parameter#<n>)
from ..tensors.parameter import is_generated_name as _is_parameter_generated  # noqa: F401

from ..layout import missing_name  # noqa: E402

__getattr__ = missing_name(__name__, "mindspore.common.parameter")
