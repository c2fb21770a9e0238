"""Issue 22, items 13-18: fused kernels and simplification give what the unfused NumPy path gives.

One test per item, each failing before its fix.  Expected values come from IEEE 754 (signed zeros,
subnormals), from the unfused NumPy path where the README promises fused == unfused (the NumPy
``impl`` of every primitive is the reference, itself checked against MindSpore 2.10 elsewhere), from
mpmath at 50 digits, and from counting (graph sizes, cache entries, warnings).  No test times
anything: the compile times of item 17 are in ``benchmarks/fusion_compile.py`` and the report.
"""
from __future__ import annotations

import numpy as np
import pytest

import minims as ms
from minims import Tensor, fast, ops

needs_numba = pytest.mark.skipif(not fast.numba_available(), reason="Numba is not installed")


@pytest.fixture(autouse=True)
def restore():
    before = fast.enabled
    yield
    ms.set_context(fast_path=before, mode=ms.PYNATIVE_MODE, check_nan=False)


def bits(a) -> np.ndarray:
    """The bit patterns of a float array (so that -0.0 and +0.0 differ, and NaN equals NaN)."""
    a = np.asarray(a)
    return a.view(f"u{a.dtype.itemsize}")


# ===== item 14: the simplifier's identities are exact in IEEE arithmetic ============================
def test_simplifier_keeps_x_plus_zero_because_minus_zero_plus_zero_is_plus_zero():
    """Item 14.  IEEE 754 (round to nearest): -0.0 + 0.0 = +0.0 and -0.0 - (-0.0) = +0.0, so
    ``x + 0.0`` and ``x - (-0.0)`` are not identities; ``x + (-0.0)`` and ``x - 0.0`` are (every x,
    both zeros).  The compiled result must be PyNative's, bit for bit, whatever the fast path."""
    x = Tensor(np.array([-0.0, 0.0, -1.5, np.inf, np.nan], np.float32))
    cases = {"x + 0.0": (lambda v: v + 0.0, False), "0.0 + x": (lambda v: 0.0 + v, False),
             "x - (-0.0)": (lambda v: v - (-0.0), False), "x + (-0.0)": (lambda v: v + (-0.0), True),
             "x - 0.0": (lambda v: v - 0.0, True)}
    for label, (fn, identity) in cases.items():
        f = ms.jit(lambda v, fn=fn: ops.neg(fn(v)))
        assert (f.graph(x).num_equations == 1) == identity, (label, f.graph(x).text())
        for on in (False, True):
            ms.set_context(fast_path=on)
            np.testing.assert_array_equal(bits(f(x).asnumpy()), bits(-fn(x).asnumpy()), err_msg=label)
    assert np.signbit(ms.jit(lambda v: v + 0.0)(x).asnumpy()[0]) == np.False_      # IEEE: +0.0


# ===== item 13: fused kernels give the NumPy path's IEEE special values ===============================
def special_grid(dtype) -> np.ndarray:
    """Signed zeros, subnormals, the edges of the range, infinities, NaN, and the values where
    ReLU6, sigmoid and exp change behaviour."""
    fi = np.finfo(dtype)
    return np.array([0.0, -0.0, fi.smallest_subnormal, -fi.smallest_subnormal, fi.smallest_normal / 3,
                     -fi.smallest_normal / 3, fi.smallest_normal, 1.0, -1.0, 0.5, 6.0, 7.0, 100.0, -100.0,
                     -720.0, fi.max, -fi.max, np.inf, -np.inf, np.nan], dtype)


#: Fusible primitives by arity; the rest of ``fuse.ELEMENTWISE`` takes a static operand (Cast,
#: BroadcastTo), a Bool condition (Select) or copies (Identity, StopGradient), checked below apart.
UNARY = ("Neg", "Exp", "Log", "Sqrt", "Square", "Abs", "Sign", "Sin", "Cos", "Tanh", "Sigmoid", "Reciprocal",
         "Floor", "ReLU", "ReLU6")
