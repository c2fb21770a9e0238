"""Interpreters that run minims programs.

* ``stack`` — ``bind``, the interpreter stack and the eval interpreter at its bottom;
* ``symbolic`` — runs a minims function on SymPy symbols (reference gradients for the tests and
  chapters); its user-facing functions are in ``minims.testing``;
* ``nan_check`` — the checking eval interpreter behind ``set_context(check_nan=True)``.
"""
