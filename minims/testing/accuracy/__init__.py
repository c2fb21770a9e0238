"""How accurate is each rule? ULP errors of every elementwise primitive's rules against mpmath.

For every elementwise primitive of the table (``domains.MEASURED``) and every rule it has — its
forward ``impl``, its backward rule (``bprop``), its forward-mode rule (``jvp``), and second
derivatives through those rules (``bprop∘bprop``, ``jvp∘jvp``) — the harness computes the result at
a few thousand points of documented domains (``domains``), in float64 and float32, and compares it
with the true value: the matching derivative of the primitive's SymPy form, evaluated by mpmath with
at least 50 digits (``reference``).  The error is in ULP of the true value (``ulp``); points whose true
value is zero, subnormal, beyond the range or undefined are counted apart.  Each row has a documented
bound (``bounds``: 4 ULP; one derivative near its zero: 4 ULP times a condition number, with the
reason written down).

* ``measure(names=None, points=2000)`` -> a list of :class:`Row`;
* ``python -m minims.testing.accuracy --write`` regenerates ``accuracy.json`` and the table of ``docs/accuracy.md``;
* ``tests/testing/test_accuracy_bounds.py`` runs it on a coarse grid and fails when a row exceeds its bound.

Modules: ``ulp`` (errors in ULP), ``reference`` (true values), ``domains`` (where to sample),
``rules`` (running a rule), ``bounds``, ``measure`` (the loop), ``report`` (JSON and Markdown).
"""
from .bounds import CONDITIONED, DEFAULT_BOUND, bound_for
from .domains import MEASURED, NOT_MEASURED
from .measure import DEFAULT_POINTS, Row, measure
from .rules import RULE_KINDS

__all__ = ["measure", "Row", "MEASURED", "NOT_MEASURED", "RULE_KINDS", "DEFAULT_BOUND", "CONDITIONED",
           "bound_for", "DEFAULT_POINTS"]