BINARY = ("Add", "Sub", "Mul", "Div", "Pow", "Maximum", "Minimum", "ReluGrad", "ReLU6Grad", "TanhGrad",
          "SigmoidGrad")
#: Whose fused form is computed by the C library (or a float64 helper calling it) rather than by
#: exactly rounded operations: the same IEEE class as NumPy's kernel, not always the same last bit.
LIBM = ("Exp", "Log", "Sin", "Cos", "Tanh", "Sigmoid", "Pow", "TanhGrad", "SigmoidGrad")


def ieee_class(a) -> np.ndarray:
    """NaN, ±inf, ±0, ±subnormal, ±normal: one code per entry."""
    a = np.asarray(a)
    kind = np.select([np.isnan(a), np.isinf(a), a == 0, np.abs(a) < np.finfo(a.dtype).smallest_normal],
                     [0, 1, 2, 3], 4)
    return np.where(np.isnan(a), 0, kind * 2 + np.signbit(a))


def one_step_kernel(prim, arity, dtype, n):
    """The fused kernel of one step of ``prim`` over ``n`` points (the scalar form as fusion compiles
    it inside any chain)."""
    from minims.fast import fusion
    template = fusion.scalar_template(prim, (None,) * arity, dtype)
    spec = fusion.KernelSpec((n,), tuple(fusion.InputSpec("array", (n,), dtype) for _ in range(arity)),
                             (fusion.StepSpec(template, tuple(("in", k) for k in range(arity)), dtype),),
                             (fusion.OutputSpec("store", 0, (), (n,), dtype),))
    return fusion.compile_kernel(spec)


@needs_numba
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_kernels_give_numpy_s_signed_zeros_subnormals_infinities_and_nan(dtype):
    """Item 13.  Expected: the NumPy ``impl`` of each primitive (the unfused path), which follows
    IEEE 754 and NumPy's documented ties (``np.maximum`` returns its second operand on a tie,
    as MindSpore 2.10's ``ops.maximum`` does: oracle ``1/maximum(-0., 0.)`` = inf, ``1/maximum(0., -0.)``
    = -inf).  Bit for bit for the exactly rounded primitives; the same IEEE class (NaN, ±inf, ±0,
    ±subnormal, ±normal) for those computed by the C library."""
    from minims.graph.fuse import ELEMENTWISE
    from minims.primitives import table
    from minims.fast import fusion
    assert set(UNARY) | set(BINARY) | {"Select", "Cast", "BroadcastTo", "Identity", "StopGradient"} == ELEMENTWISE
    grid = special_grid(dtype)
    for name in UNARY + BINARY:
        prim = table().row(name).cls()
        arity = 1 if name in UNARY else 2
        try:
            run = one_step_kernel(prim, arity, dtype, grid.size ** arity)
        except fusion.Unfusable:                # TanhGrad/SigmoidGrad: not fused in float64
            continue
        args = [a.ravel() for a in np.meshgrid(*([grid] * arity), indexing="ij")]
        with np.errstate(all="ignore"):
            got, want = run(*args)[0], np.asarray(prim.impl(*args))
        assert got.dtype == want.dtype, name
        if name in LIBM:
            bad = ieee_class(got) != ieee_class(want)
        else:
            bad = (bits(got) != bits(want)) & ~(np.isnan(got) & np.isnan(want))
        assert not bad.any(), (name, [a[bad][:4] for a in args], got[bad][:4], want[bad][:4])


