"""The shape of a Cell tree: cycles are refused, deep nesting works, and two Parameters of one name
are warned about, checked and renamed as in MindSpore 2.10.

Facts from MindSpore 2.10 (CPU) that the expected values below come from:

* ``import mindspore`` sets ``sys.setrecursionlimit(10000)``; PyNative builds, calls and
  differentiates 200 and 1000 nested Cells ``Wrap(Wrap(...Leaf))`` (Leaf: ``x + 1``): ``[2.]``,
  gradient ``[1.]``; Graph mode runs 200 of them.
* With ``self.a = Parameter(..., name='w'); self.b = Parameter(..., name='w')``, before the first
  call: ``parameters_dict()`` has one entry ``{'w': b}``, ``trainable_params()`` both, an optimizer
  and ``check_names()`` raise ValueError ("its name 'w' already exists").  The first call renames
  every Parameter to its attribute path (``a``, ``b``); then one SGD step (lr 0.1, gradient 1 each)
  gives a = [0.9, 1.9], b = [9.9, 19.9].
"""
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import minims as ms
from minims import Parameter, Tensor, nn
from minims.nn.cell_call import CellRecursionError
from minims.nn.cell_tree import CyclicCellError
from minims.nn.param_names import DuplicateParameterError, DuplicateParameterNameWarning
from minims.testing import leftover_state

ROOT = Path(__file__).resolve().parents[2]


class Block(nn.Cell):
    def construct(self, x):
        return x


class Leaf(nn.Cell):
    def construct(self, x):
        return x + 1


class Wrap(nn.Cell):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def construct(self, x):
        return self.inner(x)


def nested(depth):
    """``depth`` Cells: ``depth - 1`` Wraps around one Leaf, built bottom-up as users write it."""
    net = Leaf()
    for _ in range(depth - 1):
        net = Wrap(net)
    return net


class Hollow(nn.Cell):
    """A Wrap whose inner Cell is added later (to build a deep chain from the top down)."""

    def construct(self, x):
        return self.inner(x) if "inner" in self._cells else x + 1


def nested_top_down(depth):
    root = cell = Hollow()
    for _ in range(depth - 1):
        child = Hollow()
        cell.insert_child_to_cell("inner", child)
        cell = child
    return root


@pytest.fixture
def recursion_limit():
    """Lets a test lower the limit (quick, and far from the C stack's end); restores it after."""
    before = sys.getrecursionlimit()
    yield sys.setrecursionlimit
    sys.setrecursionlimit(before)


x1 = Tensor(np.array([1.0], np.float32))


# ----- cycles --------------------------------------------------------------------------------------

def test_a_cell_assigned_to_itself_is_refused_and_left_unchanged():
    a = Block()
    with pytest.raises(ValueError, match="cannot contain itself") as info:
        a.me = a
    assert isinstance(info.value, CyclicCellError)
    message = str(info.value)
    assert "Block.me" in message and "Fix" in message and "weakref" in message
    assert "me" not in a.name_cells() and not hasattr(a, "me")
    assert a.path == "Block" and repr(a) == "Block()"
    assert a(x1).asnumpy().tolist() == [1.0]


def test_two_cells_holding_each_other_are_refused_naming_both():
    a, b = Block(), Block()
    a.b = b
    with pytest.raises(CyclicCellError) as info:
        b.a = a
    message = str(info.value)
    assert "Block.b.a" in message and "inside Block (Block)" in message and "cycle" in message
    assert list(b.name_cells()) == [] and not hasattr(b, "a")       # no half-set link
    assert [name for name, _ in a.cells_and_names()] == ["", "b"]
    assert (a.path, b.path) == ("Block", "Block.b")
    assert a(x1).asnumpy().tolist() == [1.0]


def test_a_cycle_through_a_grandchild_is_refused():
    a, b, c = Block(), Block(), Block()
    a.b = b
    b.c = c
    with pytest.raises(CyclicCellError, match="Block.b.c.a"):
        c.a = a
    assert list(c.name_cells()) == []


