"""GradOperation, grad and value_and_grad: output structures, sensitivities, weights.

Expected structures and numbers were printed by MindSpore 2.10 (PyNative) for the same calls, or
follow from the derivative by hand (noted per test).
"""
import numpy as np
import pytest

import minims as ms
from minims import Parameter, ParameterTuple, Tensor, ops

X = [1.0, 2.0]
Y = [3.0, 4.0]


def xy():
    return Tensor(X, ms.float32), Tensor(Y, ms.float32)


def f(x, y):
    return (x * y).sum()


def two_outputs(x, y):
    return x * y, x + y


def assert_tensor(t, values, dtype=ms.float32):
    assert isinstance(t, Tensor), type(t)
    assert t.dtype is dtype
    np.testing.assert_allclose(t.asnumpy(), values, rtol=1e-6)


def test_gradoperation_default_returns_the_first_inputs_gradient():
    x, y = xy()
    assert_tensor(ops.GradOperation()(f)(x, y), Y)


def test_gradoperation_get_all_returns_a_tuple_even_for_one_input():
    x, _ = xy()
    out = ops.GradOperation(get_all=True)(lambda x: (x * x).sum())(x)
    assert isinstance(out, tuple) and len(out) == 1
    assert_tensor(out[0], [2.0, 4.0])


def test_gradoperation_get_by_list_and_both():
    x, _ = xy()
    w = Parameter(Tensor([1.0, 1.0], ms.float32), name="w")
    h = lambda x: (x * w).sum()
    by_list = ops.GradOperation(get_by_list=True)(h, ParameterTuple([w]))(x)
    assert isinstance(by_list, tuple) and len(by_list) == 1
    assert_tensor(by_list[0], X)
    ins, ws = ops.GradOperation(get_all=True, get_by_list=True)(h, ParameterTuple([w]))(x)
    assert_tensor(ins[0], [1.0, 1.0])
    assert_tensor(ws[0], X)


def test_sens_param_scales_the_gradient():
    x, y = xy()
    out = ops.GradOperation(sens_param=True)(f)(x, y, Tensor(2.0, ms.float32))
    assert_tensor(out, [6.0, 8.0])


def test_sens_param_without_sensitivity_says_how_to_pass_it():
    x, y = xy()
    with pytest.raises(TypeError, match="sensitivity"):
        ops.GradOperation(sens_param=True)(f)(x, y)
    assert_tensor(ops.GradOperation()(f)(x, y), Y)     # nothing left behind


def test_sensitivity_of_the_wrong_shape_is_a_value_error():
    x, y = xy()
    with pytest.raises(ValueError, match="sensitivity"):
        ops.GradOperation(sens_param=True)(lambda x, y: x * y)(x, y, Tensor([1.0, 2.0, 3.0]))


def test_non_scalar_output_gets_a_ones_sensitivity():
    x, _ = xy()
    assert_tensor(ops.grad(lambda x: x * x)(x), [2.0, 4.0])


def test_tuple_output_sums_the_gradients_of_every_output():
    x, y = xy()
    # MindSpore 2.10: ops.grad(lambda x, y: (x * y, x + y))(x, y) -> [4. 5.] = y + 1
    assert_tensor(ops.grad(two_outputs)(x, y), [4.0, 5.0])


def test_grad_position_tuple():
    x, y = xy()
    gx, gy = ops.grad(f, grad_position=(0, 1))(x, y)
    assert_tensor(gx, Y)
    assert_tensor(gy, X)


def test_grad_position_out_of_range_is_an_error_naming_the_position():
    x, y = xy()
    with pytest.raises(RuntimeError, match="grad_position 5"):
        ops.grad(f, grad_position=5)(x, y)
    with pytest.raises(ValueError, match="out of range"):
        ops.grad(f, grad_position=2)(x, y)
    assert_tensor(ops.grad(f)(x, y), Y)


