"""The seam through which source conversion (``minims/conversion/``) reaches ``jit`` and Graph mode.

MindSpore's default ``jit(capture_mode="ast")`` parses a function's source and rewrites its
``if``/``while`` on Tensors into control flow of the graph.  The rewriting lives above ``graph``
(it uses the structured primitives of ``control_flow``, which import ``graph``), so ``graph`` only
holds this seam: the converter registers itself here (``register``), ``jit`` asks for the converted
function while it traces (``converted``), and a GRAPH_MODE Cell asks for its ``construct``
(``for_construct``).  ``capturing`` tells the converted code how it is being compiled (the capture
mode, and whether ``fullgraph=True`` forbids falling back to guarded Python).
"""
from __future__ import annotations

import contextlib
import contextvars

__all__ = ["register", "converted", "for_construct", "capturing", "fullgraph", "converted_source"]

_converter = None
# (capture mode, fullgraph) of the jit compiling now; None outside jit
_capture = contextvars.ContextVar("minims_capture", default=None)


def register(converter) -> None:
    """Install the converter: an object with ``convert(fn) -> fn`` and ``source(fn) -> str``."""
    global _converter
    _converter = converter


@contextlib.contextmanager
def capturing(mode: str, fullgraph: bool):
    """While ``jit`` traces: the capture mode and ``fullgraph`` the converted code reads."""
    token = _capture.set((mode, fullgraph))
    try:
        yield
    finally:
        _capture.reset(token)


def fullgraph() -> bool:
    """Does the ``jit`` compiling now refuse the guarded fallback (``fullgraph=True``)?"""
    state = _capture.get()
    return bool(state and state[1])


def converted(fn):
    """``fn`` rewritten by the converter when the ``jit`` compiling now captures by source ("ast");
    ``fn`` itself otherwise (no converter, another capture mode, or no source to convert)."""
    state = _capture.get()
    if _converter is None or state is None or state[0] != "ast":
        return fn
    return _converter.convert(fn)


def for_construct(construct):
    """A Cell's ``construct`` as a graph being compiled calls it: converted under ``capture_mode="ast"``
    (a ``construct`` that is itself ``jit``-compiled converts when it traces)."""
    if not hasattr(construct, "__func__"):
        return construct
    return converted(construct)


def converted_source(fn) -> str:
    """The source the converter makes of ``fn``, or a sentence saying why it makes none."""
    if _converter is None:
        return f"# {getattr(fn, '__name__', fn)!s}: no source converter is installed (import minims)."
    return _converter.source(fn)
