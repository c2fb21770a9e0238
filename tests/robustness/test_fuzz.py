"""Differential fuzzing: random programs from the primitive table against four independent oracles.

Hypothesis draws programs with ``tests/programs.py`` (elementwise ops with broadcasting,
reductions, matmul, shapes, select, softmax, integer inputs, gradients taken inside the program,
dense/convolution/pooling/batch-norm/cross-entropy layers, Cells with custom ``bprop`` and backward
hooks, float32 and float64, inputs in safe domains) and checks that

1. **PyNative equals Graph mode** — ``check_modes``: ``f``, ``jit(f)``, ``grad(jit(f))``,
   ``jit(grad(f))``, ... to second order, to 1e-12 in float64.  A program with backward hooks is
   checked against two references: its PyNative derivatives against the same program with every
   hook and custom rule re-expressed through ``stop_gradient`` (no hook involved), its Graph-mode
   derivatives against the program with the hooks removed (Graph mode skips hooks by design).
2. **Gradients equal central differences** in float64 — ``check_grads(program, args, order=2)``.
   For programs with a deliberately different custom rule or a scaling hook, finite differences of
   ``program.frozen_at(args)`` (a function whose true derivative at ``args`` *is* what the rules and
   hooks say) are the reference for the first derivative.
3. **The NumPy and Numba paths agree** — forward, first and second derivatives of programs through
   convolution, pooling, batch norm and softmax cross-entropy with ``fast_path`` off and on
   (float32: rtol 1e-5, float64: 1e-12, with the absolute floor of ``tests/fast/test_fast_path.py``;
   random output cotangents, since the plain sum of a softmax or batch norm has gradient zero).
   Where a program amplifies float32 rounding so much that the NumPy path itself is further than
   that from the float64 result, a float32 difference of up to three times that distance counts as
   agreement (counted separately).
4. **The symbolic interpreter agrees** where every primitive has a SymPy rule: the formula's value
   and ``sympy.diff`` of it against the forward pass and ``ops.grad``.

Points where finite differences cannot be a reference (a kink of relu/abs/maximum/select/max within
the difference stencil, see ``near_a_kink``) and where SymPy's derivative is undefined (exactly on a
kink, ``on_a_kink``) are discarded, and counted.  A central difference that fails at the default
step is tried with smaller ones (``with_smaller_steps``): a program with large derivatives has a
truncation error beyond the tolerance, a wrong rule fails at every step.

Bounded and deterministic by default (``derandomize=True``); ``MINIMS_DEEP=1`` runs a long
randomised search (``-k modes_pynative``, ``-k modes_with_hooks``, ``-k gradients_equal_central``,
``-k custom_rules``, ``-k numba``, ``-k symbolic`` pick one oracle)::

    MINIMS_DEEP=1 python -m pytest tests/robustness/test_fuzz.py -s -k numba

(``MINIMS_DEEP_EXAMPLES=n`` sets the number of programs per test, 20000 by default; ``-s`` shows
how many programs each oracle tried, passed and discarded.)

Regressions for what the search found are at the end of the file.
"""
import contextlib
import os
import time
from collections import Counter

import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import minims as ms
import minims.nn as nn
from minims import Parameter, Tensor, fast, ops
from minims.core.stack import bind
from minims.primitives import nn as P
from minims.autodiff.grad_api import vjp_call
from minims.testing import check_grads, check_modes, leftover_state, symbolic_call, symbols_like
from minims.testing.modes import mode_functions, snapshot
import programs as programs_module
from programs import (FAST, GRADS, MODES, SPECIAL, SYMBOLIC, Input, Meta, Program, ProgramCell,
                      SinWithTripledRule, Special, SpikeWithSurrogate, Step, near_a_kink, programs,
                      scaling_hook, with_weights)

# the slow tier (`pytest -m "not slow"` leaves it out): Hypothesis searches hundreds of random programs (~60 s)
pytestmark = pytest.mark.slow


DEEP = os.environ.get("MINIMS_DEEP", "") not in ("", "0")


DEEP_EXAMPLES = int(os.environ.get("MINIMS_DEEP_EXAMPLES", "20000"))     # per test, with MINIMS_DEEP=1


def fuzz_settings(bounded):
    return settings(max_examples=DEEP_EXAMPLES if DEEP else bounded, deadline=None, derandomize=not DEEP,
                    database=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large])


STATS = {name: Counter() for name in ("modes", "hooks", "central", "rules", "numba", "symbolic")}


@contextlib.contextmanager
def counted(oracle):
    """Count a tried program, whether it passed, and the time spent (printed at the end)."""
    start = time.perf_counter()
    STATS[oracle]["tried"] += 1
    try:
        yield
        STATS[oracle]["passed"] += 1
    finally:
        STATS[oracle]["seconds"] += time.perf_counter() - start


