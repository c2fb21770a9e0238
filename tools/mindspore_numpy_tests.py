"""Run MindSpore's own ``mindspore.numpy`` tests on minims, with ``mindspore`` aliased to ``minims``.

Usage: python tools/mindspore_numpy_tests.py PATH_TO_MINDSPORE_TEST_CHECKOUT [--layout] [pytest args]

The tests are ``tests/st/numpy_native/test_*.py`` of the ``mindspore-ai/mindspore_test`` mirror
(``test_numpy_ops.py`` is left out: it needs MindSpore's test-pipeline framework).  They are copied
into a temporary folder beside a ``conftest.py`` that puts minims in ``sys.modules`` under
``mindspore`` (and its submodules that minims has under the same path), so the files run unchanged.
``--layout`` adds stand-ins for the module paths minims lacks (issue 25, item 1):
``mindspore.common.dtype``, ``mindspore.common.api._pynative_executor``, ``mindspore.runtime``.
The tests were written for NumPy 1.x; on NumPy 2 the conftest restores the names they use
(``np.NINF``, ``np.in1d``, ``np.trapz``, ``np.sometrue``).  MindSpore's files are never copied into
this repository.  A development aid, not part of the test suite.
"""
from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent

CONFTEST = r'''
import sys, types
sys.path.insert(0, {root!r})
import numpy as _np
import minims, minims.numpy, minims.ops.functional

sys.modules["mindspore"] = minims
for name in ("numpy", "ops", "ops.functional", "context", "nn", "common", "dtype"):
    mod = minims
    for part in name.split("."):
        mod = getattr(mod, part)
    sys.modules["mindspore." + name] = mod

if {layout!r}:
    dtype_mod = types.ModuleType("mindspore.common.dtype")
    dtype_mod.__dict__.update({{k: v for k, v in vars(minims.dtype).items() if not k.startswith("__")}})
    dtype_mod.dtype_to_nptype = lambda d: d.to_numpy()
    api = types.ModuleType("mindspore.common.api")
    api._pynative_executor = types.SimpleNamespace(sync=lambda: None)
    api.jit = minims.jit
    runtime = types.ModuleType("mindspore.runtime")
    runtime.launch_blocking = lambda: None
    for parent, name, mod in ((minims.common, "common.dtype", dtype_mod), (minims.common, "common.api", api),
                              (minims, "runtime", runtime)):
        sys.modules["mindspore." + name] = mod
        setattr(parent, name.split(".")[-1], mod)       # `from mindspore.common import dtype` reads it

for name, value in (("NINF", -_np.inf), ("PINF", _np.inf), ("NZERO", -0.0), ("PZERO", 0.0), ("trapz", _np.trapezoid),
                    ("sometrue", _np.any),
                    ("in1d", lambda a, b, invert=False: _np.isin(_np.ravel(a), b, invert=invert))):
    if name not in _np.__dict__ and hasattr(_np, "trapezoid"):
        setattr(_np, name, value)
'''

MARKS = "def arg_mark(*args, **kwargs):\n    return lambda f: f\n"


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    source = pathlib.Path(argv[1]) / "tests" / "st" / "numpy_native"
    layout = "--layout" in argv[2:]
    extra = [a for a in argv[2:] if a != "--layout"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        target = folder / "tests" / "numpy_native"
        target.mkdir(parents=True)
        for f in source.glob("*.py"):
            if f.name != "test_numpy_ops.py":
                shutil.copy(f, target / f.name)
        (folder / "tests" / "__init__.py").write_text("")
        (folder / "tests" / "mark_utils.py").write_text(MARKS)
        (folder / "conftest.py").write_text(CONFTEST.format(root=str(ROOT), layout=layout))
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                               "--continue-on-collection-errors", "tests/numpy_native", *extra],
                              cwd=folder).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv))