@needs_numba
def test_fused_maximum_minimum_sign_and_sigmoid_as_in_the_issue():
    """Item 13, the issue's cases through ``jit`` with the fast path on and off.  Expected: IEEE 754
    and NumPy's ties (1/maximum(-0., +0.) = +inf: the tie gives the second operand, +0.0); sign(-0.0)
    = +0.0 (``np.sign``); sigmoid(-100) = 3.72e-44 (mpmath), which float32 holds as the subnormal
    27 * 2**-149 = 3.78e-44, doubled exactly: 54 * 2**-149 = 7.57e-44, not 0."""
    neg, pos = Tensor(np.array([-0.0], np.float32)), Tensor(np.array([0.0], np.float32))
    cases = [(lambda a, b: 1.0 / ops.maximum(a, b), (neg, pos), np.inf),
             (lambda a, b: 1.0 / ops.maximum(a, b), (pos, neg), -np.inf),
             (lambda a, b: 1.0 / ops.minimum(a, b), (neg, pos), np.inf),
             (lambda a, b: 1.0 / ops.sign(a * b), (neg, pos), np.inf),
             (lambda a, b: 1.0 / ops.relu(a + b * 0.0), (neg, neg), np.inf),
             (lambda a, b: 1.0 / ops.relu6(a * 1.0 + b), (neg, neg), -np.inf),
             (lambda a, b: ops.sigmoid(a - 100.0) * 2.0, (neg, pos), np.float32(54 * 2.0 ** -149))]
    for fn, args, want in cases:
        f = ms.jit(fn)
        assert any("Fused" in eq.prim.name for eq in f.graph(*args, fused=True).equations)
        for on in (False, True):
            ms.set_context(fast_path=on)
            got = f(*args).asnumpy()
            np.testing.assert_array_equal(bits(got), bits(np.array([want], np.float32)), err_msg=f"fast_path={on}")


# ===== item 17: one fused kernel stays within a budget ================================================
def chain(n):
    def f(x):
        for i in range(n):
            k = i % 4
            x = ops.sin(x) if k == 0 else x * 1.01 if k == 1 else ops.tanh(x) if k == 2 else x + 0.1
        return ops.sum(x)
    return f


def test_no_fused_kernel_exceeds_the_budget_of_equations_and_arguments():
    """Item 17.  ``grad(jit(f))`` of a chain of 500 elementwise ops: its forward graph (returning
    ~250 residuals) and its backward graph (reading them) each became one kernel, the backward one
    of 254 arguments, which Numba took ~30 s of CPU to compile (``benchmarks/fusion_compile.py``).
    The bound is structural (no time is measured): every kernel holds at most ``MAX_STEPS``
    equations and takes at most ``MAX_PARAMETERS`` arguments, counted from its generated source."""
    from minims.fast.fusion import source_of
    from minims.graph import fuse
    x = Tensor(np.linspace(-1, 1, 8).astype(np.float32))
    split = ms.jit(chain(500)).residual_graphs(x)
    kernels = [eq.prim for g in (split.forward, split.backward) for eq in fuse.fuse_elementwise(g).equations
               if isinstance(eq.prim, fuse.Fused)]
    assert sum(len(k.equations) for k in kernels) >= 900             # nearly everything still fuses
    for k in kernels:
        assert len(k.equations) <= fuse.MAX_STEPS, k.name
        assert source_of(k.spec)[1]["arguments"] <= fuse.MAX_PARAMETERS, k.name


@needs_numba
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_cluster_cut_into_several_kernels_computes_what_numpy_computes(dtype, monkeypatch):
    """Item 17: cutting a cluster is only a budget, never another answer.  With a tiny budget a
    program with broadcasting, a reduction, a value used by the next kernel and one returned runs
    as several kernels; expected: the NumPy path (fast path off), bit for bit, since every
    primitive here is exactly rounded and the reduction is a sum of one exactly representable
    value per row."""
    from minims.graph import fuse
    monkeypatch.setattr(fuse, "MAX_STEPS", 3)
    monkeypatch.setattr(fuse, "MAX_PARAMETERS", 4)

    def f(x, b):
        y = ops.maximum(x * 2.0 + b, -0.5)
        z = ops.relu(y - x) / (b + 4.0) * 1.5
        return ops.sum(ops.minimum(z, y) * 0.0 + 1.0, 1), ops.abs(z - y * y)
    x = Tensor(np.linspace(-2, 2, 12).reshape(3, 4).astype(dtype))
    b = Tensor(np.array([0.5, -1.0, 2.0, -0.0], dtype))
    jf = ms.jit(f)
    kernels = [eq for eq in jf.graph(x, b, fused=True).equations if isinstance(eq.prim, fuse.Fused)]
    assert len(kernels) >= 3 and all(len(eq.prim.equations) <= 3 for eq in kernels)
    results = []
    for on in (False, True):
        ms.set_context(fast_path=on)
        results.append([o.asnumpy() for o in jf(x, b)])
    for want, got in zip(*results):
        np.testing.assert_array_equal(bits(got), bits(want))


