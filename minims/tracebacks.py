"""Tracebacks that go from the user's code to the user's code: minims' own frames are hidden.

An error raised while minims runs a user's function passes through a dozen frames of the interpreter
stack, the tape or the graph tracer before it reaches the user's line — noise for a learner, and
the reason chapter 04's Graph-mode error took forty lines.  As JAX does with its traceback filtering,
the frames that belong to minims' own files are left out when the traceback is shown, and one line
says how many were left out.  The exception itself is untouched (``except`` clauses, ``exc.__traceback__``
in a debugger, pytest: all see every frame); only what is printed changes:

* in IPython and Jupyter, through the shell's custom exception handler;
* in a plain Python program, through ``sys.excepthook``.

``MINIMS_TRACEBACK=full`` in the environment (read when minims is imported) shows every frame, as
does ``minims.tracebacks.show_internal_frames(True)`` at any time.

``explained`` is the other half: the error a primitive raises for a NumPy failure inside its
``impl`` keeps, for a user's own primitive, the frames of that ``impl`` down to the user's failing
line (``minims.primitives`` installs it as ``Primitive.failure``).
"""
from __future__ import annotations

import os
import sys
import sysconfig
import types
from contextlib import contextmanager

__all__ = ["show_internal_frames", "filtered", "install", "explained", "user_stacklevel"]

_MINIMS_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_show_all = os.environ.get("MINIMS_TRACEBACK", "").strip().lower() in ("full", "1", "all", "on")
_NOTE = "({} frames inside minims are hidden; MINIMS_TRACEBACK=full shows them)"


def show_internal_frames(on: bool = True) -> None:
    """Show (True) or hide (False, the default) minims' own frames in the tracebacks printed."""
    global _show_all
    _show_all = bool(on)


def _internal(tb) -> bool:
    return os.path.abspath(tb.tb_frame.f_code.co_filename).startswith(_MINIMS_DIR)


def filtered(tb):
    """``(traceback without minims' frames, how many were left out)``.  The user's frames stay, down
    to the one that called into minims (or that minims called back: a construct, a bprop, a hook);
    if every frame is minims' own, the last one stays."""
    frames = []
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    kept = [f for f in frames if not _internal(f)] or frames[-1:]
    new = None
    for f in reversed(kept):
        new = types.TracebackType(new, f.tb_frame, f.tb_lasti, f.tb_lineno)
    return new, len(frames) - len(kept)


def _chain(exc):
    """``exc`` and every exception it was raised from or during, each once."""
    seen, todo = [], [exc]
    while todo:
        e = todo.pop()
        if e is not None and not any(e is s for s in seen):
            seen.append(e)
            todo += [e.__cause__, e.__context__]
    return seen


@contextmanager
def _shown_short(value):
    """While the block prints ``value``: it and its chain carry tracebacks without minims' frames,
    and ``value`` a note saying how many were hidden.  Afterwards every traceback and note is back
    as it was: printing an error leaves it whole (a debugger, ``%debug``, a second print see all)."""
    if _show_all or value is None:
        yield
        return
    saved = [(e, e.__traceback__) for e in _chain(value)]
    notes = getattr(value, "__notes__", None)
    notes = list(notes) if isinstance(notes, list) else notes
    try:
        hidden = 0
        for e, tb in saved:
            if tb is not None:
                e.__traceback__, n = filtered(tb)
                hidden += n
        if hidden and (notes is None or isinstance(notes, list)):   # (add_note needs a list)
            value.add_note(_NOTE.format(hidden))
        yield
    finally:
        for e, tb in saved:
            e.__traceback__ = tb
        if notes is None:
            vars(value).pop("__notes__", None)
        else:
            value.__notes__ = notes


def _ipython_handler(shell, etype, value, tb, tb_offset=None):
    with _shown_short(value):
        shell.showtraceback((etype, value, value.__traceback__ if value is not None else tb), tb_offset=tb_offset)
    if value is not None and getattr(sys, "last_value", None) is value:
        sys.last_traceback = value.__traceback__       # the whole one, for %debug


def _excepthook(etype, value, tb):
    with _shown_short(value):
        _previous_hook(etype, value, value.__traceback__ if value is not None else tb)


_previous_hook = sys.excepthook


def install() -> None:
    """Put the filter in place for the running IPython shell, or for ``sys.excepthook``."""
    global _previous_hook
    shell = None
    ipython = sys.modules.get("IPython")
    if ipython is not None:
        shell = ipython.get_ipython()
    if shell is not None:
        if not shell.custom_exceptions:             # a handler the user set wins
            shell.set_custom_exc((Exception,), _ipython_handler)
    elif sys.excepthook is sys.__excepthook__:
        _previous_hook = sys.excepthook
        sys.excepthook = _excepthook


# Where a traceback frame's code lives: minims' own files, or an installed library (NumPy, the
# standard library) rather than the user's code.
_LIBRARY_DIRS = tuple({os.path.abspath(sysconfig.get_paths()[key]) + os.sep
                       for key in ("stdlib", "platstdlib", "purelib", "platlib")})


def _users_own(frame) -> bool:
    path = os.path.abspath(frame.f_code.co_filename)
    return not path.startswith(_MINIMS_DIR) and not path.startswith(_LIBRARY_DIRS)


def explained(prim, exc, args) -> Exception:
    """``prim``'s own error for the NumPy error ``exc`` that its ``impl`` raised (the caller raises
    it ``from None``: NumPy's error is in the message).

    A built-in primitive's error starts where minims raises it.  A user's primitive (an ``impl``
    written outside minims) keeps the frames of its ``impl`` down to the user's failing line, so
    that the traceback — the short one too — ends at that line; the NumPy frames below it are left
    out, as minims' own are."""
    error = prim.explain_failure(exc, args)
    tb = exc.__traceback__.tb_next              # the frame that called impl caught it: impl is next
    frames = []
    while tb is not None and _users_own(tb.tb_frame):
        frames.append(tb)
        tb = tb.tb_next
    chain = None
    for f in reversed(frames):
        chain = types.TracebackType(chain, f.tb_frame, f.tb_lasti, f.tb_lineno)
    return error.with_traceback(chain) if chain is not None else error


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning point at the innermost frame outside minims."""
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_MINIMS_DIR):
        frame, level = frame.f_back, level + 1
    return level
