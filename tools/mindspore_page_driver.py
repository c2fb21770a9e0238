"""Run one tutorial page's code blocks in one namespace, in this process; one JSON line per block (issue 25).

Usage (by tools/run_mindspore_pages.py, in a fresh subprocess whose cwd is a scratch folder):
    python mindspore_page_driver.py PAGE.json OUT.jsonl {mindspore,minims,probe} BLOCK_TIMEOUT_SECONDS [UPTO]

(UPTO: run only the first UPTO blocks.)

* ``minims``: ``import mindspore`` is made to import minims first (tools/mindspore_alias.py);
  ``mindspore``: the real MindSpore of the interpreter running this file; ``probe``: minims behind
  MindSpore's module layout (tools/mindspore_probe.py, a diagnostic).
* Each block runs as a Jupyter cell would: its changes from tools/mindspore_substitutions.py applied,
  and the value of a final expression statement printed with ``repr`` (the tutorials' shown outputs
  come from notebooks).
* Each block is written to a file (``../blocks/<page>_<n>.py`` beside the scratch folder) and
  compiled under that name, as Jupyter does with its cells: MindSpore's ``jit`` and ``vmap`` read a
  function's source with ``inspect`` and refuse code that has no file.
* What a block prints is captured at file-descriptor level, so MindSpore's C++ printing is caught
  as well as Python's ``print``.
* A block that runs longer than the timeout is stopped by SIGALRM (``BlockTimeout``, a
  BaseException, so the block's own ``except Exception`` cannot swallow it) and the page goes on.
* The result line is written and flushed after each block: if the process dies, the runner still has
  every finished block.
"""
import ast
import json
import os
import signal
import sys
import tempfile
import time
import traceback
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mindspore_substitutions import prepare  # noqa: E402 - after the path


class BlockTimeout(BaseException):
    """The block ran longer than the runner allows."""


def _alarm(signum, frame):
    raise BlockTimeout("block timed out")


def _compile_cell(code, filename):
    """(statements, final expression or None), compiled as a notebook cell: the final expression is displayed."""
    tree = ast.parse(code, filename)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = compile(ast.Expression(tree.body.pop().value), filename, "eval")
    return compile(tree, filename, "exec"), last


def _flush_c_stdio():
    try:
        import ctypes
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):
        pass


class CapturedStdout:
    """Points file descriptor 1 at a temporary file for the duration of a block."""

    def __enter__(self):
        sys.stdout.flush()
        self.file = tempfile.TemporaryFile()
        self.saved = os.dup(1)
        os.dup2(self.file.fileno(), 1)
        return self

    def __exit__(self, *exc):
        sys.stdout.flush()
        _flush_c_stdio()
        os.dup2(self.saved, 1)
        os.close(self.saved)
        self.file.seek(0)
        self.text = self.file.read().decode("utf-8", "replace")
        self.file.close()
        return False


def describe(exc, filename):
    """Type, message and where: the last line of the block on the traceback, and the last frame of all."""
    frames = traceback.extract_tb(exc.__traceback__)
    in_block = [f.lineno for f in frames if f.filename == filename]
    last = frames[-1] if frames else None
    info = {"type": type(exc).__name__, "message": str(exc)[:2000],
            "block_line": in_block[-1] if in_block else None,
            "where": f"{last.filename}:{last.lineno}" if last else None}
    if isinstance(exc, AttributeError):
        info["name"] = getattr(exc, "name", None)
        obj = getattr(exc, "obj", None)
        info["owner"] = getattr(obj, "__name__", None) if isinstance(obj, type(sys)) or isinstance(obj, type) \
            else type(obj).__name__ if obj is not None else None
        info["owner_kind"] = ("module" if isinstance(obj, type(sys)) else "class" if isinstance(obj, type)
                              else "instance" if obj is not None else None)
        owner_type = obj if isinstance(obj, type) else type(obj)
        info["owner_module"] = (obj.__name__ if isinstance(obj, type(sys))
                                else getattr(owner_type, "__module__", None) if obj is not None else None)
        info["owner_bases"] = [c.__name__ for c in getattr(owner_type, "__mro__", ())] if obj is not None else []
    elif isinstance(exc, ImportError):
        info["name"] = getattr(exc, "name", None)
    elif isinstance(exc, NameError):
        info["name"] = getattr(exc, "name", None)
    return info


def run_block(page, block, namespace, timeout):
    code, changed = prepare(page, block["block"], block["code"])
    path = Path.cwd().parent / "blocks" / f"{page}_{block['block']:02d}.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(code)
    filename = str(path)
    result = {"block": block["block"], "changed": changed, "error": None}
    start = time.perf_counter()
    with CapturedStdout() as out:
        signal.alarm(timeout)
        try:
            body, last = _compile_cell(code, filename)
            exec(body, namespace)
            if last is not None:
                value = eval(last, namespace)
                if value is not None:
                    print(repr(value))
        except BlockTimeout as exc:
            result["error"] = {"type": "Timeout", "message": f"no result after {timeout} s",
                               "block_line": None, "where": describe(exc, filename)["where"]}
        except BaseException as exc:  # noqa: B902 - a block may raise anything, SystemExit included
            result["error"] = describe(exc, filename)
        finally:
            signal.alarm(0)
    result["stdout"] = out.text
    result["seconds"] = round(time.perf_counter() - start, 3)
    return result


def main(page_json, out_path, backend, timeout, upto=None):
    if backend == "minims":
        import mindspore_alias
        mindspore_alias.install()
    elif backend == "probe":
        import mindspore_probe
        mindspore_probe.install()
    signal.signal(signal.SIGALRM, _alarm)
    page = json.loads(Path(page_json).read_text())
    # the namespace is the __dict__ of a fresh module that is sys.modules["__main__"], as in Jupyter:
    # MindSpore's graph compiler resolves a function's globals through sys.modules[fn.__module__]
    main_module = types.ModuleType("__main__")
    sys.modules["__main__"] = main_module
    namespace = main_module.__dict__
    with open(out_path, "w") as out:
        for block in page["blocks"][:upto]:
            result = run_block(page["page"], block, namespace, timeout)
            out.write(json.dumps(result) + "\n")
            out.flush()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]) if len(sys.argv) > 5 else None)
