"""minims' gradients against SymPy: the symbolic interpreter and ``sympy.diff`` as the reference.

The reference never uses a backward rule: the function is run on SymPy symbols (each primitive's
``sympy`` rule), the resulting formula is differentiated by ``sympy.diff`` and evaluated at the same
point, to 30 digits.  minims' ``ops.grad`` (float64) must agree to about 1e-10.
"""
import numpy as np
import pytest
import sympy

import minims as ms
from minims import Tensor, ops
from minims.core.stack import active_traces
from minims.interpreters.symbolic import SymbolicEscapeError
from minims.core.primitive import Primitive
from minims.testing import reference_grad, symbolic_call, symbolic_grad, symbols_like

RTOL, ATOL = 1e-10, 1e-12
rng = np.random.default_rng(1234)


def f64(values):
    return Tensor(np.asarray(values, dtype=np.float64))


def randn(*shape):
    return f64(rng.standard_normal(shape))


def positive(*shape):
    return f64(rng.uniform(0.5, 2.0, shape))


def close(actual, expected):
    actual = actual.asnumpy() if isinstance(actual, Tensor) else np.asarray(actual)
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=ATOL)


def at(exprs, symbol_arrays, tensors):
    """Evaluate an expression (or object array of them) at the tensors' values, to 30 digits."""
    subs = {}
    for syms, t in zip(symbol_arrays, tensors):
        subs.update({s: sympy.Float(float(v), 30) for s, v in zip(syms.flat, t.asnumpy().flat)})
    arr = np.asarray(exprs, dtype=object)
    return np.array([float(sympy.sympify(e).xreplace(subs).evalf(30)) for e in arr.flat]).reshape(arr.shape)


def sum_entries(exprs):
    return sympy.Add(*np.asarray(exprs, dtype=object).flat)


def diff_array(expr, syms):
    out = np.empty(syms.shape, dtype=object)
    for idx in np.ndindex(syms.shape):
        out[idx] = sympy.diff(expr, syms[idx])
    return out


W3 = f64([0.7, -1.3, 2.1])
W6 = f64([1.0, -2.0, 3.0, 0.5, -1.5, 2.5])
W23 = f64([[0.7, -1.3, 2.1], [0.4, 1.1, -0.6]])

# name -> (function, argument factory); every argument is differentiated
CASES = {
    "polynomial": (lambda x: ops.sum(x * x * x - 2.0 * x * x + x - 3.0), lambda: (randn(4),)),
    "exp_log_sin": (lambda x: ops.sum(ops.exp(ops.sin(x)) * ops.log(1.0 + x * x)), lambda: (randn(4),)),
    "cos_tanh_sigmoid": (lambda x: ops.sum(ops.tanh(ops.sigmoid(x) * ops.cos(x))), lambda: (randn(2, 3),)),
    "softmax": (lambda x: ops.sum(ops.softmax(x) * W3), lambda: (randn(2, 3),)),
    "log_softmax_axis0": (lambda x: ops.sum(ops.log_softmax(x, axis=0) * W23), lambda: (randn(2, 3),)),
    "matmul": (lambda a, b: ops.sum(ops.tanh(ops.matmul(a, b))), lambda: (randn(2, 3), randn(3, 4))),
    "batched_matmul_broadcast": (lambda a, b: ops.sum(ops.sin(ops.matmul(a, b))),
                                 lambda: (randn(2, 2, 3), randn(3, 2))),
    "sum_mean_axes": (lambda x: ops.sum(ops.mean(x, axis=1) ** 2) + ops.sum(ops.sum(x, 0, keepdim=True) * x),
                      lambda: (randn(3, 2),)),
    "broadcast_outer": (lambda x, y: ops.sum(x * y + y / (x * x + 1.0)), lambda: (randn(3, 1), randn(1, 4))),
    "broadcast_row": (lambda x, y: ops.sum(ops.exp(x - y) * y), lambda: (randn(2, 3), randn(3))),
    "division": (lambda x, y: ops.sum(x / (y * y + 2.0) - 1.0 / (x * x + 1.0)), lambda: (randn(3), randn(3))),
    "pow": (lambda x, y: ops.sum(ops.pow(x, y) + x ** 3), lambda: (positive(3), randn(3))),
    "sqrt": (lambda x: ops.sum(ops.sqrt(x * x + 1.0) * ops.sqrt(x + 3.0)), lambda: (positive(4),)),
    "select_leaky_relu": (lambda x: ops.sum(ops.select(x > 0, x * x, 0.1 * x) * ops.cos(x)),
                          lambda: (f64([-1.2, -0.3, 0.4, 1.5]),)),
    "relu": (lambda x: ops.sum(ops.relu(x) * ops.exp(x)), lambda: (f64([-1.2, -0.3, 0.4, 1.5]),)),
    "maximum": (lambda x, y: ops.sum(ops.maximum(x, y) * x + ops.minimum(x * y, 0.5)),
                lambda: (f64([0.3, -1.0, 2.0]), f64([1.0, -2.0, 0.5]))),
    "abs": (lambda x: ops.sum(ops.abs(x) * x), lambda: (f64([-1.5, 0.5, 2.0]),)),
    "reduce_max": (lambda x: ops.sum(ops.amax(x, axis=1) * f64([1.0, 2.0])),
                   lambda: (f64([[0.1, 0.9, -0.3], [2.0, 1.0, -4.0]]),)),
    "shapes_and_indexing": (lambda x: ops.sum(ops.transpose(ops.reshape(x, (3, 2)), (1, 0))[1, 1:] ** 2)
                                      + ops.sum(ops.concat((x[0], x[1] * x[0])) * W6),
                            lambda: (randn(2, 3),)),
}

