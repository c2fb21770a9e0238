"""Fusion of elementwise chains into Numba kernels (``minims.graph.fuse``, ``minims.fast.fusion``).

Where the expected values come from: the same compiled function run with the fast path off — the
NumPy path, whose per-primitive ``impl`` is the reference (itself tested against MindSpore and
finite differences elsewhere) — and, for the scalar forms, the primitives' SymPy rules.  Fused
results must agree with it to float32 rounding (float32: rtol 2e-6 per op chain, float64: 1e-12),
NaN and inf in the same places; on inputs holding signed zeros, subnormals, infinities and NaN
the same IEEE class everywhere (no flush to zero, the same zero), and bit for bit where every fused
primitive is exactly rounded.  Random programs come from the fuzzer's generator
(``tests/programs.py``).  Speed is not tested here (see ``benchmarks/``).

Without Numba the tests that run kernels skip; the pass itself (which equations fuse, the text
form, the generated source) needs only SymPy and is tested either way.
"""
from __future__ import annotations

import os
import subprocess
import sys
import warnings
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import minims as ms
from minims import Tensor, fast, ops
from minims.graph import fuse as fuse_module
from minims.graph.fuse import Fused, fuse_elementwise
from minims.fast import fusion
from minims.interpreters.nan_check import NonFiniteError
from programs import BASIC, programs

needs_numba = pytest.mark.skipif(not fast.numba_available(), reason="Numba is not installed")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def restore():
    before = fast.enabled
    yield
    ms.set_context(fast_path=before, mode=ms.PYNATIVE_MODE, check_nan=False)


def fused_equations(graph):
    return [eq for eq in graph.equations if isinstance(eq.prim, Fused)]


def run_both(fn, *args):
    """``fn(*args)`` as lists of arrays, on the NumPy path (reference) and on the fast path."""
    def run():
        out = fn(*args)
        flat = out if isinstance(out, (tuple, list)) else (out,)
        leaves = []
        for o in flat:
            leaves.extend(o if isinstance(o, (tuple, list)) else (o,))
        return [np.asarray(o.asnumpy() if isinstance(o, Tensor) else o) for o in leaves]
    ms.set_context(fast_path=False)
    ref = run()
    ms.set_context(fast_path=True)
    got = run()
    ms.set_context(fast_path=False)
    return ref, got


def assert_agree(ref, got, dtype="float32"):
    tol = 2e-6 if dtype == "float32" else 1e-12
    assert len(ref) == len(got)
    for r, g in zip(ref, got):
        assert r.shape == g.shape and r.dtype == g.dtype, (r.dtype, r.shape, g.dtype, g.shape)
        np.testing.assert_array_equal(np.isnan(g), np.isnan(r))
        np.testing.assert_array_equal(np.isposinf(g), np.isposinf(r))
        np.testing.assert_array_equal(np.isneginf(g), np.isneginf(r))
        floor = tol * max(float(np.max(np.abs(r[np.isfinite(r)]), initial=0.0)), 1.0)
        np.testing.assert_allclose(g, r, rtol=tol, atol=floor, equal_nan=True)


#: Fusible primitives whose fused form rounds exactly as NumPy's kernel does (IEEE operations, the
#: helpers of ``minims.fast.scalar_forms``): a kernel of only these gives NumPy's bits.
EXACT = frozenset({"Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "Neg", "Sqrt", "Square", "Abs", "Sign",
                   "Reciprocal", "Floor", "ReLU", "ReluGrad", "ReLU6", "ReLU6Grad", "Select", "Cast",
                   "BroadcastTo", "Identity", "StopGradient"})


def assert_same_ieee_classes(ref, got, dtype):
    """:func:`assert_agree`, and the IEEE class of every entry the same: NaN, the same infinity,
    the same zero (its sign included), nonzero where the reference is nonzero (no flush to 0)."""
    assert_agree(ref, got, dtype)
    for r, g in zip(ref, got):
        zero = r == 0
        np.testing.assert_array_equal(g == 0, zero, err_msg="a zero in one path only")
        np.testing.assert_array_equal(np.signbit(g[zero]), np.signbit(r[zero]), err_msg="zeros of another sign")


