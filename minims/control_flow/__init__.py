"""Control flow on Tensors inside a graph: primitives whose parameters are graphs (issue 24).

``Cond`` (``cond.py``) picks one of two branch graphs by a predicate; ``While`` and ``Scan``
(``loops.py``) run a body graph while a condition graph holds, or once per step along a leading
axis.  ``staged.py`` stages Python functions into those graphs and runs graphs under one more
interpreter (the rules of these primitives are the same primitives over transformed graphs);
``recording.py`` is how a gradient level records them (the chosen branch, each iteration, through
the residual split); ``staging_loops.py`` holds ``while_loop`` and ``scan``; ``public_ops.py`` is
MindSpore 2.10's ``ops.WhileLoop``, ``ops.ForiLoop`` and ``ops.Scan``.
"""
from .cond import BranchShapeError, BranchTypeError, Cond, PredicateError, cond
from .loops import CarryShapeError, CarryTypeError, LoopVjp, Scan, SymbolicLoopError, While
from .staged import SideEffectError
from .staging_loops import InfiniteLoopError, scan, while_loop

__all__ = ["Cond", "While", "Scan", "LoopVjp", "cond", "while_loop", "scan", "BranchTypeError",
           "BranchShapeError", "PredicateError", "CarryTypeError", "CarryShapeError", "SymbolicLoopError",
           "SideEffectError", "InfiniteLoopError"]
