"""print and dict methods in a compiled function mean what MindSpore's graph mode makes of them (issue 25).

Every expected text below is what MindSpore 2.10 printed for the same program (the oracle, run
2026-11-26; its graph-mode Print writes asynchronously, so only each line's text was compared, not the
interleaving with Python's own prints).
"""
import numpy as np
import pytest

import minims as ms
from minims import Tensor, jit, nn, ops
from minims.tensors.repr import print_op_text


def test_print_in_jit_runs_every_call_each_argument_on_its_own_line(capsys):
    @jit
    def f(x):
        print("x:", x)
        return x * 2
    f(Tensor(np.array([1.0, 2.0], np.float32)))
    f(Tensor(np.array([3.0, 4.0], np.float32)))
    assert f.traces == 1
    assert capsys.readouterr().out == (
        "x:\nTensor(shape=[2], dtype=Float32, value=[ 1.00000000e+00  2.00000000e+00])\n"
        "x:\nTensor(shape=[2], dtype=Float32, value=[ 3.00000000e+00  4.00000000e+00])\n")


def test_print_in_jit_shows_python_values_as_the_graph_holds_them(capsys):
    @jit
    def f(x):
        print("n", 3, 2.5, True, [1, 2], (3, 4), ("a", "b"), [1, [2, 3]], 0.1, False, {"k": 1}, -3, 1e20, 1 / 3, None)
        return x
    f(Tensor(1.0))
    assert capsys.readouterr().out.split("\n") == [
        "n", "3", "2.5", "1", "(1, 2)", "(3, 4)", "a", "b", "1", "2", "3", "0.1", "0", "(1)", "-3", "1e+20",
        "0.333333", "None", ""]


def test_print_of_a_static_constant_and_a_list_argument_as_the_static_graph_page(capsys):
    """MindSpore's pages: statements.md ``x = 3; print("x:", x)`` prints ``x:`` and ``3``; static_graph.md
    prints a list argument ``[1, 2]`` as ``(1, 2)``."""
    @jit
    def foo():
        x = 3
        print("x:", x)

    class Net(nn.Cell):
        @jit
        def construct(self, x, y=None):
            if y is not None:
                print("y:", y)
            else:
                print("y is None")
            print("x:", x)
            return y
    assert foo() is None
    assert Net()([1, 2]) is None
    assert capsys.readouterr().out == "x:\n3\ny is None\nx:\n(1, 2)\n"


def test_print_in_a_branch_prints_on_the_path_each_call_takes(capsys):
    @jit
    def h(x):
        if x > 0:
            print("pos", x)
        else:
            print("neg")
        return x
    for v in (2.0, -2.0, 3.0):
        h(Tensor(v, ms.float32))
    assert capsys.readouterr().out == "pos\n2\nneg\npos\n3\n"


def test_print_with_keyword_arguments_in_jit_raises_runtime_error_with_a_fix():
    """MindSpore 2.10: RuntimeError "Got an unexpected keyword argument 'sep'"."""
    @jit
    def f(x):
        print("a", "b", sep="-")
        return x
    with pytest.raises(RuntimeError, match="unexpected keyword argument 'sep'.*Fix:"):
        f(Tensor(1.0))


def test_a_print_the_function_rebinds_runs_as_written():
    seen = []

    @jit
    def f(x):
        print = seen.append         # noqa: A001 - the point of the test
        print("kept")
        return x
    f(Tensor(1.0))
    assert seen == ["kept"]


def test_capture_mode_trace_keeps_pythons_print_at_trace_time(capsys):
    @jit(capture_mode="trace")
    def f(x):
        print("tracing")
        return x
    f(Tensor([1.0]))
    f(Tensor([2.0]))
    assert capsys.readouterr().out == "tracing\n"


def test_dict_methods_in_jit_as_the_static_graph_page():
    """static_graph.md's dict block: keys()/values() give tuples, items() a list of pairs, has_key exists."""
    x = {"a": Tensor(np.array([1, 2, 3])), "b": Tensor(np.array([4, 5, 6]))}

    @jit
    def f():
        return x.keys(), x.values(), x.items(), x.has_key("a"), x.has_key("z")
    keys, values, items, has_a, has_z = f()
    assert keys == ("a", "b") and isinstance(values, tuple) and len(values) == 2
    assert isinstance(items, list) and [k for k, _ in items] == ["a", "b"]
    np.testing.assert_array_equal(items[1][1].asnumpy(), [4, 5, 6])
    assert has_a is True and has_z is False


def test_ops_print_shows_the_graph_layout_inside_jit_and_the_repr_in_pynative(capsys):
    print_op = ops.Print()

    @jit
    def m(x):
        print_op("pg", x)
        return x
    value = Tensor(np.array([1.5, 2], np.float32))
    print_op("pn", value)
    m(value)
    assert capsys.readouterr().out == (
        "pn\nTensor(shape=[2], dtype=Float32, value= [ 1.50000000e+00,  2.00000000e+00])\n"
        "pg\nTensor(shape=[2], dtype=Float32, value=[ 1.50000000e+00  2.00000000e+00])\n")


@pytest.mark.parametrize("array, dtype_name, text", [
    (np.arange(26, dtype=np.int32), "Int32",
     "Tensor(shape=[26], dtype=Int32, value=[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 \n"
     " 24 25])"),
    (np.array([True, False]), "Bool", "Tensor(shape=[2], dtype=Bool, value=[ True False])"),
    (np.array(True), "Bool", "1"),
    (np.array(-2.0, np.float32), "Float32", "-2"),
    (np.array(4.5, np.float32), "Float32", "4.5"),
    (np.arange(8, dtype=np.float32).reshape(2, 2, 2), "Float32",
     "Tensor(shape=[2, 2, 2], dtype=Float32, value=\n[[[ 0.00000000e+00  1.00000000e+00]\n  [ 2.00000000e+00  3.00000000e+00]]\n"
     " [[ 4.00000000e+00  5.00000000e+00]\n  [ 6.00000000e+00  7.00000000e+00]]])"),
    (np.arange(2000, dtype=np.float32), "Float32",
     "Tensor(shape=[2000], dtype=Float32, value=[ 0.00000000e+00  1.00000000e+00  2.00000000e+00 ...  1.99700000e+03  "
     "1.99800000e+03  1.99900000e+03])"),
    (np.array([np.nan], np.float32), "Float32", "Tensor(shape=[1], dtype=Float32, value=[            nan])"),
])
def test_print_op_text_is_mindspores_graph_print_layout(array, dtype_name, text):
    assert print_op_text(array, dtype_name) == text


@pytest.mark.parametrize("use", ["print", "format"])
def test_an_unassigned_variable_printed_or_formatted_raises_as_python(use):
    """Python raises UnboundLocalError for print(y) or f"{y}" of a y no path assigned; converted code must
    too, never show its placeholder as the value."""
    @jit
    def f(x, flag):
        if flag:
            y = x
        if use == "print":
            print("y", y)
        else:
            x = x + len(f"{y}")
        return x
    with pytest.raises(UnboundLocalError, match="'y'"):
        f(Tensor([1.0]), False)
