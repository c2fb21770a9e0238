"""Bad input: MindSpore's exception types, messages that name the op, what came and the fix."""
import numpy as np
import pytest

import minims as ms
from minims import Parameter, ParameterTuple, Tensor, ops
from minims.interpreters.rules import GradientError
from minims.core.primitive import Primitive
from minims.testing import leftover_state


def f32(*shape):
    return Tensor(np.ones(shape, np.float32))


@pytest.mark.parametrize("call,kind,words", [
    (lambda: ops.matmul(f32(2, 3), f32(4, 5)), ValueError, ["MatMul", "[2, 3]", "[4, 5]"]),
    (lambda: ops.MatMul(transpose_b=True)(f32(2, 3), f32(3, 5)), ValueError, ["MatMul", "transposed"]),
    (lambda: ops.MatMul()(f32(2, 3), Tensor(np.ones((3, 2)))), TypeError, ["MatMul", "Float32", "Float64"]),
    (lambda: f32(2) + f32(3), ValueError, ["Add", "[2]", "[3]", "broadcast"]),
    (lambda: ops.mul(f32(2, 3), f32(4, 3)), ValueError, ["Mul", "[2, 3]", "[4, 3]"]),
    (lambda: ops.reshape(f32(2, 3), (4, 2)), ValueError, ["Reshape", "[2, 3]", "[4, 2]"]),
    (lambda: ops.broadcast_to(f32(2, 3), (4, 3)), ValueError, ["BroadcastTo", "[2, 3]"]),
    (lambda: ops.add(f32(2), "a"), TypeError, ["Add", "str", "Tensor"]),
    (lambda: ops.exp("a"), TypeError, ["Exp", "str"]),
    (lambda: ops.sum(f32(2, 3), 2), ValueError, ["ReduceSum", "axis 2", "rank 2"]),
    (lambda: ops.transpose(f32(2, 3), (0, 0)), ValueError, ["Transpose", "permutation"]),
    (lambda: ops.squeeze(f32(2, 3), 0), ValueError, ["Squeeze", "size 2"]),
    (lambda: ops.select(f32(2), f32(2), f32(2)), TypeError, ["Select", "Bool"]),
    # MindSpore 2.10: RuntimeError "For 'Gather', the 'input_indices' should be in the range [0, 3)"
    (lambda: ops.gather(f32(3, 2), Tensor([5]), 0), RuntimeError, ["Gather", "5", "out of range", "Fix"]),
    (lambda: ops.fill(ms.float32, (2,), "x"), TypeError, ["Fill", "str"]),
    (lambda: ops.cast(f32(2), "complex"), TypeError, ["dtype"]),
    (lambda: Parameter(Tensor([1.0]), name=3), TypeError, ["name", "string"]),
    (lambda: ParameterTuple([Tensor([1.0])]), TypeError, ["ParameterTuple", "Parameter"]),
    (lambda: Parameter(Tensor([1.0, 2.0]), name="b").set_data(Tensor([1.0, 2.0, 3.0])), ValueError,
     ["set_data", "[2]", "[3]"]),
    (lambda: ms.set_context(mode=5), ValueError, ["mode", "GRAPH_MODE"]),
])
def test_bad_input_raises_mindsporess_type_with_a_message_that_helps(call, kind, words):
    with pytest.raises(kind) as info:
        call()
    for w in words:
        assert w in str(info.value), (w, str(info.value))


def test_errors_inside_a_gradient_leave_no_level_behind_and_the_next_call_is_right():
    x = f32(2, 3)
    with pytest.raises(ValueError):
        ops.grad(lambda x: ops.matmul(x, x).sum())(x)
    assert not leftover_state(), leftover_state()
    g = ops.grad(lambda x: ops.matmul(x, ops.transpose(x, (1, 0))).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), np.full((2, 3), 4.0))


def test_no_raw_numpy_error_escapes_from_an_op():
    # a NumPy failure inside impl is re-raised naming the primitive
    with pytest.raises(IndexError, match="GetItem"):
        f32(2, 3)[5]


def test_duplicate_names_in_parameter_tuple():
    a, b = Parameter(Tensor([1.0]), name="w"), Parameter(Tensor([2.0]), name="w")
    with pytest.raises(ValueError, match="'w'"):
        ParameterTuple([a, b])


def _wrong_shape_rule(cls_attrs):
    class Doubler(Primitive):
        def impl(self, x):
            return x * 2

        def bprop(self, x, out, dout):
            return (ops.sum(dout),)          # a scalar for a vector input: the wrong shape
    for k, v in cls_attrs.items():
        setattr(Doubler, k, v)
    return Doubler()


def test_a_user_primitive_rule_of_the_wrong_shape_is_refused():
    prim = _wrong_shape_rule({})
    with pytest.raises(GradientError, match=r"Doubler.bprop: gradient 0 has shape \[\], but input 0 has shape \[2\]"):
        ms.grad(lambda x: prim(x).sum())(Tensor([1.0, 2.0]))


def test_built_in_rules_are_checked_when_every_rule_is_asked_for():
    """Built-in rules skip the per-call check; the property tests switch it on for the whole table."""
    from minims.interpreters import rules
    prim = _wrong_shape_rule({"checks_rule_results": False})
    rules.check_every_rules(True)
    try:
        with pytest.raises(GradientError, match="gradient 0 has shape"):
            ms.grad(lambda x: prim(x).sum())(Tensor([1.0, 2.0]))
    finally:
        rules.check_every_rules(False)
