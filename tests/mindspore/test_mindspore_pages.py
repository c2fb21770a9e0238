"""MindSpore's tutorial pages keep running on minims: a ratchet on the recorded figures (issue 25).

tools/run_mindspore_pages.py runs the code blocks of 18 MindSpore tutorial pages (stored in
tools/mindspore_pages/) with ``import mindspore`` importing minims, and compares what each block
prints with what MindSpore 2.10 printed (tools/mindspore_pages/oracle_results.json, recorded on the
real MindSpore). tools/mindspore_pages/minims_baseline.json holds the verdict of each block on minims
when last recorded. Here every block recorded as ``same`` must still print what MindSpore printed:
the set of passing blocks can only grow (the runner's ``--write-baseline`` refuses to shrink it).

The default tier checks the quickest pages (by the time their checked blocks took when recorded, plus
a process start each) up to ``FAST_BUDGET`` seconds; the others (training loops) are marked ``slow``.
"""
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import run_mindspore_pages as pages  # noqa: E402 - after the path

# the slow tier (`pytest -m "not slow"` leaves it out): runs MindSpore's tutorial pages block by block (~45 s)
pytestmark = pytest.mark.slow


FAST_BUDGET, START_SECONDS = 40.0, 1.0
BASELINE = json.loads(pages.BASELINE_FILE.read_text())["pages"]
ORACLE = json.loads(pages.ORACLE_FILE.read_text())["pages"]
CHECKED = {name: sorted(int(b) for b, v in page["verdicts"].items() if v == "same")
           for name, page in BASELINE.items() if "same" in page["verdicts"].values()}

FAST, SLOW = pages.split_by_budget({n: BASELINE[n]["seconds"] + START_SECONDS for n in CHECKED}, FAST_BUDGET)


def regressions(name):
    """The blocks of ``name`` recorded as "same" that no longer print what MindSpore printed, with why."""
    upto = max(CHECKED[name]) + 1
    results = pages.run_page(name, "minims", upto=upto)
    verdicts = pages.compare_page(name, ORACLE[name]["blocks"][:upto], results)
    return [f"block {v['block']}: {v.get('error') or (v.get('line'), v.get('expected'), v.get('got'))}"
            for v in verdicts if v["block"] in CHECKED[name] and v["verdict"] != "same"]


@pytest.mark.parametrize("name", FAST)
def test_recorded_blocks_still_print_what_mindspore_prints(name):
    """Issue 25: each block recorded as printing what MindSpore 2.10 prints (oracle run) still does."""
    lost = regressions(name)
    assert not lost, "no longer as MindSpore prints:\n" + "\n".join(lost)


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW)
def test_recorded_blocks_of_slow_pages_still_print_what_mindspore_prints(name):
    """Issue 25: as above, for the pages that train a network (minutes on minims)."""
    lost = regressions(name)
    assert not lost, "no longer as MindSpore prints:\n" + "\n".join(lost)


def test_records_cover_every_stored_page():
    """Issue 25: every stored page has MindSpore's results (both runs) and a minims baseline, block for block."""
    for name in pages.page_names():
        blocks = [b["block"] for b in pages.load_page(name)["blocks"]]
        assert [b["block"] for b in ORACLE[name]["blocks"]] == blocks, name
        assert sorted(int(b) for b in BASELINE[name]["verdicts"]) == blocks, name


def test_substitutions_still_match_their_blocks():
    """Issue 25: each recorded substitution (downloads -> synthetic data) finds its text in its block."""
    import mindspore_substitutions as subs
    for (name, block), _ in subs.SUBSTITUTIONS.items():
        code, changed = subs.prepare(name, block, pages.load_page(name)["blocks"][block]["code"])
        assert changed and "download import download" not in code


def test_comparison_masks_only_what_varies_between_mindspore_runs():
    """Issue 25: a block whose MindSpore runs differ in numbers is compared without them; others exactly."""
    def run(stdout):
        return {"block": 0, "error": None, "stdout": stdout, "changed": [], "seconds": 0}

    stable = pages.oracle_block(run("a\n0.25 [1, 2]\n"), run("a\n0.25 [1, 2]\n"))
    assert stable["unstable"] == "" and stable["runs"]
    assert pages.first_difference(stable, "a\n0.25 [1, 2]  \n\n") is None
    assert pages.first_difference(stable, "a\n0.5 [1, 2]\n") == (2, "0.25 [1, 2]", "0.5 [1, 2]")
    random = pages.oracle_block(run("a\n0.25 [1, 2]\n"), run("a\n-0.75 [1,  3]\n"))
    assert random["unstable"] == "numbers"
    assert pages.first_difference(random, "a\n0.5\n[1, 2]\n") is None      # wrapped elsewhere: same text
    assert pages.first_difference(random, "a\n0.5 [1, 2, 3]\n") == (2, "0.25 [1, 2]", "0.5 [1, 2, 3]")
    assert pages.first_difference(random, "b\n0.5 [1, 2]\n") == (1, "a", "b")
    varying = pages.oracle_block(run("took 3 s\n"), run("took 3 s\nretried\n"))
    assert varying["unstable"] == "all" and pages.first_difference(varying, "anything") is None
