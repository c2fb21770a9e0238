"""``set_context(check_nan=True)``: the first primitive that makes NaN/Inf out of finite inputs raises,
naming itself, the pass, the Cell and a fix; off (the default), NaN/Inf propagate as in NumPy.

Expected values come from mathematics (log 0 = -inf, d/dx sqrt(x) = 1 / (2 sqrt x) is infinite at 0,
exp(100) exceeds float32's largest value 3.4e38) and from NumPy itself for the propagation case.
"""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import minims as ms
import minims.nn as nn
import minims.ops as ops
from minims import Tensor, jit
from minims.core import stack
from minims.interpreters import nan_check
from minims.interpreters.nan_check import NonFiniteError
from minims.testing import leftover_state

pytestmark = pytest.mark.filterwarnings("ignore:.*encountered:RuntimeWarning")


@pytest.fixture(autouse=True)
def checking_off_and_clean_afterwards():
    yield
    ms.set_context(check_nan=False, mode=ms.PYNATIVE_MODE)
    assert not leftover_state(), leftover_state()


def checking():
    ms.set_context(check_nan=True)


def f32(*values):
    return Tensor(np.array(values, np.float32))


class Head(nn.Cell):
    def construct(self, x):
        return ops.log(x)


class Net(nn.Cell):
    """Net.head computes log(2x): -inf where x = 0."""

    def __init__(self):
        super().__init__()
        self.head = Head()

    def construct(self, x):
        return self.head(x * 2.0)


class SqrtSum(nn.Cell):
    def construct(self, x):
        return ops.sqrt(x).sum()


class Outer(nn.Cell):
    """3 * sum(sqrt(x)): finite forward at x = 0, infinite derivative 3 / (2 sqrt x) there."""

    def __init__(self):
        super().__init__()
        self.inner = SqrtSum()

    def construct(self, x):
        return self.inner(x) * 3.0


# ----- off: the default ---------------------------------------------------------------------------------
def test_off_by_default_and_read_back_by_get_context():
    assert ms.get_context("check_nan") is False
    checking()
    assert ms.get_context("check_nan") is True
    ms.set_context(check_nan=False)
    assert ms.get_context("check_nan") is False
    with pytest.raises(TypeError, match="check_nan must be a bool"):
        ms.set_context(check_nan=1)


def test_off_nan_and_inf_propagate_as_in_numpy():
    a = np.array([0.0, 1.0, -1.0], np.float32)
    x = Tensor(a)
    with np.errstate(all="ignore"):
        expected = [np.log(a), np.sqrt(a), a / np.zeros(3, np.float32), np.exp(a * 100.0)]
    got = [ops.log(x), ops.sqrt(x), x / Tensor(np.zeros(3, np.float32)), ops.exp(x * 100.0)]
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g.asnumpy(), e)     # equal NaN positions count as equal
    # the derivative of sqrt at 0 is +inf, at -1 NaN; in Graph mode too
    np.testing.assert_array_equal(ms.grad(lambda x: ops.sqrt(x).sum())(x).asnumpy(), [np.inf, 0.5, np.nan])
    np.testing.assert_array_equal(jit(lambda x: ops.log(x))(x).asnumpy(), expected[0])


def test_off_the_plain_code_runs_and_the_checking_plan_is_never_built():
    assert stack.evaluator() is stack.evaluate
    f = jit(lambda x: ops.log(x) * 2.0)
    x = f32(0.0, 1.0)
    np.testing.assert_array_equal(f(x).asnumpy(), [-np.inf, 0.0])
    plan = f._compiled((x,)).call.plan
    assert plan._checking_fn is None and "bad(" not in plan.source
    checking()
    assert stack.evaluator() is nan_check.checked_evaluate
    with pytest.raises(NonFiniteError):
        f(x)
    assert "if bad(" in plan.checking_source()
    ms.set_context(check_nan=False)
    assert stack.evaluator() is stack.evaluate
    np.testing.assert_array_equal(f(x).asnumpy(), [-np.inf, 0.0])


