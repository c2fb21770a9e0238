"""MindSpore's own unit tests keep passing on minims: a ratchet on the recorded figures (issue 25).

tools/run_mindspore_tests.py runs MindSpore's test files (stored in tools/mindspore_tests/suite/)
with ``import mindspore`` importing minims. tools/mindspore_tests/oracle_results.json records which
pass on MindSpore 2.10 (CPU); tools/mindspore_tests/minims_baseline.json which of those passed on
minims when last recorded. Here each recorded passing test must still pass: the set can only grow
(the runner's ``--write-baseline`` refuses to shrink it).

The default tier checks the quickest files (by their whole run on minims when recorded) up to
``FAST_BUDGET`` seconds; the others are marked ``slow``.
"""
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import run_mindspore_tests as suite  # noqa: E402 - after the path
from run_mindspore_pages import split_by_budget  # noqa: E402

# the slow tier (`pytest -m "not slow"` leaves it out): runs MindSpore's own test files in subprocesses (~35 s)
pytestmark = pytest.mark.slow


FAST_BUDGET = 30.0
BASELINE = json.loads(suite.BASELINE_FILE.read_text())["files"]
ORACLE = json.loads(suite.ORACLE_FILE.read_text())["files"]
CHECKED = {path: f["passing"] for path, f in BASELINE.items() if f["passing"]}
FAST, SLOW = split_by_budget({p: BASELINE[p]["seconds"] for p in CHECKED}, FAST_BUDGET)


def still_failing(path):
    """The recorded passing tests of ``path`` that do not pass on minims now, with their first error line."""
    got = suite.run_file(path, "minims", tests=CHECKED[path])
    return {t: got["tests"].get(t, {"outcome": "not run", "error": got["collection_errors"]})
            for t in CHECKED[path] if got["tests"].get(t, {}).get("outcome") != "passed"}


@pytest.mark.parametrize("path", FAST)
def test_recorded_mindspore_tests_still_pass(path):
    """Issue 25: each MindSpore test recorded as passing on minims (and on the MindSpore 2.10 oracle) still passes."""
    lost = still_failing(path)
    assert not lost, "no longer passing:\n" + "\n".join(f"{t}: {r}" for t, r in lost.items())


@pytest.mark.slow
@pytest.mark.parametrize("path", SLOW)
def test_recorded_mindspore_tests_of_slow_files_still_pass(path):
    """Issue 25: as above, for the files that take longer on minims."""
    lost = still_failing(path)
    assert not lost, "no longer passing:\n" + "\n".join(f"{t}: {r}" for t, r in lost.items())


def test_records_cover_every_stored_test_file():
    """Issue 25: each stored test file has MindSpore's results and a minims baseline of tests passing on MindSpore."""
    for path in suite.test_files():
        assert (suite.SUITE / path).exists(), path
        passing_on_mindspore = {t for t, r in ORACLE[path]["tests"].items() if r["outcome"] == "passed"}
        assert set(BASELINE[path]["passing"]) <= passing_on_mindspore, path
