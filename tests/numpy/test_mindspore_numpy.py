"""``minims.numpy`` against MindSpore 2.10's ``mindspore.numpy`` (issue 25, item 3).

The expected values are MindSpore's: ``tests/data/oracle_mnp_facts.py`` ran every expression of
``tests/mnp_cases.py`` on the real MindSpore 2.10 (CPU) and stored the results — dtype, shape, values
— or the exception type in ``tests/data/oracle_mnp_facts.json``, and the gradients ``mindspore.grad``
gave for the functions of ``mnp_cases.GRADS``.  Here minims evaluates the same expressions.  An
exception must be of MindSpore's type (or a subclass).

Where minims deliberately differs, the case is listed in :data:`DIFFERENT` with the reason and what
minims gives instead, computed with NumPy (or the exception type NumPy raises); the test checks both
what MindSpore recorded and what minims does, so the table cannot go stale.

The gradients are also checked against central differences (``minims.testing.check_grads``), in
PyNative and compiled with ``minims.jit``.
"""
import json
import math
from pathlib import Path

import numpy as np
import pytest

import minims as ms
import minims.numpy as mnp
from minims import Tensor
from minims.testing import check_grads

import mnp_cases  # tests/ is on the path (tests/conftest.py)

FACTS = json.loads((Path(__file__).resolve().parents[1] / "data" / "oracle_mnp_facts.json").read_text(encoding="utf-8"))

_B, _H, _D = "np.array([True, False, True])", "np.array([1.5, -2.0], np.float16)", "np.array([1.5, -2.0])"
_LOSES = "MindSpore 2.10 returns a lower precision than its input has"
# name -> (why minims differs, what minims gives: a NumPy expression, or an exception type)
DIFFERENT = {
    "ceil_of_float64": (_LOSES, f"np.ceil({_D})"),
    "trunc_of_float64": (_LOSES, f"np.trunc({_D})"),
    "fix_of_float64": (_LOSES, f"np.fix({_D})"),
    "ceil_of_float16": ("MindSpore 2.10 returns Float32 for a Float16 input; minims keeps the input's dtype",
                        f"np.ceil({_H})"),
    "cbrt_of_float16": ("MindSpore 2.10 returns Float32 for a Float16 input; minims keeps the input's dtype",
                        f"np.cbrt({_H})"),
    "cbrt_of_bool": ("MindSpore 2.10 gives NaN for cbrt(False) (it takes a power of 0 through a log)",
                     f"np.cbrt({_B}).astype(np.float32)"),
    "reciprocal_of_bool": ("MindSpore 2.10 gives 9223372036854775807 for 1/False; minims refuses Bools, "
                           "as NumPy's reciprocal does", TypeError),
    "var_int32": ("MindSpore 2.10 centres integers on their truncated integer mean (0 instead of 0.5)",
                  "np.var(np.array([[1, -2, 3], [-4, 5, 0]])).astype(np.float32)"),
    "less_equal": ("MindSpore 2.10 refuses a Python number in less_equal (its less, greater and "
                   "greater_equal take one)", "np.array([3, 1, 2]) <= 2"),
    "float_power": ("MindSpore 2.10 fails on a Python number in float_power",
                    "np.float_power([3, 1, 2], 2).astype(np.float32)"),
    "multiply_bool_float_scalar": ("MindSpore 2.10 fails on Bool * Python float (Bool + int works)",
                                   "(np.array([True, False, True]) * 1.5).astype(np.float32)"),
    "arange_empty": ("MindSpore 2.10 has no empty Tensors from arange; minims returns NumPy's empty range",
                     "np.arange(3, 1).astype(np.int32)"),
    "clip_dtype": ("MindSpore 2.10 ignores clip's dtype argument", "np.clip(np.array([[1.0, -2.0, 3.0], "
                   "[-4.0, 5.0, 0.5]], np.float32), 0.0, 1.0).astype(np.float16)"),
    "squeeze_not_one": ("MindSpore 2.10 silently ignores an axis whose size is not 1; minims refuses it, "
                        "as NumPy does", ValueError),
    "split_uneven": None,
    "array_big_int": ("MindSpore 2.10 wraps 2**40 into Int32 (0); minims keeps the value in Int64",
                      "np.array([2**40, 1])"),
    "add_big_int_scalar": ("MindSpore 2.10 wraps 2**40 into Int32 before adding (3 + 0)",
                           "np.array([3, 1, 2]) + 2**40"),
    "floor_divide_int_by_zero": ("MindSpore 2.10 returns 9223372036854775807; minims refuses integer "
                                 "division by zero (ZeroDivisionError)", ZeroDivisionError),
    "power_negative_int_exponent": ("MindSpore 2.10 truncates 3 ** -1 to 0; minims refuses integers to "
                                    "negative integer powers, as NumPy", ValueError),
    "nanmax": ("MindSpore 2.10 gives -9223372036854775808 for a row of NaNs; minims NaN, as NumPy",
               "np.array([1.0, np.nan], np.float32)"),           # np.nanmax's, without its warning
    "select": ("MindSpore 2.10 returns Int32 for Int64 choices; minims keeps their dtype, as NumPy",
               "np.select([np.array([3, 1, 2]) < 2, np.array([3, 1, 2]) > 2], [np.array([3, 1, 2]), "
               "np.array([30, 10, 20])], 7)"),
    "ravel_multi_index": ("MindSpore 2.10 returns Float32 positions; minims integer ones, as NumPy",
                          "np.ravel_multi_index((np.array([3, 6, 6]), np.array([4, 5, 1])), (7, 6))"),
    "piecewise_default": ("MindSpore 2.10 fails on numbers in funclist with a default",
                          "np.piecewise(np.array([0.5, -1.5, 2.0], np.float32), [np.array([False, True, False])], "
                          "[0.0, 1.0])"),
    "cross_2d": ("MindSpore 2.10 fails on 2-component vectors", "np.array(-2.0, np.float32)"),
    "cov_weights": ("MindSpore 2.10 refuses float aweights ('weights must be integer'); they are "
                    "reliabilities, floats in NumPy", "np.cov(np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, 0.5]]), "
                    "fweights=[1, 2, 1], aweights=[0.5, 1.0, 2.0]).astype(np.float32)"),
    "gradient_spacing_order2": ("MindSpore 2.10 has no edge_order=2", "np.gradient(np.arange(12, dtype=np.float32)"
                                ".reshape(3, 4) / 2.0 - 1.0, 2.0, axis=1, edge_order=2)"),
    "argmax_keepdims_refused": None,
}
DIFFERENT = {k: v for k, v in DIFFERENT.items() if v is not None}

