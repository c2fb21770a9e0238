"""The bytes of a MindSpore ``.ckpt`` file: named arrays to bytes and back, checked on the way in.

A checkpoint is a protobuf ``Checkpoint`` message (schema: ``checkpoint.proto`` beside this file), a
list of ``Value``\\ s, each a ``tag`` (the name) and a ``TensorProto``: ``dims``, ``tensor_type``
(MindSpore's dtype name, ``"Float32"``) and ``tensor_content`` (the raw elements, little-endian, C
order).  MindSpore writes each value as a ``Checkpoint`` of its own and concatenates them (protobuf
reads that back as one message); minims does the same, so both write the same bytes.  Two more
conventions of MindSpore's:

* a string (from ``append_dict``) is stored with ``tensor_type "str"``, ``dims [0]`` and its UTF-32
  code units;
* a tensor over 512 MiB is written in slices along its first axis, one value per slice, all with the
  same tag; consecutive values with one tag are joined when reading;
* ``save_checkpoint(..., crc_check=True)`` appends ``b"crc_num"`` and the CRC-32 of everything before
  it as 10 big-endian bytes.  ``load_checkpoint(..., crc_check=True)`` of a file without that trailer
  raises: a file cut short between two entries looks just like that (MindSpore 2.10 warns that the
  file has no CRC and loads the entries that are left).

Reading never trusts the file: a tensor's ``dims`` times its item size must equal the bytes it
carries, which is checked with Python integers *before* anything is allocated, so a damaged header
that promises terabytes costs nothing.  Every problem raises ``ValueError`` (MindSpore's type for a
bad file) naming the file, the entry and what is wrong.
"""
from __future__ import annotations

import math
import zlib

import numpy as np

__all__ = ["TYPE_NAMES", "CheckpointFileError", "encode", "decode"]

#: minims dtype (its NumPy name) -> MindSpore's name in ``tensor_type``
TYPE_NAMES = {"float16": "Float16", "float32": "Float32", "float64": "Float64", "int8": "Int8",
              "int16": "Int16", "int32": "Int32", "int64": "Int64", "uint8": "UInt8", "bool": "Bool"}
_FROM_NAME = {ms_name: np.dtype(np_name).newbyteorder("<") for np_name, ms_name in TYPE_NAMES.items()}
# dtypes MindSpore writes that minims has no counterpart for
_MINDSPORE_ONLY = ("UInt16", "UInt32", "UInt64", "BFloat16", "Int4")
STRING_TYPE = "str"

#: MindSpore's slice size: a tensor of more than this many bytes is written as several values
SLICE_BYTES = 512 * 1024 * 1024
_CRC_MARK = b"crc_num"
_CRC_LEN = len(_CRC_MARK) + 10


class CheckpointFileError(ValueError):
    """A checkpoint file that cannot be read: ValueError, as MindSpore raises for bad files."""


def _messages():
    try:
        from . import checkpoint_pb2
    except ImportError as exc:                          # protobuf missing or too old for the module
        raise ImportError(
            f"minims checkpoints need the 'protobuf' package (>= 7.35.1): {exc}. "
            "Fix: pip install 'protobuf>=7.35.1' (make install does it)."
        ) from exc
    return checkpoint_pb2


# ----- writing ---------------------------------------------------------------------------------
def _slices(arr: np.ndarray):
    """MindSpore's slicing of a large tensor: ``array_split`` along the first axis."""
    if arr.nbytes <= SLICE_BYTES or arr.ndim == 0:
        return [arr]
    return np.array_split(arr, math.ceil(arr.nbytes / SLICE_BYTES))


