"""Every batching rule of the primitive table: ``vmap(f)(xs)`` equals stacking ``f(x)`` over the examples.

The cases (``BATCH_CASES`` in ``tests/batching_cases.py``, checked against
``minims.primitives.table()`` so that a new primitive with a batching rule cannot be forgotten) are
small functions of one example's Tensors.
Each runs under ``vmap`` with the batch axis of every argument in front (``in_axes=0``), second
(``1``), last (as a positive and as a negative axis), with each argument in turn unbatched (a tuple
with a ``None`` entry: one value shared by every example, of another rank than the batched
operands), with ``out_axes=-1``, and under two nested ``vmap``s with different axes.  The reference
is a Python loop over the examples, stacked.  Where the batched computation is the same arithmetic
(moving data, +, -, *, /, maximum, select, comparisons) the results must be equal bit for bit;
elsewhere (transcendental functions, sums, matrix products, whose rounding may depend on the memory
layout) to 1e-14.

Further tests pin the cases named in the design: unbatched operands broadcasting against batched
ones of another rank, advanced indices whose axes NumPy moves (the loop fallback of GetItem), joins
of batched and unbatched values, reductions with ``keep_dims``, matrix products batched on either or
both sides with batch dimensions of their own, and the primitives that loop (no rule, or a rule that
falls back to the loop).
"""
import numpy as np
import pytest

import minims as ms
import minims.nn as nn
from minims import Tensor, ops
from minims.core.batching import BatchTracer
from minims.core import stack
from minims.primitives import array as R
from minims.primitives import compare as C
from minims.primitives import math as M
from minims.primitives import nn as P
from minims.primitives import reduce as D
from minims.primitives import table
from minims.testing import leftover_state

from batching_cases import (B, BATCH_CASES, CASE_PARAMS, CONV, INDICES, INNER, NOT_STACKED, OUTER,
                            check_nested, check_vmap, examples_for, in_axes_variants, stacked)
from programs import MulWithBprop


@pytest.fixture(autouse=True)
def clean():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert not leftover_state(), leftover_state()


# ----- the table is covered ------------------------------------------------------------------------------------
def test_every_primitive_with_a_batching_rule_has_cases():
    rows = table()
    batched = {r.name for r in rows if r.batch}
    missing = sorted(batched - set(BATCH_CASES) - set(NOT_STACKED))
    assert not missing, f"primitives with a batching rule but no vmap case here: {missing}"
    looping = set(rows.missing("batch"))
    assert looping <= set(BATCH_CASES) | set(NOT_STACKED), sorted(looping - set(BATCH_CASES) - set(NOT_STACKED))
    assert set(BATCH_CASES) | set(NOT_STACKED) <= {r.name for r in rows}


def test_the_cases_of_a_primitive_run_it_under_vmap():
    """A name in BATCH_CASES is a promise: its cases bind that primitive on batched values."""
    for make in dict.fromkeys(BATCH_CASES.values()):
        seen = set()

        def observe(prim, args):
            if any(isinstance(a, BatchTracer) for a in args):
                seen.add(type(prim).__name__)
        stack.add_rewriter(observe)
        try:
            for case in make():
                examples = examples_for(case, 2)
                ms.vmap(case.fn)(*(stacked([e[i] for e in examples], 0) for i in range(len(examples[0]))))
        finally:
            stack.remove_rewriter(observe)
        promised = {name for name, m in BATCH_CASES.items() if m is make}
        assert promised <= seen, f"cases registered for {sorted(promised - seen)} never bind them under vmap"


# ----- stack and compare ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASE_PARAMS)
def test_vmap_equals_a_loop_over_examples(case):
    examples = examples_for(case, B)
    for in_axes in in_axes_variants(examples[0]):
        check_vmap(case.fn, examples, in_axes, exact=case.exact)
    check_vmap(case.fn, examples, 0, out_axes=-1, exact=case.exact)


@pytest.mark.parametrize("case", CASE_PARAMS)
def test_nested_vmap_equals_two_loops(case):
    rng_rows = [examples_for(case, INNER, seed=i + 1) for i in range(OUTER)]
    ranks = [a.ndim for a in rng_rows[0][0]]
    check_nested(case.fn, rng_rows, tuple(ranks), tuple(min(1, r + 1) for r in ranks), exact=case.exact)


# ----- the tricky cases, by name ----------------------------------------------------------------------------------
def test_elementwise_unbatched_operands_of_another_rank():
    """``batch_rules.elementwise``: a batched operand gets its batch axis in front and singleton axes
    up to the largest example rank, so the batch never lines up with an example axis of an unbatched
    operand — whatever the ranks and wherever the batch axes are."""
    rng = np.random.default_rng(5)
    combos = [((3,), 0, (2, 3), None), ((2, 3), 1, (3,), None), ((), 0, (2, 2), None),
              ((4, 1), 2, (2, 1, 3), None), ((3,), 0, (2, 3), 1), ((2, 1, 3), 3, (4, 1), 0),
              ((1,), 1, (2, 3), 2)]
    for sx, ax, sy, ay in combos:
        examples = [(Tensor(rng.standard_normal(sx)), Tensor(rng.standard_normal(sy))) for _ in range(B)]
        for prim in (M.Add(), M.Mul(), M.Maximum(), C.Greater()):
            check_vmap(prim, examples, (ax, ay), exact=True)
            check_vmap(prim, [e[::-1] for e in examples], (ay, ax), exact=True)
        check_vmap(lambda c, y: C.Select()(ops.gt(c, 0.0), y, 0.0), examples, (ax, ay), exact=True)


