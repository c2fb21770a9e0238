"""The interpreters above the teaching core (``minims.core``: the stack, eval, the tape, forward mode,
batching, staging), and what the core's seams let them change:

* ``symbolic`` — runs a minims function on SymPy symbols (reference gradients for the tests and
  chapters); its user-facing functions are in ``minims.testing``;
* ``nan_check`` — the checking eval interpreter behind ``set_context(check_nan=True)``;
* ``rules`` — the tape's rule runner: a user's rule has its result checked, ``check_nan`` names the
  rule that made a NaN;
* ``running_cells`` — the Cells whose call is running (for messages that name a Cell path).
"""
from . import nan_check, rules  # noqa: F401 - they give the core its evaluator and its rule runner