def assert_bitwise(ref, got):
    for r, g in zip(ref, got):
        assert r.dtype == g.dtype and r.shape == g.shape
        same = (r.view(f"u{r.itemsize}") == g.view(f"u{g.itemsize}")) | (np.isnan(r) & np.isnan(g))
        assert same.all(), (r[~same], g[~same])


def w1_chain(x, c1, c2):
    for _ in range(5):
        x = ops.tanh(ops.sin(x * c1) + c2)
    return x


RNG = np.random.default_rng(0)


def tensor(shape, dtype="float32", low=-2.0, high=2.0):
    return Tensor(RNG.uniform(low, high, shape).astype(dtype))


# ===== the pass: what fuses, and how it reads ==========================================================
def test_a_chain_becomes_one_fused_equation_that_reads_as_a_composition():
    f = ms.jit(lambda x, y: ops.tanh(ops.sin(x) * y + 1.0))
    x, y = tensor((2, 3)), tensor((3,))
    g = f.graph(x, y, fused=True)
    (eq,) = g.equations
    assert eq.prim.name == "Fused[tanh∘add∘mul∘sin]"
    assert "= Fused[tanh∘add∘mul∘sin](%0, %1, 1.0) : (Float32[2, 3])" in g.text()
    assert [e.prim.name for e in eq.prim.equations] == ["Sin", "Mul", "Add", "Tanh"]
    assert f.graph(x, y).num_equations == 4            # the graph jit shows and differentiates: unfused


def test_the_scalar_forms_come_from_the_sympy_rules_with_float_behaviour():
    from minims.primitives import activation as A, math as M
    assert fusion.scalar_template(M.Sin(), (None,)) == "math.sin(opnd0)"
    assert fusion.scalar_template(M.Tanh(), (None,)) == "math.tanh(opnd0)"
    # SymPy's Max sorts its arguments and Python's max(0, nan) is 0: the form says np.maximum(x, 0)
    # (NaN wins, a tie gives the second operand), and sigmoid is impl's overflow-free kernel
    assert fusion.scalar_template(A.ReLU(), (None,)) == "np_maximum(opnd0, 0)"
    assert fusion.scalar_template(M.Sigmoid(), (None,)) == "logistic(opnd0)"
    with pytest.raises(fusion.Unfusable):
        fusion.scalar_template(A.Softmax(), (None,))


def test_an_intermediate_used_elsewhere_is_still_produced_by_the_kernel():
    def f(x, w):
        y = ops.sin(x) * 2.0                  # used by the chain and by the matmul
        z = ops.exp(y) + 1.0
        return z, ops.matmul(y, w)
    x, w = tensor((2, 3)), tensor((3, 2))
    g = ms.jit(f).graph(x, w, fused=True)
    eqs = fused_equations(g)
    assert len(eqs) == 1 and len(eqs[0].outs) == 2        # y (for the matmul) and z
    assert_agree(*run_both(ms.jit(f), x, w))


def test_an_equation_needing_a_later_value_starts_a_new_cluster_instead_of_a_cycle():
    def f(x, w):
        a = ops.sin(x)
        b = ops.matmul(a, w)                  # needs a; the next line needs b
        return ops.cos(a) * b + a
    x, w = tensor((3, 3)), tensor((3, 3))
    g = ms.jit(f).graph(x, w, fused=True)
    order = [eq.outs[0].index for eq in g.equations]
    produced = {v.index for v in g.inputs}
    for eq in g.equations:                    # every operand computed before it is read
        assert all(a.index in produced for a in eq.ins if hasattr(a, "index")), order
        produced |= {v.index for v in eq.outs}
    assert_agree(*run_both(ms.jit(f), x, w))