def test_getitem_with_moved_advanced_axes_falls_back_to_the_loop():
    """With a full slice in front, NumPy would move non-adjacent advanced index axes to the front,
    before the batch axis: ``_keeps_axis_order`` sends those indices to the loop, others not."""
    assert not R._keeps_axis_order(R.normalize_index(INDICES["moved"][0]))
    assert not R._keeps_axis_order(R.normalize_index(INDICES["moved with int"][0]))
    assert R._keeps_axis_order(R.normalize_index(INDICES["adjacent later"][0]))
    assert R._keeps_axis_order(R.normalize_index(INDICES["basic"][0]))
    rng = np.random.default_rng(1)
    x = [(Tensor(rng.standard_normal((3, 2, 2))),) for _ in range(B)]
    index = INDICES["moved"][0]
    for axis in (0, 1, 3, -1):
        check_vmap(lambda v: v[index], x, axis, exact=True)
        check_vmap(lambda v: ops.grad(lambda w: ops.sum(ops.sin(w[index])))(v), x, axis)


def test_concat_and_stack_of_batched_and_unbatched_values():
    rng = np.random.default_rng(2)
    examples = [(Tensor(rng.standard_normal((2, 3))), Tensor(rng.standard_normal((1, 3)))) for _ in range(B)]
    for axes in ((0, None), (None, 2), (1, 0), (-1, None)):
        check_vmap(lambda a, b: ops.concat((b, a, b), 0), examples, axes, exact=True)
        check_vmap(lambda a, b: ops.stack((a[:1], b), -1), examples, axes, exact=True)
        check_vmap(lambda a, b: ops.stack((a[:1], b, a[1:]), 1), examples, axes, exact=True)


def test_reductions_with_keep_dims_at_every_batch_axis():
    rng = np.random.default_rng(3)
    examples = [(Tensor(rng.permutation(24).reshape(2, 3, 4) / 7.0),) for _ in range(B)]
    for axis in ((), 1, (0, 2), -1):
        for keep in (False, True):
            for cls in (D.ReduceSum, D.ReduceMean, D.ReduceMax, D.ReduceMin):
                for in_axes in (0, 2, 3, -1):
                    check_vmap(lambda v, p=cls(keep), a=axis: p(v, a), examples, in_axes,
                               exact=cls in (D.ReduceMax, D.ReduceMin))


