"""Checkpoint scenarios run twice: by MindSpore 2.10 (the oracle) and by minims.

``tests/data/oracle_checkpoint_facts.py`` runs every scenario here on the real MindSpore and records
what happened (a result or an exception type) in ``tests/data/oracle_checkpoint_facts.json``;
``tests/checkpoint/test_checkpoint_oracle_facts.py`` runs the same scenarios on minims and compares.  So the code
here must run under both: every function takes the framework module (``mindspore`` or ``minims``) as
an argument, and uses only NumPy features that NumPy 1.26 (the oracle's) and NumPy 2 share.

* :data:`DTYPES`, :data:`VALUES` — the dtypes minims has, and a test vector for each;
* :func:`checkpoint_bytes` — a .ckpt file written byte by byte with a tiny protobuf encoder (no
  generated module), so that broken files can be made on purpose;
* :data:`BAD_FILES` — the corpus of broken files;
* :data:`LOAD_SCENARIOS`, :func:`build_net`, :func:`build_dict` — networks and parameter
  dicts for ``load_param_into_net``;
* :data:`SAVE_ERRORS` — wrong arguments to ``save_checkpoint``.
"""
import hashlib

import numpy as np

DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]

#: MindSpore's dtype names in a checkpoint (``tensor_type``)
TYPE_NAMES = {"float16": "Float16", "float32": "Float32", "float64": "Float64", "int8": "Int8",
              "int16": "Int16", "int32": "Int32", "int64": "Int64", "uint8": "UInt8", "bool": "Bool"}

#: One vector per dtype, chosen so that a conversion to a narrower type shows what it does
#: (rounding, overflow to inf, wrap-around of integers).
VALUES = {
    "float16": [0.5, -2.5, 65504.0],
    "float32": [0.1, -2.5, 70000.0],
    "float64": [0.1, -2.5, 1e300],
    "int8": [-1, 2, 127],
    "int16": [-1, 2, 300],
    "int32": [-1, 2, 70000],
    "int64": [-1, 2, 5000000000],
    "uint8": [0, 2, 255],
    "bool": [True, False, True],
}


def array(dtype, values=None, shape=None):
    """The test vector of a dtype (or ``arange`` over a shape), as a NumPy array of that dtype."""
    if shape is not None:
        return (np.arange(int(np.prod(shape))).reshape(shape) % 7).astype(dtype)
    return np.array(VALUES[dtype] if values is None else values, dtype=dtype)


