"""Every forward-mode (jvp) rule of the primitive table against mathematics.

The cases are in ``tests/primitive_cases.py``: for every differentiable primitive, a few
applications to small float64 inputs in its safe domain (broadcasting shapes for the binary ops,
axes, indices, transpose flags, pooling geometry).  The list is checked against
``minims.primitives.table()``, so a new primitive without forward-mode tests fails
``test_every_differentiable_primitive_has_forward_mode_cases``.

1. **SymPy**: the symbolic interpreter runs the case (or, for a custom bprop, a hook and a compiled
   graph, the function whose derivative the rule is) on SymPy symbols; ``sympy.diff`` of every output
   entry with respect to every input entry, evaluated at the point to 30 digits, is the Jacobian
   ``J``, and ``ops.jvp`` must give ``sum_i J_i t_i`` (rtol 1e-11) — for a random tangent of every
   input at once and for each input moving alone (the others constants: the rules' symbolic-zero
   paths).
2. **No SymPy rule** (convolutions, pooling, batch norm, dropout, cross-entropies):
   ``check_grads(..., modes=("fwd", "rev"), order=2)``, central differences for forward and reverse
   mode and all four of their second-order mixtures.
3. **Forward agrees with reverse** for every case: ``<w, J t>`` from the jvp rules equals
   ``<J^T w, t>`` from the backward rules, to rounding.  This also covers inputs that get no
   derivative by design (labels, moving statistics): both rules must say zero.  A backward hook
   that scales the cotangents scales reverse mode alone (forward mode passes tangents through it).
"""
import numpy as np
import pytest
import sympy

import minims as ms
from minims import Tensor, ops
from minims.core import stack
from minims.interpreters.symbolic import as_sympy_array
from minims.primitives import activation as A
from minims.primitives import table
from minims.core.primitive import NoJvpRule
from minims.testing import check_grads, leftover_state, symbolic_call, symbols_like
from primitive_cases import BUILDERS, CASES, NO_JVP, values

SEED = 20240612


@pytest.fixture(autouse=True)
def clean():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert not leftover_state(), leftover_state()


def all_cases():
    out = []
    for n, make in enumerate(BUILDERS):
        rng = np.random.default_rng([SEED, n])
        for k, case in enumerate(make(rng)):
            out.append(pytest.param(case, id=f"{case.label}-{k}"))
    return out


CASE_PARAMS = all_cases()
SYMBOLIC = [p for p in CASE_PARAMS if p.values[0].reference is not None]
NUMERIC = [p for p in CASE_PARAMS if p.values[0].reference is None]


