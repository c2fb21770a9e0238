"""Exercises with automatic feedback, for the end of each chapter.

An exercise asks the learner to write one piece of code: a bprop rule, a jvp rule, a hook, a Cell, a
function that compiles in Graph mode.  The chapter gives a *stub* (it raises ``NotImplementedError``)
and a check cell::

    from minims.testing.exercises import check
    check("1.1", Softplus)

``check`` runs the answer and prints one of three things:

* **not solved yet** — the stub still raises ``NotImplementedError`` (or the answer is ``None``):
  a hint (what to look at; ``hint(id, answer=True)`` shows a worked answer);
* **not right yet** — the first quantity that differs from the reference: which input, which order
  of derivative, at which point, with which ``dout``, expected vs got, and a diagnosis of the slip
  (sign, factor, ``dout`` ignored, results in the wrong order, a missing ``sum_to``, NumPy inside a
  rule, a Python ``if`` in Graph mode ...: see :mod:`.feedback`);
* **solved** — what was checked, and what the answer did (measured from the answer itself where
  the exercise says so: which transforms an HVP nested, how big the compiled graph is);
* **the checker failed** — an exception the checker raised on its own (see :mod:`.blame`): a bug to
  report, never counted against the answer;
* **not checked** — ``check`` itself was misused: an unknown id, an instance given for a class ...

The references never come from the learner's code or from the minims rule being exercised: SymPy
(``sympy.diff`` of a formula, through the symbolic interpreter) or central differences
(``check_grads``).  :func:`evaluate` returns the :class:`Feedback` instead of printing it (the tests
use it).  The exercises themselves are declared in ``chapterNN.py``, one module per chapter; their
solutions are in the repository's ``chapters/solutions/``.

The feedback teaches rather than judges: it is wrapped to about 100 columns (:mod:`.wrap`), a misuse
of ``check`` itself (an unknown id, an instance where the class is wanted) is explained before
anything runs (:mod:`.misuse`), a hint comes first and the worked answer only on request
(:func:`hint`, :mod:`.hints`), and "solved" says what the answer did (:mod:`.watch`).
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from typing import Callable

from .blame import from_answer, raised_at
from .feedback import AnswerError, Quantity, diagnose_error, first_difference, show
from .hints import ask_for_more, hint_text, worked_text
from .misuse import exercise_id, unknown_exercise, wrong_kind
from .watch import Watch
from .wrap import wrap

__all__ = ["Exercise", "Feedback", "check", "evaluate", "exercises", "hint", "Quantity"]

@dataclass
class Exercise:
    """One exercise: how to run an answer, and what it must give.

    ``run(answer)`` returns the quantities the learner's code computes; ``expect()`` those of the
    reference (computed once, then cached); ``confirm(answer)``, optional, is a last check that
    raises ``AssertionError`` with its own message (``check_grads`` against central differences).
    ``reference`` names where the expected numbers come from, for the feedback.  ``solved`` is the
    text added when the answer is right: a string, or ``solved(answer)``, which measures what the
    answer did (a canned text could only say what the model solution does).  ``wants`` says what
    kind of answer ``check`` takes and its name in the chapter: ``"class Softplus"`` or
    ``"function ce_grad"`` (empty: not checked).  ``worked`` is the explanation ``hint(id, answer=True)`` shows above the
    model solution's code; ``solution`` names that code in ``chapters/solutions/chNN.py`` when the
    module's ``SOLUTIONS`` dict does not.
    """

    id: str
    title: str
    hint: str
    run: Callable
    expect: Callable
    reference: str = "SymPy"
    confirm: Callable | None = None
    solved: str | Callable = ""
    wants: str = ""
    worked: str = ""
    solution: str = ""

    def expected(self) -> list[Quantity]:
        if not hasattr(self, "_expected"):
            self._expected = self.expect()
        return self._expected


@dataclass
class Feedback:
    """The outcome of checking one answer: ``status`` is "unsolved", "wrong", "solved", "checker
    failed" or "misused" (``check`` itself misused: then ``exercise`` is None for an unknown id);
    ``kind`` names the diagnosis of a wrong answer (see :mod:`.feedback`) or the misuse.  ``text`` is
    the feedback with one line per paragraph; ``str(feedback)``, what ``check`` prints, wraps it."""

    exercise: Exercise | None
    status: str
    kind: str
    text: str

    def __str__(self) -> str:
        return wrap(self.text)


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


def _find(exercise):
    """The Exercise ``exercise`` names (itself, an id, or an id written as a number), or None."""
    if isinstance(exercise, Exercise):
        return exercise
    return _registry().get(exercise_id(exercise))


def _unsolved_feedback(ex, head) -> Feedback:
    return Feedback(ex, "unsolved", "", f"{head}: not solved yet.\n  Hint: {ex.hint}\n{ask_for_more(ex)}")


def evaluate(exercise, answer) -> Feedback:
    """Check ``answer`` against ``exercise`` (an :class:`Exercise` or its id) and return the feedback."""
    ex = _find(exercise)
    if ex is None:
        return Feedback(None, "misused", "id", unknown_exercise(exercise, answer, _registry()))
    head = f"Exercise {ex.id} ({ex.title})"
    if answer is None or answer is Ellipsis:
        return _unsolved_feedback(ex, head)
    misused = wrong_kind(ex, answer) if ex.wants else None
    if misused is not None:
        kind, text = misused
        return Feedback(ex, "misused", kind, f"{head}: not checked yet.\n  {text[0].upper()}{text[1:]}")
    try:
        with Watch() as seen:
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
                f"  Diagnosis: {diff.diagnosis}\n{_stuck(ex)}")
        return Feedback(ex, "wrong", diff.kind, text)
    try:
        if ex.confirm is not None:
            ex.confirm(answer)
        extra = ex.solved(answer) if callable(ex.solved) else ex.solved
    except AssertionError as exc:   # check_grads' verdict
        return Feedback(ex, "wrong", "check_grads", f"{head}: not right yet.\n{exc}\n{_stuck(ex)}")
    except Exception as exc:
        return _raised(ex, head, exc)
    did = " ".join(t for t in (seen.describe(), extra) if t)
    checked = _summary(ex.expected(), ex.reference)
    return Feedback(ex, "solved", "", f"{head}: solved.\n" + (f"  {did}\n" if did else "") + f"  {checked}")


def _stuck(ex) -> str:
    return f'  Stuck? hint("{ex.id}") shows the hint again, hint("{ex.id}", answer=True) a worked answer.'


def _raised(ex, head, exc) -> Feedback:
    """The feedback on an exception: the stub, the answer's mistake, or the checker's own failure."""
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if _unsolved(exc):
        return _unsolved_feedback(ex, head)
    if not from_answer(exc):
        return Feedback(ex, "checker failed", "checker",
                        f"{head}: the checker itself failed, so this says nothing about your answer: "
                        f"{type(exc).__name__}: {message} ({raised_at(exc)}).\n"
                        f"  Fix: nothing to change in your code; please report this message to the minims "
                        f"project, it is a bug in the exercise.")
    kind, advice = diagnose_error(exc)
    what = (f"{message}." if isinstance(exc, AnswerError)        # the checker's words about the result
            else f"Your code raised {type(exc).__name__}: {message}")
    return Feedback(ex, "wrong", kind, f"{head}: not right yet. {what}\n  Diagnosis: {advice}\n{_stuck(ex)}")


def _summary(quantities, reference) -> str:
    """'Checked the value, the gradient for x; derivatives of order 1, 2, at 5 points, against SymPy.'"""
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
    return f"Checked {', '.join(parts)}{order_text}{count}, against {reference}."


def check(exercise, answer=None) -> None:
    """Print the feedback on ``answer`` (see :func:`evaluate`)."""
    print(evaluate(exercise, answer))


def hint(exercise, answer: bool = False) -> None:
    """Print the hint of ``exercise`` (an id such as "10.1"); with ``answer=True``, a worked answer:
    the exercise's explanation and the model solution's code (see :mod:`.hints`)."""
    ex = _find(exercise)
    if ex is None:
        print(wrap(unknown_exercise(exercise, None, _registry()).replace("check(", "hint(")))
        return
    if not answer:
        print(wrap(hint_text(ex)))
        return
    prose, code = worked_text(ex)
    print(wrap(prose) + ("\n" + code if code else ""))