# MindSpore 2.10's gradient of cumprod divides by the input, so it is NaN where an input is 0.  minims'
# cumprod is a composition of products: its gradient is the closed form d/dx_j sum_i prod_{k<=i} x_k =
# sum_{i>=j} prod_{k<=i, k!=j} x_k.  For x = [2, 0, 3, -1]: [1, 2 + 6 - 6, 0, 0] = [1, 2, 0, 0].
#
# MindSpore 2.10's gradient of mnp.flip drops the gradient of the entry that ends up last: for
# flip(x) * [1, 2, 3] it gives [0, 2, 1] where d/dx_j = w_{n-1-j} gives [3, 2, 1]; for flip(x) * roll(x, 1)
# = [c*c, b*a, a*b] (x = [a, b, c] = [0.5, -1.5, 2]) the closed form is [2b, 2a, 2c] = [-3, 1, 4].
DIFFERENT_GRADS = {
    "cumprod": ("MindSpore 2.10's gradient is NaN where an input is 0", [[1.0, 2.0, 0.0, 0.0]]),
    "flip_times_constant": ("MindSpore 2.10's flip gradient drops the first entry's", [[3.0, 2.0, 1.0]]),
    "flip_roll": ("MindSpore 2.10's flip gradient drops the first entry's", [[-3.0, 1.0, 4.0]]),
    # d/dv_j sum_i w_i conv(x, v)_i = sum_k x_k w_{k+j}: x = [0.5, -1.5, 2], w = [1, -1, 2, 0.5] give [6, -2.5]
    # for v; d/dx_k = sum_j v_j w_{k+j} with v = [1, 0.5]: [0.5, 0, 2.25]
    "convolve": ("MindSpore 2.10's convolve passes no gradient to its second input", [[0.5, 0.0, 2.25], [6.0, -2.5]]),
    # piecewise-linear: d/dx is the slope of the piece (10, -5, -3); d/dfp the two weights of each x
    "interp": ("MindSpore 2.10 fails differentiating interp (ScatterNd)",
               [[10.0, -5.0, -3.0], [0.5, 1.0, 1.25, 0.25]]),
    # the NaN does not count: var([1, 3]) has d/dx = 2 (x - mean) / 2 = [-1, 1], and 0 for the NaN
    "nanvar": ("MindSpore 2.10's nanvar gradient is NaN in a row holding a NaN",
               [[[-1.0, 0.0, 1.0], [-2.0, -2.0 / 3.0, 8.0 / 3.0]]]),
    # reflect-padding (2, 1) of [a, b, c] is [c, b, a, b, c, b]; weights 0..5 give a: 2, b: 1 + 3 + 5, c: 0 + 4
    "pad_reflect": ("MindSpore 2.10's pad gradient drops the padded copies", [[2.0, 9.0, 4.0]]),
    "rint": ("MindSpore 2.10 has no gradient for rint (its derivative is 0 between the jumps)", [[1.0, 1.0, 1.0]]),
    # [0.5, -1.5, 2]: select gives 1 (constant), x * x, 3 x; choose gives x * x, x, x * x
    "select_choose": ("MindSpore 2.10's select passes no gradient to the choices", [[1.0, -2.0, 7.0]]),
}


