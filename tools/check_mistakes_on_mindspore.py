"""Run the catalogue of common mistakes on a real MindSpore and compare the exception types.

Usage: python tools/check_mistakes_on_mindspore.py PYTHON_WITH_MINDSPORE [ID ...]

Each snippet of ``minims.testing.mistakes`` runs under the given interpreter with ``mindspore`` in
place of ``minims`` (one fresh module per snippet, in a temporary folder, so that MindSpore's ``jit``
can read its source; ``pynative_synchronize=True`` so that an op's error surfaces at that op).
The type MindSpore raises — or ``None`` when it runs without error — is compared with the
catalogue's ``mindspore`` field.  Exit status 1 if any differs.  A development aid: MindSpore is
never a dependency of minims, and this is not part of the test suite.
"""
from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from minims.testing.mistakes import MISTAKES, PRELUDE  # noqa: E402

CHILD = r'''
import importlib, json, sys, traceback
sys.path.insert(0, sys.argv[1])
import mindspore as ms
ms.set_context(pynative_synchronize=True)
results = {}
for mid in json.load(open(sys.argv[2])):
    try:
        importlib.import_module("snippet_" + mid.replace("-", "_"))
        results[mid] = [None, ""]
    except Exception as exc:
        results[mid] = [type(exc).__name__, str(exc).splitlines()[0][:300] if str(exc) else ""]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
json.dump(results, open(sys.argv[3], "w"))
'''


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    python, only = argv[1], set(argv[2:])
    prelude = PRELUDE.replace("minims", "mindspore")
    chosen = [m for m in MISTAKES if m.mindspore != "n/a" and (not only or m.id in only)]
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        for m in chosen:
            code = m.code.replace("import minims", "import mindspore")     # import minims.numpy as mnp
            (folder / f"snippet_{m.id.replace('-', '_')}.py").write_text(prelude + "\n" + code + "\n")
        (folder / "ids.json").write_text(json.dumps([m.id for m in chosen]))
        (folder / "child.py").write_text(CHILD)
        subprocess.run([python, str(folder / "child.py"), str(folder), str(folder / "ids.json"),
                        str(folder / "out.json")], check=True, stdout=subprocess.DEVNULL,
                       cwd=folder)          # MindSpore writes rank_0/ (IR dumps) into its cwd
        results = json.loads((folder / "out.json").read_text())
    differ = 0
    for m in chosen:
        got, message = results[m.id]
        ok = got == m.mindspore
        differ += not ok
        print(f"{'ok  ' if ok else 'DIFF'} {m.id:34s} catalogue={m.mindspore!s:14s} mindspore={got!s:14s} {message[:100]}")
    print(f"{len(chosen) - differ} of {len(chosen)} agree")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
