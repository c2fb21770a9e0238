"""Record what MindSpore 2.10 does with checkpoints, for minims' tests to compare against.

Run with the oracle's interpreter, from the repository root (not from inside MindSpore's package folder,
where ``import numpy`` would find ``mindspore/numpy``):

    GLOG_v=3 /path/to/oracle-venv/bin/python tests/data/oracle_checkpoint_facts.py

It runs the scenarios of ``tests/ckpt_scenarios.py`` on MindSpore and writes
``tests/data/oracle_checkpoint_facts.json``: for each one the result (names, dtypes, shapes, values) or
the exception type and message (the temporary folder shown as ``<dir>``).  It also records the
schema of MindSpore's own ``checkpoint_pb2`` (field names, numbers, labels, types), which minims'
``checkpoint.proto`` must match.
"""
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))            # tests/, for ckpt_scenarios

import mindspore as ms                          # noqa: E402
from mindspore.train import checkpoint_pb2      # noqa: E402

import ckpt_scenarios as sc                     # noqa: E402

OUT = HERE / "oracle_checkpoint_facts.json"


def describe_value(v):
    if isinstance(v, str):
        return {"str": v}
    arr = v.asnumpy()
    if arr.dtype.name not in sc.DTYPES and arr.dtype.name not in ("uint16", "uint32", "uint64"):
        arr = arr.astype(np.float64)            # bfloat16: JSON knows no such type
    return {"dtype": str(v.dtype), "shape": list(arr.shape), "values": arr.tolist(),
            "requires_grad": bool(v.requires_grad), "name": v.name}


def describe_error(exc, directory):
    text = str(exc).replace(os.path.realpath(directory), "<dir>").replace(directory, "<dir>")
    return {"error": type(exc).__name__, "message": text}


def attempt(fn, directory):
    try:
        return {"result": fn()}
    except Exception as exc:                    # recorded, whatever it is
        return describe_error(exc, directory)


def label(field):
    return "repeated" if field.is_repeated else "required" if field.is_required else "optional"


def schema():
    out = {}
    for message in checkpoint_pb2.DESCRIPTOR.message_types_by_name.values():
        for m in [message, *message.nested_types]:
            out[m.name] = [{"name": f.name, "number": f.number, "label": label(f), "type": f.type,
                            "message_type": f.message_type.name if f.message_type else None,
                            "oneof": f.containing_oneof.name if f.containing_oneof else None}
                           for f in m.fields]
    return out


def load_files(directory):
    facts = {}
    for name, content in {**sc.BAD_FILES, **sc.ODD_GOOD_FILES}.items():
        path = os.path.join(directory, name + ".ckpt")
        Path(path).write_bytes(content)
        facts[name] = attempt(lambda: {k: describe_value(v) for k, v in ms.load_checkpoint(path).items()}, directory)
    crc_path = os.path.join(directory, "crc_trailer.ckpt")
    facts["crc_trailer_checked"] = attempt(lambda: list(ms.load_checkpoint(crc_path, crc_check=True)), directory)
    good = os.path.join(directory, "good.ckpt")
    Path(good).write_bytes(sc._GOOD)
    facts["wrong_suffix"] = attempt(lambda: list(ms.load_checkpoint(good[:-5] + ".bin")), directory)
    facts["missing_file"] = attempt(lambda: list(ms.load_checkpoint(os.path.join(directory, "nothing.ckpt"))),
                                    directory)
    os.mkdir(os.path.join(directory, "folder.ckpt"))
    facts["directory"] = attempt(lambda: list(ms.load_checkpoint(os.path.join(directory, "folder.ckpt"))), directory)
    facts["name_is_not_a_string"] = attempt(lambda: list(ms.load_checkpoint(3)), directory)
    facts["format_is_unknown"] = attempt(lambda: list(ms.load_checkpoint(good, format="npz")), directory)
    facts["filter_prefix_is_an_int"] = attempt(lambda: list(ms.load_checkpoint(good, filter_prefix=3)), directory)
    facts["filter_prefix_is_empty"] = attempt(lambda: list(ms.load_checkpoint(good, filter_prefix=[])), directory)
    facts["dec_key_is_a_string"] = attempt(lambda: list(ms.load_checkpoint(good, dec_key="secret")), directory)
    facts["choice_func"] = attempt(lambda: list(ms.load_checkpoint(good, choice_func=lambda n: n.endswith("bias"))),
                                   directory)
    facts["choice_func_keeps_nothing"] = attempt(lambda: list(ms.load_checkpoint(good, choice_func=lambda n: False)),
                                                 directory)
    facts["filter_prefix"] = attempt(lambda: list(ms.load_checkpoint(good, filter_prefix="fc.w")), directory)
    facts["specify_prefix"] = attempt(lambda: list(ms.load_checkpoint(good, specify_prefix=["fc.w", "x"])),
                                      directory)
    return facts


def net_state(net):
    return {p.name: describe_value(p) for p in net.get_parameters()}


