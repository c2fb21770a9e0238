"""Saving and loading in minims: exact round trips, what a Cell saves, atomic writes, CRC, slicing.

(What MindSpore does with the same calls is checked in test_checkpoint_oracle_facts.py; files crossing
between the two frameworks in test_checkpoint_interop.py.)
"""
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minims as ms
import minims.nn as nn
from minims import Parameter, Tensor
from minims.checkpoint import checkpoint_pb2, fileformat

DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]


def save_and_load(tmp_path, arrays, **kwargs):
    path = str(tmp_path / "t.ckpt")
    ms.save_checkpoint([Parameter(Tensor(a), name=n) for n, a in arrays.items()], path, **kwargs)
    return ms.load_checkpoint(path, **({"crc_check": True} if kwargs.get("crc_check") else {}))


def assert_bitwise_equal(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_round_trips_bit_for_bit_in_every_shape(dtype, tmp_path):
    info = np.finfo(dtype) if np.dtype(dtype).kind == "f" else np.iinfo(dtype) if dtype != "bool" else None
    edge = ([info.min, info.max, 0, -0.0, info.tiny, np.inf, -np.inf, np.nan] if np.dtype(dtype).kind == "f"
            else [info.min, info.max, 0, 1] if info is not None else [True, False])
    arrays = {
        "edge": np.array(edge, dtype),
        "scalar": np.array(edge[1], dtype),
        "empty": np.zeros((0,), dtype),
        "empty_3d": np.zeros((2, 0, 3), dtype),
        "transposed": np.arange(12).reshape(3, 4).astype(dtype).T,       # not C-contiguous in memory
    }
    loaded = save_and_load(tmp_path, arrays)
    assert list(loaded) == list(arrays)
    for name, arr in arrays.items():
        assert loaded[name].name == name and loaded[name].dtype is ms.dtype.from_numpy(arr.dtype)
        assert_bitwise_equal(loaded[name].asnumpy(), np.asarray(arr, order="C"))


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(st.sampled_from(DTYPES).flatmap(lambda d: hnp.arrays(d, hnp.array_shapes(min_dims=0, max_dims=3, max_side=4))))
def test_any_array_round_trips_bit_for_bit(tmp_path_factory, arr):
    loaded = save_and_load(tmp_path_factory.mktemp("rt"), {"a": arr})
    assert_bitwise_equal(loaded["a"].asnumpy(), arr)


class SmallNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, has_bias=True)
        self.bn = nn.BatchNorm2d(2)
        self.fc = nn.Dense(2 * 4 * 4, 3)

    def construct(self, x):
        x = self.bn(self.conv(x))
        return self.fc(x.reshape((x.shape[0], -1)))


def test_a_cell_saves_every_parameter_with_the_batchnorm_moving_statistics(tmp_path):
    ms.set_seed(3)
    net = SmallNet()
    x = Tensor(np.random.default_rng(3).standard_normal((5, 1, 4, 4)).astype(np.float32))
    net.set_train()
    net(x)                                              # a training-mode call moves the statistics
    assert not np.allclose(net.bn.moving_mean.asnumpy(), 0)
    path = str(tmp_path / "net.ckpt")
    ms.save_checkpoint(net, path)
    loaded = ms.load_checkpoint(path)
    assert list(loaded) == [p.name for p in net.get_parameters()]
    assert {"bn.moving_mean", "bn.moving_variance"} <= set(loaded)

    ms.set_seed(4)
    fresh = SmallNet()
    assert ms.load_param_into_net(fresh, loaded) == ([], [])
    for a, b in zip(net.get_parameters(), fresh.get_parameters()):
        assert a.name == b.name and a.requires_grad == b.requires_grad
        assert_bitwise_equal(b.asnumpy(), a.asnumpy())
    net.set_train(False)
    fresh.set_train(False)
    assert_bitwise_equal(fresh(x).asnumpy(), net(x).asnumpy())


def test_loading_copies_the_values(tmp_path):
    net = nn.Dense(2, 2)
    loaded = {"weight": Parameter(Tensor(np.ones((2, 2), np.float32)), name="weight")}
    ms.load_param_into_net(net, loaded)
    loaded["weight"].set_data(Tensor(np.zeros((2, 2), np.float32)))
    assert net.weight.asnumpy().tolist() == [[1, 1], [1, 1]]


def test_strings_round_trip(tmp_path):
    texts = {"empty": "", "ascii": "LeNet-5", "accents": "réseau", "astral": "emoji 🙂 and 𝔸", "nul_inside": "a\0b"}
    path = str(tmp_path / "s.ckpt")
    ms.save_checkpoint([Parameter(Tensor([1.0]), name="w")], path, append_dict=texts)
    loaded = ms.load_checkpoint(path)
    assert {k: loaded[k] for k in texts} == texts


