"""Reverse-mode differentiation: the API built on the core's gradient level (``minims.core.tape``).

* ``grad_api.py`` — ``GradOperation``, ``grad``, ``value_and_grad`` (``vjp_call`` underneath);
* ``custom_bprop.py`` — a Cell with its own ``bprop`` as one primitive per call;
* ``hooks.py`` — ``HookBackward`` and a Cell's backward hooks as identity primitives;
* ``jvp_from_bprop.py`` — forward mode for primitives that have only a ``bprop``: the transposition
  of a backward rule into a forward one.
"""