def load_into_net(params, entries, strict):
    net = sc.build_net(ms, params)
    not_loaded = ms.load_param_into_net(net, sc.build_dict(ms, entries), strict_load=strict)
    return {"returned": [list(x) for x in not_loaded], "net": net_state(net)}


def load_scenarios(directory):
    facts = {name: attempt(lambda: load_into_net(*spec), directory) for name, spec in sc.LOAD_SCENARIOS.items()}
    for name in sc.LOAD_ARG_ERRORS:
        facts[name] = attempt(lambda: sc.load_arg_error(ms, name) and None, directory)
    return facts


def dtype_matrix(directory):
    """net dtype -> checkpoint dtype -> strict_load -> what load_param_into_net does."""
    facts = {}
    for net_dtype in sc.DTYPES:
        for ckpt_dtype in sc.DTYPES:
            for strict in (False, True):
                key = f"{net_dtype}<-{ckpt_dtype}{' strict' if strict else ''}"
                facts[key] = attempt(lambda: load_into_net([("w", (3,), net_dtype)], [("w", "vector", ckpt_dtype)],
                                                           strict)["net"]["w"], directory)
    return facts


def save_facts(directory):
    facts = {}
    for name in sc.SAVE_ERRORS:
        sub = os.path.join(directory, f"save_{name}")
        os.mkdir(sub)
        facts[name] = attempt(lambda: sc.save_error(ms, name, sub), directory)
    names = {}
    for i, given in enumerate(sc.SAVE_NAMES):
        sub = os.path.join(directory, f"name_{i}")
        os.mkdir(sub)
        ms.save_checkpoint(sc.build_net(ms, sc._FC), os.path.join(sub, given))
        names[given] = sorted(os.listdir(sub))
    facts["file_names"] = names

    net = sc.build_net(ms, sc._FC)
    ms.load_param_into_net(net, sc.build_dict(ms, sc._FC))
    path = os.path.join(directory, "append.ckpt")
    ms.save_checkpoint(net, path, append_dict=dict(sc.APPEND_VALUES))
    facts["append_dict"] = {k: describe_value(v) for k, v in ms.load_checkpoint(path).items()}

    # the bytes of whole files, which minims must reproduce exactly
    path = os.path.join(directory, "fc.ckpt")
    ms.save_checkpoint(net, path)
    facts["fc_net_file_hex"] = Path(path).read_bytes().hex()
    ms.save_checkpoint(net, path, crc_check=True)
    facts["fc_net_file_with_crc_hex"] = Path(path).read_bytes().hex()
    ms.save_checkpoint(list(net.get_parameters())[::-1], path)
    facts["parameter_list_file_hex"] = Path(path).read_bytes().hex()
    ms.save_checkpoint([{"name": "x", "data": ms.Tensor(sc.array("int16"))},
                        {"name": "y", "data": ms.Tensor(sc.array("bool"))}], path)
    facts["dict_list_file_hex"] = Path(path).read_bytes().hex()
    ms.save_checkpoint(ms.load_checkpoint(os.path.join(directory, "append.ckpt")), path)
    facts["loaded_dict_resaved_hex"] = Path(path).read_bytes().hex()
    ms.save_checkpoint(net, path, choice_func=lambda n: n.endswith("weight"))
    facts["choice_func_file_hex"] = Path(path).read_bytes().hex()
    ms.save_checkpoint([ms.Parameter(ms.Tensor(sc.array("float32")), name="w"),
                        ms.Parameter(ms.Tensor(sc.array("float64")), name="v"),
                        ms.Parameter(ms.Tensor(sc.array("int8")), name="w")], path, append_dict={"s": ""})
    facts["duplicate_names_and_empty_string_hex"] = Path(path).read_bytes().hex()
    ms.save_checkpoint([], path)
    facts["empty_list_file_hex"] = Path(path).read_bytes().hex()
    facts["empty_list_file_loaded"] = attempt(lambda: list(ms.load_checkpoint(path)), directory)
    facts["saved_file_mode"] = oct(os.stat(path).st_mode & 0o777)

    path = os.path.join(directory, "fc_for_net.ckpt")
    ms.save_checkpoint(net, path)
    fresh = sc.build_net(ms, sc._FC)
    loaded = ms.load_checkpoint(path, net=fresh)
    facts["load_checkpoint_with_net"] = {"returned": sorted(loaded), "net": net_state(fresh)}
    return facts


def main():
    with tempfile.TemporaryDirectory() as directory:
        facts = {
            "mindspore_version": ms.__version__,
            "numpy_version": np.__version__,
            "schema": schema(),
            "load_checkpoint": load_files(directory),
            "load_param_into_net": load_scenarios(directory),
            "dtype_matrix": dtype_matrix(directory),
            "save_checkpoint": save_facts(directory),
        }
    OUT.write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(HERE.parent.parent)}")


if __name__ == "__main__":
    main()