def discard(oracle, why):
    STATS[oracle][why] += 1
    assume(False)


def teardown_module():
    lines = [f"  {name:<9} tried {c['tried']:>6}, passed {c['passed']:>6}, "
             + ", ".join(f"{k} {v}" for k, v in sorted(c.items()) if k not in ("tried", "passed", "seconds"))
             + f" ({c['seconds']:.1f} s)" for name, c in STATS.items() if c["tried"]]
    if lines:
        print(f"\nfuzzed programs ({'MINIMS_DEEP' if DEEP else 'bounded'} run):\n" + "\n".join(lines))


@pytest.fixture(autouse=True)
def clean_state():
    """PyNative, the NumPy path, and nothing left on the interpreter stack, before and after."""
    before = fast.enabled
    ms.set_context(mode=ms.PYNATIVE_MODE, fast_path=False)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE, fast_path=before)
    assert not leftover_state(), leftover_state()


def float64(args):
    return tuple(Tensor(np.asarray(a._data, np.float64)) if a.dtype.is_float else a for a in args)


def float_positions(args):
    return tuple(i for i, a in enumerate(args) if a.dtype.is_float)


def failure(exc, program, args, extra=""):
    return AssertionError(f"{exc}\n\nthe program (import minims as ms; from minims import ops, Tensor; "
                          f"from minims.primitives import nn as P; from programs import *):\n"
                          f"{program.reproducer(args)}{extra}")


def weighted(fn, seed=0):
    """``sum_k sum(w_k * output_k)`` over the float outputs of ``fn``, with fixed random weights
    ``w_k`` (drawn once per output shape from ``seed``): the scalar whose gradient is ``fn``'s
    vector-Jacobian product with the cotangents ``w``.  Random cotangents, not ones: the gradient of
    the plain sum of a softmax or a training batch norm is zero, pure rounding noise in float32."""
    rng, weights = np.random.default_rng(seed), {}

    def total(*args):
        out = fn(*args)
        leaves = out if isinstance(out, tuple) else (out,)
        parts = []
        for k, o in enumerate(leaves):
            if o.dtype.is_float:
                key = (k, tuple(o.shape))
                if key not in weights:
                    weights[key] = rng.standard_normal(o.shape)
                parts.append(ops.sum(o * Tensor(weights[key].astype(o.dtype.np_dtype))))
        result = parts[0]
        for p in parts[1:]:
            result = result + p
        return result
    return total


def assert_close(name, ref, got, rtol, atol):
    assert len(ref) == len(got), f"{name}: {len(ref)} vs {len(got)} values"
    for k, (r, g) in enumerate(zip(ref, got)):
        r, g = np.asarray(r), np.asarray(g)
        assert r.shape == g.shape and r.dtype == g.dtype, f"{name} [{k}]: {r.dtype}{r.shape} vs {g.dtype}{g.shape}"
        np.testing.assert_allclose(g.astype(np.float64), r.astype(np.float64), rtol=rtol, atol=atol,
                                   err_msg=f"{name}, value {k}")


# ===== 1. PyNative equals Graph mode ===================================================================
@fuzz_settings(500)
@given(case=programs(MODES), as_cell=st.booleans(),
       chosen=st.lists(st.integers(0, 3), max_size=2, unique=True))
def test_fuzz_modes_pynative_equals_graph(case, as_cell, chosen):
    """Programs with integer inputs, nested grads, custom bprops, layers, in float32 or float64:
    every mode agrees.  Some inputs are the Cell's Parameters (``weights=``)."""
    program, args = case
    # float32 programs stay float32, so that a mode computing in another dtype shows (check_modes
    # compares dtypes); float32 rounding may differ with the order of a sum, hence the tolerance
    single = program.dtype == "float32"
    tolerance = dict(float64=not single, atol=1e-5 if single else 1e-12, rtol=1e-5 if single else 0.0)
    with counted("modes"):
        try:
            if as_cell and chosen:
                cell, rest, weights = with_weights(program, args, chosen)
                check_modes(cell, rest, weights=weights, **tolerance)
            else:
                check_modes(ProgramCell(program) if as_cell else program, args, **tolerance)
        except AssertionError as exc:
            raise failure(exc, program, args, f"\nas_cell={as_cell}, weights: inputs {chosen}") from None


PYNATIVE_MODES = ("f", "grad(f)", "grad(grad(f))")


