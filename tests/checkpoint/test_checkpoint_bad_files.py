"""Broken checkpoint files: each gets a ValueError that names the file and says what is wrong.

(MindSpore 2.10 raises ValueError for bad files too; the type of every case is compared with
MindSpore's in test_checkpoint_oracle_facts.py.  Here: the words of minims' messages, and that
reading a damaged file never allocates what its header promises.)
"""
import tracemalloc

import numpy as np
import pytest

import ckpt_scenarios as sc
import minims as ms

# the corpus of tests/ckpt_scenarios.py -> words the message must contain (besides the file name)
EXPECTED_WORDS = {
    "empty": ["holds no parameters", "empty"],
    "random_bytes": ["not a valid checkpoint"],
    "text_file": ["does not start like a checkpoint", "0x74", "not a .ckpt file"],
    "truncated_in_content": ["entry 1", "announces", "truncated"],
    "truncated_in_header": ["entry 0", "truncated"],
    "trailing_garbage": ["after 2 entries", "appended"],
    "content_shorter_than_dims": ["'w'", "dims [2, 3]", "Float32", "need 24 bytes", "carries 20 bytes"],
    "content_longer_than_dims": ["'w'", "need 8 bytes", "carries 12 bytes"],
    "unknown_dtype": ["unknown dtype 'Float8'"],
    "dtype_minims_lacks_uint16": ["UInt16", "minims does not have", "Fix: convert it in MindSpore"],
    "dtype_minims_lacks_bfloat16": ["BFloat16", "minims does not have"],
    "absurd_dims_overflowing_int64": ["need 39614081257132168796771975168 bytes", "carries 4 bytes"],
    "absurd_dims_terabytes": ["dims [1099511627776]", "need 4398046511104 bytes"],
    "negative_dim": ["negative dimension", "[-1, 2]"],
    "missing_tensor_type": ["'w'", "no 'tensor_type' field"],
    "missing_tensor_content": ["'w'", "no 'tensor_content' field"],
    "missing_tag": ["entry 0 has no name"],
    "value_without_tensor": ["'w' holds no tensor"],
    "name_not_utf8": ["entry 0 has a name that is not UTF-8 text"],
    "dtype_not_utf8": ["unknown dtype b'Float\\x80'"],
    "string_of_odd_length": ["string of 5 bytes", "UTF-32"],
    "zero_dim_float": None,                     # not broken: dims [0] and no bytes is a (0,)-shaped tensor
}


def write(tmp_path, name, content):
    path = tmp_path / f"{name}.ckpt"
    path.write_bytes(content)
    return str(path)


def test_the_corpus_is_covered():
    assert set(EXPECTED_WORDS) == set(sc.BAD_FILES)


@pytest.mark.parametrize("name", sorted(n for n, w in EXPECTED_WORDS.items() if w))
def test_a_broken_file_gets_a_value_error_naming_it_and_the_problem(name, tmp_path):
    path = write(tmp_path, name, sc.BAD_FILES[name])
    with pytest.raises(ValueError) as info:
        ms.load_checkpoint(path)
    message = str(info.value)
    assert message.startswith("load_checkpoint: ") and path in message and "Fix:" in message
    for word in EXPECTED_WORDS[name]:
        assert word in message, f"{word!r} not in {message!r}"


