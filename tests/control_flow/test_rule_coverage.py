"""Issue 24 ("every rule kind of the structured primitives SymPy-checked, including second order and
vmap"): the rule kinds of ``Cond``, ``While``, ``Scan`` and ``LoopVjp`` that the other files of this
folder check against mathematics only through the modes agreeing with each other, or not at all.

The audit (which test checks which rule kind against an independent value) is in the report of the
helper that wrote this file; the gaps it found are the tests below:

* second order against SymPy for each primitive, in every composition of ``grad`` and ``jit`` — the
  PyNative route (the branch taken, each iteration recorded) and the staged one (``Cond`` of backward
  graphs, ``LoopVjp`` and its own ``LoopVjp``), at points on both sides of a branch;
* ``vmap`` of a gradient (per-example gradients) through a per-example predicate and a per-example
  trip count, against SymPy for each example alone (MindSpore 2.10's ``vmap`` refuses both);
* the type join of structures (a tuple against a Tensor), the predicate of more than one entry, a
  loop body changing its carry's structure, ``Scan``'s carry checks;
* ``Scan``'s residual split (a ``LoopVjp`` in the backward graph) against SymPy;
* ``LoopVjp``'s abstract evaluation and its SymPy form (refused: the loop it differentiates is
  unrolled by SymPy itself); a value captured by a branch or loop body that is a SymPy symbol;
* a structured primitive holding an effect (a ``Print`` or a ``Guard`` in its graphs) replayed by a
  backward graph: it must compute its outputs, not pass its inputs through (a bug the control-flow
  fuzzer, ``tests/graph/test_control_flow_fuzz.py``, found).

Expected values: SymPy (``sympy.diff`` of the ``Piecewise`` or of the unrolled loop, at the point),
closed forms, and the MindSpore 2.10 oracle for exception types (TypeError "Type Join Failed:
Abstract type AbstractTuple cannot join with AbstractTensor"; ValueError "Only tensor which shape is
() or (1,) can be converted to bool"; ValueError for a Scan body changing its carry's shape —
``/tmp/oracle/bin/python``, GRAPH_MODE and ``@ms.jit``).
"""
import numpy as np
import pytest
import sympy

import minims as ms
from minims import Tensor, ops
from minims.control_flow import (BranchTypeError, CarryShapeError, CarryTypeError, LoopVjp, PredicateError,
                                 Scan, cond, scan, while_loop)
from minims.graph.residuals import split_for_gradient
from minims.graph.tracing import trace_to_graph
from minims.interpreters.symbolic import symbolic_call, symbols_like

A = np.array([0.7, -0.4, 0.5])          # sum 0.8 > 0
B = np.array([-0.7, 0.4, -0.5])         # sum -0.8 < 0
ROWS = np.array([[0.3, -0.6, 0.2], [0.9, 0.1, -0.4]])


# ----- SymPy references --------------------------------------------------------------------------------
def sympy_derivatives(fn, args):
    """``(gradient, second)`` of the scalar ``fn`` at ``args`` by SymPy: the gradient of each input,
    and the gradient of the sum of all first derivatives (what ``grad(grad(f))`` of ``ops.grad``
    gives for a scalar function of several inputs)."""
    symbols = [symbols_like(f"a{k}", a.shape) for k, a in enumerate(args)]
    total = sympy.sympify(np.sum(np.asarray(symbolic_call(fn, *symbols), dtype=object)))
    flat = [s for group in symbols for s in group.reshape(-1)]
    point = {s: sympy.Float(v, 30) for group, a in zip(symbols, args) for s, v in zip(group.reshape(-1), a.reshape(-1))}
    first = {s: sympy.diff(total, s) for s in flat}
    summed = sum(first.values())

    def at(expr):
        return float(sympy.N(expr.subs(point), 25))
    gradient = [np.array([at(first[s]) for s in g.reshape(-1)]).reshape(g.shape) for g in symbols]
    second = [np.array([at(sympy.diff(summed, s)) for s in g.reshape(-1)]).reshape(g.shape) for g in symbols]
    return gradient, second


