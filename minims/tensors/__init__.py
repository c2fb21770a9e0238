"""The Tensor as MindSpore has it, on top of the core's data model: its constructor and printing
(``convert``, ``repr``), ``Parameter``, the Parameters lent to gradient levels (``lending``), the
undo log that puts Parameters back when a call fails (``undo``), allocation limits (``memory``) and
the initializers."""
from . import convert  # noqa: F401 - installs MindSpore's constructor and printing on the Tensor
from . import dynamic_input  # noqa: F401 - Tensor(shape=[None, 3], dtype=...): a declared input of unknown size