@pytest.mark.filterwarnings("ignore:.*hooks are not effective in Graph mode")
@fuzz_settings(200)
@given(case=programs(SPECIAL), as_cell=st.booleans())
def test_fuzz_modes_with_hooks_pynative_sees_them_graph_does_not(case, as_cell):
    """A program with scaling hooks and custom rules: PyNative's derivatives (to second order) are
    those of its ``stop_gradient`` re-expression; every Graph-mode composition gives the derivatives
    of the program without hooks (Graph mode skips hooks, as in MindSpore)."""
    program, args = case
    args = float64(args)
    positions = float_positions(args)
    with counted("hooks"):
        try:
            plain = check_modes(program.variant("plain"), args)
            reference = check_modes(program.variant("reference"), args)
            f = ProgramCell(program) if as_cell else program
            for mode, (fn, graph_mode) in mode_functions(f, positions, (), 2, as_cell).items():
                with _graph_mode(graph_mode):
                    got = snapshot(fn(*args))
                expected = reference[mode.replace("GRAPH_MODE ", "")] if mode in PYNATIVE_MODES else \
                    plain[mode.replace("GRAPH_MODE ", "")]
                assert_close(f"hooked {mode} vs {'reference' if mode in PYNATIVE_MODES else 'plain'}",
                             expected, got, rtol=1e-9, atol=1e-9)
        except AssertionError as exc:
            raise failure(exc, program, args, f"\nas_cell={as_cell}") from None


@contextlib.contextmanager
def _graph_mode(on):
    if not on:
        yield
        return
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        yield
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


# ===== 2. gradients equal central differences =========================================================
def finite(program, args):
    """Are the outputs finite?  (A max-pooling window that lies entirely in the padding gives -inf,
    and a central difference of it NaN.)"""
    with np.errstate(all="ignore"):
        out = program(*args)
    return all(np.all(np.isfinite(o.asnumpy())) for o in (out if isinstance(out, tuple) else (out,)))


@fuzz_settings(600)
@given(case=programs(GRADS))
def test_fuzz_gradients_equal_central_differences(case):
    """``check_grads(order=2)``: the backward rules and the rules of the rules, in float64."""
    program, args = case
    args = float64(args)
    if not finite(program, args):
        discard("central", "not finite")
    if near_a_kink(program, args):
        discard("central", "near a kink")
    with counted("central"):
        try:
            with_smaller_steps("central", lambda eps: check_grads(program, args, order=2, eps=eps))
        except AssertionError as exc:
            raise failure(exc, program, args) from None


STEPS = (1e-4, 2e-5, 4e-6)


def with_smaller_steps(oracle, check):
    """Run ``check(eps)`` with the default step, then with smaller ones.

    A program whose derivatives are large (exp of a gradient into a sine) has a truncation error
    ``eps**2 f''' / 6`` beyond the tolerance at ``eps = 1e-4``; it shrinks 25-fold with each step
    here.  A wrong rule fails at every step (its error does not shrink with ``eps``), so passing at a
    smaller step, with the same tolerance, is passing.  Counted in the statistics."""
    for k, eps in enumerate(STEPS):
        try:
            check(eps)
        except AssertionError:
            if k == len(STEPS) - 1:
                raise
            continue
        if k and oracle:
            STATS[oracle][f"passed at eps={eps:g}"] += 1
        return


def check_against_frozen(program, args, eps=1e-4, rtol=1e-5, atol=1e-6, seed=0):
    """``<vjp(w), u>`` of the program against the central difference of ``<w, frozen(x + t u)>``."""
    rng = np.random.default_rng(seed)
    frozen = program.frozen_at(args)
    positions = float_positions(args)
    out = program(*args)
    leaves = out if isinstance(out, tuple) else (out,)
    ws = [Tensor(rng.standard_normal(o.shape)) for o in leaves]
    _, grads, _ = vjp_call(program, args, positions, (), sens=ws, where="fuzz")

    def pairing(xs):
        res = frozen(*xs)
        res = res if isinstance(res, tuple) else (res,)
        return sum(float(np.sum(w._data * r._data)) for w, r in zip(ws, res))
    for k, p in enumerate(positions):
        u = rng.standard_normal(args[p].shape)
        analytic = float(np.sum(grads[k]._data * u))
        moved = [list(args), list(args)]
        moved[0][p] = Tensor(args[p]._data + eps * u)
        moved[1][p] = Tensor(args[p]._data - eps * u)
        numeric = (pairing(moved[0]) - pairing(moved[1])) / (2 * eps)
        assert abs(analytic - numeric) <= atol + rtol * abs(numeric), (
            f"argument {p}: analytic <vjp(w), u> = {analytic!r}, central difference of the frozen "
            f"program = {numeric!r}")