# ----- a protobuf encoder small enough to read: just what the checkpoint schema needs ----------------
def _varint(n):
    n &= (1 << 64) - 1                          # int64 fields: negatives as their 64-bit two's complement
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number, payload):
    """A length-delimited field (strings, bytes, sub-messages)."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def tensor_bytes(dims, tensor_type, content, omit=()):
    """A serialized ``TensorProto`` (``tensor_type`` a str, or bytes that need not be UTF-8); ``omit``
    leaves out required fields ('tensor_type', 'tensor_content')."""
    out = b"".join(_varint(1 << 3 | 0) + _varint(d) for d in dims)
    if "tensor_type" not in omit:
        out += _field(2, tensor_type if isinstance(tensor_type, bytes) else tensor_type.encode())
    if "tensor_content" not in omit:
        out += _field(3, content)
    return out


def value_bytes(tag, tensor=None):
    """A serialized ``Checkpoint`` holding one ``Value`` (MindSpore writes a file as a run of these)."""
    inner = (_field(1, tag.encode()) if tag is not None else b"") + (_field(2, tensor) if tensor is not None else b"")
    return _field(1, inner)


def checkpoint_bytes(entries):
    """A whole file from ``[(tag, array)]``, as MindSpore writes it (arrays in little-endian C order)."""
    out = b""
    for tag, arr in entries:
        arr = np.asarray(arr, order="C")
        name = TYPE_NAMES[arr.dtype.name]
        out += value_bytes(tag, tensor_bytes(list(arr.shape), name, arr.astype(arr.dtype.newbyteorder("<")).tobytes()))
    return out


def _noise(n, seed=b"minims"):
    """n deterministic pseudo-random bytes (the same with every NumPy version)."""
    out = b""
    while len(out) < n:
        seed = hashlib.sha256(seed).digest()
        out += seed
    return out[:n]


_GOOD = checkpoint_bytes([("fc.weight", array("float32", shape=(3, 2))), ("fc.bias", array("float32", shape=(3,)))])
_F32 = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], "<f4").tobytes()

#: name -> file content.  Each is loaded with load_checkpoint by both frameworks.
BAD_FILES = {
    "empty": b"",
    "random_bytes": _noise(64),
    "text_file": b"this is not a checkpoint\n",
    "truncated_in_content": _GOOD[:len(_GOOD) - 5],
    "truncated_in_header": _GOOD[:3],
    "trailing_garbage": _GOOD + b"\xff\xff\xff",
    "content_shorter_than_dims": value_bytes("w", tensor_bytes([2, 3], "Float32", _F32[:20])),
    "content_longer_than_dims": value_bytes("w", tensor_bytes([2], "Float32", _F32[:12])),
    "unknown_dtype": value_bytes("w", tensor_bytes([2], "Float8", _F32[:2])),
    "dtype_minims_lacks_uint16": value_bytes("w", tensor_bytes([2], "UInt16", _F32[:4])),
    "dtype_minims_lacks_bfloat16": value_bytes("w", tensor_bytes([2], "BFloat16", _F32[:4])),
    "absurd_dims_overflowing_int64": value_bytes("w", tensor_bytes([2 ** 31, 2 ** 31, 2 ** 31], "Float32", _F32[:4])),
    "absurd_dims_terabytes": value_bytes("w", tensor_bytes([1 << 40], "Float32", _F32[:4])),
    "negative_dim": value_bytes("w", tensor_bytes([-1, 2], "Float32", _F32[:8])),
    "missing_tensor_type": value_bytes("w", tensor_bytes([1], "Float32", _F32[:4], omit=("tensor_type",))),
    "missing_tensor_content": value_bytes("w", tensor_bytes([1], "Float32", b"", omit=("tensor_content",))),
    "missing_tag": value_bytes(None, tensor_bytes([1], "Float32", _F32[:4])),
    "value_without_tensor": value_bytes("w"),
    "name_not_utf8": _field(1, _field(1, b"\x80w") + _field(2, tensor_bytes([1], "Float32", _F32[:4]))),
    "dtype_not_utf8": value_bytes("w", tensor_bytes([1], b"Float\x80", _F32[:4])),
    "string_of_odd_length": value_bytes("s", tensor_bytes([0], "str", b"abcde")),
    "zero_dim_float": value_bytes("w", tensor_bytes([0], "Float32", b"")),
}

#: name -> file content: unusual files that are nevertheless valid for MindSpore.
ODD_GOOD_FILES = {
    # one tensor written in two slices with the same tag (MindSpore splits tensors over 512 MiB so)
    "tensor_in_two_slices": (value_bytes("w", tensor_bytes([2, 3], "Float32", _F32[:8]))
                             + value_bytes("w", tensor_bytes([2, 3], "Float32", _F32[8:]))),
    # the same tag twice, not one after the other: the later one wins
    "same_tag_twice_apart": (value_bytes("w", tensor_bytes([1], "Float32", _F32[:4]))
                             + value_bytes("v", tensor_bytes([1], "Float32", _F32[4:8]))
                             + value_bytes("w", tensor_bytes([1], "Float32", _F32[8:12]))),
    "string_value": value_bytes("s", tensor_bytes([0], "str", np.array("LeNet-5 é").tobytes())),
    "scalar": value_bytes("epoch", tensor_bytes([], "Int64", np.array(7, "<i8").tobytes())),
    "empty_shape_with_zero": value_bytes("w", tensor_bytes([0, 3], "Float32", b"")),
    "bool_byte_two": value_bytes("b", tensor_bytes([2], "Bool", b"\x02\x00")),
    "crc_trailer": _GOOD + b"crc_num" + (123456789).to_bytes(10, "big"),
}


# ----- networks and parameter dicts for load_param_into_net ------------------------------------------
def build_net(ms, params):
    """A Cell whose Parameters are ``[(dotted_name, shape, dtype)]``, made of nested Cells so that the
    names come out dotted the way a real network's do.  Each Parameter starts at zeros."""
    nn = ms.nn

    class Holder(nn.Cell):
        def construct(self, x):
            return x

    tree = {}
    for name, shape, dtype in params:
        node = tree
        *path, leaf = name.split(".")
        for part in path:
            node = node.setdefault(part, {})
        node[leaf] = (shape, dtype)

    def make(node):                              # leaves first, so each name gets its prefix once
        cell = Holder()
        for key, item in node.items():
            if isinstance(item, dict):
                setattr(cell, key, make(item))
            else:
                shape, dtype = item
                setattr(cell, key, ms.Parameter(ms.Tensor(np.zeros(shape, dtype)), name=key))
        return cell

    return make(tree)