def test_insert_child_to_cell_refuses_a_cycle():
    a, b = Block(), Block()
    a.insert_child_to_cell("b", b)
    with pytest.raises(CyclicCellError):
        b.insert_child_to_cell("a", a)
    with pytest.raises(CyclicCellError):
        a.insert_child_to_cell("me", a)
    assert list(a.name_cells()) == ["b"] and list(b.name_cells()) == []


@pytest.mark.parametrize("add", [lambda s: s.append(s), lambda s: s.insert(0, s),
                                 lambda s: s.__setitem__(1, s)], ids=["append", "insert", "setitem"])
def test_a_sequential_cell_refuses_itself_and_keeps_its_cells(add):
    first, second = Leaf(), Leaf()
    seq = nn.SequentialCell([first, second])
    with pytest.raises(CyclicCellError):
        add(seq)
    assert list(seq) == [first, second] and list(seq.name_cells()) == ["0", "1"]
    assert seq(x1).asnumpy().tolist() == [3.0]


def test_cell_list_extend_checks_every_cell_before_adding_any():
    cells = nn.CellList([Leaf()])
    outer = Wrap(cells)
    with pytest.raises(CyclicCellError):
        cells.extend([Leaf(), outer])            # outer holds cells: a cycle
    assert len(cells) == 1


def test_a_cell_shared_by_two_parents_is_no_cycle():
    shared = Leaf()
    left, right, top = Block(), Block(), Block()
    left.x = shared
    right.y = shared
    top.left = left
    top.right = right
    right.z = left                               # a DAG, not a cycle
    names = [name for name, _ in top.cells_and_names()]
    assert names == ["", "left", "left.x", "right"]    # each Cell once, under its first name


def test_a_link_removed_no_longer_counts_as_a_cycle():
    a, b = Block(), Block()
    a.b = b
    del a.b
    b.a = a                                      # b is no longer inside a
    assert list(b.name_cells()) == ["a"]


# ----- deep nesting --------------------------------------------------------------------------------

def test_import_raises_the_recursion_limit_to_mindspores_10000():
    assert sys.getrecursionlimit() >= 10000


@pytest.mark.slow
def test_import_never_lowers_a_higher_recursion_limit():
    code = "import sys; sys.setrecursionlimit(30000); import minims; print(sys.getrecursionlimit())"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}, check=True)
    assert out.stdout.strip() == "30000"


def _frames_at_leaf(depth):
    seen = []

    class Probe(nn.Cell):
        def construct(self, x):
            frame, n = sys._getframe(), 0
            while frame is not None:
                frame, n = frame.f_back, n + 1
            seen.append(n)
            return x

    net = Probe()
    for _ in range(depth - 1):
        net = Wrap(net)
    net(x1)
    return seen[0]


def test_a_level_of_nesting_costs_three_python_frames():
    # the Cell call, its five steps (_run) and construct: what lets 1000 levels fit the stack
    assert _frames_at_leaf(11) - _frames_at_leaf(1) == 3 * 10


def test_a_thousand_nested_cells_build_run_and_differentiate_in_pynative():
    net = nested(1000)
    assert net(x1).asnumpy().tolist() == [2.0]
    assert ms.grad(net)(x1).asnumpy().tolist() == [1.0]
    assert not leftover_state()


def test_repr_and_cells_and_names_of_a_thousand_and_of_two_thousand_nested_cells():
    text = repr(nested(1000))
    lines = text.split("\n")
    assert len(lines) == 2 * 999 + 1                 # 999 Wraps open and close; one Leaf line
    assert lines[:3] == ["Wrap(", "  (inner): Wrap(", "    (inner): Wrap("]
    assert lines[999] == "  " * 999 + "(inner): Leaf()" and lines[-2:] == ["  )", ")"]
    deep = nested_top_down(2000)
    names = [name for name, _ in deep.cells_and_names()]
    assert len(names) == 2000 and names[-1] == ".".join(["inner"] * 1999)
    assert repr(deep).count("\n") == 2 * 1999
    assert deep(x1).asnumpy().tolist() == [2.0]