# ===== item 18: jit with a Python number keeps a bounded cache and says why it recompiles ==============
def test_jit_with_a_changing_python_number_keeps_a_bounded_cache_and_warns_once_naming_it():
    """Item 18.  A Python number is a constant of the graph, so each value compiles a graph (MindSpore
    2.10 too: oracle, ``@jit def f(x, s)`` called with s = 0.5, 0.5, 0.6, 0.7 took 110, 0.5, 78, 77 ms,
    and with ``mindspore.mutable(0.8)``, ``mutable(0.9)`` 81, 1.0 ms).  Expected by counting: at most
    ``MAX_GRAPHS`` graphs kept, the least recently used dropped first; one ``RetraceWarning`` after
    ``RETRACE_WARNING_AFTER`` calls in a row, naming the argument and the fix; none for a value that
    repeats, for changing Tensor shapes, or for the number passed as a Tensor."""
    import warnings
    from minims.graph.jit import MAX_GRAPHS, RETRACE_WARNING_AFTER, RetraceWarning

    def f(x, scale):
        return ops.sin(x) * scale + 1.0
    x = Tensor(np.ones(4, np.float32))
    jf = ms.jit(f)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(MAX_GRAPHS + 40):
            jf(x, 0.01 * i)
            if i == RETRACE_WARNING_AFTER - 2:
                assert not [w for w in caught if issubclass(w.category, RetraceWarning)]
    retraces = [w for w in caught if issubclass(w.category, RetraceWarning)]
    assert len(retraces) == 1, [str(w.message) for w in caught]
    message = str(retraces[0].message)
    assert "'scale' (argument 1)" in message and "Tensor(" in message and "mindspore.mutable" in message
    assert len(jf._cache) == MAX_GRAPHS and jf.traces == MAX_GRAPHS + 40
    jf(x, 0.01 * (MAX_GRAPHS + 39))                     # the latest: still compiled
    assert jf.traces == MAX_GRAPHS + 40
    jf(x, 0.0)                                          # the first: dropped, compiled again
    assert jf.traces == MAX_GRAPHS + 41

    quiet = [ms.jit(f), ms.jit(f), ms.jit(f)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RetraceWarning)
        for i in range(3 * RETRACE_WARNING_AFTER):
            quiet[0](x, 0.5 if i % 2 else 0.25)                                   # two values, reused
            quiet[1](Tensor(np.ones(i + 1, np.float32)), 0.5)                      # new shapes
            quiet[2](x, Tensor(np.float32(0.01 * i)))                             # a Tensor: one graph
    assert (quiet[0].traces, quiet[1].traces, quiet[2].traces) == (2, 3 * RETRACE_WARNING_AFTER, 1)


