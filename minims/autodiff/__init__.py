"""Reverse-mode differentiation: gradient levels and the API built on them.

* ``tape.py`` — one gradient level: the tape interpreter and its backward pass;
* ``grad_api.py`` — ``GradOperation``, ``grad``, ``value_and_grad`` (``vjp_call`` underneath);
* ``custom_bprop.py`` — a Cell with its own ``bprop`` as one primitive per call;
* ``hooks.py`` — ``HookBackward`` and a Cell's backward hooks as identity primitives.
"""
