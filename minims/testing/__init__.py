"""Tools to test differentiation: finite-difference checks and symbolic references.

* :func:`check_grads` — reverse-mode derivatives (up to any order) against central differences;
* :func:`numerical_grad` — a full gradient by central differences, for small inputs;
* :func:`symbolic_call`, :func:`symbolic_grad`, :func:`reference_grad`, :func:`symbols_like` — run a
  minims function on SymPy symbols and differentiate the formula with ``sympy.diff``
  (see ``minims.interpreters.symbolic``);
* :func:`check_modes` — the same function and its derivatives in PyNative, Graph mode and ``jit``;
* :func:`leftover_state`, :func:`global_state` — the state minims keeps between calls (is it clean
  after an error?);
* ``minims.testing.accuracy`` — the ULP error of every elementwise rule against mpmath (imported on
  its own: ``python -m minims.testing.accuracy``).
* :func:`with_parameters_as_args` — a Cell's Parameters as arguments, for ``check_grads``.
"""
from .gradcheck import DEFAULT_ATOL, DEFAULT_EPS, DEFAULT_RTOL, check_grads, numerical_grad
from ..interpreters.symbolic import reference_grad, symbolic_call, symbolic_grad, symbols_like

__all__ = ["check_grads", "numerical_grad", "symbolic_call", "symbolic_grad", "reference_grad",
           "symbols_like", "DEFAULT_EPS", "DEFAULT_RTOL", "DEFAULT_ATOL"]
from .modes import MODE_FAMILIES, ModeResults, check_modes
from .state import global_state, leftover_state

__all__ += ["check_modes", "ModeResults", "MODE_FAMILIES", "global_state", "leftover_state"]
from .weights import with_parameters_as_args

__all__ += ["with_parameters_as_args"]
