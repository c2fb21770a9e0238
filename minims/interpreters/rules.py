"""How a backward pass runs the rules that need more than a call: the tape's rule runner (seam 3).

A built-in rule is called directly by the tape: the property tests check all of them over the whole
table.  A user's rule (a ``Primitive`` subclass, a custom ``bprop``, a hook) has its result checked
on every call — a tuple with one gradient (or None) per input, each shaped like its input — so a
mistake is an error naming the rule, not a wrong number further on.  With ``check_nan`` on, every
rule runs here, so that a NaN found while it runs names it (``nan_check.current_rule``).

``check_every_rules(True)`` checks the built-in rules' results too (the property tests do).
"""
from __future__ import annotations

from ..core import tape
from ..core.stack import MinimsError
from ..core.tensor import Tensor
from . import nan_check

__all__ = ["GradientError", "run_rule", "check_every_rules", "refresh", "checks_every_rule"]

_check_all = False


class GradientError(MinimsError, RuntimeError):
    """A backward rule returned something unusable (wrong count, shape or type)."""


def check_every_rules(on: bool) -> None:
    """Check the result of every rule, the built-in ones too (the property tests over the table)."""
    global _check_all
    _check_all = bool(on)
    refresh()


def checks_every_rule() -> bool:
    """True while every rule runs here (``check_nan`` or ``check_every_rules`` on): a path that runs
    a compiled gradient without the tape (``graph/fast_call.py``) must then leave it to the tape."""
    return _check_all or nan_check.enabled


def refresh() -> None:
    """Give the tape this runner, for every rule while ``check_nan`` or ``check_every_rules`` is on."""
    tape.set_rule_runner(run_rule, for_every_rule=_check_all or nan_check.enabled)


def run_rule(node, dout):
    """Run ``node``'s rule; check its result where asked (module docstring)."""
    prim = node.prim
    if nan_check.enabled:
        previous = nan_check.set_rule(node)         # check_nan's errors name the rule being run
        try:
            grads = prim.bprop(*node.args, node.out, dout)
        finally:
            nan_check.set_rule(previous)
    else:
        grads = prim.bprop(*node.args, node.out, dout)
    if prim.checks_rule_results or _check_all:
        grads = _check_rule_result(node, grads)
    return grads


def _check_rule_result(node: Node, grads):
    """A primitive's bprop must return one gradient (or None) per input, each shaped like it."""
    prim = node.prim
    if not isinstance(grads, (tuple, list)):
        raise GradientError(
            f"{prim.name}.bprop returned {type(grads).__name__}; expected a tuple with one gradient "
            f"per input ({len(node.args)}). Fix: return (dx,) even for one input."
        )
    if len(grads) != len(node.args):
        raise GradientError(
            f"{prim.name}.bprop returned {len(grads)} gradients for {len(node.args)} inputs. "
            "Fix: return exactly one gradient (or None) per input."
        )
    for i, (g, a) in enumerate(zip(grads, node.args)):
        if g is None or not isinstance(a, Tensor):
            continue
        if not isinstance(g, Tensor):
            raise GradientError(
                f"{prim.name}.bprop: gradient {i} is a {type(g).__name__}, expected a Tensor of shape "
                f"{list(a.shape)}."
            )
        if g.shape != a.shape:
            raise GradientError(
                f"{prim.name}.bprop: gradient {i} has shape {list(g.shape)}, but input {i} has shape "
                f"{list(a.shape)}. Fix: reduce the broadcast dimensions of the gradient."
            )
    return grads

refresh()