def every_composition(fn, n_args):
    """``{name: function}`` of the first- and second-order compositions of ``grad`` and ``jit``."""
    positions = tuple(range(n_args))

    def g(f):
        return ms.grad(lambda *a: f(*a), grad_position=positions)

    def summed(f):
        def total(*a):
            out = f(*a)
            out = out if isinstance(out, tuple) else (out,)
            parts = [o.sum() for o in out]
            return sum(parts[1:], parts[0])
        return total
    jf = ms.jit(fn)
    first = {"grad(f)": g(fn), "grad(jit(f))": g(jf), "jit(grad(f))": ms.jit(g(fn))}
    second = {"grad(grad(f))": g(summed(g(fn))), "grad(jit(grad(f)))": g(summed(ms.jit(g(fn)))),
              "jit(grad(grad(f)))": ms.jit(g(summed(g(fn)))), "grad(grad(jit(f)))": g(summed(g(jf)))}
    return first, second


def assert_matches_sympy(fn, args):
    gradient, second = sympy_derivatives(fn, [np.asarray(a) for a in args])
    first, seconds = every_composition(fn, len(args))
    tensors = [Tensor(np.asarray(a)) for a in args]
    for expected, modes in ((gradient, first), (second, seconds)):
        for name, f in modes.items():
            got = f(*tensors)
            got = got if isinstance(got, tuple) else (got,)
            for k, (e, v) in enumerate(zip(expected, got)):
                np.testing.assert_allclose(v.asnumpy(), e, rtol=1e-10, atol=1e-12, err_msg=f"{name}, input {k}")


# ----- Cond ----------------------------------------------------------------------------------------------
def _branching(x, y):
    return cond((x * y).sum() > 0, lambda a, b: (ops.sin(a) * b * b).sum(), lambda a, b: (a * a * ops.exp(b)).sum(),
                x, y)


@pytest.mark.parametrize("point", ["true", "false"])
def test_cond_first_and_second_order_match_the_piecewise_in_every_mode(point):
    """Item 1 (Cond: bprop, second order): SymPy differentiates the Piecewise twice; every composition
    of grad and jit — PyNative records the branch taken, a staged gradient is a Cond of backward
    graphs, and its gradient a Cond again — gives SymPy's numbers on both sides."""
    x = A if point == "true" else B
    assert_matches_sympy(_branching, (x, np.abs(A)))


def test_cond_per_example_gradients_under_vmap_match_sympy():
    """Item 1 (Cond: batching of the gradient, beyond MindSpore 2.10 whose vmap raises ValueError on a
    batched predicate): vmap(grad(f)) takes each example's own branch (SymPy per example)."""
    xs = np.stack([A, B, A * 2.0])
    y = np.abs(A)
    got = ms.vmap(ms.grad(_branching, grad_position=0), in_axes=(0, None))(Tensor(xs), Tensor(y))
    for k, x in enumerate(xs):
        np.testing.assert_allclose(got.asnumpy()[k], sympy_derivatives(_branching, [x, y])[0][0], rtol=1e-12)


def test_cond_refuses_a_tuple_against_a_tensor_and_a_predicate_of_several_entries():
    """Item 1 (Cond: abstract evaluation). Oracle, GRAPH_MODE: ``return x, x`` in one branch and ``x``
    in the other is TypeError "Type Join Failed: Abstract type AbstractTuple cannot join with
    AbstractTensor"; ``if x > 0`` on a Tensor of shape (3,) is ValueError "Only tensor which shape is
    () or (1,) can be converted to bool"."""
    x = Tensor(A)
    with pytest.raises(TypeError, match="structure") as info:
        cond(x.sum() > 0, lambda a: (a, a), lambda a: a, x)
    assert isinstance(info.value, BranchTypeError) and "Fix" in str(info.value)
    with pytest.raises(ValueError, match=r"Only tensor which shape is \(\) or \(1,\)") as info:
        cond(x > 0, lambda a: a, lambda a: a * 2, x)
    assert isinstance(info.value, PredicateError)


def test_cond_jvp_of_the_false_branch_is_a_tangent_of_the_piecewise():
    """Item 1 (Cond: jvp, the branch not covered by test_cond_primitive.py): d/dt of
    Piecewise((2x, s > 0), (3x, True)) at a point with s < 0 is 3t (SymPy)."""
    t = np.array([1.0, -2.0, 0.5])
    out, tangent = ms.jvp(lambda v: cond(v.sum() > 0, lambda a: a * 2, lambda a: a * 3, v), Tensor(B), Tensor(t))
    s = symbols_like("x", (3,))
    expr = [sympy.Piecewise((2 * s[i], sum(s) > 0), (3 * s[i], True)) for i in range(3)]
    point = dict(zip(s, B))
    expected = [float(sum(sympy.diff(e, s[j]).subs(point) * t[j] for j in range(3))) for e in expr]
    np.testing.assert_allclose(tangent.asnumpy(), expected, rtol=1e-15)
    np.testing.assert_allclose(out.asnumpy(), 3 * B, rtol=1e-15)


