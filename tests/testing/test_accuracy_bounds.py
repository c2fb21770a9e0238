"""The accuracy table stays true: every rule within its documented bound, every elementwise primitive
measured (or excused), and docs/accuracy.md showing what ``accuracy.json`` holds.

The harness (``minims.testing.accuracy``) runs here on a coarse grid — a few dozen points per domain
and format, on every path (the fused kernels too: their first compilation takes a few minutes,
later runs load them from Numba's disk cache) — and each row must meet its bound; the committed
table was measured on 2,000 points by ``python -m minims.testing.accuracy --write``.
"""
import json
from pathlib import Path

import pytest

from minims import fast
from minims.graph.fuse import ELEMENTWISE
from minims.primitives import table
from minims.testing.accuracy import MEASURED, NOT_MEASURED, measure
from minims.testing.accuracy.measure import PATHS
from minims.testing.accuracy.report import BEGIN, END, markdown
from minims.testing.accuracy.rules import NOT_FUSED, RULE_KINDS

ROOT = Path(__file__).resolve().parents[2]
COARSE = 32


@pytest.fixture(scope="module")
def coarse_rows():
    return measure(points=COARSE, paths=PATHS)


@pytest.mark.slow
def test_every_rule_meets_its_bound_on_a_coarse_grid(coarse_rows):
    over = [f"{r.primitive} {r.domain} {r.format} {r.rule} {r.wrt}: {r.max_ulp:.3g} ULP at {r.worst_at}"
            for r in coarse_rows if not r.ok]
    assert not over, "rules over their documented bound:\n" + "\n".join(over)


@pytest.mark.slow
def test_every_rule_a_primitive_has_is_measured(coarse_rows):
    """A measured primitive gets a row for each rule kind it has, and 'missing' only where the rule
    is absent by design (ReLU6Grad has no rules, as in MindSpore)."""
    for name in MEASURED:
        row = table().row(name)
        kinds = {r.rule for r in coarse_rows if r.primitive == name}
        expected = {"impl"} | ({"bprop", "bprop∘bprop"} if row.bprop else set()) | \
                   ({"jvp", "jvp∘jvp"} if row.jvp else set())
        assert kinds == expected, (name, kinds)
    missing = {(r.primitive, r.rule) for r in coarse_rows if r.missing and r.missing != NOT_FUSED}
    assert missing == {("ReLU6", "bprop∘bprop"), ("ReLU6", "jvp∘jvp")}, missing


def test_primitives_with_a_numba_kernel_or_a_fused_form_are_measured_with_the_fast_path_too(coarse_rows):
    for name in MEASURED:
        paths = {r.path for r in coarse_rows if r.primitive == name}
        expected = {"numpy"} | ({"numba"} if table().row(name).numba else set()) | (
            {"fused"} if name in ELEMENTWISE and fast.numba_available() else set())
        assert paths == expected, (name, paths)


def _elementwise_names():
    """The primitives batched by the shared elementwise rules (``batch_rules.unary``/``elementwise``),
    i.e. those that act entry by entry; the matrix products use ``elementwise`` for their batch axes
    only."""
    names = set()
    for row in table():
        code = getattr(row.cls.batch, "__code__", None)
        if code is not None and {"unary", "elementwise", "batch_unary", "batch_elementwise"} & set(code.co_names):
            names.add(row.name)
    return names - {"MatMul", "BatchMatMul"}


def test_every_elementwise_primitive_is_measured_or_excused():
    elementwise = _elementwise_names()
    assert {"Tanh", "Sigmoid", "Pow", "TanhGrad", "ReluGrad", "Greater"} <= elementwise
    unaccounted = sorted(elementwise - set(MEASURED) - set(NOT_MEASURED))
    assert not unaccounted, f"elementwise primitives neither measured nor excused: {unaccounted}"
    assert not set(MEASURED) & set(NOT_MEASURED)


def test_the_committed_table_meets_its_bounds():
    data = json.loads((ROOT / "accuracy.json").read_text(encoding="utf-8"))
    assert data["points_per_domain"] >= 1000
    over = [r for r in data["rows"] if not r["missing"] and r["max_scaled"] > r["bound"]]
    assert not over, over
    assert {r["primitive"] for r in data["rows"]} == set(MEASURED)
    assert {r["rule"] for r in data["rows"]} == set(RULE_KINDS)


def test_the_docs_show_the_committed_table():
    data = json.loads((ROOT / "accuracy.json").read_text(encoding="utf-8"))
    doc = (ROOT / "docs" / "accuracy.md").read_text(encoding="utf-8")
    section = doc.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n")
    assert section == markdown(data), "docs/accuracy.md's table out of date: run python -m minims.testing.accuracy --write"