def test_append_dict_types(tmp_path):
    path = str(tmp_path / "a.ckpt")
    ms.save_checkpoint([], path, append_dict={"i": 7, "f": 0.1, "b": False, "t": Tensor(np.int8(3))})
    loaded = ms.load_checkpoint(path)
    assert [(k, str(v.dtype), v.shape) for k, v in loaded.items()] == [
        ("i", "Int64", ()), ("f", "Float32", ()), ("b", "Bool", ()), ("t", "Int8", ())]
    assert loaded["f"].asnumpy() == np.float32(0.1)


def test_a_tensor_over_the_slice_size_is_written_in_slices_and_read_whole(tmp_path, monkeypatch):
    """MindSpore splits a tensor over 512 MiB along its first axis; the same rule with a tiny limit."""
    monkeypatch.setattr(fileformat, "SLICE_BYTES", 64)
    arr = np.arange(70, dtype=np.float32).reshape(10, 7)             # 280 bytes -> 5 slices
    path = str(tmp_path / "big.ckpt")
    ms.save_checkpoint([Parameter(Tensor(arr), name="big"), Parameter(Tensor(arr[:1]), name="small")], path)
    message = checkpoint_pb2.Checkpoint.FromString(open(path, "rb").read())
    assert [v.tag for v in message.value] == ["big"] * 5 + ["small"]
    assert all(list(v.tensor.dims) == [10, 7] for v in message.value[:5])
    assert_bitwise_equal(ms.load_checkpoint(path)["big"].asnumpy(), arr)


def test_crc_check_round_trip_and_detects_a_changed_byte(tmp_path):
    arrays = {"w": np.arange(6, dtype=np.float32)}
    loaded = save_and_load(tmp_path, arrays, crc_check=True)
    assert_bitwise_equal(loaded["w"].asnumpy(), arrays["w"])
    path = tmp_path / "t.ckpt"
    data = bytearray(path.read_bytes())
    data[-20] ^= 0x01                                                # a bit of the last float
    path.write_bytes(bytes(data))
    assert ms.load_checkpoint(str(path))["w"].asnumpy()[-1] != 5.0   # unchecked: the changed value loads
    with pytest.raises(ValueError, match=r"t\.ckpt.*CRC-32"):
        ms.load_checkpoint(str(path), crc_check=True)


def test_crc_check_of_a_file_without_crc_is_refused(tmp_path):
    """Nothing tells such a file from one cut short between two entries (issue 22, item 23)."""
    path = str(tmp_path / "w.ckpt")
    ms.save_checkpoint([Parameter(Tensor([1.0]), name="w")], path)
    with pytest.raises(ValueError, match=r"w\.ckpt.*does not end with the CRC-32.*crc_check=False"):
        ms.load_checkpoint(path, crc_check=True)
    assert list(ms.load_checkpoint(path)) == ["w"]


def test_an_interrupted_save_leaves_the_old_file_whole(tmp_path, monkeypatch):
    path = tmp_path / "net.ckpt"
    ms.save_checkpoint([Parameter(Tensor([1.0, 2.0]), name="w")], str(path))
    before = path.read_bytes()

    def encode_then_interrupt(entries, crc_check=False):
        yield b"\x0a\x05partial"
        raise KeyboardInterrupt                                      # Ctrl-C half-way through the write

    monkeypatch.setattr(ms.checkpoint.save, "encode", encode_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        ms.save_checkpoint([Parameter(Tensor([3.0, 4.0]), name="w")], str(path))
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["net.ckpt"], "the temporary file was removed"


def test_saving_over_a_file_replaces_it_and_leaves_nothing_else(tmp_path):
    path = tmp_path / "net.ckpt"
    for value in (1.0, 2.0):
        ms.save_checkpoint([Parameter(Tensor([value]), name="w")], str(path))
    assert os.listdir(tmp_path) == ["net.ckpt"]
    assert ms.load_checkpoint(str(path))["w"].asnumpy().tolist() == [2.0]


def test_the_api_is_where_mindspore_has_it():
    import minims.train
    import minims.train.serialization
    for module in (ms, minims.train, minims.train.serialization):
        assert module.save_checkpoint is ms.checkpoint.save_checkpoint
        assert module.load_checkpoint is ms.checkpoint.load_checkpoint
        assert module.load_param_into_net is ms.checkpoint.load_param_into_net
