"""Repository-wide pytest hooks for nbval (the chapters are tested as notebooks).

* The sanitize file is pinned to the repository root: nbval resolves ``--nbval-sanitize-with``
  against the current directory, so a relative path in ``addopts`` breaks when pytest is run
  from a sub-folder.
* stderr is never compared for notebooks: warnings print ``/tmp/ipykernel_<pid>/...`` and
  site-packages paths that change from run to run and machine to machine.
"""
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def pytest_configure(config):
    if config.getoption("nbval_sanitize_with", None) is None:
        config.option.nbval_sanitize_with = str(ROOT / "nbval_sanitize.cfg")


def pytest_collectstart(collector):
    if collector.path.suffix == ".ipynb" and hasattr(collector, "skip_compare"):
        collector.skip_compare += ("stderr",)