@fuzz_settings(400)
@given(case=programs(SPECIAL))
def test_fuzz_custom_rules_and_hooks_equal_central_differences_of_what_they_say(case):
    """Hooks that scale the gradient and custom bprops (correct ones and deliberately different
    ones): the first derivative is what the rules say, measured by finite differences."""
    program, args = case
    args = float64(args)
    if not finite(program, args):
        discard("rules", "not finite")
    if near_a_kink(program, args):
        discard("rules", "near a kink")
    with counted("rules"):
        try:
            with_smaller_steps("rules", lambda eps: check_against_frozen(program, args, eps=eps))
        except AssertionError as exc:
            raise failure(exc, program, args) from None


# ===== 3. the NumPy and Numba paths agree =============================================================
needs_numba = pytest.mark.skipif(not fast.numba_available(), reason="Numba is not installed")


def _forward_and_derivatives(program, args):
    positions = float_positions(args)
    first = ops.grad(weighted(program), grad_position=positions)
    second = ops.grad(weighted(first, seed=1), grad_position=positions)
    def listed(out):        # one position gives one Tensor (as in MindSpore), several a tuple
        return [o.asnumpy() for o in (out if isinstance(out, tuple) else (out,))]
    return listed(program(*args)) + listed(first(*args)) + listed(second(*args))


def _fast_tolerance_ok(ref, got, tol, exact=None):
    """Every value of the fast path within ``tol`` of the NumPy path's (relative, with the absolute
    floor ``tol * max(|reference|, 1)`` of tests/fast/test_fast_path.py).  With ``exact`` (the NumPy path
    in float64), a float32 value may also differ by up to three times the NumPy path's own distance
    from the exact result: a program that amplifies rounding (the second derivative of a training
    batch norm over three values per channel) leaves both float32 paths equally far from the truth,
    and then neither is more right than the other."""
    for k, (r, g) in enumerate(zip(ref, got, strict=True)):
        if r.shape != g.shape or r.dtype != g.dtype:
            return False
        floor = tol * max(float(np.max(np.abs(r))) if r.size else 0.0, 1.0)
        if exact is not None:
            floor += 3 * float(np.max(np.abs(r.astype(np.float64) - exact[k]))) if r.size else 0.0
        if not np.allclose(g, r, rtol=tol, atol=floor, equal_nan=True):
            return False
    return True


@needs_numba
@fuzz_settings(400)
@given(case=programs(FAST))
def test_fuzz_numpy_and_numba_paths_agree(case):
    """Forward, first and second derivatives of image programs with the fast path off and on."""
    program, args = case
    assume(program.has("fast"))
    tol = 1e-5 if program.dtype == "float32" else 1e-12
    with counted("numba"):
        ms.set_context(fast_path=False)
        ref = _forward_and_derivatives(program, args)
        ms.set_context(fast_path=True)
        try:
            got = _forward_and_derivatives(program, args)
        finally:
            ms.set_context(fast_path=False)
        if _fast_tolerance_ok(ref, got, tol):
            return
        if program.dtype == "float32" and _fast_tolerance_ok(
                ref, got, tol, exact=_forward_and_derivatives(program, float64(args))):
            STATS["numba"]["within NumPy's own float32 error"] += 1
            return
        # rounding (a different summation order) may tip a near-tie of max/relu/select the
        # other way: not a disagreement of the kernels
        if near_a_kink(program, args, step=1e-4):
            discard("numba", "near a kink")
        worst = max(float(np.max(np.abs(g.astype(np.float64) - r.astype(np.float64)) /
                                 np.maximum(np.abs(r.astype(np.float64)), 1.0)))
                    if r.shape == g.shape and r.size else np.inf for r, g in zip(ref, got))
        raise failure(f"fast path and NumPy path disagree: largest relative difference {worst:.3e} "
                      f"(tolerance {tol:g})", program, args)


# ===== 4. the symbolic interpreter agrees ============================================================
def _at(exprs, subs):
    arr = np.asarray(exprs, dtype=object)
    return np.array([float(sympy.sympify(e).xreplace(subs).evalf(30)) for e in arr.flat]).reshape(arr.shape)


