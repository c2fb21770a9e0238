"""Graph mode: the staging interpreter, the graph IR, optimisation passes, the executor and ``jit``.

* ``staging.py`` — traces a function into a graph;  ``ir.py`` — the graph and its text form;
* ``passes.py`` — constant folding, CSE, dead-code elimination;  ``executor.py`` — the flat plan;
* ``call.py`` — a graph as a primitive, and its backward graph;  ``jit.py`` — ``jit``/``ms_function``.
"""
from ..core.ir import Graph
from .jit import JitFunction, jit, ms_function
from .tracing import StaticGraphError, is_staging, trace_to_graph