def test_repr_of_a_small_tree_is_mindspores_layout():
    outer = nn.SequentialCell([Wrap(Leaf()), Leaf()])
    # MindSpore 2.10 prints this (oracle run, issue 25 item 2)
    assert repr(outer) == ("SequentialCell(\n  (0): Wrap(\n    (inner): Leaf()\n  )\n"
                           "  (1): Leaf()\n)")


def test_graph_mode_runs_two_hundred_nested_cells():
    net = nested(200)
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        assert net(x1).asnumpy().tolist() == [2.0]
        assert ms.grad(net)(x1).asnumpy().tolist() == [1.0]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


class CallsItself(nn.Cell):
    def construct(self, x):
        return self(x)


def test_a_construct_that_calls_itself_raises_a_clear_recursion_error(recursion_limit):
    recursion_limit(2000)
    with pytest.raises(RuntimeError) as info:
        CallsItself()(x1)
    error = info.value
    assert isinstance(error, CellRecursionError) and isinstance(error, RecursionError)
    message = str(error)
    assert message.startswith("CallsItself:") and "calls CallsItself again" in message
    assert "without end" in message and "Fix" in message
    assert isinstance(error.__cause__, RecursionError)       # the original, with its traceback
    assert not leftover_state()
    assert nested(3)(x1).asnumpy().tolist() == [2.0]


def test_endless_python_recursion_under_grad_is_raised_with_the_cell_named(recursion_limit):
    def endless(x):
        return endless(x)

    class Net(nn.Cell):
        def construct(self, x):
            return endless(x)

    recursion_limit(2000)
    with pytest.raises(CellRecursionError, match="recurses without end") as info:
        ms.grad(Net())(x1)
    assert str(info.value).startswith("Net:") and "1 nested Cell call was running" in str(info.value)
    assert not leftover_state()


def test_nesting_deeper_than_the_limit_names_the_depth_and_the_fix(recursion_limit):
    net = nested(1000)
    recursion_limit(1500)                        # about 500 levels at three frames each
    with pytest.raises(CellRecursionError) as info:
        net(x1)
    message = str(info.value)
    assert "nested Cell calls were running" in message and "too deeply" in message
    assert "nn.SequentialCell" in message and "sys.setrecursionlimit(3000)" in message
    assert message.startswith("Wrap.inner.inner.inner. ... (")     # a long path, shortened
    assert not leftover_state()


def test_a_recursion_error_caught_inside_construct_is_left_to_the_user(recursion_limit):
    def endless(n):
        return endless(n + 1)

    class Careful(nn.Cell):
        def construct(self, x):
            try:
                endless(0)
            except RecursionError:
                return x * 3
            return x

    recursion_limit(2000)
    assert Careful()(x1).asnumpy().tolist() == [3.0]


# ----- two Parameters with one name ----------------------------------------------------------------

class TwoNamedW(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
        self.b = Parameter(Tensor(np.array([10.0, 20.0], np.float32)), name="w")

    def construct(self, x):
        return x + self.a + self.b


def two_named_w():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DuplicateParameterNameWarning)
        return TwoNamedW()


def test_a_second_parameter_of_the_same_name_warns_naming_both_attributes():
    with pytest.warns(DuplicateParameterNameWarning) as record:
        TwoNamedW()
    assert issubclass(DuplicateParameterNameWarning, UserWarning)
    assert len(record) == 1
    message = str(record[0].message)
    assert "TwoNamedW.a" in message and "TwoNamedW.b" in message and "'w'" in message
    assert "Fix" in message
    assert record[0].filename == __file__          # points at the user's assignment