def encode(entries, crc_check: bool = False):
    """The bytes of a checkpoint holding ``entries``, a list of ``(name, value)`` with each value a
    NumPy array of a minims dtype or a ``str``; yielded one value at a time (a large tensor is never
    copied into one big buffer)."""
    pb = _messages()
    crc = 0
    for name, value in entries:
        if isinstance(value, str):
            # MindSpore stores np.array(text).tobytes(): UTF-32 code units, one NUL unit for ""
            parts = [([0], STRING_TYPE, value.encode("utf-32-le") or b"\0\0\0\0")]
        else:
            arr = np.asarray(value, order="C")         # (ascontiguousarray would make a scalar 1-D)
            type_name = TYPE_NAMES[arr.dtype.name]
            little = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
            parts = [(list(arr.shape), type_name, piece.tobytes()) for piece in _slices(little)]
        for dims, type_name, content in parts:
            message = pb.Checkpoint()
            item = message.value.add()
            item.tag = name
            item.tensor.dims.extend(dims)
            item.tensor.tensor_type = type_name
            item.tensor.tensor_content = content
            chunk = message.SerializeToString()
            if crc_check:
                crc = zlib.crc32(chunk, crc)
            yield chunk
    if crc_check:
        yield _CRC_MARK + crc.to_bytes(10, "big")


# ----- reading ---------------------------------------------------------------------------------
def _varint(data: bytes, pos: int):
    value = shift = 0
    while pos < len(data) and shift < 70:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
    return None, pos


def _why_unparsable(data: bytes, pb) -> str:
    """protobuf only says 'Error parsing message'; walk the top level to say where and how."""
    pos = index = 0
    while pos < len(data):
        start = pos
        if data[pos] != 0x0A:                           # the key of field 1, length-delimited: a Value
            if index == 0:
                return (f"it does not start like a checkpoint (first byte 0x{data[0]:02x}, a checkpoint "
                        "starts with 0x0a): it is not a .ckpt file, or it is damaged from the start")
            return (f"after {index} entries, byte {start} (0x{data[start]:02x}) does not start an entry: "
                    "the file is damaged there, or has something appended")
        pos += 1
        length, pos = _varint(data, pos)
        if length is None:
            return f"it ends inside the header of entry {index} (byte {start}): the file is truncated"
        if pos + length > len(data):
            return (f"entry {index} (at byte {start}) announces {length} bytes but only {len(data) - pos} "
                    "remain: the file is truncated (cut short while writing or copying)")
        try:
            pb.Checkpoint.Value.FromString(data[pos:pos + length])
        except Exception:
            return f"entry {index} (at byte {start}) is damaged inside"
        pos += length
        index += 1
    return "its entries are damaged"


def _strip_crc(data: bytes, crc_check: bool, fail) -> bytes:
    """Remove the CRC trailer of ``crc_check=True`` files, verifying it when asked.  Asked to verify
    a file without one, refuse: a file cut short between two entries loses its CRC and its last
    entries together, and reads as a whole file that was saved without a CRC."""
    if len(data) >= _CRC_LEN and data[-_CRC_LEN:-10] == _CRC_MARK:
        body, stored = data[:-_CRC_LEN], int.from_bytes(data[-10:], "big")
        if crc_check and zlib.crc32(body) != stored:
            fail(f"its CRC-32 is {zlib.crc32(body):#010x} but the file records {stored:#010x}: the file "
                 "was changed or damaged after it was saved", "save it again, or restore a good copy")
        return body
    if crc_check:
        fail("crc_check=True, but the file does not end with the CRC-32 that save_checkpoint(..., "
             "crc_check=True) writes: it was saved without crc_check=True, or it was cut short (truncated "
             "between two entries, a file loses its last entries and its CRC together), so nothing can be "
             "verified", "if it was saved without crc_check=True, load it with crc_check=False; otherwise "
             "restore a good copy or save it again")
    return data


