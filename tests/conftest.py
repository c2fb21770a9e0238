"""The tests are in folders that mirror minims' packages (``tests/graph/`` for ``minims/graph/``, ...),
plus ``robustness/`` (errors, recovery, threads, fuzzing), ``project/`` (README, chapters, Binder,
benchmarks) and ``mindspore/`` (MindSpore's own pages and tests run on minims).  The helpers they
share (``programs.py``, ``primitive_cases.py``, ``ckpt_scenarios.py`` ...) and ``data/`` stay here,
importable from every folder.  Tests marked ``slow`` are left out by ``pytest -m "not slow"``."""
import sys
from pathlib import Path

import pytest

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)


@pytest.fixture
def graph_mode():
    """Run the test in GRAPH_MODE, back to PyNative afterwards."""
    import minims as ms
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)