def test_the_warning_comes_once_per_cell_and_pair():
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        net = TwoNamedW()
        net.b = Parameter(Tensor([3.0]), name="w")         # the same pair again: no new warning
        TwoNamedW()                                         # another Cell: warned again
    assert len([r for r in record if r.category is DuplicateParameterNameWarning]) == 2


def test_one_name_in_two_subcells_is_fine_and_gets_prefixed():
    class Sub(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = Parameter(Tensor([1.0]), name="p")

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.s1 = Sub()
            self.s2 = Sub()

    with warnings.catch_warnings():
        warnings.simplefilter("error", DuplicateParameterNameWarning)
        net = Net()
    assert [p.name for p in net.trainable_params()] == ["s1.p", "s2.p"]
    net.check_names()


def test_before_the_first_call_parameters_dict_keeps_the_last_and_trainable_params_both():
    net = two_named_w()
    assert list(net.parameters_dict().items()) == [("w", net.b)]
    assert [p.name for p in net.trainable_params()] == ["w", "w"]


def test_check_names_raises_mindspores_value_error():
    net = two_named_w()
    with pytest.raises(ValueError) as info:
        net.check_names()
    assert isinstance(info.value, DuplicateParameterError)
    message = str(info.value)
    assert "The value of b is Parameter (name=w" in message
    assert "its name 'w' already exists" in message and "unique name" in message and "Fix" in message


def test_an_optimizer_refuses_two_parameters_of_one_name_with_mindspores_words():
    net = two_named_w()
    with pytest.raises(ValueError) as info:
        nn.SGD(net.trainable_params(), 0.1)
    assert isinstance(info.value, DuplicateParameterError)
    message = str(info.value)
    assert "SGD" in message and "its name 'w' already exists" in message
    assert "two different Parameters" in message and "Fix" in message


def test_save_checkpoint_refuses_two_parameters_of_one_name_naming_both(tmp_path):
    # MindSpore keeps one of the two without a word; minims refuses rather than lose weights
    net = two_named_w()
    path = tmp_path / "net.ckpt"
    with pytest.raises(ValueError) as info:
        ms.save_checkpoint(net, str(path))
    message = str(info.value)
    assert "TwoNamedW.a" in message and "TwoNamedW.b" in message and "'w'" in message
    assert "Fix" in message
    assert not path.exists()


def test_the_first_call_renames_parameters_to_their_attribute_paths_as_mindspore(tmp_path):
    # minims names a Parameter once, by its attribute path (its own name, or the attribute's, with
    # the dotted path of the sub-cells above it): the same path parameters_and_names() gives.  So
    # MindSpore's renaming on the first call is one walk of the network, and minims follows it:
    # after a call, optimizers, TrainOneStepCell and checkpoints work, with MindSpore's numbers.
    net = two_named_w()
    x = Tensor(np.ones(2, np.float32))
    net(x)
    assert [p.name for p in net.trainable_params()] == ["a", "b"]
    net.check_names()
    step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1))
    step(x)
    np.testing.assert_allclose(net.a.asnumpy(), [0.9, 1.9], rtol=1e-6)
    np.testing.assert_allclose(net.b.asnumpy(), [9.9, 19.9], rtol=1e-6)
    ms.save_checkpoint(net, str(tmp_path / "net.ckpt"))
    assert sorted(ms.load_checkpoint(str(tmp_path / "net.ckpt"))) == ["a", "b"]


def test_the_first_call_keeps_unique_names_as_they_are():
    class Named(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = Parameter(Tensor([1.0]), name="weight")
            self.block = Wrap(Leaf())

        def construct(self, x):
            return self.block(x) * self.a

    net = Named()
    net(x1)
    assert [p.name for p in net.trainable_params()] == ["weight"]


def test_a_recursion_error_the_user_raises_passes_unchanged():
    class Raises(nn.Cell):
        def construct(self, x):
            raise RecursionError("my own reason")

    with pytest.raises(RecursionError, match="^my own reason$") as info:
        Raises()(x1)
    assert not isinstance(info.value, CellRecursionError)
