"""Graph mode on the core's staging interpreter and IR (``minims.core.staging``, ``minims.core.ir``):

* ``tracing.py`` — compiling a MindSpore function: Parameters as inputs, their writes, Cell
  attributes, shapes that depend on values; ``printing.py`` — a graph's text form;
* ``passes.py`` (``simplify.py``, ``rewriting.py``) — constant folding, CSE, algebraic
  simplification, dead-code elimination;  ``executor.py`` — the flat plan;  ``fuse.py`` — fusion;
* ``call.py`` — a graph as a primitive; ``residuals.py`` — its gradient as a forward graph that keeps
  residuals and a backward graph that reads them (``replay.py``: the joint graph they come from);
* ``jit.py`` — ``jit``/``ms_function``;  ``draw.py``, ``draw_tape.py`` — pictures.
"""
from ..core.ir import Graph
from . import draw, printing, rewriting  # noqa: F401 - install a graph's picture, text and pass reports
from .jit import JitFunction, jit, ms_function
from .tracing import StaticGraphError, is_staging, trace_to_graph
