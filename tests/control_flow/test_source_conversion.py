"""Source conversion, MindSpore's route (issue 24 item 3): ``jit`` (capture_mode="ast", the default)
and Graph-mode ``construct`` rewrite ``if``/``elif``/ternaries/``while`` on Tensors into ``Cond``/``While``,
so ONE graph serves inputs that take different branches or trip counts (``minims/conversion/``).

Expected values: MindSpore 2.10 run on the oracle (``/tmp/oracle/bin/python``; the issue's table for
x = [1, -2, 3]), closed forms (each branch is a polynomial), and PyNative runs of the same function.
"""
from __future__ import annotations

import linecache

import numpy as np
import pytest

import minims as ms
import minims.nn as nn
import minims.ops as ops
from minims import Parameter, Tensor, jit
from minims.control_flow import BranchTypeError, Cond, While, cond
from minims.graph import StaticGraphError

A = np.array([1.0, -2.0, 3.0], np.float32)      # sum 2 > 0
B = np.array([-1.0, -2.0, 3.0], np.float32)     # sum 0: not > 0


def t(values, dtype=np.float32):
    return Tensor(np.array(values, dtype))


def primitives(graph) -> set:
    return {type(eq.prim) for eq in graph.equations}


def scale_by_sign(x):
    if x.sum() > 0:
        return x * 2
    else:
        return x * 3


def test_an_if_on_a_tensor_is_one_graph_with_a_cond_serving_both_branches():
    """Issue 24 item 3, the table's first row. MindSpore 2.10 oracle: [2, -4, 6] with grad [2, 2, 2]
    at x = [1, -2, 3]; [-3, 6, -9] with grad [3, 3, 3] at -x; here with one trace for both."""
    for f in (jit(scale_by_sign), jit(scale_by_sign, fullgraph=True)):
        np.testing.assert_array_equal(f(t(A)).asnumpy(), [2, -4, 6])
        np.testing.assert_array_equal(ms.grad(f)(t(A)).asnumpy(), [2, 2, 2])
        np.testing.assert_array_equal(f(t(-A)).asnumpy(), [-3, 6, -9])
        np.testing.assert_array_equal(ms.grad(f)(t(-A)).asnumpy(), [3, 3, 3])
        assert f.traces == 1 and f.guards(t(A)) == []
        assert Cond in primitives(f.graph(t(A)))


def test_a_ternary_and_any_of_a_comparison_are_one_graph():
    """Issue 24 item 3 (table row 2). MindSpore 2.10 oracle: tern(x, y) = [15, 15, 15] (y*3) and
    tern(y, x) = [10, 10, 10] (x*2) for x = [1, -2, 3], y = [5, 5, 5]; grads (0, [3, 3, 3])."""
    @jit
    def tern(x, y):
        return x * 2 if (x > y).any() else y * 3
    x, y = t(A), t([5, 5, 5])
    np.testing.assert_array_equal(tern(x, y).asnumpy(), [15, 15, 15])
    np.testing.assert_array_equal(tern(y, x).asnumpy(), [10, 10, 10])
    gx, gy = ms.grad(tern, grad_position=(0, 1))(x, y)
    np.testing.assert_array_equal(gx.asnumpy(), [0, 0, 0])
    np.testing.assert_array_equal(gy.asnumpy(), [3, 3, 3])
    assert tern.traces == 1


def test_an_elif_chain_with_and_and_not_of_tensor_predicates():
    """Issue 24 item 3 (elif, boolean operators). MindSpore 2.10 oracle, value and grad per input:
    [3,3,3] -> [3,3,3], [1,1,1]; [1,-2,3] -> [2,-4,6], [2,2,2]; [-5,0,0] -> [-15,0,0], [3,3,3];
    [-1,0,0] -> [-4,0,0], [4,4,4]."""
    @jit(fullgraph=True)
    def elifs(x):
        s = x.sum()
        if s > 5:
            y = x * 1
        elif s > 0 and x[0] > 0:
            y = x * 2
        elif not (s > -3):
            y = x * 3
        else:
            y = x * 4
        return y
    cases = [([3, 3, 3], [3, 3, 3], 1), ([1, -2, 3], [2, -4, 6], 2), ([-5, 0, 0], [-15, 0, 0], 3),
             ([-1, 0, 0], [-4, 0, 0], 4)]
    for x, value, slope in cases:
        np.testing.assert_array_equal(elifs(t(x)).asnumpy(), value)
        np.testing.assert_array_equal(ms.grad(elifs)(t(x)).asnumpy(), [slope] * 3)
    assert elifs.traces == 1


