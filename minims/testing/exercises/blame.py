"""Whose mistake an exception is: the learner's answer, or the checker's own code.

The checker runs the learner's code, then works on what it returned; both can raise.  An exception
is the answer's (and may be reported as "not right yet") when

* it passed through the learner's code: a frame of a file outside minims and outside Python's own
  libraries (a notebook cell, a solutions file, code given to ``exec``);
* or minims refused what the answer did or returned (a :class:`~minims.core.stack.MinimsError`:
  a bprop's result of the wrong shape, a Python ``if`` on a placeholder, two dtypes in one matmul);
* or the checker found the answer's result unusable (:class:`.feedback.AnswerError`).

Anything else was raised by the checker (or by minims underneath it) on its own — a ``KeyError`` in
the checker's bookkeeping, say — and is a bug to report, never a verdict on the answer.
"""
from __future__ import annotations

import os
import sysconfig
from pathlib import Path

from ...core.stack import MinimsError
from .feedback import AnswerError

__all__ = ["from_answer", "is_learners", "raised_at"]

_MINIMS = os.path.realpath(Path(__file__).resolve().parents[2])
_LIBRARIES = tuple(sorted({os.path.realpath(path) for key in ("stdlib", "platstdlib", "purelib", "platlib")
                           if (path := sysconfig.get_paths().get(key))}))


def _frames(exc: BaseException):
    tb = exc.__traceback__
    while tb is not None:
        yield tb.tb_frame.f_code, tb.tb_lineno
        tb = tb.tb_next


def is_learners(filename: str) -> bool:
    """A frame of the learner's code: not minims, not the standard library nor an installed package."""
    if filename.startswith("<frozen"):
        return False
    if filename.startswith("<"):                    # <string> (exec), <ipython-input-...>
        return True
    path = os.path.realpath(filename)
    return not any(path == root or path.startswith(root + os.sep) for root in (_MINIMS, *_LIBRARIES))


def from_answer(exc: BaseException) -> bool:
    """True when ``exc`` is the answer's doing (see the module docstring)."""
    if isinstance(exc, (MinimsError, AnswerError)):
        return True
    return any(is_learners(code.co_filename) for code, _ in _frames(exc))


def raised_at(exc: BaseException) -> str:
    """Where ``exc`` was raised, as 'minims/testing/exercises/chapter02.py, line 57, in _sgd_run'."""
    last = None
    for last in _frames(exc):
        pass
    if last is None:
        return "at an unknown place"
    code, line = last
    path = os.path.realpath(code.co_filename)
    base = os.path.dirname(_MINIMS)
    shown = os.path.relpath(path, base) if path.startswith(_MINIMS + os.sep) else code.co_filename
    return f"{shown}, line {line}, in {code.co_name}"
