"""Issue 23 ("the teaching core"): the measures that keep ``minims/core/`` small and the package
walkable, checked on every run so that they stay true.

* the core has at most 1,800 lines (``wc -l``, docstrings included) and imports nothing of minims
  outside itself;
* no import circle among minims' top-level packages and modules (every import statement counts, at
  module level or inside a function, except under ``TYPE_CHECKING``);
* a gradient of ``sin(x) * x`` with the fast path off runs through at most 6 files and 300 lines of
  functions (counted with ``sys.setprofile``, as ``../shared/tools/grad_path.py`` counts);
* the README's reading route lists every core file with its real line count.
"""
import ast
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "minims"
CORE = PACKAGE / "core"
CORE_LINES = 1800


def line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def under_type_checking(tree: ast.AST) -> set:
    """The import nodes inside ``if TYPE_CHECKING:`` blocks (they never run)."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                skipped.update(id(n) for n in ast.walk(inner))
    return skipped


def imported_modules(path: Path):
    """``(line, absolute name)`` of every minims module or name an import statement in ``path`` names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = under_type_checking(tree)
    here = module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            for alias in node.names:
                yield node.lineno, f"{stem}.{alias.name}"


def unit_of(name: str):
    """The top-level package or module of minims that ``name`` lives in (None outside minims)."""
    parts = name.split(".")
    if parts[0] != "minims" or len(parts) < 2:
        return None
    if (PACKAGE / parts[1]).is_dir() or (PACKAGE / f"{parts[1]}.py").exists():
        return parts[1]
    return None                 # a name defined in minims/__init__.py: the top, not a unit


def python_files(folder: Path):
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def test_the_core_is_at_most_1800_lines():
    sizes = {p.name: line_count(p) for p in python_files(CORE)}
    assert sum(sizes.values()) <= CORE_LINES, sizes


def test_the_core_imports_nothing_of_minims_outside_itself():
    outside = [f"{p.relative_to(ROOT)}:{line} imports {name}"
               for p in python_files(CORE) for line, name in imported_modules(p)
               if name.startswith("minims.") and unit_of(name) != "core"
               or name == "minims"]
    assert not outside, "\n".join(outside)


def test_no_import_circle_among_the_packages():
    edges: dict = {}
    for path in python_files(PACKAGE):
        source = unit_of(module_name(path))
        if source is None:
            continue
        for line, name in imported_modules(path):
            target = unit_of(name)
            if target is not None and target != source:
                edges.setdefault(source, {}).setdefault(target, f"{path.relative_to(ROOT)}:{line}")
    # depth-first search for a back edge; report the circle with one import per step
    state: dict = {}

    def visit(unit, path):
        state[unit] = "open"
        for target, where in edges.get(unit, {}).items():
            if state.get(target) == "open":
                start = [u for u, _ in path].index(target) if target in [u for u, _ in path] else 0
                circle = path[start:] + [(unit, where)]
                raise AssertionError("import circle: " + " -> ".join(f"{u} ({w})" for u, w in circle)
                                     + f" -> {target}")
            if target not in state:
                visit(target, path + [(unit, where)])
        state[unit] = "done"

    for unit in sorted(edges):
        if unit not in state:
            visit(unit, [])


@pytest.mark.slow
def test_a_gradient_of_sin_x_times_x_runs_through_6_files_and_300_lines():
    script = textwrap.dedent("""
        import os, sys
        os.environ["MINIMS_FAST"] = "0"
        import numpy as np
        import minims as ms
        from minims import ops, Tensor
        pkg = os.path.dirname(ms.__file__)
        f = lambda x: ops.sin(x) * x
        x = Tensor(np.array([0.5, 1.0, 2.0], np.float32))
        ms.grad(f)(x)                   # warm: imports and caches are not the path
        seen = {}
        def prof(frame, event, arg):
            co = frame.f_code
            if event == "call" and co.co_filename.startswith(pkg) and co.co_name != "<module>":
                last = max((l for _, _, l in co.co_lines() if l), default=co.co_firstlineno)
                seen[(co.co_filename, co.co_firstlineno)] = last - co.co_firstlineno + 1
        sys.setprofile(prof)
        g = ms.grad(f)(x)
        sys.setprofile(None)
        v = x.asnumpy().astype(np.float64)
        assert np.allclose(g.asnumpy(), np.cos(v) * v + np.sin(v), rtol=1e-5)
        print(len({fn for fn, _ in seen}), sum(seen.values()))
    """)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    files, lines = map(int, out.stdout.split())
    assert files <= 6 and lines <= 300, (files, lines)


def test_the_readme_lists_every_core_file_with_its_line_count():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| \[`([\w.]+)`\]\(minims/core/[\w.]+\) \| (\d+) \|", readme, re.M))
    assert set(rows) == {p.name for p in python_files(CORE)}
    for name, lines in rows.items():
        assert int(lines) == line_count(CORE / name), name
    assert f"{sum(map(int, rows.values())):,} lines" in readme
