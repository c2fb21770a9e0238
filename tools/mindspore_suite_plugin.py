"""pytest plugin for running MindSpore's own test files on MindSpore or on minims (issue 25).

Loaded with ``-p mindspore_suite_plugin`` by tools/run_mindspore_tests.py (tools/ on PYTHONPATH):

* ``MINDSPORE_SUITE_ALIAS=minims``: ``import mindspore`` imports minims (tools/mindspore_alias.py),
  installed when pytest loads the plugin, before any test module or conftest is imported
  (``=probe``: minims behind MindSpore's module layout, tools/mindspore_probe.py, a diagnostic);
* ``MINDSPORE_SUITE_REPORT=path``: at the end, each test's outcome (passed / failed / error /
  skipped) and the first line of its error, and any file that failed to import, go to that JSON file;
* ``MINDSPORE_SUITE_TIMEOUT=seconds``: a test running longer is stopped (SIGALRM) and fails with
  ``TestTimeout``, so one hanging test does not take its file's other results with it.
"""
import json
import os
import signal

import pytest

if os.environ.get("MINDSPORE_SUITE_ALIAS") == "minims":
    import mindspore_alias
    mindspore_alias.install()
elif os.environ.get("MINDSPORE_SUITE_ALIAS") == "probe":
    import mindspore_probe
    mindspore_probe.install()

_RESULTS = {"tests": {}, "collection_errors": {}}


class TestTimeout(BaseException):
    """The test ran longer than MINDSPORE_SUITE_TIMEOUT."""


def _alarm(signum, frame):
    raise TestTimeout(f"no result after {os.environ.get('MINDSPORE_SUITE_TIMEOUT')} s")


def first_error_line(report):
    """``Type: message`` of what failed, as pytest's short summary shows it."""
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return crash.message.splitlines()[0][:400] if crash.message else ""
    text = str(report.longrepr).strip().splitlines()
    errors = [line for line in text if line.startswith("E ")]
    return (errors[0][1:].strip() if errors else text[-1] if text else "")[:400]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    seconds = int(os.environ.get("MINDSPORE_SUITE_TIMEOUT", "0"))
    if seconds:
        signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)


def pytest_runtest_logreport(report):
    entry = _RESULTS["tests"].setdefault(report.nodeid, {"outcome": "passed", "error": None})
    if report.failed:
        entry["outcome"] = "failed" if report.when == "call" else "error"
        entry["error"] = entry["error"] or first_error_line(report)
    elif report.skipped and entry["outcome"] == "passed":
        entry["outcome"] = "skipped"


def pytest_collectreport(report):
    if report.failed:
        _RESULTS["collection_errors"][report.nodeid] = first_error_line(report)


def pytest_sessionfinish(session):
    path = os.environ.get("MINDSPORE_SUITE_REPORT")
    if path:
        with open(path, "w") as f:
            json.dump(_RESULTS, f, indent=1)
