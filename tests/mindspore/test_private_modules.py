"""MindSpore's private modules that its own unit tests import (issue 25, second done-criterion).

tools/run_mindspore_tests.py runs MindSpore's test files with only the import changed; many import
private names beside what they test: ``mindspore._checkparam`` (the argument validators),
``mindspore.common.parameter._is_parameter_generated``, ``mindspore.train.callback._CheckpointManager``,
``mindspore.common.api._cell_graph_executor``, ``mindspore._c_expression`` (``security``,
``CreationType``) and ``mindspore.train.serialization``'s ``export``/``load``/``_save_graph``. minims
gives each its real behaviour, or, for what only MindSpore's C++ runtime does, a MissingNameError
saying so. Expected values: MindSpore 2.10 (CPU) on the same code (the oracle, /tmp/oracle/bin/python),
quoted in each test.
"""
import importlib
import os

import numpy as np
import pytest

import minims as ms
from minims import Parameter, Tensor, nn
from minims.layout import MissingNameError


def validator():
    """``mindspore._checkparam`` (imported in each test, so that each fails on its own without it)."""
    return importlib.import_module("minims._checkparam")


# (check, arguments, MindSpore 2.10's exception type, its message), from the oracle
CHECK_FAILURES = [
    ("check_is_int", (3.3,), TypeError, "The type of input value must be 'int', but got 'float'."),
    ("check_is_int", (True,), TypeError, "The type of input value must be 'int', but got 'bool'."),
    ("check_is_int", (3.3, "x", "Conv2d"), TypeError, "For 'Conv2d', the type of 'x' must be 'int', but got 'float'."),
    ("check_is_int", (3.3, "x"), TypeError, "The type of 'x' must be 'int', but got 'float'."),
    ("check_is_float", (float("inf"),), ValueError, "The input value must be a legal float, but got 'inf'."),
    ("check_bool", (1,), TypeError, "The input value must be a bool, but got int."),
    ("check_bool", (1, "flag", "Dense"), TypeError, "For 'Dense', the 'flag' must be a bool, but got int."),
    ("check_positive_int", (-1,), ValueError,
     "The input value must be int and must > 0, but got '-1' with type 'int'."),
    ("check_positive_int", (2.0,), TypeError, "The input value must be int, but got 'float'"),
    ("check_positive_int", (True,), TypeError,
     "The input value must be int and must > 0, but got 'True' with type 'bool'."),
    ("check_positive_int", (-1, "k", "Conv2d"), ValueError,
     "For 'Conv2d', the 'k' must be int and must > 0, but got '-1' with type 'int'."),
    ("check_positive_float", (True,), TypeError, "The input value must be float, but got 'bool'"),
    ("check_positive_float", (float("nan"),), ValueError, "The input value must be a legal value, but got 'nan'."),
    ("check_non_negative_int", (-1,), ValueError,
     "The input value must be int and must >= 0, but got '-1' with type 'int'."),
    ("check_non_negative_float", (-0.5, "lr", "Adam"), ValueError,
     "For 'Adam', the 'lr' must be float and must >= 0, but got '-0.5' with type 'float'."),
    ("check_non_positive_float", (0.5, None, "Adam"), ValueError,
     "For 'Adam', the input value must be float and must <= 0, but got '0.5' with type 'float'."),
    ("check_input_format", ("rt",), ValueError, "The data format must be NCHW, but got rt."),
    ("check_str_by_regular", ("a b",), ValueError,
     r"The 'a b' is illegal, it must be match regular'^\w+[0-9a-zA-Z\_\.]*$' by flags're.ASCII.'"),
    ("check_str_by_regular", ("x", r"^\d+$", 0, "P"), ValueError,
     r"For 'P', the 'x' is illegal, it must be match regular'^\d+$' by flags'0.'"),
]


@pytest.mark.parametrize("check, args, error, message", CHECK_FAILURES,
                         ids=[f"{c[0]}{c[1]}" for c in CHECK_FAILURES])
