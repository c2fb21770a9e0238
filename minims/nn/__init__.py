"""``minims.nn``: Cells (MindSpore's ``mindspore.nn``)."""
from .cell import Cell, HookHandle
