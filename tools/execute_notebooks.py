"""Re-execute chapter notebooks in place, so their stored outputs (what nbval compares) are fresh.

Usage: python tools/execute_notebooks.py [--refresh-timings] [NOTEBOOK.ipynb ...]   (default: chapters/*.ipynb)

Cells marked ``# NBVAL_IGNORE_OUTPUT`` (live timings) keep their stored output unless
``--refresh-timings`` is given, so that regenerating twice changes nothing.
`make notebooks` runs it with the project's virtualenv.

The result is deterministic and diff-clean: every code cell is cleared and run again in order in a
fresh kernel (cwd = the notebook's folder, as under nbval), and nothing run-dependent is written, so
re-running it on unchanged chapters changes no bytes (given seeded, timing-free chapters):
* no per-cell ``metadata.execution`` timestamps (old ones are removed, new ones are not recorded);
* no Python patch version in ``metadata.language_info.version``;
* cell ids are kept, and files are written the way nbformat and nbstripout write them, so
  ``nbstripout --keep-output --keep-count --keep-id --extra-keys metadata.language_info.version
  --verify`` (run by `make test`) finds nothing to change.
A cell that raises stops the run with an error, unless it carries the ``raises-exception`` tag.
"""
import os
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent


_PATHS = [
    (re.compile(re.escape(str(ROOT)) + r"/"), ""),                              # the checkout
    (re.compile(r"/[^\s'\"\x1b:]*/(site-packages|lib/python3\.\d+)/"), r"<python>/\1/"),  # installs
]


def _strip_paths(text: str) -> str:
    """Machine paths out of stored outputs (tracebacks, warnings): they differ per machine."""
    for pattern, repl in _PATHS:
        text = pattern.sub(repl, text)
    return text


def _sanitize(cell) -> None:
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            out["text"] = _strip_paths(out["text"])
        elif out.get("output_type") == "error":
            out["traceback"] = [_strip_paths(line) for line in out["traceback"]]
            out["evalue"] = _strip_paths(out["evalue"])


def _ignored(cell) -> bool:
    """A cell whose output nbval does not compare (live timings): ``# NBVAL_IGNORE_OUTPUT``."""
    return cell.cell_type == "code" and (
        "NBVAL_IGNORE_OUTPUT" in cell.source or "nbval-ignore-output" in cell.metadata.get("tags", []))


def execute(path: Path, refresh_ignored: bool = False) -> float:
    nb = nbformat.read(path, as_version=4)
    kept = {}
    for i, cell in enumerate(nb.cells):
        cell.metadata.pop("execution", None)  # timestamps left by earlier runs (JupyterLab, nbconvert)
        if cell.cell_type == "code":
            if _ignored(cell) and cell.outputs and not refresh_ignored:
                kept[i] = cell.outputs        # a timing measured once stays: regenerating is idempotent
            cell.outputs, cell.execution_count = [], None
    t0 = time.perf_counter()
    NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        record_timing=False,
        coalesce_streams=True,  # one stdout output per cell: ipykernel splits prints at random
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    for i, outputs in kept.items():
        nb.cells[i].outputs = outputs
    for cell in nb.cells:
        _sanitize(cell)
    nb.metadata.get("language_info", {}).pop("version", None)  # Python patch-version noise
    nbformat.write(nb, path)
    return time.perf_counter() - t0


def main(argv: list[str]) -> int:
    refresh = "--refresh-timings" in argv
    argv = [a for a in argv if a != "--refresh-timings"]
    paths = [Path(p) for p in argv] or sorted((ROOT / "chapters").glob("*.ipynb"))
    if not paths:
        print("no notebooks to execute (chapters/ has no .ipynb files)")
        return 0
    for path in paths:
        print(f"{os.path.relpath(path)}: {execute(path, refresh):.1f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