@pytest.mark.slow
def test_off_no_numpy_warning_is_printed_for_log_of_zero():
    # a fresh interpreter with every warning shown: pytest replaces the warning filters per test
    code = textwrap.dedent("""
        import numpy as np
        import minims as ms
        from minims import Tensor, ops, jit
        x = Tensor(np.array([0.0, -1.0, 1.0], np.float32))
        for t in (ops.log(x), ops.sqrt(x), x / 0.0, ms.grad(lambda x: ops.sqrt(x).sum())(x),
                  jit(lambda x: ops.log(x))(x)):
            print(t.asnumpy().tolist())
    """)
    proc = subprocess.run([sys.executable, "-W", "default", "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    # log, sqrt, division by 0, d/dx sqrt(x) = 1 / (2 sqrt(x)), log again compiled
    assert proc.stdout.splitlines() == ["[-inf, nan, 0.0]", "[0.0, nan, 1.0]", "[nan, -inf, inf]",
                                        "[inf, nan, 0.5]", "[-inf, nan, 0.0]"]
    assert proc.stderr == ""


# ----- PyNative ----------------------------------------------------------------------------------------
def test_forward_names_the_primitive_the_pass_the_inputs_and_a_fix():
    checking()
    with pytest.raises(NonFiniteError) as info:
        ops.log(f32(0.0, 1.0, 2.0))
    assert isinstance(info.value, RuntimeError)
    msg = str(info.value)
    for words in ["Log produced -Inf", "from finite inputs", "in the forward pass",
                  "Tensor(shape=[3], dtype=Float32) in [0, 2]", "1 of 3 values not finite",
                  "-inf at index [0]", "Fix:", "ops.maximum(x, 1e-12)"]:
        assert words in msg, (words, msg)


def test_backward_names_the_rule_it_ran_in():
    checking()
    x = f32(0.0, 4.0)
    assert ops.sqrt(x).asnumpy().tolist() == [0.0, 2.0]           # the forward pass is finite
    with pytest.raises(NonFiniteError) as info:
        ms.grad(lambda x: ops.sqrt(x).sum())(x)
    msg = str(info.value)
    for words in ["SqrtGrad produced +Inf", "in the backward pass, in the backward rule of Sqrt",
                  "0.5 / sqrt(x), is infinite at x = 0", "ops.sqrt(x + 1e-12)"]:
        assert words in msg, (words, msg)


def test_inside_cells_the_path_is_named_forward_and_backward():
    checking()
    with pytest.raises(NonFiniteError, match=r"in the forward pass, in Cell Net\.head"):
        Net()(f32(0.0, 1.0))
    with pytest.raises(NonFiniteError, match=r"rule of Sqrt, whose forward ran in Cell Outer\.inner"):
        ms.grad(Outer())(f32(0.0, 1.0))


def test_in_a_training_step_the_backward_error_names_the_cell_the_forward_ran_in():
    class WeightedSqrt(nn.Cell):
        """sum(sqrt(w * x)): d/dw = x / (2 sqrt(w x)), infinite at w = 0."""

        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(f32(0.0, 1.0), name="w")

        def construct(self, x):
            return ops.sqrt(self.w * x).sum()

    class Model(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = WeightedSqrt()

        def construct(self, x):
            return self.inner(x)
    model = Model()
    step = nn.TrainOneStepCell(model, nn.SGD(model.trainable_params(), learning_rate=0.1))
    checking()
    where = r"rule of Sqrt, whose forward ran in Cell TrainOneStepCell\.network\.inner"
    with pytest.raises(NonFiniteError, match=where):
        step(f32(1.0, 1.0))
    assert model.inner.w.asnumpy().tolist() == [0.0, 1.0]       # the failed step wrote nothing


def test_a_custom_bprop_that_divides_by_zero_is_named_with_its_cell():
    class Recip(nn.Cell):
        def construct(self, x):
            return x * 1.0

        def bprop(self, x, out, dout):
            return (dout / x,)

    class Model(nn.Cell):
        def __init__(self):
            super().__init__()
            self.recip = Recip()

        def construct(self, x):
            return self.recip(x).sum()

    checking()
    with pytest.raises(NonFiniteError) as info:
        ms.grad(Model())(f32(0.0, 2.0))
    assert "Div produced +Inf" in str(info.value)
    assert "backward rule of Recip.bprop (the bprop of Cell Model.recip)" in str(info.value)


def test_the_first_producer_is_named_not_the_ops_the_nan_flows_through():
    checking()
    # log(x - 1) is NaN at x = 0.5; exp and mul only pass the NaN on
    for f in (lambda x: ops.exp(ops.log(x - 1.0)) * 2.0, jit(lambda x: ops.exp(ops.log(x - 1.0)) * 2.0)):
        with pytest.raises(NonFiniteError, match="^check_nan: Log produced NaN"):
            f(f32(0.5, 3.0))


def test_values_that_arrive_non_finite_are_not_blamed_on_the_ops_they_flow_through():
    checking()
    x = f32(np.nan, np.inf, 4.0)
    with np.errstate(all="ignore"):
        expected = np.sqrt(np.array([np.nan, np.inf, 4.0], np.float32)) * 2.0
    np.testing.assert_array_equal((ops.sqrt(x) * 2.0).asnumpy(), expected)
    np.testing.assert_array_equal(jit(lambda x: ops.sqrt(x) * 2.0)(x).asnumpy(), expected)


def test_integer_outputs_are_ignored():
    checking()
    a, b = np.array([2 ** 30, -7], np.int32), np.array([4, 0], np.int32)
    with np.errstate(all="ignore"):
        expected = a * b                          # Int32 wraps around: 2**32 is 0; no NaN to report
    np.testing.assert_array_equal((Tensor(a) * Tensor(b)).asnumpy(), expected)
    assert (Tensor(a) > Tensor(b)).asnumpy().tolist() == [True, False]
    with pytest.raises(ZeroDivisionError, match="integer division by zero"):   # no integer is x // 0:
        Tensor(a) // Tensor(b)                                                 # refused, check_nan or not


def test_overflow_says_which_dtype_overflowed():
    checking()
    with pytest.raises(NonFiniteError, match=r"Exp produced \+Inf.*\n(.*\n)*.*88\.7 in float32"):
        ops.exp(f32(100.0))          # e**100 = 2.7e43 > 3.4e38
    with pytest.raises(NonFiniteError, match=r"Mul produced \+Inf(.*\n)*.*largest float32 \(3\.4e\+38\)"):
        f32(1e30) * f32(1e30)


# ----- Graph mode ----------------------------------------------------------------------------------------
def test_graph_mode_forward_names_the_graph_the_equation_and_the_cell():
    checking()
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(NonFiniteError) as info:
        Net()(f32(0.0, 1.0))
    msg = str(info.value)
    for words in ["Log produced -Inf", "in a compiled graph, in Cell Net", "in graph 'Net'",
                  "= Log(%", "ops.maximum(x, 1e-12)"]:
        assert words in msg, (words, msg)


def test_graph_mode_backward_is_checked_too():
    checking()
    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(NonFiniteError) as info:
        ms.grad(Outer())(f32(0.0, 1.0))
    msg = str(info.value)
    for words in ["SqrtGrad produced +Inf", "in the backward pass of the compiled 'Outer'", "graph 'Outer_grad'"]:
        assert words in msg, (words, msg)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(NonFiniteError, match="SqrtGrad produced"):
        ms.grad(jit(lambda x: ops.sqrt(x).sum()))(f32(0.0, 1.0))


# ----- no state left behind ----------------------------------------------------------------------------
def test_after_an_error_the_next_call_is_right_in_both_modes():
    checking()
    good = f32(1.0, 4.0)
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        net, outer = Net(), Outer()
        with pytest.raises(NonFiniteError):
            net(f32(0.0, 1.0))
        with pytest.raises(NonFiniteError):
            ms.grad(outer)(f32(0.0, 1.0))
        assert not leftover_state(), leftover_state()
        np.testing.assert_allclose(net(good).asnumpy(), np.log([2.0, 8.0]), rtol=1e-6)
        np.testing.assert_allclose(ms.grad(outer)(good).asnumpy(), [1.5, 0.75], rtol=1e-6)  # 3 / (2 sqrt x)
    ms.set_context(check_nan=False)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(Net()(f32(0.0)).asnumpy(), [-np.inf])