@pytest.mark.parametrize("name", ["absurd_dims_overflowing_int64", "absurd_dims_terabytes"])
def test_absurd_dims_allocate_nothing(name, tmp_path):
    path = write(tmp_path, name, sc.BAD_FILES[name])
    tracemalloc.start()
    try:
        with pytest.raises(ValueError):
            ms.load_checkpoint(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, f"{peak} bytes allocated for a 40-byte file"


def test_every_truncation_of_a_good_file_is_an_error_or_a_whole_entry(tmp_path):
    """Cut after each byte: a cut between two entries leaves a shorter valid file; any other cut is an error."""
    good = sc.checkpoint_bytes([("a", np.arange(3, dtype=np.float32)), ("b", np.array([True, False]))])
    first = len(sc.checkpoint_bytes([("a", np.arange(3, dtype=np.float32))]))
    for cut in range(1, len(good)):
        path = write(tmp_path, f"cut{cut}", good[:cut])
        if cut == first:
            assert list(ms.load_checkpoint(path)) == ["a"]
            continue
        with pytest.raises(ValueError, match="truncated") as info:
            ms.load_checkpoint(path)
        assert path in str(info.value)


def test_a_map_parameter_is_refused_with_the_way_out(tmp_path):
    inner = sc._field(1, b"table") + sc._field(3, sc._field(1, sc.tensor_bytes([1], "Int64", b"\0" * 8)))
    path = write(tmp_path, "map", sc._field(1, inner))
    with pytest.raises(ValueError, match=r"'table' is a MapParameter.*choice_func"):
        ms.load_checkpoint(path)


def test_more_dimensions_than_numpy_allows(tmp_path):
    path = write(tmp_path, "dims", sc.value_bytes("w", sc.tensor_bytes([1] * 70, "Float32", b"\0" * 4)))
    with pytest.raises(ValueError, match=r"'w' has dims \[1, 1, .*NumPy cannot make"):
        ms.load_checkpoint(path)


def test_slices_of_one_tensor_must_agree(tmp_path):
    content = (sc.value_bytes("w", sc.tensor_bytes([2], "Float32", b"\0" * 4))
               + sc.value_bytes("w", sc.tensor_bytes([2], "Int32", b"\0" * 4)))
    with pytest.raises(ValueError, match=r"'w' is written in 2 slices whose dims or dtypes differ"):
        ms.load_checkpoint(write(tmp_path, "slices", content))


def test_a_filtered_out_entry_is_not_even_checked(tmp_path):
    """As MindSpore: choice_func decides before an entry is converted, so a broken entry can be skipped."""
    content = sc.value_bytes("broken", sc.tensor_bytes([5], "Float32", b"")) + sc.checkpoint_bytes(
        [("w", np.ones(2, np.float32))])
    path = write(tmp_path, "partly", content)
    assert list(ms.load_checkpoint(path, choice_func=lambda name: name != "broken")) == ["w"]
    with pytest.raises(ValueError, match="'broken'"):
        ms.load_checkpoint(path)


@pytest.mark.parametrize("name", ["missing", "folder", "suffix"])
def test_a_name_that_is_not_a_checkpoint_file(name, tmp_path):
    (tmp_path / "folder.ckpt").mkdir()
    (tmp_path / "weights.npz").write_bytes(sc._GOOD)
    path, words = {"missing": (tmp_path / "nothing.ckpt", "does not exist"),
                   "folder": (tmp_path / "folder.ckpt", "is a folder"),
                   "suffix": (tmp_path / "weights.npz", "does not end in 'ckpt'")}[name]
    with pytest.raises(ValueError, match=words) as info:
        ms.load_checkpoint(str(path))
    assert str(path) in str(info.value) and "Fix:" in str(info.value)


def test_shape_and_dtype_mismatches_name_the_parameter_and_the_fix():
    net = sc.build_net(ms, [("fc.weight", (3, 2), "float32")])
    with pytest.raises(RuntimeError, match=r"'fc\.weight' has shape \(3, 2\).*\(2, 3\).*Fix: build the network"):
        ms.load_param_into_net(net, sc.build_dict(ms, [("fc.weight", (2, 3), "float32")]))
    with pytest.raises(RuntimeError, match=r"'fc\.weight' is Float32.*Int32.*UInt8 and Bool do not convert.*Fix"):
        ms.load_param_into_net(net, sc.build_dict(ms, [("fc.weight", (3, 2), "int32")]))
    with pytest.raises(RuntimeError, match=r"strict_load=True the dtypes must be equal"):
        ms.load_param_into_net(net, sc.build_dict(ms, [("fc.weight", (3, 2), "float64")]), strict_load=True)