@fuzz_settings(300)
@given(case=programs(SYMBOLIC))
def test_fuzz_symbolic_interpreter_agrees_with_forward_and_grad(case):
    """The formula the SymPy rules build, and ``sympy.diff`` of it, against the numbers."""
    program, args = case
    assume(not program.has("nosym"))
    args = float64(args)
    positions = float_positions(args)
    syms, subs = [], {}
    for i, a in enumerate(args):
        if i in positions:
            s = symbols_like(f"a{i}", a.shape)
            syms.append(s)
            subs.update({x: sympy.Float(float(v), 30) for x, v in zip(s.flat, a._data.flat)})
        else:
            syms.append(a)
    with counted("symbolic"):
        try:
            formula = symbolic_call(program, *syms)
            formulas = formula if isinstance(formula, tuple) else (formula,)
            total = sympy.Add(*[e for f in formulas for e in np.asarray(f, dtype=object).flat])
            out = program(*args)
            outs = out if isinstance(out, tuple) else (out,)
            try:
                values = [_at(f, subs) for f in formulas]
                expected = [_at(np.vectorize(lambda s: sympy.diff(total, s), otypes=[object])(syms[p]), subs)
                            for p in positions]
            except TypeError:           # a Piecewise / Heaviside exactly on its boundary: no number
                discard("symbolic", "exactly on a kink")
            for v, o in zip(values, outs):
                np.testing.assert_allclose(o.asnumpy(), v, rtol=1e-10, atol=1e-10, err_msg="forward")
            grads = ops.grad(program, grad_position=positions)(*args)
            grads = grads if isinstance(grads, tuple) else (grads,)
            try:
                for p, g, e in zip(positions, grads, expected):
                    np.testing.assert_allclose(g.asnumpy(), e, rtol=1e-9, atol=1e-9, err_msg=f"d/d arg {p}")
            except AssertionError:
                if on_a_kink(total, syms, positions, subs):
                    discard("symbolic", "exactly on a kink")
                raise
        except AssertionError as exc:
            raise failure(exc, program, args) from None


def on_a_kink(total, syms, positions, subs):
    """Does a derivative of ``total`` hold a Heaviside, sign or Piecewise whose argument is 0 at the
    point?  (``max(|a|, a)`` with ``a > 0``: SymPy's derivative is Heaviside(|a| - a) ... and its
    value there depends on rounding of the 30-digit evaluation, not on mathematics.)"""
    for p in positions:
        for s in np.asarray(syms[p], dtype=object).flat:
            d = sympy.diff(total, s)
            args = [a.args[0] for a in d.atoms(sympy.Heaviside, sympy.sign)]
            for pw in d.atoms(sympy.Piecewise):
                args += [c.lhs - c.rhs for _, c in pw.args if isinstance(c, sympy.core.relational.Relational)]
            if any(abs(sympy.N(a.xreplace(subs), 30)) < 1e-20 for a in args):
                return True
    return False


# ===== the harness itself ==============================================================================
def _chain(*lines, shape=(3,), low=-2.0, high=2.0):
    """A hand-written program: one float64 input ``v0``, then ``lines`` of (text, fn, special, decision)
    each applied to the previous value."""
    nodes = [Input(0, Meta(shape, max(abs(low), abs(high))), low, high)]
    for k, (text, fn, special, decision) in enumerate(lines):
        nodes.append(Step(text.format(f"v{k}"), fn, [k], decision, special=special))
    return Program(nodes, [len(nodes) - 1], "float64")


