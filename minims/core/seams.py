"""How the layers above reach into the core without the core knowing them: five seams.

The core imports nothing of minims outside itself, yet minims is more than the core: MindSpore's
API and messages, Parameters lent to gradient levels, ``check_nan``, compiled graphs, threads.  Each
of those reaches the core through one of these, each defined where it acts:

1. **an evaluator swap** — ``stack.set_evaluator(fn)`` puts another eval interpreter at the bottom
   of the stack (``check_nan`` checks every output);
2. **rewriters** — ``stack.add_rewriter(fn)`` shows every ``bind`` to ``fn`` first (a gradient
   level lends a Parameter a stand-in; a custom ``bprop`` may read no Parameter);
3. **a rule runner** — ``tape.set_rule_runner(fn)`` runs each backward rule of a backward pass
   (``check_nan`` names the rule that made a NaN; a user's rule has its result checked);
4. **custom nodes** — a primitive with a ``record_node(trace, args)`` method records itself on a
   gradient level (a compiled graph keeps its residuals and its backward graph);
5. **install** — ``install(cls, **attributes)`` gives a core class the parts of MindSpore's API
   that are not the idea: a Tensor's constructor checks, printing and methods, a primitive's
   argument checks and messages.  ``installed()`` lists what was installed, and by whom.
"""
from __future__ import annotations

import sys

__all__ = ["install", "installed"]

_installed: list = []       # (class name, attribute, module that installed it)


def install(cls, **attributes) -> None:
    """Seam 5: set ``attributes`` on the core class ``cls`` (module docstring)."""
    caller = sys._getframe(1).f_globals.get("__name__", "?")
    for name, value in attributes.items():
        setattr(cls, name, value)
        _installed.append((cls.__name__, name, caller))


def installed() -> list:
    """``(class, attribute, installing module)`` for everything the layers above installed."""
    return list(_installed)
