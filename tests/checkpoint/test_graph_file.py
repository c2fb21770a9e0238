"""``mindspore.export`` / ``mindspore.load`` / ``nn.GraphCell`` (issue 25, tutorial pages: beginner_save_load
blocks 4 and 5). minims writes its own graph file (not MindIR): what must hold is that the graph read
back computes what the network computed. Expected values: the network itself (the same inputs), and
MindSpore 2.10's behaviour on the same calls (the oracle): the file gets ``.mindir`` appended, the
GraphCell's output has shape (1, 10), and the refusals are ValueError/TypeError/RuntimeError.
"""
import os
import pickle

import numpy as np
import pytest

import minims as ms
from minims import Tensor, nn
from minims.checkpoint.graph_file import HEADER, GraphFileError


def _network():
    return nn.SequentialCell(nn.Flatten(), nn.Dense(28 * 28, 16), nn.ReLU(), nn.Dense(16, 10))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_exported_graph_runs_as_the_network(tmp_path, mode):
    """The page's blocks: export(model, inputs, file_name="model", file_format="MINDIR"), load, GraphCell;
    oracle: model.mindir is written and the output has shape (1, 10)."""
    ms.set_context(mode=mode)
    try:
        model = _network()
        x = Tensor(np.random.default_rng(0).normal(size=(1, 1, 28, 28)).astype(np.float32))
        ms.export(model, x, file_name=str(tmp_path / "model"), file_format="MINDIR")
        assert os.path.isfile(tmp_path / "model.mindir")
        out = nn.GraphCell(ms.load(str(tmp_path / "model.mindir")))(x)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert out.shape == (1, 10)
    np.testing.assert_array_equal(out.asnumpy(), model(x).asnumpy())


def test_the_graph_keeps_the_weights_of_export_time(tmp_path):
    """Weights are baked in: a later change to the network does not reach the loaded graph."""
    model = _network()
    x = Tensor(np.ones((1, 1, 28, 28), np.float32))
    before = model(x).asnumpy()
    ms.export(model, x, file_name=str(tmp_path / "m.mindir"))
    model[1].weight.set_data(Tensor(np.zeros((16, 28 * 28), np.float32)))
    np.testing.assert_array_equal(nn.GraphCell(ms.load(str(tmp_path / "m.mindir")))(x).asnumpy(), before)


def test_load_refuses_what_it_cannot_read(tmp_path):
    """Oracle: a missing file and a name without .mindir raise ValueError; minims also refuses a file its
    export did not write (a MindIR MindSpore wrote) and a pickle asking for other classes."""
    with pytest.raises(ValueError, match="does not exist"):
        ms.load(str(tmp_path / "nope.mindir"))
    with pytest.raises(ValueError, match="should end with '.mindir'"):
        ms.load(str(tmp_path / "model.ckpt"))
    foreign = tmp_path / "foreign.mindir"
    foreign.write_bytes(b"\x0a\x05MindIR protobuf")
    with pytest.raises(GraphFileError, match="not a graph file written by minims"):
        ms.load(str(foreign))
    evil = tmp_path / "evil.mindir"
    evil.write_bytes(HEADER + pickle.dumps(print))
    with pytest.raises(GraphFileError, match="builtins.print"):
        ms.load(str(evil))


def test_graph_cell_and_export_refusals(tmp_path):
    """Oracle: export(file_format='XYZ') ValueError; GraphCell(3) TypeError; inputs of another shape
    RuntimeError."""
    model, x = _network(), Tensor(np.ones((1, 1, 28, 28), np.float32))
    with pytest.raises(ValueError, match="file_format"):
        ms.export(model, x, file_name=str(tmp_path / "m"), file_format="XYZ")
    with pytest.raises(TypeError, match="GraphCell"):
        nn.GraphCell(3)
    ms.export(model, x, file_name=str(tmp_path / "m"))
    cell = nn.GraphCell(ms.load(str(tmp_path / "m.mindir")))
    with pytest.raises(RuntimeError, match="exported for inputs"):
        cell(Tensor(np.ones((2, 1, 28, 28), np.float32)))


def test_mindspores_encryption_options_are_refused_not_ignored(tmp_path):
    """An encryption key ignored silently would leave a file the user believes encrypted: refused."""
    model, x = _network(), Tensor(np.ones((1, 1, 28, 28), np.float32))
    with pytest.raises(ValueError, match="enc_key"):
        ms.export(model, x, file_name=str(tmp_path / "m"), enc_key=b"0123456789abcdef")
    assert not (tmp_path / "m.mindir").exists()