def test_a_reproducer_runs_as_printed():
    """``program.reproducer(args)`` is Python that computes the same values (as a failure prints it)."""
    found = []

    @settings(max_examples=25, derandomize=True, database=None, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(case=programs(MODES))
    def run(case):
        program, args = case
        scope = dict(vars(programs_module), np=np, ms=ms, ops=ops, Tensor=Tensor, P=P)
        exec(program.reproducer(args), scope)
        with np.errstate(all="ignore"):
            expected, got = program(*args), scope["program"](*scope["args"])
        for e, g in zip(snapshot(expected), snapshot(got), strict=True):     # dicts and lists too
            np.testing.assert_array_equal(g, e)
        found.append(len(program.steps))
    run()
    assert len(found) == 25 and max(found) >= 3


def test_the_variants_keep_the_values_and_change_only_the_derivatives():
    """A scaling hook and a deliberately different rule: the reference variant has the program's
    values and derivatives; the plain variant has the values and the derivative without the hook;
    the frozen variant's finite differences are the rules' derivative."""
    hook = ops.HookBackward(scaling_hook(3.0))
    program = _chain(("SinWithTripledRule()({})", SinWithTripledRule(), Special("rule", ops.sin, _tripled), None),
                     ("ops.HookBackward(scaling_hook(3.0))({})", hook, Special("hook", lambda a: a, _times3), None))
    x = Tensor(np.array([0.3, -1.2, 2.0]))
    value = np.sin(x.asnumpy())
    for fn in (program, program.variant("plain"), program.variant("reference"), program.frozen_at((x,))):
        np.testing.assert_array_equal(fn(x).asnumpy(), value)
    rule = 3 * np.cos(x.asnumpy())                                   # the rule's derivative of sin
    np.testing.assert_allclose(ops.grad(program)(x).asnumpy(), 3 * rule, rtol=1e-14)
    np.testing.assert_allclose(ops.grad(program.variant("reference"))(x).asnumpy(), 3 * rule, rtol=1e-14)
    np.testing.assert_allclose(ops.grad(program.variant("plain"))(x).asnumpy(), rule, rtol=1e-14)
    check_against_frozen(program, (x,))


def _tripled(a):
    return ops.sin(a) * 3.0


def _times3(a):
    return a * 3.0


def test_the_rules_oracle_fails_when_a_hook_scales_by_something_else():
    """The frozen check can fail: a hook that multiplies by 2 where the program claims 3."""
    program = _chain(("ops.tanh({})", ops.tanh, None, None),
                     ("ops.HookBackward(scaling_hook(2.0))({})", ops.HookBackward(scaling_hook(2.0)),
                      Special("hook", lambda a: a, _times3), None))
    with pytest.raises(AssertionError, match="central difference of the frozen program"):
        check_against_frozen(program, (Tensor(np.array([0.3, -1.2, 2.0])),))


def test_near_a_kink_sees_relu_and_the_kinks_of_the_frozen_program():
    relu = _chain(("ops.relu({})", ops.relu, None, lambda x: x > 0))
    assert near_a_kink(relu, (Tensor(np.array([0.5, 1e-4, -1.0])),))
    assert not near_a_kink(relu, (Tensor(np.array([0.5, 0.2, -1.0])),))
    # abs of a surrogate's step output: exactly 0 (no kink crossed) in the program, but
    # 0 + sigmoid(a) - sigmoid(a0) in the frozen program, whose differences straddle abs's kink
    spike = _chain(("SpikeWithSurrogate()({})", SpikeWithSurrogate(),
                    Special("rule", lambda a: ops.cast(ops.gt(a, 0.0), a.dtype), ops.sigmoid), lambda x: x > 0),
                   ("ops.abs({})", ops.abs, None, lambda x: x > 0))
    x = (Tensor(np.array([0.5, -0.9, -1.8])),)
    assert spike.decisions(x)[1].tolist() == [True, False, False]
    assert near_a_kink(spike, x)


# ===== regressions: bugs the search found ==============================================================
class _Square(nn.Cell):
    def construct(self, x):
        return x * x

    def bprop(self, x, out, dout):
        return (dout * x * 2.0,)


class _SquaresAWeight(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, 2.0, 3.0], np.float32)), name="w")
        self.square = _Square()

    def construct(self, y):
        return self.square(self.w) * y


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
def test_a_parameter_passed_into_a_cell_with_bprop_is_an_input_its_bprop_may_use(mode):
    """Found by the mode oracle (a weight fed to ``SquareWithBprop``): the bprop's use of its input
    ``x`` raised BpropParameterError ("uses Parameter 'w' ... pass the value in as an input") although
    the Parameter *was* passed in as an input.  MindSpore 2.10 accepts it and prints [2, 4, 12] in both
    modes (d/dw sum(w^2 y) = 2 w y).  Fixed in minims/autodiff/custom_bprop.py."""
    net = _SquaresAWeight()
    y = Tensor(np.array([1.0, 1.0, 2.0], np.float32))
    ms.set_context(mode=mode)
    (dw,) = ops.grad(net, grad_position=None, weights=net.trainable_params())(y)
    assert dw.asnumpy().tolist() == [2.0, 4.0, 12.0]


def test_a_gradient_inside_a_symbolic_call():
    """Found writing the symbolic oracle: ``ops.grad`` inside ``symbolic_call`` (a program with a
    nested grad line) fails before any rule runs.  d/dx tanh(x) = 1 - tanh(x)**2."""
    x = symbols_like("x", (2,))
    got = symbolic_call(lambda t: ops.grad(lambda s: ops.sum(ops.tanh(s)))(t), x)
    for g, s in zip(got, x):
        assert sympy.simplify(g - (1 - sympy.tanh(s) ** 2)) == 0