def test_integer_chains_are_left_to_numpy():
    f = ms.jit(lambda a, b: (a * b + 3) * a - b)
    a = Tensor(np.array([[1, -7, 2**30], [5, 0, -3]], np.int32))
    b = Tensor(np.array([[4, 2, 2**3], [1, 9, 2]], np.int32))
    assert fused_equations(f.graph(a, b, fused=True)) == []
    ref, got = run_both(f, a, b)
    np.testing.assert_array_equal(got[0], ref[0])          # wraps around as NumPy does


def test_floor_division_is_left_out_because_its_sympy_form_rounds_differently():
    f = ms.jit(lambda x, y: ops.floor_divide(x * 1.0, y) + 1.0)
    x, y = Tensor(np.array([1.0], np.float64)), Tensor(np.array([0.1], np.float64))
    assert all("FloorDiv" not in eq.prim.body_text() for eq in fused_equations(f.graph(x, y, fused=True)))


def test_with_the_fast_path_off_no_kernel_runs(monkeypatch):
    calls = []
    monkeypatch.setattr(Fused, "impl", lambda self, *a: calls.append(1))
    f = ms.jit(w1_chain)
    x = tensor((4,))
    ms.set_context(fast_path=False)
    out = f(x, Tensor(np.float32(0.5)), 0.25)
    expected = w1_chain(x, Tensor(np.float32(0.5)), 0.25)        # PyNative, NumPy path
    np.testing.assert_array_equal(out.asnumpy(), expected.asnumpy())
    assert calls == []


def test_the_fused_graph_can_be_drawn():
    pytest.importorskip("matplotlib")
    from minims.graph.draw import graph_png
    f = ms.jit(lambda x: ops.sum(ops.tanh(ops.sin(x) * 2.0)) + ops.sum(x))
    png = graph_png(f.graph(tensor((3,)), fused=True))
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


@needs_numba
def test_a_kernel_that_cannot_be_compiled_falls_back_to_numpy_with_a_warning(monkeypatch):
    def broken(spec):
        raise RuntimeError("no compiler today")
    monkeypatch.setattr(fusion, "compile_kernel", broken)
    f = ms.jit(lambda x: ops.exp(ops.sin(x)) * 3.0)
    x = tensor((5,))
    ms.set_context(fast_path=True)
    with pytest.warns(RuntimeWarning, match="could not compile the fused kernel"):
        got = f(x).asnumpy()
    ms.set_context(fast_path=False)
    np.testing.assert_array_equal(got, f(x).asnumpy())


# ===== the kernels agree with the NumPy path ===========================================================
BROADCASTS = [((4,), (4,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((4, 1, 5), (3, 1)),
              ((2, 3, 4), (2, 1, 4)), ((1,), ())]


@needs_numba
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shapes", BROADCASTS, ids=[f"{a}x{b}" for a, b in BROADCASTS])
def test_broadcasting_chains_agree_with_numpy(shapes, dtype):
    def f(x, y):
        s = ops.sigmoid(x * y - 0.5)
        return ops.sqrt(ops.abs(s / (y + 3.0))) + ops.relu(ops.cos(x)) - ops.maximum(x, y) ** 2
    x, y = tensor(shapes[0], dtype), tensor(shapes[1], dtype)
    jf = ms.jit(f)
    assert fused_equations(jf.graph(x, y, fused=True))
    assert_agree(*run_both(jf, x, y), dtype)


@needs_numba
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduce, axes, keep", [
    (ops.sum, None, False), (ops.mean, None, False), (ops.sum, 0, False), (ops.mean, 1, True),
    (ops.sum, (0, 2), False), (ops.mean, (1, 2), True), (ops.sum, 2, False)])
def test_a_chain_ending_in_a_reduction_agrees_with_numpy(reduce, axes, keep, dtype):
    def f(x, b):
        return reduce(ops.exp(ops.sin(x) * b) - 1.0, axes, keep)
    x, b = tensor((3, 4, 5), dtype), tensor((5,), dtype)
    jf = ms.jit(f)
    (eq,) = fused_equations(jf.graph(x, b, fused=True))
    assert eq.prim.equations[-1].prim.name in ("ReduceSum", "ReduceMean")
    assert_agree(*run_both(jf, x, b), dtype)