def test_a_while_on_a_tensor_is_one_graph_for_every_trip_count():
    """Issue 24 item 3 (table row 3). MindSpore 2.10 oracle: 128 and grad [64, 64, 64] at [1, -2, 3];
    closed form at 16 x: sum 32 doubles twice, 128 and grad [4, 4, 4] — from the same graph."""
    @jit(fullgraph=True)
    def doubling(x):
        while x.sum() < 100:
            x = x * 2
        return x.sum()
    assert float(doubling(t(A))) == 128.0
    np.testing.assert_array_equal(ms.grad(doubling)(t(A)).asnumpy(), [64, 64, 64])
    assert float(doubling(t(A * 16))) == 128.0
    np.testing.assert_array_equal(ms.grad(doubling)(t(A * 16)).asnumpy(), [4, 4, 4])
    assert doubling.traces == 1 and While in primitives(doubling.graph(t(A)))


def test_a_while_with_tensor_counters_differentiates():
    """Issue 24 item 3 (table row 4). MindSpore 2.10 oracle: two steps of x*x + 1 from [1, -2, 3]
    give sum 132 and grad 4x(x^2 + 1) = [8, -40, 120]; one step (closed form) x^2 + 1, grad 2x."""
    @jit(fullgraph=True)
    def counters(x, n):
        i = Tensor(0, ms.int32)
        while i < n:
            x = x * x + 1
            i = i + 1
        return x.sum()
    two, one = Tensor(2, ms.int32), Tensor(1, ms.int32)
    assert float(counters(t(A), two)) == 132.0
    np.testing.assert_array_equal(ms.grad(counters)(t(A), two).asnumpy(), [8, -40, 120])
    assert float(counters(t(A), one)) == float((A * A + 1).sum())
    np.testing.assert_array_equal(ms.grad(counters)(t(A), one).asnumpy(), 2 * A)
    assert counters.traces == 1


def test_conditions_on_python_values_fold_and_python_loops_unroll():
    """Issue 24 item 3: a Python condition folds at trace time, `for i in range(n)` and `for row in x`
    unroll (as MindSpore does): no Cond or While in the graph. Closed form: 3 steps of x + row sum."""
    @jit
    def f(x, n, flag):
        if flag:
            x = x * 2
        else:
            x = x * 3
        for _ in range(n):
            x = x + 1
        total = x[0] * 0
        for row in x:
            total = total + row
        return total
    assert float(f(t(A), 3, True)) == float((A * 2 + 3).sum())
    assert float(f(t(A), 3, False)) == float((A * 3 + 3).sum())
    assert not primitives(f.graph(t(A), 3, True)) & {Cond, While}


def cubed_or_squared(x):
    if x.sum() > 0:
        return x * x * x
    return x * x


def test_second_order_through_a_converted_if_and_while():
    """Issue 24 item 3 (second order, where MindSpore 2.10's CPU build fails for the if). Closed forms:
    d2/dx2 sum(x^3) = 6x, of sum(x^2) = 2; 1.5 squared three times is x^8, d2/dx2 = 56 x^6 = 637.875
    (the MindSpore 2.10 oracle gives 637.875 too)."""
    f = jit(cubed_or_squared)
    second = ms.grad(ms.grad(lambda x: f(x).sum()))
    np.testing.assert_allclose(second(t(A)).asnumpy(), 6 * A, rtol=1e-6)
    np.testing.assert_allclose(second(t(B)).asnumpy(), [2, 2, 2], rtol=1e-6)
    assert f.traces == 1

    @jit
    def squaring(x):
        while x < 10:
            x = x * x
        return x
    x = Tensor(1.5, ms.float32)
    np.testing.assert_allclose(float(squaring(x)), 1.5 ** 8, rtol=1e-6)
    np.testing.assert_allclose(float(ms.grad(ms.grad(squaring))(x)), 637.875, rtol=1e-5)


