"""Checkpoints cross between minims and the real MindSpore 2.10, both ways.

* MindSpore -> minims: ``tests/data/mindspore_written.ckpt`` was written by MindSpore
  (``tests/data/make_mindspore_ckpt.py``), which also recorded how it reads the file back
  (``mindspore_written.json``).  minims must read every entry bit for bit, write the very same bytes
  from the same entries, and compute with the loaded network what MindSpore computed.
* minims -> MindSpore: minims saves a checkpoint and the oracle's interpreter loads it
  (``tests/data/oracle_read_checkpoint.py``).  That needs MindSpore, so it runs only when
  ``MINIMS_ORACLE_PYTHON`` names the oracle's python, e.g.
  ``MINIMS_ORACLE_PYTHON=../oracle-venv/bin/python .venv/bin/pytest tests/checkpoint/test_checkpoint_interop.py``.
"""
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import minims as ms
import minims.nn as nn
from minims.checkpoint.fileformat import TYPE_NAMES

DATA = Path(__file__).resolve().parents[1] / "data"
WRITTEN = DATA / "mindspore_written.ckpt"
FACTS = json.loads((DATA / "mindspore_written.json").read_text(encoding="utf-8"))
NUMPY_OF = {ms_name: np.dtype(np_name) for np_name, ms_name in TYPE_NAMES.items()}


class Net(nn.Cell):
    """The network of make_mindspore_ckpt.py, written for minims."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)
        self.bn = nn.BatchNorm1d(3)

    def construct(self, x):
        return self.bn(self.fc(x))


def array_of(record):
    """The array MindSpore read, rebuilt from its recorded bytes."""
    return np.frombuffer(bytes.fromhex(record["hex"]), NUMPY_OF[record["dtype"]]).reshape(record["shape"])


def test_minims_reads_every_entry_of_a_mindspore_checkpoint_bit_for_bit():
    loaded = ms.load_checkpoint(str(WRITTEN))
    assert list(loaded) == FACTS["order"]
    for name, record in FACTS["entries"].items():
        value = loaded[name]
        if "str" in record:
            assert value == record["str"]
            continue
        assert isinstance(value, ms.Parameter) and value.name == name and value.requires_grad
        assert str(value.dtype) == record["dtype"] and list(value.shape) == record["shape"], name
        assert value.asnumpy().tobytes().hex() == record["hex"], name      # -0.0, NaN, subnormals included


def test_minims_writes_the_same_bytes_as_mindspore_from_the_same_entries(tmp_path):
    entries, append = [], {}
    for name in FACTS["order"]:
        record = FACTS["entries"][name]
        if name in ("epoch_num", "learning_rate", "network"):          # make_mindspore_ckpt.py's append_dict
            append[name] = record["str"] if "str" in record else array_of(record).item()
        else:
            entries.append({"name": name, "data": ms.Tensor(array_of(record))})
    path = tmp_path / "again.ckpt"
    ms.save_checkpoint(entries, str(path), append_dict=append)
    assert path.read_bytes() == WRITTEN.read_bytes()


def test_a_network_loaded_from_mindspore_computes_what_mindspore_computed():
    net = Net().set_train(False)
    returned = ms.load_param_into_net(net, ms.load_checkpoint(str(WRITTEN)))
    assert [list(r) for r in returned] == FACTS["load_param_into_net_returns"]
    for p in net.get_parameters():
        assert p.asnumpy().tobytes().hex() == FACTS["entries"][p.name]["hex"], p.name
    out = net(ms.Tensor(np.array(FACTS["net_input"], np.float32))).asnumpy()
    np.testing.assert_allclose(out, np.array(FACTS["net_output"], np.float32), rtol=1e-6, atol=1e-6)


# ----- minims -> MindSpore ------------------------------------------------------------------------
ORACLE = os.environ.get("MINIMS_ORACLE_PYTHON")
needs_oracle = pytest.mark.skipif(
    not ORACLE, reason="set MINIMS_ORACLE_PYTHON to the python of a MindSpore 2.10 environment "
                       "(../shared/tools/oracle-venv.sh builds one) to check that MindSpore loads minims' files")


def oracle_read(path, *flags):
    script = DATA / "oracle_read_checkpoint.py"
    env = dict(os.environ, GLOG_v="3")
    # cwd: not the repository (harmless) and never MindSpore's package folder (its numpy/ would shadow NumPy)
    done = subprocess.run([ORACLE, str(script), str(path), *flags], cwd=path.parent, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"MindSpore failed to load minims' file:\n{done.stderr[-3000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def minims_checkpoint_entries():
    """Every dtype with edge values, a scalar, and a small trained-looking network."""
    rng = np.random.default_rng(14)
    arrays = {
        "float16": np.array([0.5, -65504.0, 6e-08, -0.0, np.inf, np.nan], np.float16),
        "float32": rng.standard_normal((3, 5)).astype(np.float32),
        "float64": np.array([np.pi, -1e300, 5e-324, -np.inf], np.float64),
        "int8": np.array([-128, 127, 0], np.int8),
        "int16": np.array([-32768, 32767], np.int16),
        "int32": np.array([[-2 ** 31, 2 ** 31 - 1]], np.int32),
        "int64": np.array([-2 ** 63, 2 ** 63 - 1], np.int64),
        "uint8": np.array([0, 255], np.uint8),
        "bool": np.array([True, False, True], np.bool_),
    }
    net = Net().set_train(False)
    for p in net.get_parameters():
        values = rng.uniform(0.5, 1.5, p.shape) if "variance" in p.name else rng.standard_normal(p.shape)
        p.set_data(ms.Tensor(values.astype(np.float32)))
    entries = [{"name": f"dtypes.{k}", "data": ms.Parameter(ms.Tensor(v), name=f"dtypes.{k}")} for k, v in arrays.items()]
    entries.append({"name": "dtypes.scalar", "data": ms.Tensor(np.float64(-2.5))})
    entries += [{"name": p.name, "data": p} for p in net.get_parameters()]
    return entries, net


@needs_oracle
@pytest.mark.parametrize("crc", [False, True], ids=["plain", "crc_check"])
def test_mindspore_loads_what_minims_saves(tmp_path, crc):
    entries, net = minims_checkpoint_entries()
    append = {"epoch_num": 12, "learning_rate": 0.03, "note": "saved by minims ✓"}
    path = tmp_path / "from_minims.ckpt"
    ms.save_checkpoint(entries, str(path), append_dict=append, crc_check=crc)
    seen = oracle_read(path, "--net", *(["--crc"] if crc else []))

    assert seen["order"] == [e["name"] for e in entries] + list(append)
    for e in entries:
        record = seen["entries"][e["name"]]
        assert record["dtype"] == str(e["data"].dtype) and record["shape"] == list(e["data"].shape), e["name"]
        assert record["hex"] == e["data"].asnumpy().tobytes().hex(), e["name"]
    assert seen["entries"]["note"] == {"str": append["note"]}
    assert seen["entries"]["epoch_num"]["dtype"] == "Int64" and seen["entries"]["learning_rate"]["dtype"] == "Float32"
    # MindSpore's own network takes every weight, and computes what minims computes
    assert seen["load_param_into_net_returns"][0] == []
    out = net(ms.Tensor(np.arange(8, dtype=np.float32).reshape(2, 4) / 8)).asnumpy()
    np.testing.assert_allclose(np.array(seen["net_output"], np.float32), out, rtol=1e-6, atol=1e-6)
