"""``MinimsError``, the base of every error minims raises on purpose, and where the user's code is.

An error of this class (or a subclass) is already worded for the learner — what was expected, what
came, where, and a ``Fix:`` — so no layer re-wraps it: the eval interpreter turns NumPy's own
failures into a primitive's error, but lets these through as they are.  ``user_location`` finds
the line of the learner's code an error or a warning should point at.
"""

import linecache
import os
import re
import sys

__all__ = ["MinimsError", "user_location", "user_stacklevel", "file_label"]


class MinimsError(Exception):
    """Marker base for errors minims raised itself (never re-wrapped by the eval interpreter)."""


# ----- where the user is: the innermost frame outside minims -----------------------------------------
_MINIMS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

# The files IPython compiles a notebook cell into (ipykernel: /tmp/ipykernel_<pid>/<hash of the code>.py;
# plain IPython: <ipython-input-<n>-<hash>>): their names change with the cell's text and the process.
_NOTEBOOK_CELL = re.compile(r"(^|[\\/])ipykernel_\d+[\\/]\d+\.py$|^<ipython-input-")


def file_label(filename: str) -> str:
    """How an error names a file: its base name, or "a notebook cell" for a cell's code."""
    return "a notebook cell" if _NOTEBOOK_CELL.search(filename) else os.path.basename(filename)


def user_location() -> str:
    """``file, line N, in function: source`` of the innermost frame outside minims (the user's code)."""
    frame = sys._getframe(1)
    while frame is not None:
        if not os.path.abspath(frame.f_code.co_filename).startswith(_MINIMS_DIR):
            source = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
            return (f"{file_label(frame.f_code.co_filename)}, line {frame.f_lineno}, in "
                    f"{frame.f_code.co_name}: {source}")
        frame = frame.f_back
    return "(unknown location)"


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning point at the innermost frame outside minims."""
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_MINIMS_DIR):
        frame, level = frame.f_back, level + 1
    return level