def test_a_gradient_inside_the_program_of_a_value_it_also_closes_over():
    """Found by the central-difference oracle (a false alarm, kept as a test): the program
    ``v1 = grad(t -> sum(exp(t * v0)))(v0)`` differentiates with respect to a value it also closes
    over.  The inner level must hold the closed-over ``v0`` fixed and the outer level see both:
    d/dx sum(x exp(x^2)) = exp(x^2) (1 + 2 x^2).  (Into a cosine, the derivatives reach ~200 and the
    central difference needs a step below 1e-4: ``with_smaller_steps``.)"""
    x = np.array([0.5478467492858172, -0.9208531449445188, -1.8361059042552212, 1.25])

    def inner(v0):
        return ops.grad(lambda t: ops.sum(ops.exp(ops.mul(t, v0))))(v0)
    np.testing.assert_allclose(inner(Tensor(x)).asnumpy(), x * np.exp(x ** 2), rtol=1e-14)
    got = ops.grad(lambda v: ops.sum(inner(v)))(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, np.exp(x ** 2) * (1 + 2 * x ** 2), rtol=1e-13)
    program = lambda v0: ops.cos(ops.abs(inner(v0)))                         # noqa: E731
    args = (Tensor(np.array([[[[0.5478467492858172, -0.9208531449445188, -1.8361059042552212],
                               [-1.9338894578858836, 1.2530809568010897, 1.6510223091108869],
                               [0.42654310306871945, 0.9179862439359936, 0.17449996586169148]]]])),)
    with pytest.raises(AssertionError, match="relative error"):
        check_grads(program, args, order=2)                                  # eps = 1e-4: truncation
    with_smaller_steps(None, lambda eps: check_grads(program, args, order=2, eps=eps))


def test_maximum_and_minimum_split_a_tie_evenly_as_mindspore_does():
    """Found minimising a symbolic-oracle failure on ``maximum(abs(v), v)``: minims gave the whole
    gradient of a tie to the first input, MindSpore 2.10 splits it: ``grad(maximum, (0, 1))`` at
    x = y = [0.5, -0.9] and (2, 1) prints ([0.5, 0.5, 1], [0.5, 0.5, 0]) (minimum: ([0.5, 0.5, 0],
    [0.5, 0.5, 1])), and ``grad(a -> maximum(abs(a), a))`` at [0.5, -0.9, 2] prints [1, -1, 1].
    Fixed in minims/primitives/math.py."""
    x = Tensor(np.array([0.5, -0.9, 2.0], np.float32))
    y = Tensor(np.array([0.5, -0.9, 1.0], np.float32))
    dx, dy = ops.grad(ops.maximum, grad_position=(0, 1))(x, y)
    assert dx.asnumpy().tolist() == [0.5, 0.5, 1.0] and dy.asnumpy().tolist() == [0.5, 0.5, 0.0]
    dx, dy = ops.grad(ops.minimum, grad_position=(0, 1))(x, y)
    assert dx.asnumpy().tolist() == [0.5, 0.5, 0.0] and dy.asnumpy().tolist() == [0.5, 0.5, 1.0]
    assert ops.grad(lambda a: ops.maximum(ops.abs(a), a))(x).asnumpy().tolist() == [1.0, -1.0, 1.0]
    assert ops.grad(lambda a: ops.maximum(a, a))(x).asnumpy().tolist() == [1.0, 1.0, 1.0]
    check_modes(ops.maximum, (x, y), order=1)


def test_on_a_kink_recognises_a_tie_that_sympy_cannot_evaluate():
    """The symbolic oracle's false alarm: ``maximum(abs(v), v)`` for ``v > 0`` is a stable tie; the
    derivative (1 - sin|x|) sign(x) is right in minims, but SymPy's Heaviside(|v| - v) evaluates to
    0 or 1/2 depending on rounding.  Such points are discarded, not failed."""
    def program(v0):
        v3 = ops.add(ops.cos(ops.abs(v0)), ops.abs(v0))
        return ops.maximum(ops.abs(v3), v3)
    x = np.array([0.5478467492858172, -0.9208531449445188])
    got = ops.grad(program)(Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, (1 - np.sin(np.abs(x))) * np.sign(x), rtol=1e-14)
    syms = [symbols_like("a0", (2,))]
    subs = {s: sympy.Float(float(v), 30) for s, v in zip(syms[0].flat, x)}
    total = sympy.Add(*symbolic_call(program, syms[0]).flat)
    assert on_a_kink(total, syms, (0,), subs)
    assert not on_a_kink(sympy.Add(*symbolic_call(lambda v: ops.tanh(ops.abs(v)), syms[0]).flat), syms, (0,), subs)