def test_matmul_batched_left_right_both_with_batch_dimensions_of_its_own():
    rng = np.random.default_rng(4)
    shapes = [((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((5, 1, 2, 3), (4, 3, 2)),
              ((3,), (3, 2)), ((2, 3), (3,))]
    for sx, sy in shapes:
        examples = [(Tensor(rng.standard_normal(sx)), Tensor(rng.standard_normal(sy))) for _ in range(B)]
        rx, ry = len(sx), len(sy)
        for axes in ((0, None), (None, 0), (0, 0), (rx, ry), (1, None), (None, ry), (-1, 1)):
            check_vmap(ops.matmul, examples, axes)


def test_primitives_without_a_rule_loop_and_give_the_same():
    """The fallback (``batching.trace.loop``): Conv2DBackpropFilter, a Cell's custom bprop, Conv2D
    with a weight per example, training batch norm — also under a gradient and forward mode."""
    rng = np.random.default_rng(6)
    conv = P.Conv2D(**CONV)
    examples = [(Tensor(rng.standard_normal((2, 1, 4, 5))), Tensor(rng.standard_normal((2, 1, 2, 3))))
                for _ in range(B)]
    check_vmap(conv, examples, (0, 0))
    check_vmap(conv, examples, (None, 4))
    check_vmap(lambda x, w: ops.grad(lambda a, b: ops.sum(ops.tanh(conv(a, b))), (0, 1))(x, w), examples, (1, 0))
    check_vmap(lambda x, w: ops.jvp(lambda b: conv(x, b), w, ops.ones_like(w))[1], examples, (0, 0))
    mul = MulWithBprop()
    pairs = [(Tensor(rng.standard_normal(3)), Tensor(rng.standard_normal(3))) for _ in range(B)]
    check_vmap(lambda a, b: ops.grad(lambda p: ops.sum(mul(p, b) * p))(a), pairs, (0, None))
    check_vmap(lambda a, b: ops.jvp(lambda p: mul(p, b), a, ops.ones_like(a))[1], pairs, (1, 0))


# ----- the primitives that cannot be stacked and compared ------------------------------------------------------------
@pytest.mark.parametrize("two_d", [False, True], ids=["Dropout", "Dropout2D"])
def test_dropout_under_vmap(two_d):
    rng = np.random.default_rng(7)
    shape = (2, 3, 2, 2) if two_d else (3, 4)
    cls = P.Dropout2D if two_d else P.Dropout
    examples = [(Tensor(rng.standard_normal(shape)),) for _ in range(B)]
    check_vmap(cls(1.0), examples, 0, exact=True)                      # keeps everything: no randomness
    ms.set_seed(3)
    xs = stacked([e[0] for e in examples], 1)
    out, mask = ms.vmap(cls(0.5), in_axes=1)(xs)
    assert out.shape == mask.shape == (B,) + shape
    x, m = np.moveaxis(xs.asnumpy(), 1, 0), mask.asnumpy().astype(np.float64)
    assert set(np.unique(m)) <= {0.0, 1.0}
    np.testing.assert_array_equal(out.asnumpy(), x * m / 0.5)
    if two_d:        # one draw per (example, image, channel)
        assert (m == m[..., :1, :1]).all()
    assert len({m[i].tobytes() for i in range(B)}) > 1                # each example its own draw


def test_assign_refuses_a_batched_value():
    w = ms.Parameter(Tensor(np.zeros(3)), name="w")
    with pytest.raises(RuntimeError, match="cannot write a batched value"):
        ms.vmap(lambda v: ops.assign(w, v))(Tensor(np.ones((2, 3))))
    np.testing.assert_array_equal(w.asnumpy(), np.zeros(3))


def test_fill_is_a_constant_inside_vmap():
    out = ms.vmap(lambda v: v + ops.fill(ms.float64, (3,), 2.0))(Tensor(np.ones((2, 3))))
    np.testing.assert_array_equal(out.asnumpy(), np.full((2, 3), 3.0))


def test_print_inside_vmap_prints_every_example(capsys):
    xs = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]]))
    out = ms.vmap(lambda v: (ops.Print()("v:", v), v * 2.0)[1])(xs)
    np.testing.assert_array_equal(out.asnumpy(), xs.asnumpy() * 2)
    printed = capsys.readouterr().out
    each = [repr(xs[k]) for k in range(2)]          # each example printed on its own, in order
    assert printed == "".join(f"v:\n{r}\n" for r in each), printed


# ----- regressions ------------------------------------------------------------------------------------------------
def test_a_batched_index_takes_each_examples_own_index():
    """Under vmap a batched index stands for one index per example.  It used to be read from the
    first example and applied to every example (a silently wrong result), then it was refused; the
    index Tensor is now an operand of the primitive, so each example takes its own index (the loop
    rule), and inside ``jit`` an argument used as an index is each call's index, not zeros."""
    xs = Tensor(np.arange(12.0).reshape(3, 4))
    idx = Tensor(np.array([[0, 1], [2, 3], [1, 1]]))
    examples = [(xs[k], idx[k]) for k in range(3)]
    check_vmap(lambda x, i: x[i], examples, exact=True)
    check_vmap(lambda x, i: ops.gather(x, i, 0), examples, exact=True)
    check_vmap(lambda x, i: x[i], [(xs[0], idx[k]) for k in range(3)], (None, 0), exact=True)
    check_vmap(lambda x, i: x[i], [(xs[k], idx[0]) for k in range(3)], (0, None), exact=True)
    expected = np.arange(12.0).reshape(3, 4)[np.arange(3)[:, None], idx.asnumpy()]
    np.testing.assert_array_equal(ms.vmap(lambda x, i: x[i])(xs, idx).asnumpy(), expected)
    np.testing.assert_array_equal(ms.jit(lambda x, i: x[i])(xs[0], idx[1]).asnumpy(), [2.0, 3.0])


def test_labels_out_of_range_in_any_example_are_refused():
    """A range check of labels under vmap used to read the first example only: a bad label in
    another example gave a silently wrong loss (its one-hot row all zeros).  Every example is checked."""
    z = Tensor(np.zeros((3, 2, 4)))
    labels = Tensor(np.array([[0, 1], [2, 9], [1, 1]], np.int32))        # 9: out of range, example 1
    with pytest.raises(ValueError, match="label 9 is out of range"):
        ms.vmap(ops.SparseSoftmaxCrossEntropyWithLogits())(z, labels)
    with pytest.raises(ValueError, match="label 9 is out of range"):
        ms.vmap(nn.SoftmaxCrossEntropyWithLogits(sparse=True))(z, labels)
    with pytest.raises(ValueError, match="target 9 is out of range"):
        ms.vmap(lambda a, b: ops.cross_entropy(a, b))(z, labels)
    good = Tensor(np.array([[0, 1], [2, 3], [1, 1]], np.int32))
    check_vmap(ops.SparseSoftmaxCrossEntropyWithLogits(), [(z[k], good[k]) for k in range(3)], (0, 0))
