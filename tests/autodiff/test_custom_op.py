"""Issue 26 item 3: ``ops.Custom`` — a row of the primitive table built at run time
(``minims/autodiff/custom_op.py``, ``minims/fast/hybrid.py``).  Expected values: MindSpore 2.10 oracle
runs (quoted per test), closed forms and SymPy."""
import warnings

import numpy as np
import pytest

import minims as ms
from minims import Tensor, ops
from minims.autodiff.custom_op import CustomLoopWarning, CustomOpError, CustomOutputError


def _sin_np(x):
    return np.sin(x)


def _sin_bprop(x, out, dout):
    return (dout * ops.cos(x),)


def _sin_op(**kw):
    return ops.Custom(_sin_np, lambda x: x, lambda x: x, "pyfunc", bprop=_sin_bprop, **kw)


X = np.array([0.5, 1.0], np.float32)


def test_custom_pyfunc_forward_grad_and_jit():
    """Item 3.  MindSpore 2.10: Custom(np.sin, bprop=dout*cos) at [0.5, 1] gives [0.47942555, 0.841471],
    grad [0.87758255, 0.5403023]; jit(c(a) * 2) gives [0.9588511, 1.682942]; grad of the jitted
    function is the same gradient times 2."""
    c = _sin_op()
    x = Tensor(X)
    np.testing.assert_allclose(c(x).asnumpy(), [0.47942555, 0.841471], rtol=1e-6)
    np.testing.assert_allclose(ms.grad(lambda a: c(a))(x).asnumpy(), [0.87758255, 0.5403023], rtol=1e-6)
    jitted = ms.jit(lambda a: c(a) * 2)
    np.testing.assert_allclose(jitted(x).asnumpy(), [0.9588511, 1.682942], rtol=1e-6)
    np.testing.assert_allclose(ms.grad(jitted)(x).asnumpy(), [1.7551651, 1.0806046], rtol=1e-6)


def test_custom_without_bprop_cannot_be_differentiated():
    """Item 3.  MindSpore 2.10: grad of a Custom without bprop raises RuntimeError "Illegal primitive
    Custom's bprop not defined"."""
    c = ops.Custom(_sin_np, lambda x: x, lambda x: x, "pyfunc")
    with pytest.raises(RuntimeError, match="bprop not defined"):
        ms.grad(lambda a: c(a))(Tensor(X))


def test_custom_forward_mode_follows_the_bprop():
    """Item 3: forward mode transposes the bprop, as MindSpore does: jvp of sin at [0.5, 1] along
    [1, 2] is [cos 0.5, 2 cos 1] (closed form)."""
    _, tangent = ops.jvp(_sin_op(), Tensor(X), Tensor(np.array([1., 2.], np.float32)))
    np.testing.assert_allclose(tangent.asnumpy(), [np.cos(0.5), 2 * np.cos(1.0)], rtol=1e-6)


def test_custom_with_two_outputs_and_declared_types():
    """Item 3.  MindSpore 2.10: Custom(lambda a, b: (a + b, a * b), out_shape (a, a), out_dtype (a, a))
    at ([0.5, 1], [0.5, 1]) gives ([1, 2], [0.25, 1]); a func returning float64 where float32 was
    declared is an error (MindSpore: RuntimeError)."""
    two = ops.Custom(lambda a, b: (a + b, a * b), lambda a, b: (a, a), lambda a, b: (a, a), "pyfunc")
    s, p = two(Tensor(X), Tensor(X))
    np.testing.assert_array_equal(s.asnumpy(), [1., 2.])
    np.testing.assert_array_equal(p.asnumpy(), [0.25, 1.])
    wrong = ops.Custom(lambda a: a.astype(np.float64), lambda a: a, lambda a: a, "pyfunc")
    with pytest.raises(CustomOutputError, match="out_dtype declares Float32") as info:
        wrong(Tensor(X))
    assert isinstance(info.value, RuntimeError)