def build_dict(ms, entries):
    """A parameter dict from ``[(key, shape, dtype)]`` (values from :func:`array`), ``(key, 'str', text)``
    for a string, or ``(key, 'vector', dtype)`` for the dtype's test vector."""
    out = {}
    for key, a, b in entries:
        if a == "str":
            out[key] = b
        elif a == "vector":
            out[key] = ms.Parameter(ms.Tensor(array(b)), name=key)
        else:
            out[key] = ms.Parameter(ms.Tensor(array(b, shape=a)), name=key)
    return out


_FC = [("fc.weight", (3, 2), "float32"), ("fc.bias", (3,), "float32")]

#: name -> (net params, dict entries, strict_load)
LOAD_SCENARIOS = {
    "exact_match": (_FC, _FC, False),
    "extra_entries_in_dict": (_FC, _FC + [("epoch", (), "int64"), ("note", "str", "hello"),
                                          ("head.weight", (2,), "float32")], False),
    "missing_entry_in_dict": (_FC, _FC[:1], False),
    "dict_with_a_prefix": (_FC, [("backbone." + n, s, d) for n, s, d in _FC], False),
    "dict_with_a_prefix_strict": (_FC, [("backbone." + n, s, d) for n, s, d in _FC], True),
    "some_prefixed_some_not": (_FC + [("head.weight", (2,), "float32")],
                               [("backbone." + n, s, d) for n, s, d in _FC] + [("head.weight", (2,), "float32")],
                               False),
    "two_prefixes_in_dict": (_FC, [("a." + _FC[0][0],) + _FC[0][1:], ("b." + _FC[1][0],) + _FC[1][1:]], False),
    "shape_mismatch": (_FC, [("fc.weight", (2, 3), "float32"), _FC[1]], False),
    "shape_mismatch_strict": (_FC, [("fc.weight", (2, 3), "float32"), _FC[1]], True),
    "trailing_ones_in_dict": (_FC, [("fc.weight", (3, 2, 1, 1), "float32"), _FC[1]], False),
    "leading_one_in_dict": (_FC, [("fc.weight", (1, 3, 2), "float32"), _FC[1]], False),
    "trailing_ones_in_net": ([("fc.weight", (3, 2, 1), "float32")], [("fc.weight", (3, 2), "float32")], False),
    "scalar_net_one_element_dict": ([("s", (), "float32")], [("s", (1,), "float32")], False),
    "one_element_net_scalar_dict": ([("s", (1,), "float32")], [("s", (), "float32")], False),
    "string_under_a_parameter_name": (_FC, [_FC[0], ("fc.bias", "str", "not a tensor")], False),
    "empty_dict": (_FC, [], False),
    "dtype_mismatch_after_prefix": (_FC, [("backbone.fc.weight", (3, 2), "int32"),
                                          ("backbone.fc.bias", (3,), "float64")], False),
}