# ----- helpers ---------------------------------------------------------------------------------------
def leaves(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def symbolic_jacobian(fn, args):
    """``J[k][i]``: d output_k / d argument_i, shape ``out_k.shape + arg_i.shape``, from ``sympy.diff``
    of the formula the symbolic interpreter builds, evaluated at ``args`` to 30 digits."""
    syms = [symbols_like(f"a{i}", a.shape) for i, a in enumerate(args)]
    point = {s: sympy.Float(float(v), 30) for sa, a in zip(syms, args) for s, v in zip(sa.flat, a.asnumpy().flat)}
    jac = []
    for expr in leaves(symbolic_call(fn, *syms)):
        arr = as_sympy_array(expr)
        blocks = []
        for sa in syms:
            block = np.zeros(arr.shape + sa.shape)
            for idx in np.ndindex(arr.shape):
                free = sympy.sympify(arr[idx]).free_symbols
                for jdx in np.ndindex(sa.shape):
                    if sa[jdx] in free:
                        block[idx + jdx] = float(sympy.diff(arr[idx], sa[jdx]).xreplace(point).evalf(30))
            blocks.append(block)
        jac.append(blocks)
    return jac


def apply(jac, tangents):
    """``sum_i J_i t_i`` for each output (a tangent of None: that input does not move)."""
    out = []
    for blocks in jac:
        total = 0.0
        for block, t in zip(blocks, tangents):
            if t is not None:
                total = total + np.tensordot(block, t, axes=t.ndim)
        out.append(np.asarray(total, dtype=np.float64))
    return out


def jvp_with(case, moving, tangents):
    """``ops.jvp`` of the case with the arguments in ``moving`` as inputs (the others closed over:
    constants at the forward-mode level, so the rules see a tangent of None for them)."""
    def partial(*xs):
        full = list(case.args)
        for i, x in zip(moving, xs):
            full[i] = x
        return case.fn(*full)
    return ops.jvp(partial, tuple(case.args[i] for i in moving), tuple(tangents[i] for i in moving))


def random_tangents(rng, args):
    return tuple(Tensor(rng.standard_normal(a.shape)) for a in args)


# ----- the table is covered ----------------------------------------------------------------------------
def test_every_differentiable_primitive_has_forward_mode_cases():
    rows = table()
    differentiable = {r.name for r in rows if r.jvp is not None}
    missing = sorted(differentiable - set(CASES) - set(NO_JVP))
    assert not missing, f"differentiable primitives without forward-mode cases in primitive_cases.py: {missing}"
    unknown = sorted(set(CASES) - differentiable)
    assert not unknown, f"cases for names that are not differentiable primitives of the table: {unknown}"
    # the exclusions are exactly the differentiable primitives without a forward-mode rule
    assert {r.name for r in rows if r.jvp is False} == set(NO_JVP)
    # every primitive with a SymPy rule is checked against SymPy, not only by finite differences
    with_sympy = {r.name for r in rows if r.jvp is not None and r.sympy}
    checked = {name for name in CASES if all(c.reference is not None for c in CASES[name](np.random.default_rng(0)))}
    assert with_sympy - set(NO_JVP) <= checked, sorted(with_sympy - set(NO_JVP) - checked)


def test_the_cases_of_a_primitive_run_it_in_forward_mode():
    """A name in CASES is a promise: its cases bind that primitive while ``jvp`` runs them."""
    for make in BUILDERS:
        seen = set()

        def observe(prim, args):
            seen.add(type(prim).__name__)
        stack.add_rewriter(observe)
        try:
            for case in make(np.random.default_rng(0)):
                ops.jvp(case.fn, case.args, tuple(ops.ones_like(a) for a in case.args))
        finally:
            stack.remove_rewriter(observe)
        promised = {name for name, m in CASES.items() if m is make}
        assert promised <= seen, f"cases registered for {sorted(promised - seen)} never bind them"


def test_relu6_grad_has_no_forward_mode_rule():
    """NO_JVP's reason, checked: forward mode over relu6's derivative raises NoJvpRule naming it."""
    x = Tensor(np.array([-1.0, 2.0, 7.0]))
    t = ops.ones_like(x)
    np.testing.assert_array_equal(ops.jvp(ops.relu6, x, t)[1].asnumpy(), [0.0, 1.0, 0.0])
    with pytest.raises(NoJvpRule, match="ReLU6Grad"):
        ops.jvp(lambda v: ops.jvp(ops.relu6, v, t)[1], x, t)


# ----- 1. SymPy ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", SYMBOLIC)
def test_jvp_rule_matches_sympy(case):
    rng = np.random.default_rng(SEED)
    jac = symbolic_jacobian(case.reference, case.args)
    tangents = random_tangents(rng, case.args)
    arrays = [t.asnumpy() for t in tangents]
    everyone = tuple(range(len(case.args)))
    for moving in [everyone] + ([(i,) for i in everyone] if len(everyone) > 1 else []):
        out, tangent = jvp_with(case, moving, tangents)
        expected = apply(jac, [arrays[i] if i in moving else None for i in everyone])
        primal = leaves(case.fn(*case.args))
        for o, p, t, e in zip(leaves(out), primal, leaves(tangent), expected):
            np.testing.assert_array_equal(o.asnumpy(), p.asnumpy())         # jvp's output is f's output
            assert t.shape == o.shape and t.dtype == o.dtype, (t, o)
            np.testing.assert_allclose(t.asnumpy().astype(np.float64), e, rtol=case.rtol, atol=1e-12,
                                       err_msg=f"{case!r}, inputs {moving} moving")


def test_jvp_at_a_tie_of_maximum_matches_sympy():
    """At a tie maximum/minimum share the derivative evenly (as the backward rule), which is SymPy's
    Heaviside(0) = 1/2."""
    x, y = Tensor(np.array([1.0, 2.0])), Tensor(np.array([1.0, 3.0]))
    a, b = sympy.symbols("a b", real=True)
    for f, g in ((ops.maximum, sympy.Max), (ops.minimum, sympy.Min)):
        t = ops.jvp(f, (x, y), (Tensor(np.array([1.0, 1.0])), Tensor(np.array([0.0, 0.0]))))[1]
        expected = [float(sympy.diff(g(a, b), a).subs({a: xv, b: yv})) for xv, yv in zip([1.0, 2.0], [1.0, 3.0])]
        np.testing.assert_array_equal(t.asnumpy(), expected)


def test_casts_to_integers_and_non_differentiable_primitives_have_zero_tangents():
    """Piecewise-constant functions (a cast to int, floor, sign, comparisons) have derivative 0
    wherever it exists: forward mode gives a zero tangent, not an error."""
    x = Tensor(np.array([0.3, -1.7, 2.2]))
    t = Tensor(np.array([1.0, -2.0, 0.5]))
    for f in (lambda v: ops.cast(ops.cast(v, ms.int32), ms.float64), ops.floor, ops.sign,
              lambda v: ops.cast(ops.gt(v, 0.0), v.dtype), lambda v: ops.stop_gradient(v),
              lambda v: ops.floor_divide(v, 0.7)):
        out, tangent = ops.jvp(f, x, t)
        assert tangent.shape == out.shape
        assert not tangent.asnumpy().any()


# ----- 2. no SymPy rule: central differences -------------------------------------------------------------
@pytest.mark.parametrize("case", NUMERIC)
def test_jvp_rule_without_sympy_matches_central_differences(case):
    check_grads(case.fn, case.args, order=2, modes=("fwd", "rev"))


# ----- 3. forward agrees with reverse ----------------------------------------------------------------------
@pytest.mark.parametrize("case", CASE_PARAMS)
def test_jvp_and_vjp_rules_define_the_same_jacobian(case):
    """``<w, J t> = <J^T w, t>`` for random ``t`` and ``w``: the forward-mode rules and the backward
    rules are transposes of each other (each input moving alone, then all at once) — up to the
    factor a backward hook applies to the cotangents only (``Case.cotangent_scale``)."""
    rng = np.random.default_rng(SEED + 1)
    tangents = random_tangents(rng, case.args)
    out = leaves(case.fn(*case.args))
    cotangents = [Tensor(rng.standard_normal(o.shape).astype(o.dtype.np_dtype)) if o.dtype.is_float
                  else ops.zeros_like(o) for o in out]
    everyone = tuple(range(len(case.args)))
    for moving in [everyone] + ([(i,) for i in everyone] if len(everyone) > 1 else []):
        _, tangent = jvp_with(case, moving, tangents)
        forward = case.cotangent_scale * sum(float(np.sum(w.asnumpy().astype(np.float64) * t.asnumpy()))
                                             for w, t in zip(cotangents, leaves(tangent)))
        _, vjp_fn = ops.vjp(case.fn, *case.args)
        grads = vjp_fn(*cotangents) if len(out) > 1 else vjp_fn(cotangents[0])
        reverse = sum(float(np.sum(grads[i].asnumpy() * tangents[i].asnumpy())) for i in moving)
        scale = sum(float(np.sum(np.abs(g.asnumpy()) * np.abs(tangents[i].asnumpy()))) for i, g in enumerate(grads))
        assert abs(forward - reverse) <= 1e-12 * (1 + scale) + (1e-6 * scale if case.rtol > 1e-9 else 0), \
            f"{case!r}, inputs {moving} moving: <w, J t> = {forward!r} but <J^T w, t> = {reverse!r}"


# ----- regressions ------------------------------------------------------------------------------------------
def test_cross_entropy_labels_moving_alone_have_zero_tangents():
    """Labels get no derivative (the backward rules return None for them); forward mode with only the
    labels moving used to fail inside the jvp rule (``ops.mul(None, ...)``)."""
    z = values(np.random.default_rng(3), (2, 3))
    labels = Tensor(np.array([[0.2, 0.5, 0.3], [1.0, 0.0, 0.0]]))
    loss, dlogits = ops.jvp(lambda lab: ops.SoftmaxCrossEntropyWithLogits()(z, lab), labels, ops.ones_like(labels))[1]
    assert loss.shape == (2,) and dlogits.shape == (2, 3)
    assert not loss.asnumpy().any() and not dlogits.asnumpy().any()
    sparse = Tensor(np.array([2, 0], np.int32))
    for is_grad in (False, True):
        prim = ops.SparseSoftmaxCrossEntropyWithLogits(is_grad)
        out, tangent = ops.jvp(lambda lab: prim(z, lab), sparse, Tensor(np.array([1, 1], np.int32)))
        assert tangent.shape == out.shape and not tangent.asnumpy().any()


def test_relu_grad_second_order_in_forward_mode():
    """ReLU's derivative primitive has its own jvp rule, so forward over forward works for relu."""
    x = Tensor(np.array([-1.5, 0.5, 2.0]))
    t = Tensor(np.array([1.0, 2.0, 3.0]))
    inner = lambda v: ops.jvp(A.ReLU(), v, t)[1]                              # noqa: E731
    np.testing.assert_array_equal(inner(x).asnumpy(), [0.0, 2.0, 3.0])
    np.testing.assert_array_equal(ops.jvp(inner, x, t)[1].asnumpy(), [0.0, 0.0, 0.0])


def test_integer_inputs_have_tangents_of_the_output_dtype():
    """Forward mode accepts integer inputs with integer tangents (as MindSpore: the tangent has the
    output's dtype).  Oracle (MindSpore 2.10): jvp of amax on int32 [1, 2, 3] with ones is 1, Int32;
    of a ** 0 is [0, 0, 0], Int32.  minims gave amax/amin a Float32 tangent, and a ** 0 failed
    (``x ** (0 - 1)``: NumPy refuses negative integer powers)."""
    a = Tensor(np.array([[1, -2, 3], [4, 5, -6]], np.int32))
    ones = ops.ones_like(a)
    for f in (lambda v: v * v - 3 * v, lambda v: ops.amax(v, 1), lambda v: ops.amin(v), ops.abs, ops.relu,
              lambda v: ops.maximum(v, 2), lambda v: ops.matmul(v, v.T), lambda v: ops.sum(v[1:] ** 2),
              lambda v: ops.select(v > 0, v, 0), lambda v: ops.concat((v, v)), lambda v: v / 2, ops.exp):
        out, tangent = ops.jvp(f, a, ones)
        assert tangent.dtype == out.dtype and tangent.shape == out.shape, (out, tangent)
    out, tangent = ops.jvp(lambda v: ops.amax(v), Tensor(np.array([1, 2, 3], np.int32)),
                           Tensor(np.ones(3, np.int32)))
    assert tangent.dtype == ms.int32 and tangent.tolist() == 1
    out, tangent = ops.jvp(lambda v: ops.pow(v, 0), Tensor(np.array([1, 2, 3], np.int32)),
                           Tensor(np.ones(3, np.int32)))
    assert out.tolist() == [1, 1, 1] and tangent.dtype == ms.int32 and tangent.tolist() == [0, 0, 0]
    # the derivative of an integer power in the exponent's other cases is unchanged: 3 a^2 t
    out, tangent = ops.jvp(lambda v: ops.pow(v, 3), Tensor(np.array([1, 2, 3], np.int32)),
                           Tensor(np.array([1, 1, 2], np.int32)))
    assert tangent.tolist() == [3, 12, 54]
