"""Interpreters that run minims programs.

* ``stack`` — ``bind``, the interpreter stack and the eval interpreter at its bottom;
* ``symbolic`` — runs a minims function on SymPy symbols (reference gradients for the tests and
  chapters).  Import it explicitly (``from minims.interpreters.symbolic import symbolic_call``) or
  through ``minims.testing``.  It is not imported here because it needs ``minims.ops``, which in
  turn needs ``stack``: importing it from this file would be circular.
"""
