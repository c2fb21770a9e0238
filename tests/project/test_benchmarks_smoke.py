"""Smoke test of the benchmark suite (benchmarks/run.py): it runs, it checks every peer before
timing it, and it writes the JSON it documents.  No timing is asserted anywhere: the figures of a
--quick run mean nothing, and a test machine's speed is not minims' business.

The main run is one subprocess, ``--quick --no-torch --no-numba`` with a tiny ``--memory`` run, so
it passes whether or not PyTorch and Numba are installed, compiles nothing, and takes a few seconds.
The optional columns (PyTorch; minims + Numba, once minims has its fast-path switch) are exercised by
a cheap extra run on W4, whose columns follow what is installed.
"""
import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

# the slow tier (`pytest -m "not slow"` leaves it out): runs the benchmark script in subprocesses (~25 s)
pytestmark = pytest.mark.slow


ROOT = pathlib.Path(__file__).resolve().parents[2]
RUN = ROOT / "benchmarks" / "run.py"
VARIANTS = ["W1.forward", "W1.grad", "W1.scalar-forward", "W1.scalar-grad", "W2", "W3", "W4", "W5"]
STANDARD = ["minims PyNative", "minims Graph", "NumPy by hand"]

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def run_suite(tmp_path, *args, env_extra=None):
    out = tmp_path / "result.json"
    env = {**os.environ, **(env_extra or {})}
    proc = subprocess.run([sys.executable, str(RUN), "--quick", "--rounds", "1", "--min-time", "0",
                           "--json", str(out), *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"exit {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
    return json.loads(out.read_text()), proc.stdout


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """All workloads, PyTorch and Numba left out, with a 12-step memory run (W2 in both modes)."""
    return run_suite(tmp_path_factory.mktemp("bench"), "--no-torch", "--no-numba", "--memory", "--memory-steps", "12")


def test_report_has_the_documented_top_level_keys(quick_run):
    report, stdout = quick_run
    for key in ("schema", "created", "command", "quick", "settings", "machine", "threads", "peers",
                "workloads", "targets", "memory", "profiles"):
        assert key in report, key
    assert report["quick"] is True
    assert sorted(report["workloads"]) == sorted(VARIANTS)
    assert report["peers"]["torch"]["available"] is False
    assert report["peers"]["fast_path"]["available"] is False
    for key in ("requested", "cpu_count", "env", "numpy_openblas", "torch_intra_op", "numba"):
        assert key in report["threads"], key
    assert "checking that every peer computes the same loss and gradients" in stdout
    assert "wrote " in stdout


@pytest.mark.parametrize("variant", VARIANTS)
def test_each_workload_was_checked_then_timed(quick_run, variant):
    report, stdout = quick_run
    w = report["workloads"][variant]
    for key in ("title", "unit", "per", "rounds", "checks", "results", "ratios", "extra_ratios",
                "unavailable", "targets"):
        assert key in w, key
    assert set(STANDARD) <= set(w["results"])
    # every timed peer was checked first against the reference, and agreed
    assert set(w["checks"]) == set(w["results"])
    assert w["checks"]["minims PyNative"].get("reference") is True
    for name, check in w["checks"].items():
        assert check["ok"] is True and check["compared"], name
        assert check["max_rel_err"] <= 1e-4, (name, check)
    for name, r in w["results"].items():
        for key in ("median", "min", "max", "samples", "number", "first_call_s", "unit"):
            assert key in r, (name, key)
        assert len(r["samples"]) == w["rounds"] and r["min"] <= r["median"] <= r["max"]
        assert set(w["ratios"][name]) == {"vs_numpy", "vs_torch", "vs_jax"}
        assert w["ratios"][name]["vs_torch"] is None                      # PyTorch disabled
    # the columns left out are reported as such, with the reason
    assert "PyTorch eager" in w["unavailable"] and "minims + Numba" in w["unavailable"]
    assert "other_processes" in w
    assert w["title"] in stdout


def test_w5_reports_the_custom_bprop_ratio(quick_run):
    w = quick_run[0]["workloads"]["W5"]
    assert {"minims PyNative, no bprop", "minims Graph, no bprop"} <= set(w["results"])
    assert w["extra_ratios"]["minims PyNative: custom bprop / none"] is not None


def test_targets_are_listed_with_a_status(quick_run):
    report, stdout = quick_run
    texts = [t["target"] for t in report["targets"]]
    assert any(t.startswith("W1 forward:") for t in texts) and any(t.startswith("W5:") for t in texts)
    for t in report["targets"]:
        assert t["status"] in ("met", "missed", "n/a")
        if t["status"] == "n/a":
            assert t["why_na"]
    assert "targets of issues 6 and 16" in stdout


def test_memory_criterion_is_measured_for_both_modes(quick_run):
    memory = quick_run[0]["memory"]
    assert memory["steps"] == 12 and memory["baseline_steps"] == 10 and memory["limit_ratio"] == 1.10
    for mode in ("minims PyNative", "minims Graph"):
        row = memory["modes"][mode]
        assert row["peak_bytes"] >= row["peak_baseline_bytes"] > 0
        assert row["ratio"] == pytest.approx(row["peak_bytes"] / row["peak_baseline_bytes"])
    assert any(t["workload"] == "W2.memory" for t in quick_run[0]["targets"])


def test_only_selects_workloads(tmp_path):
    report, _ = run_suite(tmp_path, "--no-torch", "--only", "W4,W1.grad")
    assert sorted(report["workloads"]) == ["W1.grad", "W4"]
    assert report["memory"] is None


def test_unknown_workload_is_refused(tmp_path):
    proc = subprocess.run([sys.executable, str(RUN), "--quick", "--only", "W9"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "unknown workload" in proc.stderr


def test_optional_columns_follow_what_is_installed(tmp_path):
    """PyTorch eager when torch imports; minims + Numba when minims' fast-path switch turns on."""
    report, stdout = run_suite(tmp_path, "--only", "W4")
    w = report["workloads"]["W4"]
    has_torch = importlib.util.find_spec("torch") is not None
    assert report["peers"]["torch"]["available"] is has_torch
    assert ("PyTorch eager" in w["results"]) is has_torch
    assert ("PyTorch eager" in w["unavailable"]) is not has_torch
    if has_torch:
        assert w["checks"]["PyTorch eager"]["ok"] is True
        assert w["ratios"]["minims PyNative"]["vs_torch"] is not None
    fast = report["peers"]["fast_path"]["available"]
    assert ("minims + Numba" in w["results"]) is fast
    assert ("minims + Numba" in w["unavailable"]) is not fast
    if fast:
        assert w["checks"]["minims + Numba"]["ok"] is True
    assert "Numba fast path:" in stdout


# ----- the check itself, in process ------------------------------------------------------------------
def test_compare_rejects_a_wrong_gradient():
    from benchmarks.checks import CheckFailed, compare
    want = {"loss": np.float32(2.3), "grad w": np.array([1.0, -2.0, 3.0], np.float32)}
    ok = compare("peer", {"loss": np.float32(2.3), "grad w": want["grad w"] * (1 + 1e-6)}, "ref", want)
    assert ok["ok"] and ok["max_rel_err"] < 1e-5
    with pytest.raises(CheckFailed, match="grad w"):
        compare("peer", {"loss": np.float32(2.3), "grad w": want["grad w"] * 1.01}, "ref", want)
    with pytest.raises(CheckFailed, match="missing"):
        compare("peer", {"loss": np.float32(2.3)}, "ref", want)
    with pytest.raises(CheckFailed):
        compare("peer", {"loss": np.float32(np.nan), "grad w": want["grad w"]}, "ref", want)


def test_a_peer_computing_something_else_stops_the_run_before_timing():
    from benchmarks.checks import CheckFailed
    from benchmarks.run import run_checks
    from benchmarks.timing import Peer
    from benchmarks.workloads import Variant
    x = np.linspace(-1, 1, 5).astype(np.float32)
    good = Peer("minims PyNative", make=lambda: None, outputs=lambda: {"grad": np.cos(x)})
    same = Peer("NumPy by hand", make=lambda: None, outputs=lambda: {"grad": np.cos(x)})
    wrong = Peer("PyTorch eager", make=lambda: None, outputs=lambda: {"grad": -np.cos(x)})   # sign slip
    variant = Variant("T", "T", "test", "us", 1e6, 1, [good, same])
    assert set(run_checks(variant)) == {"minims PyNative", "NumPy by hand"}
    variant.peers.append(wrong)
    with pytest.raises(CheckFailed, match="PyTorch eager disagrees"):
        run_checks(variant)


def test_the_readme_table_renders_every_workload_and_target_of_one_run(quick_run, tmp_path):
    from benchmarks import readme_table
    report, _ = quick_run
    text = readme_table.render(report)
    rows = [line for line in text.splitlines() if line.startswith("| W")]
    assert len(rows) == len(readme_table.ISSUE_ROWS) + len(VARIANTS) + len(report["targets"])
    assert "Kernels and threads of every figure: NumPy BLAS" in text
    assert str(ROOT) not in text and "run.py" not in text              # no paths of this machine
    for t in report["targets"]:
        assert f"| {t['target']} |" in text
    readme = tmp_path / "README.md"
    readme.write_text(f"before\n{readme_table.START}\nold\n{readme_table.END}\nafter\n")
    readme_table.write_readme(text, readme)
    assert readme.read_text() == f"before\n{readme_table.START}\n{text}{readme_table.END}\nafter\n"