def decode(data: bytes, where: str, keep=lambda name: True, crc_check: bool = False) -> dict:
    """The entries of a checkpoint: each name mapped to a NumPy array or a ``str``, in file order;
    ``keep(name)`` chooses which entries are converted (the others are not even checked, as in
    MindSpore).  ``where`` names the file in error messages."""
    def fail(what, fix="save the checkpoint again with save_checkpoint (MindSpore's or minims')"):
        raise CheckpointFileError(f"load_checkpoint: cannot read '{where}': {what}. Fix: {fix}.")

    pb = _messages()
    data = _strip_crc(data, crc_check, fail)
    message = pb.Checkpoint()
    try:
        # Merge, not Parse: a missing required field is then reported below by name, not as 'Error parsing'
        message.MergeFromString(data)
    except Exception:
        fail(f"it is not a valid checkpoint: {_why_unparsable(data, pb)}")

    values = message.value
    entries = {}
    pending = []                                # consecutive slices of one tensor
    for i, value in enumerate(values):
        if not value.HasField("tag"):
            fail(f"entry {i} has no name (its 'tag' field is missing)")
        name = value.tag
        if not isinstance(name, str):           # protobuf hands over bytes that are not UTF-8 as bytes
            fail(f"entry {i} has a name that is not UTF-8 text: {name!r}")
        if not keep(name):
            continue
        which = value.WhichOneof("value")
        if which == "maptensor":
            fail(f"entry '{name}' is a MapParameter (a MindSpore embedding table), which minims does not have",
                 f"leave it out when saving in MindSpore (choice_func=lambda name: name != {name!r})")
        if which is None:
            fail(f"entry '{name}' holds no tensor")
        pending.append(value.tensor)
        if i + 1 < len(values) and values[i + 1].tag == name:
            continue                            # the next value continues this tensor
        entries[name] = _tensor(name, pending, fail)
        pending = []
    return entries


def _tensor(name, slices, fail):
    """One entry's value from its slices (usually one), after checking dims, dtype and size."""
    last = slices[-1]
    for field in ("tensor_type", "tensor_content"):
        if not all(s.HasField(field) for s in slices):
            fail(f"entry '{name}' has no '{field}' field")
    type_name, dims = last.tensor_type, list(last.dims)
    if any(s.tensor_type != type_name or list(s.dims) != dims for s in slices):
        fail(f"entry '{name}' is written in {len(slices)} slices whose dims or dtypes differ")
    content = b"".join(s.tensor_content for s in slices)
    if type_name == STRING_TYPE:
        if len(content) % 4:
            fail(f"entry '{name}' is a string of {len(content)} bytes, but a string is stored as 4-byte "
                 "UTF-32 code units")
        try:
            return content.decode("utf-32-le").rstrip("\0")   # NumPy's str drops trailing NULs too
        except UnicodeDecodeError:
            fail(f"entry '{name}' is a string whose bytes are not valid UTF-32")
    dtype = _FROM_NAME.get(type_name)
    if dtype is None:
        if type_name in _MINDSPORE_ONLY:
            fail(f"entry '{name}' has dtype {type_name}, which minims does not have (minims has "
                 f"{', '.join(TYPE_NAMES.values())})",
                 "convert it in MindSpore before saving, e.g. param.set_data(param.astype(mindspore.float32))")
        fail(f"entry '{name}' has the unknown dtype {type_name!r} (known: "
             f"{', '.join([*TYPE_NAMES.values(), *_MINDSPORE_ONLY, STRING_TYPE])})")
    if any(d < 0 for d in dims):
        fail(f"entry '{name}' has a negative dimension in its dims {dims}")
    count = math.prod(dims)                     # Python integers: no overflow, nothing allocated yet
    expected = count * dtype.itemsize
    if expected != len(content):
        fail(f"entry '{name}' has dims {dims} and dtype {type_name}, which need {expected} bytes, "
             f"but it carries {len(content)} bytes")
    try:
        arr = np.frombuffer(content, dtype=dtype).reshape(dims)
    except ValueError as exc:                   # e.g. more dimensions than NumPy allows
        fail(f"entry '{name}' has dims {dims}, which NumPy cannot make an array of ({exc})")
    if type_name == "Bool":
        return arr.view(np.uint8) != 0           # any non-zero byte is True, as in MindSpore
    # in the machine's byte order; a read-only view of the file's bytes where that is the same
    # (whoever keeps the array copies it: a Parameter always does)
    return arr.astype(dtype.newbyteorder("="), copy=False)