def _namespace():
    return mnp_cases.namespace(ms, mnp)


def _describe(value):
    """The record ``oracle_mnp_facts.py`` makes of a result."""
    if isinstance(value, Tensor):
        arr = value.asnumpy()
        return {"dtype": str(value.dtype), "shape": list(arr.shape), "values": arr.tolist()}
    if isinstance(value, (tuple, list)):
        return {"seq": type(value).__name__, "items": [_describe(v) for v in value]}
    if isinstance(value, (bool, int, float, str)):
        return {"python": type(value).__name__, "value": value}
    return {"printed": str(value)}


def _assert_same(mine, oracle, what):
    if "seq" in oracle:
        assert mine.get("seq") == oracle["seq"], (what, mine, oracle["seq"])
        assert len(mine["items"]) == len(oracle["items"]), what
        for k, (a, b) in enumerate(zip(mine["items"], oracle["items"])):
            _assert_same(a, b, f"{what}[{k}]")
        return
    if "python" in oracle or "printed" in oracle:
        assert mine == oracle, (what, mine, oracle)
        return
    assert "dtype" in mine, (what, mine)
    assert (mine["dtype"], mine["shape"]) == (oracle["dtype"], oracle["shape"]), (what, mine, oracle)
    # MindSpore 2.10 computes some Float64 functions (cbrt, deg2rad) through Float32 constants
    tol = {"Float16": 1e-3, "Float32": 2e-6, "Float64": 1e-7}.get(oracle["dtype"], 0)
    np.testing.assert_allclose(np.asarray(mine["values"], dtype=float), np.asarray(oracle["values"], dtype=float),
                               rtol=tol, atol=tol, equal_nan=True, err_msg=what)


def _outcome(fn):
    try:
        return {"result": _describe(fn())}
    except Exception as exc:        # compared with MindSpore's type
        return {"exception": exc}


@pytest.mark.parametrize("name", sorted(mnp_cases.CASES))
def test_each_case_gives_mindsporess_result_or_exception_type(name):
    """Item 3: values, dtype and shape (or the exception type) as MindSpore 2.10 gave them."""
    oracle = FACTS["cases"][name]
    mine = _outcome(lambda: eval(mnp_cases.CASES[name], _namespace()))
    if name in DIFFERENT:
        _check_divergence(name, oracle, mine)
        return
    if "error" in oracle:
        assert "exception" in mine, f"{name}: MindSpore raised {oracle['error']}, minims returned {mine['result']}"
        expected = getattr(__builtins__, oracle["error"], None) if not isinstance(__builtins__, dict) else \
            __builtins__.get(oracle["error"])
        assert expected is not None and isinstance(mine["exception"], expected), (name, oracle, mine["exception"])
        return
    assert "result" in mine, f"{name}: minims raised {mine['exception']!r}"
    _assert_same(mine["result"], oracle["result"], name)