def test_checkparam_refuses_with_mindspores_type_and_words(check, args, error, message):
    """Issue 25 (tests criterion): each _checkparam check raises MindSpore 2.10's type and message (oracle)."""
    with pytest.raises(error) as info:
        getattr(validator(), check)(*args)
    assert type(info.value) is error and str(info.value) == message


def test_checkparam_returns_what_passes():
    """Issue 25: a valid value comes back (oracle: check_is_int(3) -> 3, check_bool(False) -> False,
    check_positive_float(1.5) -> 1.5, check_input_format('NCHW') -> 'NCHW', check_str_by_regular('a.b') -> True)."""
    Validator = validator()
    assert Validator.check_is_int(3) == 3
    assert Validator.check_bool(False) is False
    assert Validator.check_positive_float(1.5) == 1.5
    assert Validator.check_input_format("NCHW") == "NCHW"
    assert Validator.check_str_by_regular("a.b") is True


def test_expand_tuple_checks_its_input_as_mindspore():
    """Issue 25: _expand_tuple(2) / twice (oracle: 3 -> (3, 3); (1, 2, 3), 0.5, True, (3.3, 4) -> TypeError
    with these words)."""
    Validator = validator()
    assert Validator.twice(3) == (3, 3) and Validator.once(3) == (3,) and Validator.triple((1, 2, 3)) == (1, 2, 3)
    cases = {(1, 2, 3): "input tuple dimension must be 2, but got (1, 2, 3)",
             0.5: "input type must be integer or tuple[int], but got <class 'float'>",
             True: "input type must be integer or tuple[int], but got <class 'bool'>",
             (3.3, 4): "the type of element in input tuple must be an integer, but got <class 'float'>."}
    for value, words in cases.items():
        with pytest.raises(TypeError) as info:
            Validator._expand_tuple(2)(value)
        assert str(info.value) == "When expanding an int number to tuple, " + words


def test_checkparam_names_minims_lacks_say_so():
    """Issue 25: a _checkparam name minims does not give raises MissingNameError (an AttributeError)."""
    with pytest.raises(MissingNameError, match="check_reshape_shp"):
        validator().check_reshape_shp


def test_is_parameter_generated_tells_generated_names():
    """Issue 25: mindspore.common.parameter._is_parameter_generated (oracle: an unnamed Parameter's name
    -> True, 'w' -> False, '' -> False, None -> False)."""
    from minims.common.parameter import _is_parameter_generated
    assert _is_parameter_generated(Parameter(Tensor([1.0])).name)
    assert not any(_is_parameter_generated(n) for n in ("w", "", None))


def test_checkpoint_manager_lists_and_removes_the_files_of_a_prefix(tmp_path):
    """Issue 25: _CheckpointManager (oracle, same files: 2 of 'test' (not 'test_1-1_1.ckpt', 'test-a_1.ckpt'
    or 'test-3_1.txt'); remove_oldest_ckpoint_file deletes the older; then 1)."""
    from minims.train.callback import _CheckpointManager
    for i, name in enumerate(["test-1_1.ckpt", "test-2_1.ckpt", "test_1-1_1.ckpt", "test-a_1.ckpt", "test-3_1.txt"]):
        (tmp_path / name).write_text("")
        os.utime(tmp_path / name, (1000 + i, 1000 + i))
    manager = _CheckpointManager()
    manager.update_ckpoint_filelist(str(tmp_path), "test")
    assert sorted(os.path.basename(f) for f in manager.ckpoint_filelist) == ["test-1_1.ckpt", "test-2_1.ckpt"]
    manager.remove_oldest_ckpoint_file()
    assert manager.ckpoint_num == 1 and not (tmp_path / "test-1_1.ckpt").exists()


