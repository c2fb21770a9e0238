"""Exercises with automatic feedback, for the end of each chapter.

An exercise asks the learner to write one piece of code: a bprop rule, a jvp rule, a hook, a Cell, a
function that compiles in Graph mode.  The chapter gives a *stub* (it raises ``NotImplementedError``)
and a check cell::

    from minims.testing.exercises import check
    check("1.1", Softplus)

``check`` runs the answer and prints one of three things:

* **not solved yet** — the stub still raises ``NotImplementedError`` (or the answer is ``None``):
  a short hint;
* **not right yet** — the first quantity that differs from the reference: which input, which order
  of derivative, at which point, with which ``dout``, expected vs got, and a diagnosis of the slip
  (sign, factor, ``dout`` ignored, results in the wrong order, a missing ``sum_to``, NumPy inside a
  rule, a Python ``if`` in Graph mode ...: see :mod:`.feedback`);
* **solved** — what was checked, and what the answer did (measured from the answer itself where
  the exercise says so: which transforms an HVP nested, how big the compiled graph is);
* **the checker failed** — an exception the checker raised on its own (see :mod:`.blame`): a bug to
  report, never counted against the answer.

The references never come from the learner's code or from the minims rule being exercised: SymPy
(``sympy.diff`` of a formula, through the symbolic interpreter) or central differences
(``check_grads``).  :func:`evaluate` returns the :class:`Feedback` instead of printing it (the tests
use it).  The exercises themselves are declared in ``chapterNN.py``, one module per chapter; their
solutions are in the repository's ``chapters/solutions/``.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable

from .blame import from_answer, raised_at
from .feedback import Quantity, diagnose_error, first_difference, show

__all__ = ["Exercise", "Feedback", "check", "evaluate", "exercises", "Quantity"]

@dataclass
class Exercise:
    """One exercise: how to run an answer, and what it must give.

    ``run(answer)`` returns the quantities the learner's code computes; ``expect()`` those of the
    reference (computed once, then cached); ``confirm(answer)``, optional, is a last check that
    raises ``AssertionError`` with its own message (``check_grads`` against central differences).
    ``reference`` names where the expected numbers come from, for the feedback.  ``solved`` is the
    text added when the answer is right: a string, or ``solved(answer)``, which measures what the
    answer did (a canned text could only say what the model solution does).
    """

    id: str
    title: str
    hint: str
    run: Callable
    expect: Callable
    reference: str = "SymPy"
    confirm: Callable | None = None
    solved: str | Callable = ""

    def expected(self) -> list[Quantity]:
        if not hasattr(self, "_expected"):
            self._expected = self.expect()
        return self._expected


@dataclass
class Feedback:
    """The outcome of checking one answer: ``status`` is "unsolved", "wrong", "solved" or
    "checker failed"; ``kind`` names the diagnosis of a wrong answer (see :mod:`.feedback`)."""

    exercise: Exercise
    status: str
    kind: str
    text: str

    def __str__(self) -> str:
        return self.text


def _registry() -> dict:
    if not _EXERCISES:
        chapters = sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("chapter"))
        for chapter in chapters:
            module = importlib.import_module(f"{__name__}.{chapter}")
            for ex in module.EXERCISES:
                if ex.id in _EXERCISES:
                    raise ValueError(f"two exercises have the id {ex.id!r}")
                _EXERCISES[ex.id] = ex
    return _EXERCISES


_EXERCISES: dict = {}


def exercises() -> dict:
    """Every exercise, by id ("1.1", "1.2", ... "10.2")."""
    return dict(_registry())


def _unsolved(exc: BaseException | None) -> bool:
    """True when the answer is still the stub: NotImplementedError anywhere in the chain."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, NotImplementedError) and "symbolic interpreter" not in str(exc):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def evaluate(exercise, answer) -> Feedback:
    """Check ``answer`` against ``exercise`` (an :class:`Exercise` or its id) and return the feedback."""
    ex = _registry()[exercise] if isinstance(exercise, str) else exercise
    head = f"Exercise {ex.id} ({ex.title})"
    if answer is None or answer is Ellipsis:
        return Feedback(ex, "unsolved", "", f"{head}: not solved yet. Hint: {ex.hint}")
    try:
        got = ex.run(answer)
    except Exception as exc:        # the learner's code failed (a stub, a real mistake), or the checker
        return _raised(ex, head, exc)
    diff = first_difference(ex.expected(), got)
    if diff is not None:
        q = diff.quantity
        text = (f"{head}: not right yet.\n"
                f"  Checking {q.label()}:\n"
                f"    expected {show(q.value)}   ({q.source or ex.reference})\n"
                f"    got      {show(diff.got)}\n"
                f"  Diagnosis: {diff.diagnosis}")
        return Feedback(ex, "wrong", diff.kind, text)
    try:
        if ex.confirm is not None:
            ex.confirm(answer)
        extra = ex.solved(answer) if callable(ex.solved) else ex.solved
    except AssertionError as exc:   # check_grads' verdict
        return Feedback(ex, "wrong", "check_grads", f"{head}: not right yet.\n{exc}")
    except Exception as exc:
        return _raised(ex, head, exc)
    checked = _summary(ex.expected())
    return Feedback(ex, "solved", "", f"{head}: solved. {checked}{' ' + extra if extra else ''}")


def _raised(ex, head, exc) -> Feedback:
    """The feedback on an exception: the stub, the answer's mistake, or the checker's own failure."""
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if _unsolved(exc):
        return Feedback(ex, "unsolved", "", f"{head}: not solved yet. Hint: {ex.hint}")
    if not from_answer(exc):
        return Feedback(ex, "checker failed", "checker",
                        f"{head}: the checker itself failed, so this says nothing about your answer: "
                        f"{type(exc).__name__}: {message} ({raised_at(exc)}).\n"
                        f"  Fix: nothing to change in your code; please report this message to the minims "
                        f"project, it is a bug in the exercise.")
    kind, advice = diagnose_error(exc)
    return Feedback(ex, "wrong", kind,
                    f"{head}: not right yet. Your code raised {type(exc).__name__}: {message}\n"
                    f"  Diagnosis: {advice}")


def _summary(quantities) -> str:
    """'Checked against SymPy: the value, the gradient for x (orders 1, 2) at 2 points.'"""
    points = sorted({q.at for q in quantities if q.at})
    parts = []
    for q in quantities:
        label = {"value": "the value", "gradient": f"the gradient for {q.of}",
                 "tangent": "the forward-mode tangent"}.get(q.kind, q.kind)
        if label not in parts:
            parts.append(label)
    orders = sorted({q.order for q in quantities if q.order})
    order_text = f"; derivatives of order {', '.join(map(str, orders))}" if orders else ""
    count = f", at {len(points)} point{'s' if len(points) != 1 else ''}" if points else ""
    return f"Checked {', '.join(parts)}{order_text}{count}."


def check(exercise, answer) -> None:
    """Print the feedback on ``answer`` (see :func:`evaluate`)."""
    print(evaluate(exercise, answer))