@needs_numba
def test_float32_rounding_through_a_training_batch_norm_is_judged_against_float64():
    """Found by the fast-path oracle (a false alarm, kept as a test): average pooling, an inference
    batch norm and a training batch norm over three values per channel, differentiated twice.  In
    float32 the second derivative differs between the paths by ~2e-5, beyond rtol 1e-5, but each
    float32 path is as far from the float64 result (~1e-5): the program amplifies rounding.  In
    float64 the paths agree to 1e-12."""
    mean, var = Tensor(np.array([-0.5, -0.5])), Tensor(np.array([0.5, 0.5]))

    def program(v0, v1, v2, v3, v4):
        x = P.AvgPool._configured((2, 1), (1, 2), (0, 1, 0, 0), (1, 1), False, False, 0)(v0)
        x = ops.abs(P.AvgPool._configured((1, 1), (1, 2), (0, 0, 0, 0), (1, 1), False, False, 0)(x))
        x = ops.abs(P.BatchNorm(False, 1e-05)(x, v1, v2, ops.cast(mean, x.dtype), ops.cast(var, x.dtype))[0])
        # bound directly, as the generator now writes it: a training call would update mean and var
        return bind(P.BatchNorm(True, 1e-05), x, v3, v4, ops.cast(mean, x.dtype), ops.cast(var, x.dtype))[0]
    rng = np.random.default_rng(0)
    args32 = tuple(Tensor(a.astype(np.float32)) for a in (
        rng.uniform(-2, 2, (1, 2, 3, 3)), rng.uniform(0.5, 1.5, 2), rng.uniform(-1, 1, 2),
        rng.uniform(0.5, 1.5, 2), rng.uniform(-1, 1, 2)))
    results = {}
    for on in (False, True):
        ms.set_context(fast_path=on)
        results[on, 32] = _forward_and_derivatives(program, args32)
        results[on, 64] = _forward_and_derivatives(program, float64(args32))
    ms.set_context(fast_path=False)
    assert _fast_tolerance_ok(results[False, 64], results[True, 64], 1e-12)
    assert _fast_tolerance_ok(results[False, 32], results[True, 32], 1e-5, exact=results[False, 64])
    for path in (False, True):                  # both float32 paths near the float64 result
        for r32, r64 in zip(results[path, 32], results[False, 64]):
            np.testing.assert_allclose(r32, r64, rtol=1e-3, atol=1e-3 * max(np.max(np.abs(r64)), 1.0))


class _GradAtTheWeight(nn.Cell):
    """``construct() = grad(fn)(self.w)``: an inner gradient taken at the Cell's own weight."""

    def __init__(self, fn, w):
        super().__init__()
        self.fn, self.w = fn, w

    def construct(self):
        return ops.grad(self.fn)(self.w)


@pytest.mark.parametrize("compiled", [False, True], ids=["pynative", "grad_of_jit"])
def test_differentiating_a_weight_through_a_grad_taken_at_that_weight(compiled):
    """Found by the mode oracle (a weight fed to a nested-grad line; shrunk from a 5-line program):
    ``grad(net, weights=[w])`` where ``net`` returns ``grad(fn)(self.w)`` lost every dependence on
    ``w`` that the inner level's primal outputs carry: for fn = sum(exp(t)) it gave 0 instead of
    exp(w), for sum(t^3) 2 instead of 6w (PyNative and grad(jit(net)) alike), while sum(sin(t)),
    whose rule reads only its input, was right.  The inner level differentiated the raw Parameter,
    not the outer level's stand-in.  Fixed in minims/autodiff/grad_api.py (vjp_call)."""
    w = Parameter(Tensor(np.array([0.5, -0.3])), name="w")
    for fn, expected in ((lambda t: ops.sum(ops.exp(t)), np.exp([0.5, -0.3])),
                         (lambda t: ops.sum(t * t * t), 6 * np.array([0.5, -0.3])),
                         (lambda t: ops.sum(ops.sin(t)), -np.sin([0.5, -0.3]))):
        net = _GradAtTheWeight(fn, w)
        (dw,) = ops.grad(ms.jit(net) if compiled else net, grad_position=None, weights=[w])()
        np.testing.assert_allclose(dw.asnumpy(), expected, rtol=1e-14)
    check_modes(_GradAtTheWeight(lambda t: ops.sum(ops.exp(t * 1.5)), w), (), weights=[w])


def test_a_max_pooling_window_entirely_in_the_padding_gives_the_lowest_float():
    """Found by the central-difference oracle (a NaN difference): kernel (2, 1) with dilation (2, 1)
    and padding 1 on a 1x1 input reads padded rows 0 and 2 only.  MindSpore 2.10 prints
    [[[[-3.4028235e+38]]]] for ops.max_pool2d(x, (2, 1), 1, (1, 0), (2, 1)); on a 3x3 input the
    same configuration gives [[3, 4, 5], [6, 7, 8], [3, 4, 5]] in both."""
    x = Tensor(np.array([[[[0.7148]]]], np.float32))
    out = ops.max_pool2d(x, kernel_size=(2, 1), stride=1, padding=(1, 0), dilation=(2, 1))
    assert out.asnumpy().tolist() == [[[[float(np.finfo(np.float32).min)]]]]
