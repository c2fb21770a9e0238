"""What the learner's code did while the checker ran it: the primitives it called, and
under which transforms.

A "solved" text should say what *this* answer did, not what the model solution does.  While the
checker runs an answer, :class:`Watch` observes every primitive that is bound and keeps those bound
while a frame of the learner's code is on the stack between ``bind`` and the checker (see
:mod:`.blame`): the ops of a bprop, of a
``construct``, of a hook, of a function given to ``jit``.  Primitives the checker binds itself (its
``ops.grad``, the sums that weigh a result by ``dout``) are not the answer's and are left out.
"""
from __future__ import annotations

import sys

from ...core.stack import active_traces, add_rewriter, remove_rewriter
from .blame import is_learners

__all__ = ["Watch"]

#: the transform each kind of trace implements, as the chapters name them
_TRANSFORMS = {"JVPTrace": "jvp", "TapeTrace": "grad", "BatchTrace": "vmap", "StagingTrace": "jit"}


class Watch:
    """A context manager: ``with Watch() as seen: ...``; then ``seen.primitives`` lists the names of
    the primitives the learner's code bound, in the order of their first call, and ``seen.nestings``
    the transforms active at those calls (outermost first: ``("vmap", "grad")``)."""

    def __init__(self):
        self.primitives: list[str] = []
        self.nestings: list[tuple] = []    # the transforms (outermost first) active at those binds
        self._verdicts: dict = {}          # code object -> is it the learner's (a cache: frames repeat)

    def _learners(self, code) -> bool:
        verdict = self._verdicts.get(code)
        if verdict is None:
            verdict = self._verdicts[code] = is_learners(code.co_filename)
        return verdict

    def _observe(self, prim, args) -> None:
        frame = sys._getframe(2)           # the caller of bind, up to the checker that opened the watch
        while frame is not None and frame is not self._opened_in:
            if self._learners(frame.f_code):
                name = getattr(prim, "name", type(prim).__name__)
                if name not in self.primitives:
                    self.primitives.append(name)
                nest = tuple(_TRANSFORMS.get(type(t).__name__, type(t).__name__) for t in active_traces())
                if nest not in self.nestings:
                    self.nestings.append(nest)
                return
            frame = frame.f_back

    def __enter__(self) -> "Watch":
        # below this frame is whoever called the checker: a notebook cell, a test, itself learner-like
        self._opened_in = sys._getframe(1)
        add_rewriter(self._observe)
        return self

    def __exit__(self, *exc) -> None:
        remove_rewriter(self._observe)

    def describe(self) -> str:
        """'Your code called the minims primitives Mul and Sigmoid.' ('' when it called none)."""
        names = self.primitives
        if not names:
            return ""
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        return f"Your code called the minims primitive{'s' if len(names) > 1 else ''} {listed}."
