"""Misuses of ``check`` itself, explained before anything runs.

Two slips stop a learner before the answer is even looked at:

* an exercise id that does not exist (``check("1.4", ...)``, the answer given first): the feedback
  lists the ids there are, chapter by chapter;
* an answer of the wrong kind: an *instance* where the exercise asks for the class
  (``check("1.1", Softplus())``: the checker builds its own instances, with the settings it tests),
  a class where it asks for a function, or the *result* of calling the function (a Tensor) instead of
  the function.  Each exercise says what it wants (:attr:`Exercise.wants`, e.g. ``"class Softplus"``).
"""
from __future__ import annotations

import types

__all__ = ["exercise_id", "unknown_exercise", "wrong_kind"]


def exercise_id(given) -> str | None:
    """The id ``given`` as a string ("1.1"; a number 1.1 is taken as "1.1"), or None."""
    if isinstance(given, str):
        return given.strip()
    if isinstance(given, (int, float)) and not isinstance(given, bool):
        return str(given)
    return None


def _by_chapter(ids) -> str:
    chapters: dict = {}
    for i in sorted(ids, key=lambda i: tuple(int(p) for p in i.split("."))):
        chapters.setdefault(int(i.split(".")[0]), []).append(i)
    return "\n".join(f"  chapter {c:02d}: {', '.join(found)}" for c, found in chapters.items())


def unknown_exercise(given, answer, exercises: dict) -> str:
    """The feedback on an id that names no exercise (or an answer given where the id goes)."""
    ids = list(exercises)
    swapped = exercise_id(answer) in exercises and exercise_id(given) not in exercises
    if swapped:
        ex = exercises[exercise_id(answer)]
        return (f'check: the exercise id comes first, then the answer: got {_kind_of(given)} where the id '
                f'goes and "{ex.id}" where the answer goes.\n'
                f'  Fix: check("{ex.id}", {ex.wants.split()[-1]})')
    shown = repr(given) if isinstance(given, str) else _kind_of(given)
    example = exercises[ids[0]]
    return (f"check: there is no exercise {shown}. The exercises are:\n{_by_chapter(ids)}\n"
            f"  Fix: give the number in the exercise's title as a string, e.g. "
            f'check("{example.id}", {example.wants.split()[-1]}).')


def _kind_of(value) -> str:
    """'the class Softplus', 'the function f', 'a Tensor', 'an object of class Softplus' ..."""
    if isinstance(value, type):
        return f"the class {value.__name__}"
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return f"the function {getattr(value, '__name__', '?')}"
    name = type(value).__name__
    article = "an" if name[:1].lower() in "aeiou" else "a"
    return f"{article} {name}"


def wrong_kind(ex, answer) -> tuple[str, str] | None:
    """(kind, text) when ``answer`` is not the kind of thing ``ex`` wants; None when it is."""
    wanted, name = ex.wants.split()
    fix = f'  Fix: check("{ex.id}", {name})'
    if wanted == "class":
        if isinstance(answer, type):
            return None
        if isinstance(answer, (types.FunctionType, types.MethodType)):
            return "function", (f"this exercise asks for a class ({name}), and got {_kind_of(answer)}. "
                                f"Write the class the exercise's cell starts, then pass it.\n{fix}")
        cls = type(answer).__name__
        return "instance", (
            f"this exercise asks for the class {name} itself, and got an instance of {cls} (the "
            f"parentheses in {cls}() made one). The checker makes its own instances, with the inputs "
            f"and settings it tests, so it needs the class.\n"
            f'  Fix: check("{ex.id}", {cls}) — without the parentheses.')
    if isinstance(answer, type):
        return "class", (f"this exercise asks for a function ({name}), and got {_kind_of(answer)}. "
                         f"Pass the function the exercise's cell defines.\n{fix}")
    if not callable(answer):
        return "result", (
            f"this exercise asks for the function {name} itself, and got {_kind_of(answer)}: the result "
            f"of calling it? The checker calls the function on inputs of its own.\n"
            f"{fix} — the name, without calling it.")
    return None