def _check_divergence(name, oracle, mine):
    reason, instead = DIFFERENT[name]
    assert reason
    if isinstance(instead, type):
        assert "exception" in mine and isinstance(mine["exception"], instead), (name, mine)
        assert oracle.get("error") != instead.__name__, f"{name}: MindSpore agrees now; drop it from DIFFERENT"
        return
    expected = eval(instead, {"np": np})
    assert "result" in mine, f"{name}: minims raised {mine['exception']!r}"
    want = {"dtype": str(ms.dtype.from_numpy(expected.dtype)), "shape": list(expected.shape),
            "values": expected.tolist()}
    _assert_same(mine["result"], want, name)
    if "result" in oracle:
        with pytest.raises(AssertionError):
            _assert_same(oracle["result"], want, name + " (MindSpore agrees now; drop it from DIFFERENT)")


def _grad_case(name):
    env = _namespace()
    fn_text, args_text = mnp_cases.GRADS[name]
    return eval(fn_text, env), eval(args_text, env)


@pytest.mark.parametrize("name", sorted(mnp_cases.GRADS))
def test_each_gradient_is_mindspores(name):
    """Item 3: ``grad`` with respect to every input, as MindSpore 2.10's ``grad`` gave it (ties of
    ``maximum``/``amax`` and ``clip`` at a bound shared equally, ``sqrt`` at 0 infinite)."""
    fn, args = _grad_case(name)
    grads = ms.grad(fn, grad_position=tuple(range(len(args))))(*args)
    mine = _describe(grads if isinstance(grads, tuple) else (grads,))
    oracle = FACTS["grads"][name].get("result", {"items": []})
    if name in DIFFERENT_GRADS:
        reason, closed_form = DIFFERENT_GRADS[name]
        for got, want in zip(mine["items"], closed_form):
            np.testing.assert_allclose(got["values"], want, rtol=1e-6)
        agrees = "result" in FACTS["grads"][name] and all(
            np.allclose(got["values"], want, equal_nan=True) for got, want in zip(oracle["items"], closed_form))
        assert not agrees, f"{name}: MindSpore agrees now ({reason} no longer); drop it from DIFFERENT_GRADS"
        return
    _assert_same(mine, oracle, name)


def _smooth(name):
    """Gradient cases away from kinks (ties, bounds, 0 of sqrt/abs) and NaN inputs: central differences
    apply."""
    return name not in ("sqrt_at_zero", "absolute_at_zero", "maximum_ties", "clip_at_bounds", "amax_ties",
                        "amin_all", "nanvar")


@pytest.mark.parametrize("name", [n for n in sorted(mnp_cases.GRADS) if _smooth(n)])
def test_each_gradient_agrees_with_central_differences_in_pynative_and_jit(name):
    """Item 3: the compositions' gradients against finite differences (``check_grads``, float64), both
    run op by op and compiled with ``minims.jit``."""
    fn, args = _grad_case(name)
    check_grads(fn, args, order=1)
    check_grads(ms.jit(fn), args, order=1)


def test_second_derivatives_of_scans_and_norms_agree_with_central_differences():
    """Item 3: the compositions are differentiable twice (the bprops of the bprops), forward and reverse."""
    x = Tensor([[0.5, -1.5, 2.0], [1.0, 0.25, -0.75]], ms.float64)
    for fn in (lambda v: mnp.cumprod(v, axis=1), lambda v: mnp.norm(v, axis=0), lambda v: mnp.std(v, axis=1),
               lambda v: mnp.logaddexp(v, mnp.flip(v)), lambda v: mnp.tan(mnp.diagonal(v, 1) * 0.5)):
        check_grads(fn, (x,), order=2, modes=("fwd", "rev"))


