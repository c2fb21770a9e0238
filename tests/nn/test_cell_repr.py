"""``print(net)`` and unnamed Parameters as MindSpore 2.10 has them (issue 25, item 2).

Every expected string here was printed by MindSpore 2.10 (the oracle, ``/tmp/oracle/bin/python``)
for the same construction.
"""
import minims as ms
from minims import Parameter, ParameterTuple, Tensor, nn


class Network(nn.Cell):
    """The network of MindSpore's "Building a Network" and "Quick Start" pages."""

    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(28 * 28, 512), nn.ReLU(), nn.Dense(512, 512), nn.ReLU(), nn.Dense(512, 10))

    def construct(self, x):
        return self.dense_relu_sequential(self.flatten(x))


def test_print_net_is_mindspores_cell_repr():
    """Item 2: the tutorial network prints as on MindSpore 2.10 (oracle run of beginner/model)."""
    assert repr(Network()) == """Network(
  (flatten): Flatten()
  (dense_relu_sequential): SequentialCell(
    (0): Dense(input_channels=784, output_channels=512, has_bias=True)
    (1): ReLU()
    (2): Dense(input_channels=512, output_channels=512, has_bias=True)
    (3): ReLU()
    (4): Dense(input_channels=512, output_channels=10, has_bias=True)
  )
)"""
    assert str(Network()) == repr(Network())


def test_a_cell_with_extend_repr_and_children_prints_both():
    """Item 2: extend_repr lines come before the children (oracle: Dense with an activation)."""
    assert repr(nn.Dense(2, 3, activation="relu")) == (
        "Dense(\n  input_channels=2, output_channels=3, has_bias=True, activation=ReLU()\n"
        "  (activation): ReLU()\n)")
    assert repr(nn.Dense(2, 3, has_bias=False)) == "Dense(input_channels=2, output_channels=3)"


def test_layers_print_their_mindspore_arguments():
    """Item 2: the one-line layers print what MindSpore 2.10 prints (oracle runs)."""
    printed = {
        "MaxPool2d(kernel_size=2, stride=2, pad_mode=VALID)": nn.MaxPool2d(2, 2),
        "AvgPool2d(kernel_size=3, stride=1, pad_mode=PAD)": nn.AvgPool2d(3, 1, pad_mode="pad", padding=1),
        "Softmax()": nn.Softmax(axis=1),
        "LogSoftmax()": nn.LogSoftmax(1),
        "Dropout(p=0.5)": nn.Dropout(),
        "Dropout(keep_prob=0.8)": nn.Dropout(keep_prob=0.8),
        "Dropout(p=0.3)": nn.Dropout(0.9, p=0.3),
        "MSELoss()": nn.MSELoss(),
        "SGD()": nn.SGD(nn.Dense(2, 3).trainable_params(), 0.1),
    }
    assert {text: repr(cell) for text, cell in printed.items()} == {text: text for text in printed}


def test_repr_of_a_cell_with_its_own_repr_nests_it():
    """Item 2: a child whose class defines __repr__ prints by it, indented (MindSpore calls repr)."""
    class Odd(nn.Cell):
        def __repr__(self):
            return "Odd<two\nlines>"

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.odd = Odd()

    assert repr(Outer()) == "Outer(\n  (odd): Odd<two\n  lines>\n)"


def test_unnamed_parameters_are_numbered_as_in_mindspore():
    """Item 2: Parameter(t) is named Parameter#<n> with n counting up (MindSpore 2.10: the first in a
    fresh process is Parameter#2); a Cell attribute renames it after itself, a given name is kept."""
    first = Parameter(Tensor(1.0))
    second = Parameter(Tensor(2.0))
    n = int(first.name.split("#")[1])
    assert first.name.startswith("Parameter#") and second.name == f"Parameter#{n + 1}"
    assert repr(first) == f"Parameter (name=Parameter#{n}, shape=(), dtype=Float32, requires_grad=True)"
    listed = ParameterTuple([Parameter(Tensor(1.0)), Parameter(Tensor(2.0))])   # distinct names
    assert [p.name for p in listed] == [f"Parameter#{n + 2}", f"Parameter#{n + 3}"]
    assert Parameter(Tensor(1.0), name="").name == f"Parameter#{n + 4}"

    cell = nn.Cell()
    cell.x = Parameter(Tensor(1.0))
    cell.z = Parameter(Tensor(1.0), name="Parameter")
    assert list(cell.parameters_dict()) == ["x", "Parameter"]


def test_the_first_unnamed_parameter_of_a_program_is_parameter_2():
    """Item 2: in a fresh process the first unnamed Parameter is Parameter#2 (oracle run)."""
    import subprocess
    import sys
    code = "import minims as ms; print(ms.Parameter(ms.Tensor(1.0)).name)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "Parameter#2"
    assert ms.Parameter is Parameter
