"""minims benchmarks: ``python benchmarks/run.py --help`` (the suite of issue 6, workloads W1-W5).

A package so that the suite's modules (``benchmarks.timing``, ``benchmarks.workloads.*``) import
the same way from ``python benchmarks/run.py``, ``python -m benchmarks.run`` and the smoke test.
"""