@needs_numba
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_value_centred_by_its_own_mean_reads_the_mean_after_the_loop_that_sums_it(dtype):
    """``x - mean(x)`` (BatchNorm, LayerNorm): the subtraction cannot run in the loop that sums the
    mean.  It used to join that kernel and read the mean before it existed (UnboundLocalError, found
    with issue 22's BatchNorm work); it now starts the next kernel."""
    def f(g, h):
        a = g * 2.0
        c = a - ops.mean(a, (0,), keep_dims=True)
        return (c - h * ops.mean(a * h, (0,), keep_dims=True)) * 3.0
    g, h = tensor((4, 2), dtype), tensor((4, 2), dtype)
    jf = ms.jit(f)
    for eq in fused_equations(jf.graph(g, h, fused=True)):
        assert not {v.index for v in eq.outs} & {a.index for a in eq.ins if hasattr(a, "index")}
    assert_agree(*run_both(jf, g, h), dtype)


@needs_numba
def test_mixed_float32_and_float64_and_casts_agree():
    def f(x, y):
        return ops.cast(ops.tanh(x) * 2.0, ms.float64) + ops.sin(y)
    x, y = tensor((3,), "float32"), tensor((3,), "float64")
    assert_agree(*run_both(ms.jit(f), x, y), "float32")


@needs_numba
def test_select_with_a_bool_condition_is_fused_correctly():
    def f(x, y):
        return ops.select(x > y, ops.sin(x) * 2.0, ops.cos(y) + 1.0) * 3.0
    x, y = tensor((2, 5)), tensor((5,))
    jf = ms.jit(f)
    assert any("Select" in eq.prim.body_text() for eq in fused_equations(jf.graph(x, y, fused=True)))
    # sin and cos are the C library's in the kernel and NumPy's (SIMD) outside: they may differ in
    # the last bit on some CPUs, so the comparison allows rounding (the bits of Select are tested in
    # test_i22_fused.py with exactly rounded operands)
    assert_agree(*run_both(jf, x, y))


@needs_numba
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_and_inf_propagate_as_on_the_numpy_path(dtype):
    special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 1e30, -1e-30], dtype)
    x = Tensor(special)
    y = Tensor(special[::-1].copy())

    def f(x, y):
        a = ops.log(x) + ops.sqrt(x) * 0.5        # log(0) = -inf, log(-1) = NaN, sqrt(-1) = NaN
        b = x / y - ops.reciprocal(y)              # 0 / 0, 1 / 0, inf / inf
        c = ops.maximum(x, y) + ops.minimum(x, 0.0) + ops.relu(y) + ops.relu6(x)   # NaN wins
        d = ops.sign(x) * ops.exp(y) + ops.tanh(x) - ops.sigmoid(y)
        return a, b, c, d, ops.sum(a * 0.0 + ops.abs(y))
    with np.errstate(all="ignore"):
        assert_agree(*run_both(ms.jit(f), x, y), dtype)


@needs_numba
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_of_a_jitted_function_agree_with_fusion_on(dtype):
    c1 = Tensor(np.array([0.9, 1.1, 0.7, 1.3], dtype))

    def loss(x):
        return ops.sum(w1_chain(x, c1, 0.1) ** 2)
    x = tensor((4,), dtype)
    assert_agree(*run_both(ms.value_and_grad(ms.jit(loss)), x), dtype)
    assert_agree(*run_both(ms.jit(ms.grad(loss)), x), dtype)
    assert_agree(*run_both(ms.grad(ms.grad(ms.jit(loss))), x), dtype)