def test_custom_func_type_is_checked():
    """Item 3.  MindSpore 2.10: func_type 'xx' raises ValueError "'func_type' must be one of ['hybrid',
    'akg', 'tbe', 'aicpu', 'aot', 'pyfunc']"; the compiled kinds minims has no compiler for are refused
    when the op is built."""
    with pytest.raises(ValueError, match="'func_type' must be one of"):
        ops.Custom(_sin_np, lambda x: x, lambda x: x, "xx")
    with pytest.raises(CustomOpError, match="aot"):
        ops.Custom(_sin_np, lambda x: x, lambda x: x, "aot")


def test_custom_vmap_loops_with_a_warning_or_uses_the_rule():
    """Item 3.  MindSpore 2.10: vmap of the sine Custom over three rows of ones gives sin(1) = 0.841471
    everywhere; without a rule minims warns once (CustomLoopWarning); a rule is used without warning."""
    x = Tensor(np.ones((3, 2), np.float32))
    with pytest.warns(CustomLoopWarning, match="once per example"):
        out = ops.vmap(_sin_op())(x)
    np.testing.assert_allclose(out.asnumpy(), np.full((3, 2), 0.841471), rtol=1e-6)
    calls = []

    def rule(size, in_batched, a):
        calls.append((size, in_batched))
        return ops.sin(a), True
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = ops.vmap(_sin_op(vmap=rule))(x)
    assert calls == [(3, (True,))]
    np.testing.assert_allclose(out.asnumpy(), np.full((3, 2), 0.841471), rtol=1e-6)


def test_custom_in_the_symbolic_interpreter():
    """Item 3: without a SymPy form the symbolic interpreter refuses, naming the op; with one the
    formula is SymPy's sin (closed form)."""
    sympy = pytest.importorskip("sympy")
    from minims.interpreters.symbolic import symbolic_call, symbols_like
    with pytest.raises(NotImplementedError, match=r"ops.Custom\(_sin_np\).*no SymPy form"):
        symbolic_call(lambda t: ops.sum(_sin_op()(t)), symbols_like("x", (2,)))
    c = _sin_op(sympy=np.frompyfunc(sympy.sin, 1, 1))
    x = symbols_like("x", (2,))
    assert symbolic_call(lambda t: ops.sum(c(t)), x) == sympy.sin(x[0]) + sympy.sin(x[1])


@ops.kernel
def _add_kernel(a, b):
    c = output_tensor(a.shape, a.dtype)  # noqa: F821 - an intrinsic of the Hybrid DSL
    for i0 in range(a.shape[0]):
        c[i0] = a[i0] + b[i0]
    return c


def test_custom_kernel_runs_as_python_and_under_numba():
    """Item 3.  MindSpore 2.10: the @ops.kernel add, called directly or as a 'pyfunc' Custom on
    ([0.5, 1], [0.5, 1]), gives [1, 2] (its CPU build cannot compile 'hybrid': no AKG); minims compiles
    'hybrid' with Numba when it is installed, and says how to do without it otherwise."""
    x = Tensor(X)
    np.testing.assert_array_equal(_add_kernel(X, X), [1., 2.])
    as_python = ops.Custom(_add_kernel, lambda a, b: a, lambda a, b: a, "pyfunc")
    np.testing.assert_array_equal(as_python(x, x).asnumpy(), [1., 2.])
    from minims import fast
    if fast.numba_available():
        compiled = ops.Custom(_add_kernel, lambda a, b: a, lambda a, b: a, "hybrid")
        np.testing.assert_array_equal(compiled(x, x).asnumpy(), [1., 2.])


def test_custom_hybrid_without_numba_is_refused(monkeypatch):
    """Item 3: the pure path works without Numba, and 'hybrid' then says so (minims' own refusal)."""
    from minims import fast
    monkeypatch.setattr(fast, "numba_available", lambda: False)
    with pytest.raises(CustomOpError, match="Numba, which is not installed"):
        ops.Custom(_add_kernel, lambda a, b: a, lambda a, b: a, "hybrid")