def test_has_aux_returns_gradients_and_the_auxiliary_outputs():
    x, y = xy()
    grads, aux = ops.grad(two_outputs, has_aux=True)(x, y)
    assert_tensor(grads, Y)                 # only x*y contributes
    assert isinstance(aux, tuple) and len(aux) == 1
    assert_tensor(aux[0], [4.0, 6.0])


def test_value_and_grad_returns_the_whole_output_and_gradients():
    x, y = xy()
    value, grads = ops.value_and_grad(two_outputs)(x, y)
    assert_tensor(value[0], [3.0, 8.0])
    assert_tensor(value[1], [4.0, 6.0])
    assert_tensor(grads, [4.0, 5.0])
    value, grads = ops.value_and_grad(two_outputs, has_aux=True)(x, y)
    assert_tensor(value[0], [3.0, 8.0])
    assert_tensor(grads, Y)


def test_value_is_a_plain_tensor_not_a_tracer():
    from minims.core.stack import Tracer
    x, y = xy()
    value, _ = ops.value_and_grad(f)(x, y)
    assert not isinstance(value, Tracer)


def test_weights_are_differentiated_without_being_arguments_or_mutated():
    x, _ = xy()
    w = Parameter(Tensor([1.0, 1.0], ms.float32), name="w")
    h = lambda x: (x * w).sum()
    only_w = ops.grad(h, grad_position=None, weights=[w])(x)
    assert isinstance(only_w, tuple)
    assert_tensor(only_w[0], X)
    gx, gw = ops.grad(h, grad_position=0, weights=[w])(x)
    assert_tensor(gx, [1.0, 1.0])
    assert_tensor(gw[0], X)
    assert w.tolist() == [1.0, 1.0]
    assert type(w) is Parameter


def test_return_ids_pairs_positions_and_parameter_names():
    x, y = xy()
    (p0, g0), (p1, g1) = ops.grad(f, grad_position=(0, 1), return_ids=True)(x, y)
    assert (p0, p1) == (0, 1)
    w = Parameter(Tensor([1.0, 1.0], ms.float32), name="w")
    (pos, gx), ((name, gw),) = ops.grad(lambda x: (x * w).sum(), 0, weights=[w], return_ids=True)(x)
    assert pos == 0 and name == "w"


def test_unused_input_gets_zeros():
    x, y = xy()
    gx, gy = ops.grad(lambda x, y: x * 2, grad_position=(0, 1))(x, y)
    assert_tensor(gx, [2.0, 2.0])
    assert_tensor(gy, [0.0, 0.0])


def test_integer_inputs_have_integer_gradients_as_in_the_debugging_page():
    # seed 003 prints (Tensor(shape=[], dtype=Int32, value=2), Tensor(shape=[], dtype=Int32, value=1))
    out = ops.GradOperation(get_all=True)(lambda x, y: x * y)(Tensor(1, ms.int32), Tensor(2, ms.int32))
    assert repr(out) == "(Tensor(shape=[], dtype=Int32, value=2), Tensor(shape=[], dtype=Int32, value=1))"


def test_minims_namespace_exposes_grad_and_value_and_grad():
    assert ms.grad is ops.grad and ms.value_and_grad is ops.value_and_grad
    assert ms.GradOperation is ops.GradOperation


def test_calling_a_gradient_function_twice_gives_the_same_answer():
    x, y = xy()
    g = ops.grad(lambda x: (ops.sin(x) * ops.exp(x)).sum())
    a, b = g(x).asnumpy(), g(x).asnumpy()
    np.testing.assert_array_equal(a, b)


def test_a_string_where_a_tensor_belongs_is_a_type_error():
    _, y = xy()
    with pytest.raises(TypeError, match="Tensor"):
        ops.grad(f)("a", y)


def test_weights_must_be_parameters():
    x, _ = xy()
    with pytest.raises(TypeError, match="Parameter"):
        ops.grad(f, weights=[Tensor([1.0])])