class _TwoWeights(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w2 = Parameter(Tensor(np.ones((2, 3))), name="weight")
        self.w1 = Parameter(Tensor(np.ones((2, 3))), name="weight")

    def construct(self, x):
        return x * self.w1 * self.w2


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_cell_graph_executor_compile_checks_parameter_names():
    """Issue 25: _cell_graph_executor.compile of a Cell with two Parameters named 'weight' raises ValueError
    (oracle: "The value of w1 is Parameter (...), its name 'weight' already exists. ...")."""
    from minims.common.api import _cell_graph_executor
    with pytest.raises(ValueError, match="its name 'weight' already exists"):
        _cell_graph_executor.compile(_TwoWeights(), Tensor(np.ones((2, 3))))


def test_cell_graph_executor_compiles_the_graph_mode_call_once():
    """Issue 25: compile(net, x) traces the graph Graph mode then runs, and says whether it compiled now
    (oracle: the same key twice, True then False)."""
    from minims.common.api import _cell_graph_executor
    net, x = nn.Dense(2, 3), Tensor(np.ones((1, 2), np.float32))
    first, second = _cell_graph_executor.compile(net, x), _cell_graph_executor.compile(net, x)
    assert first[0] == second[0] and (first[1], second[1]) == (True, False)
    previous = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net(x)
    finally:
        ms.set_context(mode=previous)
    assert net._graph_call.traces == 1          # the call used the graph compile traced


def test_cell_graph_executor_compiles_cells_only():
    """Issue 25: compile of a function raises AttributeError (oracle: "The class function does not have
    method construct")."""
    from minims.common.api import _cell_graph_executor
    with pytest.raises(AttributeError, match="construct"):
        _cell_graph_executor.compile(lambda x: x, Tensor([1.0]))


def test_c_expression_answers_security_and_creation_type():
    """Issue 25: mindspore._c_expression (oracle: security.enable_security() -> False; CreationType's members
    DEFAULT=0, NO_GRAD_MODE=1, MULTI_OUTPUT=2, CUSTOM_BPROP=3); its other names are the C++ runtime."""
    from minims._c_expression import CreationType, security
    assert security.enable_security() is False
    assert [(m.name, m.value) for m in CreationType] == [("DEFAULT", 0), ("NO_GRAD_MODE", 1),
                                                         ("MULTI_OUTPUT", 2), ("CUSTOM_BPROP", 3)]
    import minims._c_expression as c_expression
    with pytest.raises(MissingNameError, match="C\\+\\+ runtime"):
        c_expression.GraphExecutor_


def test_serialization_graph_functions_are_mindspore_export_and_load():
    """Issue 25: serialization's export and load are ``mindspore.export``/``mindspore.load`` (one function
    each in MindSpore 2.10: ``mindspore.export is mindspore.train.serialization.export``, checked on the
    oracle), minims' own graph file; _save_graph (the compiler's protobuf dump) imports and refuses."""
    from minims.train.serialization import _save_graph, export, load
    assert export is ms.export and load is ms.load
    with pytest.raises(MissingNameError, match="only MindSpore's C\\+\\+ runtime has"):
        _save_graph(nn.Dense(2, 3), file_name="net")


def test_compile_config_check_bprop_is_settable_and_bprops_are_checked_always():
    """Issue 25: mindspore._extends.parse.compile_config.CHECK_BPROP (oracle: '' by default; MindSpore's tests
    set it to 1 and back); minims checks a custom bprop's result whatever it holds: a gradient of the wrong
    shape raises (MindSpore with CHECK_BPROP=1: ValueError "should have the same shape as the 0th arg")."""
    compile_config = importlib.import_module("minims._extends.parse.compile_config")
    assert compile_config.CHECK_BPROP == ""

    class Net(nn.Cell):
        def construct(self, x):
            return x * 2

        def bprop(self, x, out, dout):
            return (Tensor(np.ones((3,), np.float32)),)

    for setting in (1, ""):
        compile_config.CHECK_BPROP = setting
        with pytest.raises(ValueError, match="shape"):
            ms.grad(Net())(Tensor(np.ones((2,), np.float32)))
    with pytest.raises(MissingNameError, match="C\\+\\+ graph compiler"):
        compile_config.DEBUG_LEVEL