def test_tanh_and_sigmoid_derivatives_fuse_in_float32_only_and_through_sech():
    from minims.primitives.input_grads import SigmoidGrad, TanhGrad
    # 1 - tanh(x)**2 would print from the SymPy rule and lose every digit where tanh saturates
    assert fusion.scalar_template(TanhGrad(), (None, None), "float32") == "opnd1*sech2_narrow(opnd0, 1.0)"
    assert fusion.scalar_template(SigmoidGrad(), (None, None), "float32") == "(1/4)*opnd1*sech2_narrow(opnd0, 1/2)"
    for prim in (TanhGrad(), SigmoidGrad()):         # float64 keeps the double-double NumPy kernel
        with pytest.raises(fusion.Unfusable, match="not fused in float64"):
            fusion.scalar_template(prim, (None, None), "float64")
    f = ms.jit(ms.grad(lambda x: ops.sum(ops.tanh(ops.sin(x)) * 2.0)))

    def fused_members(x):
        return [e.prim.name for eq in fused_equations(f.graph(x, fused=True)) for e in eq.prim.equations]
    assert "TanhGrad" in fused_members(tensor((4,)))
    assert "TanhGrad" not in fused_members(tensor((4,), "float64"))


@needs_numba
@pytest.mark.parametrize("fn, derivative", [
    (ops.tanh, lambda x: 1.0 / np.cosh(x) ** 2),
    (ops.sigmoid, lambda x: np.exp(-np.abs(x)) / (1.0 + np.exp(-np.abs(x))) ** 2)])
def test_fused_tanh_and_sigmoid_derivatives_survive_saturation(fn, derivative):
    # in float64 (NumPy, no cancellation in these forms) the true derivatives at 10 and 40 are
    # 8.2e-9 and 7.2e-35 for tanh: normal float32 numbers that 1 - tanh(x)**2 would give as 0
    x = Tensor(np.array([-40.0, -10.0, -0.5, 0.0, 0.3, 2.0, 10.0, 40.0], np.float32))
    f = ms.jit(ms.grad(lambda x: ops.sum(fn(x * 1.0) * 1.0)))
    ref, got = run_both(f, x)
    want = derivative(x.asnumpy().astype(np.float64)).astype(np.float32)
    assert np.all(want > 0)
    np.testing.assert_allclose(got[0], want, rtol=2e-7, atol=0)      # within a float32 ULP
    np.testing.assert_allclose(ref[0], want, rtol=2e-7, atol=0)


@needs_numba
def test_check_nan_names_the_primitive_inside_a_fusible_chain():
    f = ms.jit(lambda x: ops.exp(ops.log(x - 1.0) * 2.0))
    x = Tensor(np.array([2.0, 0.5], np.float32))
    messages = []
    for on in (False, True):
        ms.set_context(fast_path=on, check_nan=True)
        with pytest.raises(NonFiniteError) as info:
            f(x)
        messages.append(str(info.value))
    assert "Log" in messages[1] and messages[0] == messages[1]


# ===== caches ==========================================================================================
@needs_numba
def test_two_graphs_with_the_same_chain_share_one_kernel():
    x = tensor((6,))
    f = ms.jit(lambda x: ops.tanh(ops.sin(x) * 0.5 + 0.25))
    g = ms.jit(lambda x: ops.tanh(ops.sin(x) * 3.0 + 2.0))      # other constants, same structure
    ms.set_context(fast_path=True)
    f(x), g(x)
    runs = [fused_equations(h.graph(x, fused=True))[0].prim._run for h in (f, g)]
    assert runs[0].kernel is runs[1].kernel


_CHILD = """
import numpy as np, minims as ms
from minims import Tensor, ops
from minims.fast import fusion
ms.set_context(fast_path=True)
f = ms.jit(lambda x: ops.sum(ops.tanh(ops.sin(x) * 0.5 + 0.2518)))
print(float(f(Tensor(np.linspace(0, 1, 5).astype(np.float32))).asnumpy()))
print(list(fusion.kernel_stats().values()))
"""


