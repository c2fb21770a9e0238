"""How long each chapter takes a learner, estimated from what it holds: the minutes in the README.

Usage: python tools/chapter_minutes.py [--write] [NOTEBOOK.ipynb ...]     (default: chapters/*.ipynb)
    --write: also put the minutes into the last column of the README's chapter table

No one's reading was timed.  The estimate counts what a learner reads and does, at these rates:

* prose (markdown cells): 150 words a minute — about two thirds of the ~240 words a minute adults
  read ordinary non-fiction silently, for text with formulas and code names in it;
* code: 20 non-blank lines a minute (read and understood, not typed);
* printed output: 60 lines a minute;
* exercises: 5 minutes each (a first attempt, the check, one correction);
* running the cells: the seconds ``tools/execute_notebooks.py`` takes, from ``RUN_SECONDS`` below
  (measured on the project's 2-core machine; all under 30 s, so they hardly count).

The total is rounded to the nearest minute (an estimate: the last digit means little).  ``tests/project/test_readme.py`` checks that the README's
table shows what this prints.
"""
from __future__ import annotations

import json
import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORDS_PER_MINUTE = 150
CODE_LINES_PER_MINUTE = 20
OUTPUT_LINES_PER_MINUTE = 60
MINUTES_PER_EXERCISE = 5

#: seconds ``tools/execute_notebooks.py`` took per chapter (OPENBLAS_NUM_THREADS=1, 2 cores)
RUN_SECONDS = {"01": 6, "02": 3, "03": 4, "04": 6, "05": 23, "06": 5, "07": 10, "08": 8, "09": 5,
               "09b": 7, "10": 4, "11": 6, "12": 3}


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else (value or "")


def counts(cells) -> dict:
    """Words of prose, lines of code and of printed output, and exercises, in ``cells``."""
    found = {"words": 0, "code": 0, "output": 0, "exercises": 0}
    for cell in cells:
        source = _text(cell["source"])
        if cell["cell_type"] == "markdown":
            found["words"] += len(source.split())
            continue
        if cell["cell_type"] != "code":
            continue
        found["code"] += sum(1 for line in source.splitlines() if line.strip())
        found["exercises"] += len(re.findall(r'^check\("', source, re.M))
        for out in cell.get("outputs", []):
            text = _text(out.get("text")) or _text(out.get("data", {}).get("text/plain"))
            found["output"] += len(text.splitlines())
    return found


def minutes(cells, run_seconds: float = 0.0) -> int:
    """The estimate for ``cells``, in whole minutes."""
    c = counts(cells)
    total = (c["words"] / WORDS_PER_MINUTE + c["code"] / CODE_LINES_PER_MINUTE
             + c["output"] / OUTPUT_LINES_PER_MINUTE + c["exercises"] * MINUTES_PER_EXERCISE
             + run_seconds / 60)
    return math.floor(total + 0.5)


def chapter_minutes(path: Path) -> int:
    number = path.name.split("_", 1)[0]
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return minutes(cells, RUN_SECONDS.get(number, 0))


def write_readme(readme: Path = ROOT / "README.md") -> None:
    """The README's chapter rows (``| NN | [title](chapters/NN_x.ipynb) | ... | minutes |``) with the
    minutes of this estimate."""
    def row(match):
        return f"{match.group(1)}{chapter_minutes(ROOT / 'chapters' / match.group(2))} |"

    text = readme.read_text(encoding="utf-8")
    readme.write_text(re.sub(r"^(\| \S+ \| \[[^\]]+\]\(chapters/([^)]+\.ipynb)\) \| .* \| )\d+ \|$", row, text,
                             flags=re.M), encoding="utf-8")


def main(argv: list[str]) -> int:
    write = "--write" in argv
    argv = [a for a in argv if a != "--write"]
    paths = [Path(p) for p in argv] or sorted((ROOT / "chapters").glob("*.ipynb"))
    for path in paths:
        c = counts(json.loads(path.read_text(encoding="utf-8"))["cells"])
        print(f"{path.name:45s} {chapter_minutes(path):3d} min  ({c['words']} words, {c['code']} lines of code, "
              f"{c['output']} lines of output, {c['exercises']} exercises)")
    if write:
        write_readme()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