def test_results_compiled_with_jit_equal_pynative():
    """Item 3: every gradient function of the cases gives the same values compiled (``minims.jit``)."""
    for name in sorted(mnp_cases.GRADS):
        fn, args = _grad_case(name)
        eager, compiled = fn(*args), ms.jit(fn)(*args)
        np.testing.assert_allclose(compiled.asnumpy(), eager.asnumpy(), rtol=1e-6, err_msg=name)


def test_vmap_over_compositions_equals_a_loop():
    """Item 3: ``vmap`` runs the compositions with the primitives' batching rules (scans, gathers,
    products), giving what a Python loop over the examples gives."""
    xs = Tensor(np.arange(24, dtype=np.float32).reshape(4, 2, 3) / 5.0 - 1.0)
    for fn in (lambda x: mnp.cumsum(x, axis=1), lambda x: mnp.diag(mnp.ravel(x)[:3], 1), lambda x: mnp.tril(x),
               lambda x: mnp.dot(x, mnp.ones((3, 2))), lambda x: mnp.roll(x, 1, axis=1),
               lambda x: mnp.repeat(x, [1, 2], axis=0), lambda x: mnp.norm(x, 1)):
        batched = ms.vmap(fn)(xs)
        looped = np.stack([fn(xs[i]).asnumpy() for i in range(4)])
        np.testing.assert_allclose(batched.asnumpy(), looped, rtol=1e-6)


def test_import_minims_exposes_numpy_as_mindspore_does():
    """Item 3: ``import mindspore`` imports ``mindspore.numpy`` eagerly (MindSpore 2.10's __init__:
    ``from mindspore import ... numpy ...``), so ``mindspore.numpy.arange`` works after ``import
    minims as mindspore`` alone; ``import minims.numpy as mnp`` is the same module."""
    import minims
    assert minims.numpy is mnp
    assert mnp.float32 is minims.float32 and mnp.int_ is minims.int32 and mnp.float_ is minims.float32
    assert mnp.pi == math.pi and mnp.inf == math.inf and math.isnan(mnp.nan)


def test_a_mindspore_name_minims_lacks_says_so():
    """Item 3: a name of MindSpore 2.10's mindspore.numpy that minims lacks is an AttributeError saying
    it exists in MindSpore; a misspelling gets the closest name."""
    with pytest.raises(AttributeError, match=r"mindspore\.numpy\.histogram exists in MindSpore 2\.10"):
        mnp.histogram
    with pytest.raises(AttributeError, match=r"Did you mean mnp\.linspace"):
        mnp.linspce
    assert not hasattr(mnp, "prod") and not hasattr(mnp, "linalg")          # neither has MindSpore 2.10


def test_the_public_names_are_mindspores_and_the_missing_ones_are_listed():
    """Item 3: every public name of minims.numpy (but its modules) is one of MindSpore 2.10's
    (``dir(mindspore.numpy)`` on the oracle), and every MindSpore function minims lacks is in the list
    the AttributeError reads."""
    public = {n for n in dir(mnp) if not n.startswith("_")}
    modules = {"array_creations", "array_ops", "dtypes", "logic_ops", "math_ops", "numerical", "products",
               "reductions", "random_arrays"}
    theirs = set(FACTS["names"])
    assert public - modules <= theirs
    assert not public & mnp._MINDSPORE_ONLY
    internals = {"absolute_import", "array_creations_module", "array_ops_module", "logic_module", "math_module",
                 "utils", "utils_const"}
    assert theirs - public - internals == mnp._MINDSPORE_ONLY


def test_errors_name_the_function_and_the_fix():
    """Item 3: every refusal of a case MindSpore also refuses says what came and how to fix it (``Fix:``),
    naming the mindspore.numpy function (or the op underneath); Python's own message for a call with
    too many or too few arguments is left as it is."""
    env = _namespace()
    for name, oracle in FACTS["cases"].items():
        if "error" not in oracle or name in DIFFERENT:
            continue
        try:
            eval(mnp_cases.CASES[name], env)
        except Exception as exc:            # inspected below
            text = str(exc)
            if "positional argument" in text:
                continue
            assert "Fix" in text, (name, text)
            function = mnp_cases.CASES[name].split("(")[0].split(".")[-1]
            assert f"mindspore.numpy.{function}" in text or text.split(":")[0].isidentifier(), (name, text)