# ===== item 16: log_softmax keeps the digits of a result near 0 ======================================
def ulps(got, truth, dtype) -> np.ndarray:
    """|got - truth| in ULP of the (mpmath) truth, in the format ``dtype``."""
    from minims.testing.accuracy.ulp import FORMATS, ulp_errors
    truth = np.asarray([float(t) for t in truth])
    return ulp_errors(np.asarray(got, np.float64), truth, np.zeros_like(truth), FORMATS[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_softmax_of_40_and_0_is_minus_4_2e_minus_18_and_so_is_its_gradient(dtype):
    """Item 16.  Truth from mpmath at 50 digits: log_softmax([40, 0]) = [-log1p(e^-40), -40 -
    log1p(e^-40)] = [-4.2483542552915889e-18, -40 - 4.2e-18]; d out[0] / dx = [1 - p0, -p1] =
    [σ(-40), -σ(-40)] = ±4.2483542552915889e-18; the jvp along [1, 0] is the same 1 - p0.  Every
    value within the accuracy table's bound (4 ULP of the truth); they were 0 (all digits lost)."""
    import mpmath
    mpmath.mp.dps = 50
    x = Tensor(np.array([40.0, 0.0], dtype))
    tail = mpmath.log1p(mpmath.exp(-40))
    sig = 1 / (1 + mpmath.exp(40))
    out = ops.log_softmax(x)
    assert np.all(ulps(out.asnumpy(), [-tail, -40 - tail], dtype) <= 4), out
    grad = ms.grad(lambda v: ops.log_softmax(v)[0])(x)
    assert np.all(ulps(grad.asnumpy(), [sig, -sig], dtype) <= 4), grad
    tangent = ops.jvp(lambda v: ops.log_softmax(v)[0], x, Tensor(np.array([1.0, 0.0], dtype)))[1]
    assert np.all(ulps(tangent.asnumpy().reshape(1), [sig], dtype) <= 4), tangent
    # the second derivative d²out[0]/dx0² = -p0 p1 = -σ(40) σ(-40) (no cancellation left either)
    second = ms.grad(lambda v: ms.grad(lambda w: ops.log_softmax(w)[0])(v)[0])(x)
    assert np.all(ulps(second.asnumpy(), [-sig * (1 - sig), sig * (1 - sig)], dtype) <= 4), second


# ===== item 15: the accuracy table measures the fused kernels ========================================
def test_the_accuracy_table_measures_what_graph_mode_with_numba_runs(monkeypatch):
    """Item 15.  Every measured primitive that fusion compiles has rows of the path "fused" in the
    committed ``accuracy.json`` and in the README, for every rule kind it has, within the same
    bounds; and that path runs the rule through fused kernels (counted: ``Fused.impl`` is called).
    Expected values: the harness's own bounds (4 ULP against mpmath; the conditioned ones)."""
    import json
    from pathlib import Path
    from minims.graph.fuse import ELEMENTWISE, Fused
    from minims.testing.accuracy import MEASURED
    from minims.testing.accuracy.rules import NOT_FUSED, run_fused
    root = Path(__file__).resolve().parents[2]
    rows = json.loads((root / "accuracy.json").read_text(encoding="utf-8"))["rows"]
    fusible = sorted(set(MEASURED) & ELEMENTWISE)
    assert len(fusible) >= 20
    for name in fusible:
        kinds = {r["rule"] for r in rows if r["primitive"] == name and r["path"] == "numpy"}
        fused = [r for r in rows if r["primitive"] == name and r["path"] == "fused"]
        assert {r["rule"] for r in fused} == kinds, name
        assert any(r["missing"] != NOT_FUSED for r in fused), name
        assert all(r["missing"] or r["max_scaled"] <= r["bound"] for r in fused), name
    assert "| Tanh (fused) |" in (root / "docs" / "accuracy.md").read_text(encoding="utf-8")
    if not fast.numba_available():
        return
    calls = []
    original = Fused.impl
    monkeypatch.setattr(Fused, "impl", lambda self, *a: calls.append(self.name) or original(self, *a))
    x = Tensor(np.array([-100.0, 0.5], np.float32))
    got = run_fused("impl", MEASURED["Sigmoid"].make(), [x], (0,), ())
    assert calls == ["Fused[sigmoid]"]
    import mpmath
    want = [27 * 2.0 ** -149, float(1 / (1 + mpmath.exp(-0.5)))]      # sigmoid(-100): see item 13
    np.testing.assert_array_equal(bits(got), bits(np.array(want, np.float32)))