@pytest.mark.slow
@needs_numba
def test_a_second_process_loads_the_kernel_from_the_disk_cache(tmp_path):
    env = dict(os.environ, MINIMS_FUSION_CACHE=str(tmp_path), PYTHONPATH=REPO, MINIMS_FAST="1")
    runs = [subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, check=True,
                           timeout=300).stdout.splitlines() for _ in range(2)]
    assert runs[0][0] == runs[1][0]
    assert runs[0][1] == "[{'hits': 0, 'misses': 1}]"          # compiled and written ...
    assert runs[1][1] == "[{'hits': 1, 'misses': 0}]"          # ... loaded, not compiled again
    assert len(list(tmp_path.glob("fused_*.py"))) == 1


# ===== random programs from the fuzzer ==================================================================
ELEMENTWISE = replace(BASIC, kinds=("unary", "unary", "unary", "binary", "binary", "scalar", "scalar",
                                    "reduce", "select", "matmul"),
                      dtypes=("float32", "float64"), ints=True, values="random", steps=(2, 8))
FUZZ_STATS = {"programs": 0, "fused": 0}


@needs_numba
@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@pytest.mark.slow
@given(case=programs(ELEMENTWISE))
def test_random_programs_agree_with_fusion_on_and_off(case):
    program, args = case
    floats = tuple(i for i, a in enumerate(args) if a.dtype.is_float)

    def loss(*a):
        out = program(*a)
        outs = out if isinstance(out, tuple) else (out,)
        total = None
        for o in outs:
            if o.dtype.is_float:
                s = ops.sum(o * ops.cos(o))
                total = s if total is None else total + s
        return total
    jf = ms.jit(program)
    FUZZ_STATS["programs"] += 1
    FUZZ_STATS["fused"] += bool(fused_equations(jf.graph(*args, fused=True)))
    with np.errstate(all="ignore"):
        assert_agree(*run_both(jf, *args), program.dtype)
        if floats and loss(*args) is not None:
            assert_agree(*run_both(ms.value_and_grad(ms.jit(loss), grad_position=floats), *args), program.dtype)


SPECIAL_INPUTS = replace(ELEMENTWISE, values="special")
SPECIAL_STATS = {"programs": 0, "exact": 0}


@needs_numba
@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@pytest.mark.slow
@given(case=programs(SPECIAL_INPUTS))
def test_random_programs_on_signed_zeros_subnormals_inf_and_nan_agree_with_fusion_on_and_off(case):
    """Issue 22, item 13: inputs with ±0, subnormals, ±inf and NaN (``programs.special_values``).
    Bit for bit where every fused primitive is exactly rounded; else the same IEEE classes."""
    program, args = case
    floats = tuple(i for i, a in enumerate(args) if a.dtype.is_float)
    jf = ms.jit(program)
    members = {e.prim.name for eq in fused_equations(jf.graph(*args, fused=True)) for e in eq.prim.equations}
    SPECIAL_STATS["programs"] += 1
    with np.errstate(all="ignore"):
        ref, got = run_both(jf, *args)
        assert_same_ieee_classes(ref, got, program.dtype)
        if members <= EXACT:
            SPECIAL_STATS["exact"] += bool(members)
            assert_bitwise(ref, got)
        if floats:
            grads = run_both(ms.jit(ms.grad(lambda *a: ops.sum(_first_float(program(*a)) * 3.0), floats)), *args)
            assert_same_ieee_classes(*grads, program.dtype)


def _first_float(out):
    outs = out if isinstance(out, tuple) else (out,)
    return next(o for o in outs if o.dtype.is_float)


@pytest.mark.slow
@needs_numba
def test_the_random_programs_did_fuse():
    """(Runs after the search above, in file order.)  Most random programs have something to fuse:
    the search was not vacuous."""
    if FUZZ_STATS["programs"] == 0:
        pytest.skip("the random-program search did not run in this session")
    assert FUZZ_STATS["fused"] >= FUZZ_STATS["programs"] // 2, FUZZ_STATS
    if SPECIAL_STATS["programs"]:
        assert SPECIAL_STATS["exact"] >= 3, SPECIAL_STATS       # some were compared bit for bit