# ----- While ----------------------------------------------------------------------------------------------
def _counted(x, w):
    """Three iterations of v -> sin(v) * w + v (a concrete trip count: SymPy unrolls it); ``w`` rides
    in the carry (a value captured from outside is a symbol SymPy's run of the loop cannot stage)."""
    start = Tensor(np.array(0, np.int64))
    return while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, ops.sin(c[1]) * c[2] + c[1], c[2]),
                      (start, x, w))[1].sum()


def test_while_first_and_second_order_match_the_unrolled_loop_in_every_mode():
    """Item 1 (While: bprop and second order): the reverse loop over the body's backward graph
    (PyNative: one node per iteration; staged: LoopVjp, whose gradient is a LoopVjp again) gives
    SymPy's derivatives of the loop unrolled three times, first and second order."""
    assert_matches_sympy(_counted, (A, np.abs(B)))


def _doubling_count(x):
    """v -> 2v while sum(v) < 10: the trip count depends on the example."""
    return while_loop(lambda v: v.sum() < 10.0, lambda v: v * 2.0 + ops.sin(v), x).sum()


def test_while_per_example_gradients_under_vmap_with_different_trip_counts():
    """Item 1 (While: batching of the gradient, beyond MindSpore): each example runs its own number of
    iterations (while any continues, the others keep their carry); the gradient of each is SymPy's
    derivative of its own unrolled loop."""
    xs = np.array([[1.0, 2.0, 0.5], [3.0, 4.0, 2.0], [0.2, 0.1, 0.3]])
    got = ms.vmap(ms.grad(_doubling_count))(Tensor(xs)).asnumpy()
    trips = []
    for k, x in enumerate(xs):
        s = symbols_like("x", (3,))
        v, value, n = s, x.copy(), 0
        while value.sum() < 10.0:           # the trip count at this example (the loop's own condition)
            v = np.array([2 * e + sympy.sin(e) for e in v], dtype=object)
            value, n = 2 * value + np.sin(value), n + 1
        trips.append(n)
        total = sum(v)
        expected = [float(sympy.diff(total, e).subs(dict(zip(s, x)))) for e in s]
        np.testing.assert_allclose(got[k], expected, rtol=1e-12)
    assert len(set(trips)) == 3                       # three different trip counts


def test_while_refuses_a_body_that_changes_the_carry_structure():
    """Item 1 (While: abstract evaluation): a body returning one value for a carry of two is a
    CarryTypeError (TypeError, MindSpore's type for a carry that changes type)."""
    with pytest.raises(TypeError, match="structure") as info:
        while_loop(lambda c: c[0].sum() < 10, lambda c: c[0] * 2, (Tensor(A), Tensor(B)))
    assert isinstance(info.value, CarryTypeError) and "Fix" in str(info.value)


# ----- Scan -----------------------------------------------------------------------------------------------
def _scanned(c, xs):
    carry, ys = scan(lambda k, x: (ops.sin(k * x) + k, k * x * x), c, xs)
    return carry.sum() + (ys * ys).sum()


def test_scan_first_and_second_order_match_the_unrolled_loop_in_every_mode():
    """Item 1 (Scan: bprop over stacked residuals, second order): SymPy's derivatives of the loop
    unrolled over the two rows, with respect to the carry and to the rows, first and second order."""
    assert_matches_sympy(_scanned, (A, ROWS))


def test_scan_gradient_in_a_graph_is_a_loop_vjp_on_residuals():
    """Item 1 (Scan: residual split): the compiled graph splits into a forward graph and a backward
    graph holding the Scan's LoopVjp; its outputs have the types of the operands it differentiates
    (abstract evaluation of LoopVjp), and the gradient is SymPy's."""
    c, xs = Tensor(A), Tensor(ROWS)
    graph = trace_to_graph(_scanned, [c, xs])
    assert any(isinstance(eq.prim, Scan) for eq in graph.equations)
    split = split_for_gradient(graph, (0, 1))
    vjps = [eq for eq in split.backward.equations if isinstance(eq.prim, LoopVjp)]
    assert len(vjps) == 1
    assert [(tuple(v.shape), v.dtype) for v in vjps[0].outs] == [((3,), ms.float64), ((2, 3), ms.float64)]
    gradient, _ = sympy_derivatives(_scanned, [A, ROWS])
    got = ms.grad(ms.jit(_scanned), grad_position=(0, 1))(c, xs)
    for e, g in zip(gradient, got):
        np.testing.assert_allclose(g.asnumpy(), e, rtol=1e-12)