#: name -> the arguments of load_param_into_net that are wrong (built by the test on each side)
LOAD_ARG_ERRORS = ("net_is_not_a_cell", "dict_is_a_list", "value_is_a_tensor", "key_is_not_a_string",
                   "strict_load_is_an_int")

#: name -> the arguments of save_checkpoint that are wrong
SAVE_ERRORS = ("save_obj_is_an_int", "file_name_is_not_a_string", "file_name_is_a_directory",
               "folder_does_not_exist", "append_dict_is_a_list", "append_dict_value_is_a_list",
               "append_dict_key_is_an_int", "list_of_tensors", "list_of_dicts_with_int_name",
               "list_of_dicts_with_numpy_data", "enc_key_is_a_string", "crc_check_is_an_int",
               "integrated_save_is_an_int", "format_is_unknown")


def load_arg_error(ms, name):
    """Call load_param_into_net with the wrong argument called ``name``."""
    net = build_net(ms, _FC)
    good = build_dict(ms, _FC)
    if name == "net_is_not_a_cell":
        return ms.load_param_into_net(good, good)
    if name == "dict_is_a_list":
        return ms.load_param_into_net(net, list(good.values()))
    if name == "value_is_a_tensor":
        return ms.load_param_into_net(net, {"fc.weight": ms.Tensor(array("float32", shape=(3, 2)))})
    if name == "key_is_not_a_string":
        return ms.load_param_into_net(net, {1: good["fc.weight"]})
    if name == "strict_load_is_an_int":
        return ms.load_param_into_net(net, good, strict_load=1)
    raise KeyError(name)


def save_error(ms, name, directory):
    """Call save_checkpoint with the wrong argument called ``name`` (files go to ``directory``)."""
    import os
    net = build_net(ms, _FC)
    path = os.path.join(directory, "net.ckpt")
    if name == "save_obj_is_an_int":
        return ms.save_checkpoint(3, path)
    if name == "file_name_is_not_a_string":
        return ms.save_checkpoint(net, 3)
    if name == "file_name_is_a_directory":
        return ms.save_checkpoint(net, directory)
    if name == "folder_does_not_exist":
        return ms.save_checkpoint(net, os.path.join(directory, "no_such_folder", "net.ckpt"))
    if name == "enc_key_is_a_string":
        return ms.save_checkpoint(net, path, enc_key="secret")
    if name == "crc_check_is_an_int":
        return ms.save_checkpoint(net, path, crc_check=1)
    if name == "integrated_save_is_an_int":
        return ms.save_checkpoint(net, path, integrated_save=1)
    if name == "format_is_unknown":
        return ms.save_checkpoint(net, path, format="npz")
    if name == "append_dict_is_a_list":
        return ms.save_checkpoint(net, path, append_dict=[("epoch", 1)])
    if name == "append_dict_value_is_a_list":
        return ms.save_checkpoint(net, path, append_dict={"epoch": [1]})
    if name == "append_dict_key_is_an_int":
        return ms.save_checkpoint(net, path, append_dict={1: 1})
    if name == "list_of_tensors":
        return ms.save_checkpoint([ms.Tensor(array("float32"))], path)
    if name == "list_of_dicts_with_int_name":
        return ms.save_checkpoint([{"name": 1, "data": ms.Tensor(array("float32"))}], path)
    if name == "list_of_dicts_with_numpy_data":
        return ms.save_checkpoint([{"name": "w", "data": array("float32")}], path)
    raise KeyError(name)


#: append_dict values whose stored dtype is recorded
APPEND_VALUES = {"an_int": 3, "a_float": 0.5, "a_bool": True, "a_string": "lenet", "a_numpy_float64": np.float64(0.25),
                 "a_negative_int": -(2 ** 40)}

#: file names given to save_checkpoint -> the name of the file it writes
SAVE_NAMES = ("net", "net.ckpt", "net.txt", "netckpt", "net.CKPT")
