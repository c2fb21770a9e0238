"""Write ``tests/data/mindspore_written.ckpt`` with the real MindSpore, and what MindSpore reads back.

Run with the oracle's interpreter, from the repository root:

    GLOG_v=3 /path/to/oracle-venv/bin/python tests/data/make_mindspore_ckpt.py

The checkpoint holds one Parameter of every dtype minims has (with edge values: signed zero,
infinities, NaN, subnormals, the integer extremes), a scalar, the Parameters of a small network
(``Dense(4, 3)`` then ``BatchNorm1d(3)`` with set moving statistics) and an ``append_dict``.
``mindspore_written.json`` records, as MindSpore itself reads the file back: each entry's dtype,
shape, values and raw bytes (hex), what ``load_param_into_net`` returns for the network, and the
network's output for a fixed input in predict mode.  ``tests/checkpoint/test_checkpoint_interop.py`` checks that
minims reads the same and computes the same.
"""
import json
import os
from pathlib import Path

import numpy as np

import mindspore as ms
import mindspore.nn as nn
from mindspore import Parameter, Tensor

HERE = Path(__file__).resolve().parent
CKPT = HERE / "mindspore_written.ckpt"
JSON = HERE / "mindspore_written.json"

EDGE_VALUES = {
    "float16": np.array([0.5, -65504.0, 6e-08, -0.0, np.inf], np.float16),
    "float32": np.array([[1.5, -2.25, -0.0], [np.inf, np.nan, 1e-45], [3.4028235e38, 0.1, -1.0]], np.float32),
    "float64": np.array([np.pi, -1e300, 5e-324, -np.inf], np.float64),
    "int8": np.array([-128, 127, 0, -1], np.int8),
    "int16": np.array([-32768, 32767, 300], np.int16),
    "int32": np.array([-2 ** 31, 2 ** 31 - 1, 70000], np.int32),
    "int64": np.array([-2 ** 63, 2 ** 63 - 1, 5000000000], np.int64),
    "uint8": np.array([0, 255, 7], np.uint8),
    "bool": np.array([[True, False], [False, True]], np.bool_),
}


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)
        self.bn = nn.BatchNorm1d(3)

    def construct(self, x):
        return self.bn(self.fc(x))


def make_net():
    net = Net()
    net.fc.weight.set_data(Tensor(np.arange(12, dtype=np.float32).reshape(3, 4) / 8 - 0.5))
    net.fc.bias.set_data(Tensor(np.array([0.25, -0.5, 1.0], np.float32)))
    net.bn.moving_mean.set_data(Tensor(np.array([0.1, 0.2, 0.3], np.float32)))
    net.bn.moving_variance.set_data(Tensor(np.array([1.5, 2.0, 0.5], np.float32)))
    net.bn.gamma.set_data(Tensor(np.array([1.0, 0.5, 2.0], np.float32)))
    net.bn.beta.set_data(Tensor(np.array([0.0, 0.1, -0.1], np.float32)))
    return net.set_train(False)


def describe(value):
    if isinstance(value, str):
        return {"str": value}
    arr = value.asnumpy()
    return {"dtype": str(value.dtype), "shape": list(arr.shape), "hex": arr.tobytes().hex(),
            "values": arr.tolist()}


def main():
    net = make_net()
    entries = [{"name": f"dtypes.{name}", "data": Parameter(Tensor(arr), name=f"dtypes.{name}")}
               for name, arr in EDGE_VALUES.items()]
    entries.append({"name": "dtypes.scalar", "data": Tensor(np.float32(2.5))})
    entries += [{"name": p.name, "data": p} for p in net.get_parameters()]
    append = {"epoch_num": 7, "learning_rate": 0.125, "network": "Dense(4, 3) + BatchNorm1d(3)"}
    if CKPT.exists():
        os.chmod(CKPT, 0o644)                   # MindSpore leaves its files read-only
    ms.save_checkpoint(entries, str(CKPT), append_dict=append)
    os.chmod(CKPT, 0o644)

    loaded = ms.load_checkpoint(str(CKPT))
    fresh = Net().set_train(False)
    returned = ms.load_param_into_net(fresh, loaded)
    x = Tensor(np.arange(8, dtype=np.float32).reshape(2, 4) / 8)
    out = fresh(x).asnumpy()
    facts = {
        "mindspore_version": ms.__version__,
        "entries": {name: describe(value) for name, value in loaded.items()},
        "order": list(loaded),
        "load_param_into_net_returns": [list(r) for r in returned],
        "net_input": x.asnumpy().tolist(),
        "net_output": out.tolist(),
        "net_output_hex": out.tobytes().hex(),
    }
    JSON.write_text(json.dumps(facts, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {CKPT.name} ({CKPT.stat().st_size} bytes) and {JSON.name}")


if __name__ == "__main__":
    main()