def test_scan_refuses_a_body_that_changes_the_carry_type():
    """Item 1 (Scan: abstract evaluation). Oracle, ``ops.Scan(..., unroll=False)`` under ``@ms.jit``:
    a body returning the carry with another shape is ValueError ("should maintain the same type and
    shape"); with another dtype MindSpore 2.10 fails with an internal RuntimeError ("The pointer
    [cnode_abs] is null") where minims says TypeError, as for While; a body returning one value
    instead of (carry, y) is a CarryTypeError."""
    c, xs = Tensor(A), Tensor(ROWS)
    with pytest.raises(ValueError) as info:
        scan(lambda k, x: (ops.concat([k, k]), k), c, xs)
    assert isinstance(info.value, CarryShapeError) and "Float64[6]" in str(info.value)
    with pytest.raises(TypeError) as info:
        scan(lambda k, x: (ops.cast(k, ms.int32), k), c, xs)
    assert isinstance(info.value, CarryTypeError) and "Int32[3]" in str(info.value)
    with pytest.raises(CarryTypeError, match=r"pair \(carry, y\)"):
        scan(lambda k, x: k, c, xs)


def test_scan_per_example_gradients_under_vmap_match_sympy():
    """Item 1 (Scan: batching of the gradient): vmap over the initial carry of grad(f) equals SymPy's
    gradient for each example alone."""
    cs = np.stack([A, B])
    got = ms.vmap(ms.grad(_scanned, grad_position=0), in_axes=(0, None))(Tensor(cs), Tensor(ROWS)).asnumpy()
    for k, c in enumerate(cs):
        np.testing.assert_allclose(got[k], sympy_derivatives(_scanned, [c, ROWS])[0][0], rtol=1e-12)


# ----- LoopVjp --------------------------------------------------------------------------------------------
def test_loop_vjp_has_no_formula_of_its_own():
    """Item 1 (LoopVjp: SymPy form): a loop's gradient recorded as one node has no SymPy rule; the
    symbolic interpreter refuses it with an error naming it and the fix (the reference is the loop
    itself, unrolled by SymPy and differentiated by sympy.diff, as in the tests above)."""
    with pytest.raises(NotImplementedError, match="While_vjp has no sympy rule") as info:
        symbolic_call(ms.grad(_counted, grad_position=0), symbols_like("x", (3,)), Tensor(np.abs(B)))
    assert "LoopVjp" in str(info.value) and "Fix" in str(info.value)


def test_a_value_captured_by_a_branch_or_a_loop_body_can_be_a_symbol():
    """Item 1 (SymPy form), regression: a branch or loop body reading a SymPy value from outside (not
    an operand) failed to stage, "minims does not support the NumPy dtype dtype('O')" (the core's
    staging typed a captured value's placeholder by its data, an object array of expressions,
    instead of by its dtype; fixed in core/staging.py).  Expected: SymPy's Piecewise with the captured
    symbol, and the loop unrolled with it."""
    x, w = symbols_like("x", (2,)), symbols_like("w", (2,))
    out = symbolic_call(lambda a, b: cond(a.sum() > 0, lambda v: v * b, lambda v: v, a), x, w)
    for j in range(2):
        assert sympy.simplify(out[j] - sympy.Piecewise((w[j] * x[j], x[0] + x[1] > 0), (x[j], True))) == 0
    start = Tensor(np.array(0, np.int64))
    out = symbolic_call(lambda a, b: while_loop(lambda c: c[0] < 2, lambda c: (c[0] + 1, c[1] * b), (start, a))[1],
                        x, w)
    assert [sympy.expand(o - xi * wi ** 2) for o, xi, wi in zip(out, x, w)] == [0, 0]


# ----- a structured primitive holding an effect, replayed by a backward graph -------------------------------
def _printing_loop(x):
    def body(c):
        ops.Print()("iteration", c[0])
        return c[0] + 1, ops.sin(c[1]) * c[1]
    return while_loop(lambda c: c[0] < 2, body, (Tensor(np.array(0, np.int64)), x))[1].sum()


