"""How many of MindSpore's own unit tests pass on minims with only the import changed (issue 25).

Usage:
    python tools/run_mindspore_tests.py [--files a.py,b.py] [--json OUT] [--write-baseline] [--jobs N]
    python tools/run_mindspore_tests.py --record-oracle                   (needs /tmp/oracle/bin/python)
    ... --probe: a diagnostic run with MindSpore's module layout faked over minims
              (tools/mindspore_probe.py): what fails once the imports resolve; never recorded

The test files are MindSpore's, stored byte for byte under tools/mindspore_tests/suite/ (see its
NOTICE.md and manifest.json; tools/extract_mindspore_sources.py copied them). Each file runs in its
own pytest process with the suite folder as rootdir, under MindSpore (``--record-oracle``, results in
tools/mindspore_tests/oracle_results.json) or under minims with ``import mindspore`` importing minims
(tools/mindspore_suite_plugin.py, which also records every test's outcome and first error line and
stops a test after ``TEST_TIMEOUT`` seconds). Only CPU tests run: tests MindSpore marks for Ascend or
GPU alone are deselected (``CPU_ONLY``).

The report: per file, the tests that pass on MindSpore 2.10 and how many of them pass on minims,
totals, the missing names (from ImportError/AttributeError lines) ranked by the tests each one
stops, and the first error line of every failing test. ``--write-baseline`` stores the passing tests
in tools/mindspore_tests/minims_baseline.json; tests/mindspore/test_mindspore_suite.py holds minims to it.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "tools"
SUITE_ROOT = TOOLS / "mindspore_tests"
SUITE = SUITE_ROOT / "suite"
ORACLE_FILE = SUITE_ROOT / "oracle_results.json"
BASELINE_FILE = SUITE_ROOT / "minims_baseline.json"
ORACLE_PYTHON = "/tmp/oracle/bin/python"
TEST_TIMEOUT = 120
FILE_TIMEOUT = 1800
CPU_ONLY = "cpu_linux or not (platform_ascend or platform_ascend910b or platform_ascend310p or platform_gpu)"

sys.path.insert(0, str(TOOLS))
from mindspore_alias import mindspore_name  # noqa: E402 - after the path


def test_files():
    return json.loads((SUITE_ROOT / "manifest.json").read_text())["test_files"]


def run_file(path, backend, tests=None):
    """{"tests": {nodeid: {"outcome", "error"}}, "collection_errors": {...}} of one file on ``backend``.

    ``tests``: node ids to run instead of the whole file.
    """
    python = ORACLE_PYTHON if backend == "mindspore" else sys.executable
    with tempfile.TemporaryDirectory(prefix="mstests-") as scratch:
        # the tests run on a copy of the suite: some rewrite files beside themselves
        # (test_serialize.py saves utils/parameters.ckpt), and the stored suite stays as extracted
        suite = Path(scratch) / "suite"
        shutil.copytree(SUITE, suite)
        paths = [str(suite), str(TOOLS)] + ([str(ROOT)] if backend != "mindspore" else [])
        report = Path(scratch) / "report.json"
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths), OPENBLAS_NUM_THREADS="1",
                   OMP_NUM_THREADS="1", GLOG_v="3", MINDSPORE_SUITE_REPORT=str(report),
                   MINDSPORE_SUITE_TIMEOUT=str(TEST_TIMEOUT), MINDSPORE_SUITE_ALIAS=backend)
        # node ids stay relative to the suite (--rootdir); the tests run in a scratch folder, since
        # some write files (checkpoints, MindIR) into the current directory
        command = [python, "-m", "pytest", "-q", "-p", "mindspore_suite_plugin", "--rootdir", str(suite),
                   "-c", str(suite / "pytest.ini"), "-m", CPU_ONLY, *(str(suite / t) for t in tests or [path])]
        start = time.perf_counter()
        try:
            proc = subprocess.run(command, cwd=scratch, env=env, capture_output=True, text=True,
                                  timeout=FILE_TIMEOUT)
            tail = (proc.stdout + proc.stderr)[-1500:]
        except subprocess.TimeoutExpired:
            tail = f"file stopped after {FILE_TIMEOUT} s"
        seconds = round(time.perf_counter() - start, 1)
        if report.exists():
            return {**json.loads(report.read_text()), "seconds": seconds}
    errors = [line[1:].strip() for line in tail.splitlines() if line.startswith("E ")]
    why = errors[-1] if errors else tail.strip()[-300:]
    return {"tests": {}, "collection_errors": {path: f"pytest ended without a report: {why}"}, "seconds": seconds}


def run_files(paths, backend, jobs=1):
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return dict(zip(paths, pool.map(lambda p: run_file(p, backend), paths)))


def missing_name(error):
    """The MindSpore name an error line says minims lacks, or None."""
    if not error:
        return None
    m = re.search(r"No module named '((?:mindspore|minims)[\w.]*)'", error)
    if m:
        return mindspore_name(m.group(1))
    m = re.search(r"cannot import name '(\w+)' from '((?:mindspore|minims)[\w.]*)'", error)
    if m:
        return f"{mindspore_name(m.group(2) + '.')}{m.group(1)}"
    m = re.search(r"module '((?:mindspore|minims)[\w.]*)' has no attribute '(\w+)'", error)
    if m:
        return f"{mindspore_name(m.group(1) + '.')}{m.group(2)}"
    m = re.search(r"'(\w+)' object has no attribute '(\w+)'", error)
    if m:
        return f"{m.group(1)}.{m.group(2)}"
    return None


def compare(oracle, results):
    """Per file: the tests passing on MindSpore, which of them pass on minims, and why the others do not."""
    files = {}
    for path, got in results.items():
        want = oracle["files"][path]
        passing = sorted(t for t, r in want["tests"].items() if r["outcome"] == "passed")
        failing = {}
        for t in passing:
            r = got["tests"].get(t)
            if r is None:
                err = next(iter(got["collection_errors"].values()), "not run")
                failing[t] = f"not collected: {err}"
            elif r["outcome"] != "passed":
                failing[t] = f"{r['outcome']}: {r['error']}"
        files[path] = {"tests": len(want["tests"]), "pass_on_mindspore": len(passing),
                       "pass_on_minims": len(passing) - len(failing), "failing": failing,
                       "collection_errors": got["collection_errors"]}
    return files


def summarise(files):
    names = defaultdict(list)
    for path, f in files.items():
        for test, error in f["failing"].items():
            name = missing_name(error)
            if name:
                names[name].append(test)
    ranked = sorted(names.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return {"files": len(files), "tests": sum(f["tests"] for f in files.values()),
            "pass_on_mindspore": sum(f["pass_on_mindspore"] for f in files.values()),
            "pass_on_minims": sum(f["pass_on_minims"] for f in files.values()),
            "files_failing_at_import": sorted(p for p, f in files.items() if f["collection_errors"]),
            "missing_names": [{"name": n, "tests": len(t)} for n, t in ranked]}


def markdown(files, summary):
    pct = lambda a, b: f"{100 * a / b:.0f}%" if b else "-"  # noqa: E731
    out = ["| file | tests | pass on MindSpore 2.10 | pass on minims | |", "|---|---:|---:|---:|---:|"]
    for path, f in files.items():
        short = path.replace("tests/", "", 1)
        out.append(f"| {short} | {f['tests']} | {f['pass_on_mindspore']} | {f['pass_on_minims']} | "
                   f"{pct(f['pass_on_minims'], f['pass_on_mindspore'])} |")
    out.append(f"| **total** ({summary['files']} files) | {summary['tests']} | {summary['pass_on_mindspore']} | "
               f"{summary['pass_on_minims']} | **{pct(summary['pass_on_minims'], summary['pass_on_mindspore'])}** |")
    out += ["", f"Files that fail at import on minims: {len(summary['files_failing_at_import'])}", "",
            "Missing names (tests stopped):", "", "| name | tests |", "|---|---:|"]
    out += [f"| `{m['name']}` | {m['tests']} |" for m in summary["missing_names"]]
    out += ["", "Failing tests (first error line):", ""]
    for path, f in files.items():
        errors = defaultdict(list)
        for test, error in f["failing"].items():
            errors[error].append(test.split("::")[-1])
        for error, tests in sorted(errors.items(), key=lambda kv: -len(kv[1])):
            shown = ", ".join(tests[:6]) + (f" (+{len(tests) - 6})" if len(tests) > 6 else "")
            out.append(f"- {path.replace('tests/', '', 1)} [{len(tests)}] {error[:220]} -- {shown}")
    return "\n".join(out)


def record_oracle(paths, jobs):
    results = run_files(paths, "mindspore", jobs)
    version = subprocess.run([ORACLE_PYTHON, "-c", "import mindspore, sys; print(mindspore.__version__, "
                              "sys.version.split()[0])"], capture_output=True, text=True).stdout.split()
    old = json.loads(ORACLE_FILE.read_text()) if ORACLE_FILE.exists() else {"files": {}}
    old["files"].update(results)
    old.update({"mindspore": version[0], "python": version[1], "selection": CPU_ONLY,
                "how": "tools/run_mindspore_tests.py --record-oracle"})
    ORACLE_FILE.write_text(json.dumps(old, indent=1) + "\n")


def write_baseline(files, results, allow_regression=False):
    """Store the tests passing on minims today: what tests/mindspore/test_mindspore_suite.py holds minims to.

    A ratchet: a test recorded as passing that fails now stops the update (SystemExit) unless
    ``allow_regression``. ``seconds`` per file (the whole file on minims) sorts files into test tiers.
    """
    old = json.loads(BASELINE_FILE.read_text())["files"] if BASELINE_FILE.exists() else {}
    oracle = json.loads(ORACLE_FILE.read_text())["files"]
    lost = [t for path, f in files.items() for t in old.get(path, {}).get("passing", []) if t in f["failing"]]
    if lost and not allow_regression:
        sys.exit(f"not writing the baseline: tests recorded as passing fail now: {', '.join(lost)}")
    for path, f in files.items():
        passing = [t for t, r in oracle[path]["tests"].items() if r["outcome"] == "passed"]
        old[path] = {"passing": sorted(set(passing) - set(f["failing"])), "seconds": results[path]["seconds"]}
    totals = {"files": len(oracle), "tests": sum(len(f["tests"]) for f in oracle.values()),
              "pass_on_mindspore": sum(r["outcome"] == "passed" for f in oracle.values() for r in f["tests"].values()),
              "pass_on_minims": sum(len(f["passing"]) for f in old.values())}
    record = {"how": "tools/run_mindspore_tests.py --write-baseline", "summary": totals,
              "files": dict(sorted(old.items()))}
    BASELINE_FILE.write_text(json.dumps(record, indent=1) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", help="comma-separated test files (paths as in manifest.json)")
    parser.add_argument("--record-oracle", action="store_true", help="run on MindSpore and store the results")
    parser.add_argument("--write-baseline", action="store_true", help="store the tests passing on minims today")
    parser.add_argument("--allow-regression", action="store_true",
                        help="with --write-baseline: accept tests that passed and fail now")
    parser.add_argument("--probe", action="store_true",
                        help="diagnostic: minims behind MindSpore's module layout (tools/mindspore_probe.py); "
                             "never with --write-baseline")
    parser.add_argument("--json", help="write per-file results and the comparison here")
    parser.add_argument("--jobs", type=int, default=1, help="files run at the same time")
    args = parser.parse_args(argv)
    paths = args.files.split(",") if args.files else test_files()
    if args.record_oracle:
        record_oracle(paths, args.jobs)
        return
    if args.probe and args.write_baseline:
        parser.error("--probe results are a diagnostic: they are never recorded")
    results = run_files(paths, "probe" if args.probe else "minims", args.jobs)
    files = compare(json.loads(ORACLE_FILE.read_text()), results)
    summary = summarise(files)
    print(markdown(files, summary))
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": summary, "files": files, "results": results},
                                              indent=1) + "\n")
    if args.write_baseline:
        write_baseline(files, results, args.allow_regression)


if __name__ == "__main__":
    main()