SECOND_ORDER = ["polynomial", "exp_log_sin", "cos_tanh_sigmoid", "softmax", "log_softmax_axis0",
                "matmul", "broadcast_outer", "division", "pow", "sqrt", "select_leaky_relu"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_derivative_matches_sympy(name):
    fn, make = CASES[name]
    args = make()
    positions = tuple(range(len(args)))
    got = ops.grad(fn, grad_position=positions)(*args)
    got = got if len(positions) > 1 else (got,)     # grad_position=(0,) gives one Tensor (MindSpore 2.10)
    expected = reference_grad(fn, *args, wrt=positions)
    expected = expected if len(positions) > 1 else (expected,)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape
        close(g, e)


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_second_derivative_matches_sympy(name):
    """grad of (the sum of the gradient with respect to the first argument), for every argument."""
    fn, make = CASES[name]
    args = make()
    syms = [symbols_like(f"a{i}", a.shape) for i, a in enumerate(args)]
    first = symbolic_grad(fn, *syms, wrt=0)
    total = sum_entries(first)

    def summed_grad(*xs):
        return ops.sum(ops.grad(fn)(*xs))

    positions = tuple(range(len(args)))
    got = ops.grad(summed_grad, grad_position=positions)(*args)
    got = got if len(positions) > 1 else (got,)
    assert len(got) == len(positions)
    for p, g in zip(positions, got):
        close(g, at(diff_array(total, syms[p]), syms, args))


def test_third_derivative_of_sum_tanh():
    x = f64([-1.1, -0.2, 0.35, 0.8, 1.7])
    s = sympy.Symbol("s", real=True)
    third = sympy.diff(sympy.tanh(s), s, 3)
    expected = [float(third.xreplace({s: sympy.Float(v, 30)}).evalf(30)) for v in x.asnumpy()]

    def f(t):
        return ops.sum(ops.tanh(t))

    def d1(t):
        return ops.sum(ops.grad(f)(t))

    def d2(t):
        return ops.sum(ops.grad(d1)(t))

    close(ops.grad(d2)(x), expected)
    close(ops.grad(ops.grad(ops.grad(ops.tanh)))(x), expected)


def test_reused_intermediate():
    x, y = randn(3), randn(3)

    def f(x, y):
        a = x * y
        return ops.sum(a + a + a * ops.sin(a))

    gx, gy = ops.grad(f, grad_position=(0, 1))(x, y)
    ex, ey = reference_grad(f, x, y, wrt=(0, 1))
    close(gx, ex)
    close(gy, ey)
    xs, ys = x.asnumpy(), y.asnumpy()
    close(ops.grad(lambda x, y: ops.sum((lambda a: a + a)(x * y)), (0, 1))(x, y)[0], 2 * ys)
    close(ops.grad(lambda x, y: ops.sum((lambda a: a + a)(x * y)), (0, 1))(x, y)[1], 2 * xs)


def test_repeated_gradient_calls_give_identical_results():
    fn, make = CASES["log_softmax_axis0"]
    (x,) = make()
    g = ops.grad(fn)
    first, second = g(x).asnumpy(), g(x).asnumpy()
    np.testing.assert_array_equal(first, second)
    gg = ops.grad(lambda t: ops.sum(g(t)))
    np.testing.assert_array_equal(gg(x).asnumpy(), gg(x).asnumpy())
    close(first, reference_grad(fn, x))


def test_grad_of_a_function_that_calls_grad():
    x = randn(3)

    def g(t):
        return ops.sum(ops.sin(t) * t * t)

    def f(t):
        return ops.sum(t * ops.grad(g)(t))

    xs = symbols_like("x", (3,))
    inner = symbolic_grad(g, xs)                        # g'(x), from sympy.diff
    expected = at(diff_array(sum_entries(xs * inner), xs), [xs], [x])
    close(ops.grad(f)(x), expected)


# ----- the symbolic interpreter itself ---------------------------------------------------------------
def test_symbolic_call_builds_the_formula():
    x = symbols_like("x", (3,))
    softmax = symbolic_call(ops.softmax, x)
    denominator = sum(sympy.exp(v) for v in x)
    for got, v in zip(softmax, x):
        assert sympy.simplify(got - sympy.exp(v) / denominator) == 0
    s = sympy.Symbol("s", real=True)
    assert symbolic_call(lambda t: t * t + 2 * t, s) == s ** 2 + 2 * s
    assert symbolic_call(lambda t: t ** 2, s) == s ** 2


def test_symbols_like_names_and_shapes():
    x = symbols_like("x", (2, 3))
    assert x.shape == (2, 3) and x.dtype == object
    assert x[0, 1] == sympy.Symbol("x_0_1", real=True)
    assert symbols_like("y", ())[()] == sympy.Symbol("y", real=True)


def test_output_structure_is_kept():
    x, y = symbols_like("x", (2,)), sympy.Symbol("y")
    out = symbolic_call(lambda a, b: (a * b, [ops.sum(a), b]), x, y)
    assert isinstance(out, tuple) and isinstance(out[1], list)
    assert isinstance(out[0], np.ndarray) and out[0].shape == (2,)
    assert out[1][0] == x[0] + x[1] and out[1][1] == y


def test_constant_tensors_and_lists():
    x = [sympy.Symbol("p"), sympy.Symbol("q")]
    out = symbolic_call(lambda a, w: ops.sum(a * w), x, f64([2.0, 0.5]))
    assert out == 2 * x[0] + 0.5 * x[1]       # 2.0 reads as 2, 0.5 stays a Float


def test_comparisons_select_and_cast():
    x = symbols_like("x", (2,))
    mask = symbolic_call(lambda t: t > 0, x)
    assert mask[0] == (x[0] > 0)
    picked = symbolic_call(lambda t: ops.select(t > 1, t, -t), x)
    assert picked[1] == sympy.Piecewise((x[1], x[1] > 1), (-x[1], True))
    as_float = symbolic_call(lambda t: (t <= 0).astype(ms.float32), x)
    assert as_float[0] == sympy.Piecewise((1, x[0] <= 0), (0, True))
    relu = symbolic_call(ops.relu, x)
    assert relu[0].subs(x[0], 3) == 3 and relu[0].subs(x[0], -3) == 0


def test_dtype_of_symbolic_tracers():
    seen = {}

    def f(t):
        seen["x"], seen["mask"] = t.dtype, (t > 0).dtype
        return t
    symbolic_call(f, symbols_like("x", (2,)))
    assert seen == {"x": ms.float64, "mask": ms.bool_}


def test_missing_sympy_rule_names_the_primitive():
    class NoRule(Primitive):
        def impl(self, x):
            return x

    with pytest.raises(NotImplementedError, match="NoRule"):
        symbolic_call(lambda t: NoRule()(t), symbols_like("x", (2,)))
    assert active_traces() == ()


def test_trace_is_popped_when_the_function_raises():
    def boom(t):
        raise KeyError("inside")

    with pytest.raises(KeyError):
        symbolic_call(boom, symbols_like("x", (2,)))
    assert active_traces() == ()


def test_python_control_flow_on_symbols_is_a_clear_error():
    with pytest.raises(TypeError, match="select"):
        symbolic_call(lambda t: t if t > 0 else -t, sympy.Symbol("s"))
    assert active_traces() == ()


def test_escaped_symbolic_value_is_reported():
    saved = []
    symbolic_call(lambda t: saved.append(t) or t, symbols_like("x", (2,)))
    # used next to a live gradient level, the escaped tracer has no numeric value to fall back on
    with pytest.raises(SymbolicEscapeError):
        ops.grad(lambda y: ops.sum(y * saved[0]))(f64([1.0, 2.0]))
    assert active_traces() == ()


def test_symbolic_grad_needs_symbols():
    s = sympy.Symbol("s")
    with pytest.raises(TypeError, match="symbols_like"):
        symbolic_grad(lambda t: t * t, 2 * s)
    assert symbolic_grad(lambda t: ops.sin(t) * t, s) == sympy.cos(s) * s + sympy.sin(s)


# ----- every sympy rule computes what its impl computes ------------------------------------------------
# The references above are only as good as the primitives' sympy rules, so each rule is checked
# against its impl: the same function, evaluated numerically and symbolically at the same point.
from minims.primitives.array import GetItemGrad  # noqa: E402  (not exported by minims.ops)

A23, B3, P23 = randn(2, 3), randn(3), positive(2, 3)
MIXED = f64([[-2.7, -0.4, 0.0], [0.6, 1.5, 7.2]])
RULES = {
    "Abs": (ops.abs, MIXED), "Add": (ops.add, A23, B3), "Sub": (ops.sub, A23, B3),
    "Mul": (ops.mul, A23, B3), "Div": (ops.div, A23, P23), "Pow": (ops.pow, P23, B3),
    "Maximum": (ops.maximum, A23, B3), "Minimum": (ops.minimum, A23, B3), "Neg": (ops.neg, A23),
    "Exp": (ops.exp, A23), "Log": (ops.log, P23), "Sqrt": (ops.sqrt, P23), "Square": (ops.square, A23),
    "Sin": (ops.sin, A23), "Cos": (ops.cos, A23), "Tanh": (ops.tanh, A23),
    "Sigmoid": (ops.sigmoid, A23), "Reciprocal": (ops.reciprocal, P23), "Sign": (ops.sign, MIXED),
    "Floor": (ops.floor, MIXED), "FloorDiv": (ops.floor_divide, MIXED, f64([1.5, -0.7, 2.0])),
    "FloorMod": (ops.floor_mod, MIXED, f64([1.5, -0.7, 2.0])), "Mod": (ops.fmod, MIXED, f64([1.5, -0.7, 2.0])),
    "ReLU": (ops.relu, MIXED), "ReLU6": (ops.relu6, MIXED),
    "ReluGrad": (lambda d, o: ops.ReluGrad()(d, o), A23, MIXED),
    "ReLU6Grad": (lambda d, o: ops.ReLU6Grad()(d, o), A23, MIXED),
    "Softmax": (lambda x: ops.softmax(x, axis=0), A23), "LogSoftmax": (ops.log_softmax, A23),
    "Greater": (ops.gt, A23, B3), "Less": (ops.lt, A23, B3), "GreaterEqual": (ops.ge, MIXED, 0.0),
    "LessEqual": (ops.le, MIXED, 0.0), "Equal": (ops.equal, MIXED, 0.0), "NotEqual": (ops.ne, MIXED, 0.0),
    "LogicalAnd": (lambda a, b: ops.logical_and(a > 0, b > 0), A23, B3),
    "LogicalOr": (lambda a, b: ops.logical_or(a > 0, b > 0), A23, B3),
    "LogicalNot": (lambda a: ops.logical_not(a > 0), A23),
    "Select": (lambda a, b: ops.select(a > b, a * 2, b), A23, B3),
    "Cast": (lambda a: (ops.cast(a > 0, ms.float32) + ops.cast(a, ms.int32), ops.cast(a, ms.bool_)), MIXED),
    "Reshape": (lambda a: ops.reshape(a, (3, 2)), A23), "Transpose": (lambda a: ops.transpose(a, (1, 0)), A23),
    "ExpandDims": (lambda a: ops.expand_dims(a, 1), A23), "Squeeze": (lambda a: ops.squeeze(a[None]), A23),
    "BroadcastTo": (lambda b: ops.broadcast_to(b, (2, 3)), B3),
    "Concat": (lambda a, b: ops.concat((a, b[None]), 0), A23, B3),
    "Stack": (lambda a, b: ops.stack((a[0], b), -1), A23, B3),
    "GetItem": (lambda a: (a[1, ::-2], a[f64([1, 1]).astype(ms.int64)], a[Tensor(np.array([False, True]))]),
                MIXED),
    "GetItemGrad": (lambda d: GetItemGrad()(d, (2, 3), (np.array([1, 1, 0]), slice(None))), randn(3, 3)),
    "Identity": (lambda a: ops.Identity()(a), A23), "StopGradient": (ops.stop_gradient, A23),
    "OnesLike": (ops.ones_like, A23), "ZerosLike": (ops.zeros_like, A23),
    "MatMul": (lambda a, b: ops.MatMul(transpose_b=True)(a, b), A23, randn(4, 3)),
    "BatchMatMul": (lambda a, b: ops.BatchMatMul(transpose_a=True)(a, b), randn(2, 3, 2), randn(3, 4)),
    "ReduceSum": (lambda a: (ops.sum(a), ops.sum(a, 1, keepdim=True)), A23),
    "ReduceMean": (lambda a: (ops.mean(a), ops.mean(a, 0, keep_dims=True)), A23),
    "ReduceMax": (lambda a: (ops.amax(a), ops.amax(a, 0, keepdims=True)), A23),
    "ReduceMin": (lambda a: (ops.amin(a), ops.amin(a, (1,))), A23),
}


def _numbers(exprs, subs):
    arr = np.asarray(exprs, dtype=object)
    values = []
    for e in arr.flat:
        v = sympy.sympify(e).xreplace(subs)
        values.append(bool(v) if isinstance(v, sympy.logic.boolalg.BooleanAtom) else float(v.evalf(30)))
    return np.array(values).reshape(arr.shape)


@pytest.mark.parametrize("name", sorted(RULES))
def test_sympy_rule_agrees_with_impl(name):
    fn, *args = RULES[name]
    expected = fn(*args)
    syms = [symbols_like(f"a{i}", a.shape) if isinstance(a, Tensor) else a for i, a in enumerate(args)]
    got = symbolic_call(fn, *syms)
    subs = {}
    for s, a in zip(syms, args):
        if isinstance(a, Tensor):
            subs.update({k: sympy.Float(float(v), 30) for k, v in zip(s.flat, a.asnumpy().flat)})
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = got if isinstance(got, tuple) else (got,)
    for g, e in zip(got, expected):
        values = _numbers(g, subs)
        assert values.shape == e.shape
        np.testing.assert_allclose(values.astype(np.float64), e.asnumpy().astype(np.float64),
                                   rtol=1e-12, atol=1e-12)


def test_every_sympy_rule_is_checked():
    from minims.core.primitive import Primitive as P
    classes = {o.__name__ for o in vars(ops).values()
               if isinstance(o, type) and issubclass(o, P) and o.sympy is not P.sympy
               and o.__module__.rsplit(".", 1)[-1] in ("math", "activation", "array", "compare",
                                                      "linalg", "reduce")}
    assert classes - set(RULES) <= {"Mod", "RealDiv", "TensorAdd"}, classes - set(RULES)


def test_reference_grad_runs_float32_layers_and_rounds_constants_like_the_op():
    # symbolic values take the float dtype of the tensors they stand for, so a float32 layer's dtype
    # checks pass; the reference for a Dense layer is its weight summed over outputs (linear map)
    import minims.nn as nn
    ms.set_seed(0)
    dense = nn.Dense(4, 2)
    x = Tensor(np.array([[0.1, 0.2, 0.3, 0.4]], np.float32))
    np.testing.assert_allclose(reference_grad(dense, x), dense.weight.asnumpy().sum(axis=0, keepdims=True),
                               rtol=1e-6)
    # x > 0.1 on a Float32 tensor compares with float32(0.1): the boundary element is not kept
    keep = lambda t: ops.select(ops.gt(t, 0.1), t, ops.zeros_like(t))
    xs = Tensor(np.array([0.1, 0.5], np.float32))
    np.testing.assert_array_equal(reference_grad(keep, xs), [0.0, 1.0])
    np.testing.assert_array_equal(ops.grad(keep)(xs).asnumpy(), [0.0, 1.0])
