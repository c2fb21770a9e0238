"""Laying out the checker's feedback: lines of at most ~100 columns, broken between words.

JupyterLab breaks an output line that is wider than the output area wherever the width runs out,
in the middle of a word or a number.  So the feedback is wrapped before it is printed: each line on
its own, at spaces only (a number, a name or an array entry is never cut; a token longer than the
width stays whole), and a continued line is indented under its first line: prose two columns
further in, a value after ``expected``/``got`` under the value.
"""
from __future__ import annotations

import re
import textwrap

__all__ = ["WIDTH", "wrap"]

#: The width of the feedback, in columns: JupyterLab's output area shows about 100 at its default
#: font size beside the file browser.
WIDTH = 100

_VALUE = re.compile(r"^(\s*(?:expected|got)\s+)")       # '    expected [...]': continue under the value


def _continuation(line: str) -> str:
    value = _VALUE.match(line)
    if value:
        return " " * len(value.group(1))
    return " " * (len(line) - len(line.lstrip(" ")) + 2)


def wrap(text: str, width: int = WIDTH) -> str:
    """``text`` with every line longer than ``width`` broken at spaces (see the module docstring)."""
    out = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        out.extend(textwrap.wrap(line, width=width, subsequent_indent=_continuation(line),
                                 break_long_words=False, break_on_hyphens=False,
                                 replace_whitespace=False, drop_whitespace=True))
    return "\n".join(out)
