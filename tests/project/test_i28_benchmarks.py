"""Issue 28, item 1: benchmarks you can trust — the kernel and threads of every figure, the PyTorch
W4 peer as PyTorch's users write it, the optional JAX jit and torch.compile peers, and the issue's
table rendered from one run.  No timing is asserted.

Expected values: the third derivative of tanh in closed form, ``-2 (1 - t²)(1 - 3 t²)`` in float64
(worked by hand, checked by SymPy in tests/graph/test_i28_higher_order.py); the BLAS kernel as
OpenBLAS's own configuration string names it; the ratios of a synthetic report by arithmetic.
"""
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import readme_table                                            # noqa: E402
from benchmarks.peers import FastPath, JAX, TORCH_COMPILE                     # noqa: E402
from benchmarks.timing import blas_report, thread_report                      # noqa: E402
from benchmarks.workloads import Env, standard_peers                           # noqa: E402
from benchmarks.workloads import w4_third_derivative as w4                     # noqa: E402


def _closed_third():
    t = np.tanh(w4.X0.astype(np.float64))
    return -2.0 * (1 - t * t) * (1 - 3 * t * t)


def _close(got, want):
    return np.max(np.abs(np.asarray(got, np.float64) - want)) <= 1e-6 * np.max(np.abs(want))


def test_every_figure_names_the_blas_kernel_and_threads():
    """Item 1(b): the report names NumPy's OpenBLAS core (as its get_config string says) and threads."""
    report = thread_report()
    kernels = report["numpy_blas"]
    assert kernels, "NumPy's OpenBLAS was not found in the process"
    text = blas_report(report)
    for info in kernels.values():
        assert info["corename"] and info["corename"] in info["config"]
        assert f"{info['corename']} kernel, {info['threads']} thread(s)" in text
    assert "OPENBLAS_CORETYPE" in text


def test_openblas_coretype_is_reported():
    """Item 1(b): a kernel forced by OPENBLAS_CORETYPE is the kernel reported (OpenBLAS reads it at load)."""
    code = ("import numpy; from benchmarks.timing import blas_report, thread_report; "
            "print(blas_report(thread_report()))")
    env = {**os.environ, "OPENBLAS_CORETYPE": "Haswell", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120).stdout
    assert "Haswell kernel" in out and "OPENBLAS_CORETYPE=Haswell" in out


def test_w4_pytorch_peer_seeds_each_level_and_matches_the_closed_form():
    """Item 1(a): the PyTorch peer seeds every level with ones (no sum() per level) and computes
    the closed form; so does the former, summed, way kept for the comparison."""
    torch = pytest.importorskip("torch")
    make, outputs = w4.torch_factory(torch)
    assert _close(outputs()["d3"].detach().numpy(), _closed_third())
    x = torch.tensor(w4.X0, requires_grad=True)
    assert _close(w4.torch_third_summed(torch, x).detach().numpy(), _closed_third())
    assert _close(make()().detach().numpy(), _closed_third())


def test_jax_jit_peer_computes_the_closed_form():
    """Item 1(c): the JAX jit peer of W4 (vmap of grad three times), skipped where JAX is absent."""
    jax = pytest.importorskip("jax")
    make, outputs = w4.jax_factory(jax)
    assert _close(outputs()["d3"], _closed_third())
    assert _close(make()()["d3"], _closed_third())


def test_optional_columns_say_why_they_are_missing():
    """Item 1(c): torch.compile runs only with --compile; JAX jit only where jax imports."""
    env = Env(torch=None, torch_reason="not installed", fast=FastPath(False, "off"), quick=True,
              jax=None, jax_reason="not installed (pip install jax adds it)", compile=False)
    pair = (lambda: (lambda: None), dict)
    _, missing = standard_peers(env, pair, pair, pair, torch_factory=None, jax_factory=lambda jax: pair)
    assert "--compile" in missing[TORCH_COMPILE]
    assert missing[JAX].startswith("not installed")


def _result(median):
    return {"median": median, "min": median, "max": median}


def test_issue_table_has_the_issue_rows_and_ratios():
    """Item 1(d): W1-W5 and the first jitted W2 step, ratios vs PyTorch eager and JAX jit (arithmetic)."""
    workloads = {}
    for key, *_ in readme_table.ISSUE_ROWS:
        workloads[key] = {"title": key, "unit": "ms/step", "kernels": "NumPy BLAS x SkylakeX kernel, 1 thread(s)",
                          "results": {"minims PyNative": _result(3.0), "PyTorch eager": _result(2.0),
                                      "minims Graph": _result(4.0), "JAX jit": _result(8.0)},
                          "other_processes": {}}
    report = {"machine": {"cpu": "cpu", "cpu_count": 2, "python": "3", "numpy": "2", "torch": "2", "numba": None,
                          "jax": "0.10", "git": {"commit": "abcdef0"}},
              "threads": {"requested": 1}, "settings": {"rounds": 3}, "command": ["run.py", "--threads", "1"],
              "workloads": workloads,
              "targets": [{"target": readme_table.FIRST_CALL + " ... <= 1 s", "ratio": 0.4, "limit": 1.0,
                           "unit": "s", "status": "met"}]}
    lines = readme_table.issue_table(report)
    assert len(lines) == 2 + len(readme_table.ISSUE_ROWS) + 1
    for line in lines[2:-1]:
        assert "| 3.00 | 2.00 | 1.50× | 4.00 | 8.00 | 0.50× | n/a |" in line
    assert lines[-1].startswith("| first call of a jitted W2 step") and "0.40 s" in lines[-1]
    assert "Kernels and threads of every figure: NumPy BLAS x SkylakeX kernel, 1 thread(s)." in readme_table.render(report)


def test_higher_order_benchmark_counts_the_graphs_before_and_after():
    """Item 3: ``python -m benchmarks.higher_order`` compares W4's graph without and with the
    derivative passes: three TanhGrad (one per derivative level) before, one after."""
    from benchmarks import higher_order
    gs = higher_order.graphs()
    before, after = higher_order.counts(gs["before"]), higher_order.counts(gs["after"])
    assert before["TanhGrad"] == 3 and after["TanhGrad"] == 1
    assert after["equations"] <= before["equations"]
    assert {p.name for p in higher_order.peers(gs, numba=False)} == {
        "NumPy closed form", "minims jit, before the passes, NumPy path", "minims jit, after the passes, NumPy path"}


def test_w4_peers_ways_compute_the_closed_form():
    """Item 1(a): every PyTorch way ``benchmarks.w4_peers`` times computes the closed form."""
    torch = pytest.importorskip("torch")
    from benchmarks import w4_peers
    for name, make in w4_peers.torch_ways(torch).items():
        got = make()()
        assert _close(got.detach().numpy() if hasattr(got, "detach") else got, _closed_third()), name
