"""Read a checkpoint with the real MindSpore and print what it finds, as JSON (used by
``tests/checkpoint/test_checkpoint_interop.py`` to check that MindSpore loads what minims saves).

    /path/to/oracle-venv/bin/python tests/data/oracle_read_checkpoint.py FILE.ckpt [--crc] [--net]

Prints ``{"entries": {name: {"dtype", "shape", "hex"} or {"str"}}, "order": [...]}``; with ``--crc``
the file is loaded with ``crc_check=True``; with ``--net`` the entries are also loaded into the
network of ``make_mindspore_ckpt.py`` (Dense(4, 3) + BatchNorm1d(3)), and what
``load_param_into_net`` returns and the network's output for that script's input are added.
"""
import json
import sys

import numpy as np

import mindspore as ms
from mindspore import Tensor

from make_mindspore_ckpt import Net


def main(argv):
    path = argv[1]
    loaded = ms.load_checkpoint(path, crc_check="--crc" in argv)
    out = {"order": list(loaded), "entries": {}}
    for name, value in loaded.items():
        if isinstance(value, str):
            out["entries"][name] = {"str": value}
        else:
            arr = value.asnumpy()
            out["entries"][name] = {"dtype": str(value.dtype), "shape": list(arr.shape), "hex": arr.tobytes().hex()}
    if "--net" in argv:
        net = Net().set_train(False)
        out["load_param_into_net_returns"] = [list(r) for r in ms.load_param_into_net(net, loaded)]
        x = Tensor(np.arange(8, dtype=np.float32).reshape(2, 4) / 8)
        out["net_output"] = net(x).asnumpy().tolist()
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv)