def test_vmap_over_a_converted_if_selects_per_example():
    """Issue 24 item 3 (vmap with a batched predicate: MindSpore 2.10 raises ValueError; here both
    branches run and select picks per example). Closed form: row A cubed, row B squared."""
    out = ms.vmap(jit(cubed_or_squared))(Tensor(np.stack([A, B])))
    np.testing.assert_array_equal(out.asnumpy(), np.stack([A ** 3, B ** 2]))


class SignGate(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(t([0.5, 0.5, 0.5]), name="w")

    def construct(self, x):
        if (self.w * x).sum() > 0:
            return x * self.w
        return x - self.w


def test_a_graph_mode_cell_with_a_parameter_in_the_condition_is_one_graph():
    """Issue 24 item 3 (GRAPH_MODE construct). MindSpore 2.10 oracle: at [1, -2, 3] the value [0.5, -1, 1.5],
    grads (x: [0.5]*3, w: [1, -2, 3]); at -x the value [-1.5, 1.5, -3.5], grads ([1]*3, [-1]*3)."""
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = SignGate()
        grad = ms.grad(net, grad_position=0, weights=net.trainable_params())
        for x, value, gx, gw in ((A, [0.5, -1, 1.5], [0.5] * 3, A), (-A, [-1.5, 1.5, -3.5], [1] * 3, [-1] * 3)):
            np.testing.assert_array_equal(net(t(x)).asnumpy(), value)
            dx, (dw,) = grad(t(x))
            np.testing.assert_array_equal(dx.asnumpy(), gx)
            np.testing.assert_array_equal(dw.asnumpy(), gw)
        assert net._graph_call.traces == 1
        assert "ms_cond((self.w * x).sum() > 0" in ms.converted_source(net.construct)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_branches_whose_types_do_not_join_fall_back_to_guarded_python():
    """Issue 24 item 3 (fallback). Closed form: 2x where sum > 0, else int32(3x) (MindSpore 2.10 fails
    to compile this with TypeError "Type Join Failed: dtype1 = Float32, dtype2 = Int32", oracle run):
    here each way the branch goes is a guarded variant with the right values; under fullgraph=True,
    BranchTypeError (a TypeError, as MindSpore's) naming the variable."""
    def no_join(x):
        if x.sum() > 0:
            y = x * 2
        else:
            y = ops.cast(x * 3, ms.int32)
        return y
    f = jit(no_join)
    np.testing.assert_array_equal(f(t(A)).asnumpy(), 2 * A)
    out = f(t(B))
    assert out.dtype == ms.int32 and out.tolist() == (3 * B).astype(np.int32).tolist()
    assert f.traces == 2 and f.guards(t(A))[0][1] is True
    with pytest.raises(BranchTypeError, match="variable 'y'") as info:
        jit(no_join, fullgraph=True)(t(A))
    assert isinstance(info.value, TypeError)


def test_side_effects_and_python_value_reads_stay_python_with_correct_values():
    """Issue 24 item 3 (fallback): a list append in a branch stays Python (a graph cannot repeat it; the
    converted source says so); a value read with .asnumpy() inside a branch falls back to the guarded
    path. Expected: PyNative runs of the same functions; fullgraph=True refuses the value read."""
    def appends(x, log):
        if x.sum() > 0:
            log.append("positive")
            x = x * 2
        return x

    def reads(x):
        if x.sum() > 0:
            y = x * float(x.asnumpy()[0])
        else:
            y = x
        return y
    log = []
    np.testing.assert_array_equal(jit(appends)(t(A), log).asnumpy(), appends(t(A), []).asnumpy())
    assert log == ["positive"]
    assert "stays Python (`log.append('positive')`" in jit(appends).converted_source()
    f = jit(reads)
    for x in (A, B):
        np.testing.assert_array_equal(f(t(x)).asnumpy(), reads(t(x)).asnumpy())
    assert f.traces == 2
    with pytest.raises(StaticGraphError, match="fullgraph=True"):
        jit(reads, fullgraph=True)(t(A))


def test_pynative_is_unchanged_and_capture_mode_trace_keeps_guards():
    """Issue 24 item 3: the original function runs in PyNative; capture_mode="trace" compiles it as
    written, one guarded variant per branch (never MindSpore's first-branch reuse). Closed forms."""
    np.testing.assert_array_equal(scale_by_sign(t(A)).asnumpy(), 2 * A)
    f = jit(scale_by_sign, capture_mode="trace")
    np.testing.assert_array_equal(f(t(A)).asnumpy(), 2 * A)
    np.testing.assert_array_equal(f(t(B)).asnumpy(), 3 * B)
    assert f.traces == 2 and "capture_mode='trace'" in f.converted_source()


OFFSET = 1.0


def make_scaled(scale):
    def scaled(x, power=2):
        if x.sum() > 0:
            y = x ** power * scale + OFFSET
        else:
            y = x * scale - OFFSET
        return y
    return scaled


def test_closures_globals_and_default_arguments_resolve_as_in_the_original():
    """Issue 24 item 3: the converted function reads the closure cell, the live globals dict and the
    default argument of the original. Closed forms: A^2 * 3 + OFFSET, B * 3 - OFFSET."""
    global OFFSET
    scaled = make_scaled(Tensor(3.0, ms.float32))
    f = jit(scaled)
    np.testing.assert_array_equal(f(t(A)).asnumpy(), A ** 2 * 3 + 1)
    np.testing.assert_array_equal(f(t(B)).asnumpy(), B * 3 - 1)
    assert f.traces == 1
    OFFSET = 10.0
    try:        # a new compilation of the same code (its conversion is cached) reads the global now
        np.testing.assert_array_equal(jit(scaled)(t(A)).asnumpy(), A ** 2 * 3 + 10)
    finally:
        OFFSET = 1.0


class Base(nn.Cell):
    def construct(self, x):
        return x + 1


class Derived(Base):
    def __init__(self):
        super().__init__()
        self.__factor = 2.0             # a private name: mangled as _Derived__factor

    def construct(self, x, bias=2.0):
        if x.sum() > 0:
            y = super().construct(x) * self.__factor
        else:
            y = super().construct(x) - bias
        return y


def test_super_and_default_arguments_in_a_converted_construct():
    """Issue 24 item 3: super() inside a converted branch finds the class and self, a private name is
    mangled as in the class, the default argument applies. Closed forms: (A + 1) * 2 and (B + 1) - 2,
    from one graph."""
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Derived()
        np.testing.assert_array_equal(net(t(A)).asnumpy(), (A + 1) * 2)
        np.testing.assert_array_equal(net(t(B)).asnumpy(), (B + 1) - 2)
        assert net._graph_call.traces == 1
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


CELL_SOURCE = '''
def from_a_cell(x):
    if x.sum() > 0:
        return x * 2
    return x * 3
'''


def test_a_function_from_a_notebook_cell_is_converted_from_its_source():
    """Issue 24 item 3: IPython registers each cell's source in linecache under a name like this one;
    the conversion reads it there. Without a source (exec alone) there is no conversion, the guarded
    path gives the right values and converted_source says why. Closed forms: 2A, 3B."""
    name = "<ipython-input-7-0123456789ab>"
    linecache.cache[name] = (len(CELL_SOURCE), None, CELL_SOURCE.splitlines(True), name)
    try:
        space = {}
        exec(compile(CELL_SOURCE, name, "exec"), space)
        f = jit(space["from_a_cell"])
        np.testing.assert_array_equal(f(t(A)).asnumpy(), 2 * A)
        np.testing.assert_array_equal(f(t(B)).asnumpy(), 3 * B)
        assert f.traces == 1 and "return ms_cond(x.sum() > 0, if_true_1, if_false_1)" in f.converted_source()
    finally:
        del linecache.cache[name]
    space = {}
    exec(compile(CELL_SOURCE, "<no source>", "exec"), space)
    g = jit(space["from_a_cell"])
    np.testing.assert_array_equal(g(t(A)).asnumpy(), 2 * A)
    np.testing.assert_array_equal(g(t(B)).asnumpy(), 3 * B)
    assert g.traces == 2 and "is not converted: its source is not available" in g.converted_source()
    assert "is not converted: a lambda" in jit(lambda x: x).converted_source()


def test_the_conversion_is_made_once_per_code_object(monkeypatch):
    """Issue 24 item 3: the first compile pays for the rewrite; later jit objects of the same code reuse it."""
    import minims.conversion as conversion
    made = []
    original = conversion._compile
    monkeypatch.setattr(conversion, "_compile", lambda *a: made.append(1) or original(*a))
    monkeypatch.setattr(conversion, "_cache", {})
    for _ in range(3):
        jit(cubed_or_squared)(t(A))
    assert len(made) == 1


def central_difference(fn, x, eps=1e-3):
    """d sum(fn(x)) / dx by central differences in float64 (fn takes and returns NumPy arrays)."""
    grad = np.zeros_like(x, np.float64)
    for k in range(x.size):
        step = np.zeros_like(x, np.float64)
        step.flat[k] = eps
        grad.flat[k] = (np.sum(fn(x + step)) - np.sum(fn(x - step))) / (2 * eps)
    return grad


def doubling_with_break(x):
    i = Tensor(0, ms.int32)
    while i < 10:
        x = x * 2
        if x.sum() > 20:
            break
        i = i + 1
    return x * x


def odd_steps_with_continue(x, n):
    i = Tensor(0, ms.int32)
    total = x * 0
    while i < n:
        i = i + 1
        if (i % 2) == 0:
            continue
        total = total * x + x
    return total


def test_break_and_continue_in_a_tensor_while_are_one_graph():
    """Issue 24 item 3 (break/continue as flags). Expected: the PyNative run of the same function
    (values) and central differences of it in float64 (gradients); one trace for inputs that break
    after different numbers of steps or loop a different number of times."""
    f = jit(doubling_with_break, fullgraph=True)
    for x in (A, np.array([5.0, 5.0, 5.0], np.float32), np.array([0.1, 0.1, 0.2], np.float32)):
        np.testing.assert_allclose(f(t(x)).asnumpy(), doubling_with_break(t(x)).asnumpy())
        numeric = central_difference(lambda v: doubling_with_break(Tensor(v.astype(np.float32))).asnumpy(), x)
        np.testing.assert_allclose(ms.grad(f)(t(x)).asnumpy(), numeric, rtol=1e-3)
    assert f.traces == 1 and "broke_1 = ms_flag(True)" in f.converted_source()
    g = jit(odd_steps_with_continue, fullgraph=True)
    for n in (3, 6):
        count = Tensor(n, ms.int32)
        np.testing.assert_allclose(g(t(A), count).asnumpy(), odd_steps_with_continue(t(A), count).asnumpy())
        numeric = central_difference(
            lambda v: odd_steps_with_continue(Tensor(v.astype(np.float32)), count).asnumpy(), A)
        np.testing.assert_allclose(ms.grad(g)(t(A), count).asnumpy(), numeric, rtol=1e-3)
    assert g.traces == 1


def first_big(x):
    i = Tensor(0, ms.int32)
    while i < 5:
        x = x * 2
        if x.sum() > 20:
            return x * 10
        i = i + 1
    return x


def nested_returns(x):
    if x.sum() > 0:
        if x[0] > 0:
            return x * 1
        x = x + 1
    return x * 2


def test_return_inside_a_tensor_while_and_nested_ifs_is_one_graph():
    """Issue 24 item 3 (return via a did-return state; returns in nested ifs). Closed forms: [1, -2, 3]
    doubles 4 times and returns 160 x-steps (value [160, -320, 480], grad 160 each); [0.1]*3 doubles 5
    times, never returns inside (3.2 each, grad 32); [30, 0, 0] returns at once (600, grad 20) — also
    the PyNative values. nested_returns: x at [1, -2, 3]; 2(x + 1) at [-1, 2, 3]; 2x at -[1, -2, 3]."""
    f = jit(first_big, fullgraph=True)
    cases = ((A, [160, -320, 480], 160), ([0.1, 0.1, 0.1], [3.2] * 3, 32), ([30, 0, 0], [600, 0, 0], 20))
    for x, value, slope in cases:
        np.testing.assert_allclose(f(t(x)).asnumpy(), value, rtol=1e-6)
        np.testing.assert_allclose(f(t(x)).asnumpy(), first_big(t(x)).asnumpy())
        np.testing.assert_allclose(ms.grad(f)(t(x)).asnumpy(), [slope] * 3, rtol=1e-6)
    assert f.traces == 1 and "returned_1 = ms_flag(True)" in f.converted_source()
    g = jit(nested_returns, fullgraph=True)
    for x, value in ((A, A), ([-1, 2, 3], [0, 6, 8]), (-A, -2 * A)):
        np.testing.assert_array_equal(g(t(x)).asnumpy(), value)
    assert g.traces == 1


def test_a_branch_not_taken_is_not_computed_outside_the_cond():
    """Issue 24 item 3: what a branch computes from values of the enclosing graph stays inside the
    branch, so a branch not taken (sqrt of negatives here) neither runs nor poisons the gradient with
    0 * inf. Expected: the PyNative gradient, 0 (d/dx of x * 0), not NaN."""
    def root_or_zero(x):
        if x.sum() > 0:
            return ops.sqrt(x)
        return x * 0
    def staged_directly(x):             # control_flow.cond over closures: the same staging
        return cond(x.sum() > 0, lambda: ops.sqrt(x), lambda: x * 0)
    x = t([-1.0, -2.0, 3.0])
    np.testing.assert_array_equal(ms.grad(jit(root_or_zero))(x).asnumpy(), ms.grad(root_or_zero)(x).asnumpy())
    for f in (jit(root_or_zero), jit(staged_directly)):
        np.testing.assert_array_equal(ms.grad(f)(x).asnumpy(), [0, 0, 0])


def test_non_tensor_state_that_changes_falls_back_to_guarded_python():
    """Issue 24 item 3 (fallback): a string chosen by a Tensor condition, and a Python list grown by a
    Tensor while, cannot be values of one graph; they run as Python (guarded variants) with the
    PyNative values, and fullgraph=True raises the primitive's own error (BranchTypeError for the
    string, a TypeError as MindSpore's Type Join Failed; CarryTypeError for the list)."""
    def labelled(x):
        if x.sum() > 0:
            label = "positive"
        else:
            label = "other"
        return x * 2 if label == "positive" else x * 3

    def counted(x):
        steps = []
        while x.sum() < 100:
            x = x * 2
            steps = steps + [1]
        return x * len(steps)
    for fn, error in ((labelled, BranchTypeError), (counted, TypeError)):
        f = jit(fn)
        for x in (A, A * 16):
            np.testing.assert_array_equal(f(t(x)).asnumpy(), fn(t(x)).asnumpy())
        with pytest.raises(error):
            jit(fn, fullgraph=True)(t(A))
    np.testing.assert_array_equal(jit(labelled)(t(B)).asnumpy(), 3 * B)


Z_GLOBAL = Tensor(np.ones((2, 3)))


def test_a_local_read_before_it_is_assigned_starts_from_the_global_of_that_name():
    r"""Issue 24 item 3 (MindSpore's Graph-mode syntax page, "for" statement: ``for i in x: z += i`` on a
    global ``z`` inside ``@jit``): MindSpore 2.10 prints ``ret:[[7. 7. 7.]\n [7. 7. 7.]]`` (the page's
    output, checked on the oracle), where Python raises UnboundLocalError; PyNative stays Python."""
    def add_all():
        for i in (1, 2, 3):
            Z_GLOBAL += i                 # noqa: F821 - reads the global first, as MindSpore's graph mode
        return Z_GLOBAL

    np.testing.assert_array_equal(jit(add_all)().asnumpy(), np.full((2, 3), 7.0))
    assert "Z_GLOBAL = ms_global(globals(), 'Z_GLOBAL')" in jit(add_all).converted_source()
    with pytest.raises(UnboundLocalError):
        add_all()


Y_GLOBAL = Tensor(np.array([100.0, 100.0]))


def test_a_variable_assigned_in_one_branch_only_is_unbound_on_the_other_path():
    """Review of issue 24 item 3: ``if x.sum() > 0: y = x * 2`` then ``return y``.  Python raises
    UnboundLocalError when the branch is skipped; the converted function returned the placeholder of
    the unassigned variable (and, with a global of that name, the global's value) as its result."""
    def one_branch(x):
        if x.sum() > 0:
            Y_GLOBAL = x * 2
        return Y_GLOBAL

    compiled = jit(one_branch)
    np.testing.assert_array_equal(compiled(Tensor(np.array([1.0, 2.0]))).asnumpy(), [2.0, 4.0])
    with pytest.raises(UnboundLocalError, match="Y_GLOBAL"):
        compiled(Tensor(np.array([-1.0, -2.0])))