def _printing_branch(x):
    def shown(a):
        ops.Print()("branch")
        return ops.sin(a) * a
    return cond(x.sum() > 0, shown, lambda a: a * 3.0, x).sum()


@pytest.mark.parametrize("fn", [_printing_loop, _printing_branch], ids=["While", "Cond"])
def test_a_loop_or_branch_that_prints_is_differentiated_through_a_compiled_graph(fn, capsys):
    """Regression (found by the control-flow fuzzer): grad(jit(f)) of a While or Cond whose graph held
    a Print (or a Guard) gave the derivative of the identity — ones — because the backward graph,
    replaying the forward without its effects, passed the primitive's inputs through as if it were a
    Print.  Fixed in graph/replay.py (``without_effects``: the primitive's effect-free form runs).
    Expected: SymPy's derivative of the unrolled loop / the branch taken."""
    x = A
    gradient, _ = sympy_derivatives(lambda v: fn(v), [x])
    got = ms.grad(ms.jit(fn))(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, gradient[0], rtol=1e-12)
    capsys.readouterr()


def test_a_guard_inside_a_loop_body_is_checked_by_a_compiled_gradient():
    """Regression (found by the control-flow fuzzer): a Python ``if`` inside a loop's function on a value
    from outside the loop compiles as a guard inside the loop body; grad(jit(f)) called again with a
    value that takes the other branch reused the first variant (the replay that computes the
    gradient's forward values dropped the guard), a silently wrong gradient.  Expected: SymPy's
    derivative of the branch each call takes (sin(v) * y or tanh(v) * 3 y, once)."""
    def f(x, y):
        def step(j, a):
            if (y > 0.0).all():
                u = ops.sin(a) * y
            else:
                u = ops.tanh(a) * y * 3.0
            return u
        return ops.ForiLoop()(0, 1, step, x, unroll=False).sum()
    compiled = ms.grad(ms.jit(f), grad_position=0)
    for y in (np.abs(A), -np.abs(A), np.abs(A)):
        s = symbols_like("x", (3,))
        branch = [sympy.sin(e) * w if (y > 0).all() else sympy.tanh(e) * w * 3 for e, w in zip(s, y)]
        expected = [float(sympy.diff(sum(branch), e).subs(dict(zip(s, A)))) for e in s]
        np.testing.assert_allclose(compiled(Tensor(A), Tensor(y)).asnumpy(), expected, rtol=1e-12)


# ----- a Parameter as a loop's initial value -----------------------------------------------------------------
def test_a_parameter_as_the_initial_carry_of_a_loop_is_its_value():
    """Regression (found by the control-flow fuzzer once its programs read a Parameter): a Parameter
    in a loop's carry was not an explicit input of the staged body (a graph reads a Parameter as a
    captured value), so the carry came out one operand short — while_loop raised StopIteration, and
    scan mixed up its operands and returned wrong numbers in PyNative and jit alike (fixed in
    control_flow/staging_loops.py: the carry holds the Parameter's value).  Expected: closed forms,
    one iteration of sin(v) * x from v = w, and the scan written as a NumPy loop; the gradient with
    respect to w of the first is cos(w) * x."""
    w = ms.Parameter(Tensor(A), name="w")
    x = Tensor(np.abs(B))

    def looped(v):
        return while_loop(lambda c: c[0] < 1, lambda c: (c[0] + 1, ops.sin(c[1]) * v),
                          (Tensor(np.array(0, np.int64)), w))[1]

    def scanned(v):
        c, ys = scan(lambda k, r: (ops.tanh(k * r + v), k * 2.0), w, Tensor(ROWS))
        return c + ys[1]
    carry, ys = A.copy(), []
    for r in ROWS:
        ys.append(carry * 2.0)
        carry = np.tanh(carry * r + np.abs(B))
    for fn in (looped, ms.jit(looped)):
        np.testing.assert_allclose(fn(x).asnumpy(), np.sin(A) * np.abs(B), rtol=1e-15)
        _, (gw,) = ms.grad(lambda v: fn(v).sum(), grad_position=0, weights=[w])(x)
        np.testing.assert_allclose(gw.asnumpy(), np.cos(A) * np.abs(B), rtol=1e-15)
    for fn in (scanned, ms.jit(scanned)):
        np.testing.assert_allclose(fn(x).asnumpy(), carry + ys[1], rtol=1e-14)
