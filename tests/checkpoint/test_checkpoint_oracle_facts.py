"""minims' checkpoint functions against what MindSpore 2.10 did with the same scenarios.

The expected values are MindSpore's: ``tests/data/oracle_checkpoint_facts.py`` ran every scenario of
``tests/ckpt_scenarios.py`` on the real MindSpore and stored the results and exception types in
``tests/data/oracle_checkpoint_facts.json``.  Here minims runs the same scenarios.  An exception must
be of MindSpore's type (or a subclass).  Where minims deliberately differs, the scenario is listed in
a ``DIFFERENT_*`` table with the reason, and the test checks both what MindSpore did and what minims
does instead, so the table cannot go stale.
"""
import builtins
import json
import os
from pathlib import Path

import numpy as np
import pytest

import ckpt_scenarios as sc
import minims as ms

FACTS = json.loads((Path(__file__).resolve().parents[1] / "data" / "oracle_checkpoint_facts.json").read_text(encoding="utf-8"))

# Files MindSpore 2.10 reads although they are damaged: minims raises ValueError (MindSpore's type for a
# bad file) instead of making the missing part up.
DIFFERENT_FILES = {
    "content_shorter_than_dims": "MindSpore pads the missing bytes with zeros: a silent wrong number",
    "content_longer_than_dims": "MindSpore drops the extra bytes",
    "missing_tensor_content": "MindSpore makes a tensor of zeros",
    "missing_tag": "MindSpore loads the entry under the name ''",
    "value_without_tensor": "MindSpore fails with an AttributeError from its MapParameter code",
    "dtype_minims_lacks_uint16": "minims has no UInt16",
    "dtype_minims_lacks_bfloat16": "minims has no BFloat16",
}
# dims [0] with no bytes: MindSpore takes [0] for a scalar and makes it 0.0; minims reads the shape (0,)
# that the bytes agree with.
ZERO_DIM = "zero_dim_float"
# After dropping trailing 1s MindSpore 2.10 leaves the Parameter with the dict's shape; minims keeps the
# network's shape (the values are the same).
DIFFERENT_SHAPES = {"trailing_ones_in_dict", "scalar_net_one_element_dict"}


def describe(value):
    """The same record as the oracle script's ``describe_value``."""
    if isinstance(value, str):
        return {"str": value}
    arr = value.asnumpy()
    return {"dtype": str(value.dtype), "shape": list(arr.shape), "values": arr.tolist(),
            "requires_grad": bool(value.requires_grad), "name": value.name}


def outcome(fn):
    try:
        return {"result": fn()}
    except Exception as exc:
        return {"error": exc}


def assert_same_outcome(mine, oracle, what):
    if "error" in oracle:
        assert "error" in mine, f"{what}: MindSpore raised {oracle['error']}, minims returned {mine.get('result')}"
        expected = getattr(builtins, oracle["error"])
        assert isinstance(mine["error"], expected), \
            f"{what}: MindSpore raised {oracle['error']}, minims {type(mine['error']).__name__}: {mine['error']}"
    else:
        assert "error" not in mine, f"{what}: MindSpore returned a result, minims raised {mine['error']!r}"
        assert mine["result"] == oracle["result"], what


def test_the_oracle_facts_come_from_mindspore_2_10():
    assert FACTS["mindspore_version"] == "2.10.0"


# ----- load_checkpoint ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted({**sc.BAD_FILES, **sc.ODD_GOOD_FILES}))
def test_load_checkpoint_reads_each_file_as_mindspore_does(name, tmp_path):
    path = tmp_path / f"{name}.ckpt"
    path.write_bytes({**sc.BAD_FILES, **sc.ODD_GOOD_FILES}[name])
    mine = outcome(lambda: {k: describe(v) for k, v in ms.load_checkpoint(str(path)).items()})
    oracle = FACTS["load_checkpoint"][name]
    if name in DIFFERENT_FILES:
        assert "result" in oracle or oracle["error"] != "ValueError", f"{name}: no longer differs from MindSpore"
        assert isinstance(mine.get("error"), ValueError), f"{name}: {DIFFERENT_FILES[name]}; minims must raise"
        assert str(path) in str(mine["error"])
    elif name == ZERO_DIM:
        assert oracle["result"]["w"]["shape"] == [] and oracle["result"]["w"]["values"] == 0.0
        assert mine["result"]["w"]["shape"] == [0] and mine["result"]["w"]["dtype"] == "Float32"
    else:
        assert_same_outcome(mine, oracle, name)
        if "error" in mine:
            assert str(path) in str(mine["error"]), "the message names the file"


def _good(tmp_path):
    path = tmp_path / "good.ckpt"
    path.write_bytes(sc._GOOD)
    return str(path)


LOAD_CALLS = {
    "wrong_suffix": lambda good, d: list(ms.load_checkpoint(good[:-5] + ".bin")),
    "missing_file": lambda good, d: list(ms.load_checkpoint(os.path.join(d, "nothing.ckpt"))),
    "directory": lambda good, d: list(ms.load_checkpoint(os.path.join(d, "folder.ckpt"))),
    "name_is_not_a_string": lambda good, d: list(ms.load_checkpoint(3)),
    "format_is_unknown": lambda good, d: list(ms.load_checkpoint(good, format="npz")),
    "filter_prefix_is_an_int": lambda good, d: list(ms.load_checkpoint(good, filter_prefix=3)),
    "filter_prefix_is_empty": lambda good, d: list(ms.load_checkpoint(good, filter_prefix=[])),
    "dec_key_is_a_string": lambda good, d: list(ms.load_checkpoint(good, dec_key="secret")),
    "choice_func": lambda good, d: list(ms.load_checkpoint(good, choice_func=lambda n: n.endswith("bias"))),
    "choice_func_keeps_nothing": lambda good, d: list(ms.load_checkpoint(good, choice_func=lambda n: False)),
    "filter_prefix": lambda good, d: list(ms.load_checkpoint(good, filter_prefix="fc.w")),
    "specify_prefix": lambda good, d: list(ms.load_checkpoint(good, specify_prefix=["fc.w", "x"])),
}


@pytest.mark.parametrize("name", sorted(LOAD_CALLS))
def test_load_checkpoint_arguments_as_mindspore(name, tmp_path):
    good = _good(tmp_path)
    (tmp_path / "folder.ckpt").mkdir()
    assert_same_outcome(outcome(lambda: LOAD_CALLS[name](good, str(tmp_path))), FACTS["load_checkpoint"][name], name)


def test_a_wrong_crc_is_a_value_error_only_when_checked(tmp_path):
    path = tmp_path / "crc_trailer.ckpt"
    path.write_bytes(sc.ODD_GOOD_FILES["crc_trailer"])          # a made-up CRC after a good file
    assert_same_outcome(outcome(lambda: list(ms.load_checkpoint(str(path), crc_check=True))),
                        FACTS["load_checkpoint"]["crc_trailer_checked"], "crc")
    assert list(ms.load_checkpoint(str(path))) == ["fc.weight", "fc.bias"]


# ----- load_param_into_net -----------------------------------------------------------------------
def net_state(net):
    return {p.name: describe(p) for p in net.get_parameters()}


def load_into_net(params, entries, strict):
    net = sc.build_net(ms, params)
    returned = ms.load_param_into_net(net, sc.build_dict(ms, entries), strict_load=strict)
    return {"returned": [list(x) for x in returned], "net": net_state(net)}


@pytest.mark.parametrize("name", sorted(sc.LOAD_SCENARIOS))
def test_load_param_into_net_returns_and_loads_as_mindspore(name):
    mine = outcome(lambda: load_into_net(*sc.LOAD_SCENARIOS[name]))
    oracle = FACTS["load_param_into_net"][name]
    if name in DIFFERENT_SHAPES:
        assert mine["result"]["returned"] == oracle["result"]["returned"]
        for key, theirs in oracle["result"]["net"].items():
            ours = mine["result"]["net"][key]
            assert np.array_equal(np.ravel(ours["values"]), np.ravel(theirs["values"])), key
            net_shape = dict((n, list(s)) for n, s, _ in sc.LOAD_SCENARIOS[name][0])[key]
            assert ours["shape"] == net_shape, "minims keeps the network's shape"
        assert any(mine["result"]["net"][k]["shape"] != v["shape"] for k, v in oracle["result"]["net"].items()), \
            "MindSpore no longer changes the shape: drop this from DIFFERENT_SHAPES"
    else:
        assert_same_outcome(mine, oracle, name)


@pytest.mark.parametrize("name", sc.LOAD_ARG_ERRORS)
def test_load_param_into_net_wrong_arguments_as_mindspore(name):
    assert_same_outcome(outcome(lambda: sc.load_arg_error(ms, name) and None), FACTS["load_param_into_net"][name], name)


def _wraps_around(net_dtype, ckpt_dtype) -> bool:
    """An integer conversion of the test vector that MindSpore 2.10 wraps around (300 into Int8 is 44):
    minims refuses it with IntegerOutOfRange (a RuntimeError), as it refuses Tensor(300, int8)."""
    if not (net_dtype.startswith("int") and ckpt_dtype.startswith("int")):
        return False
    info = np.iinfo(net_dtype)
    return not all(info.min <= v <= info.max for v in sc.VALUES[ckpt_dtype])


@pytest.mark.parametrize("net_dtype", sc.DTYPES)
def test_dtype_conversions_of_load_param_into_net_as_mindspore(net_dtype):
    """Every pair of dtypes, with strict_load False and True: MindSpore's result or its RuntimeError."""
    for ckpt_dtype in sc.DTYPES:
        for strict in (False, True):
            key = f"{net_dtype}<-{ckpt_dtype}{' strict' if strict else ''}"
            mine = outcome(lambda: load_into_net([("w", (3,), net_dtype)], [("w", "vector", ckpt_dtype)],
                                                 strict)["net"]["w"])
            oracle = FACTS["dtype_matrix"][key]
            if not strict and _wraps_around(net_dtype, ckpt_dtype):
                assert oracle["result"]["values"] != sc.VALUES[ckpt_dtype], f"{key}: MindSpore no longer wraps"
                assert isinstance(mine.get("error"), RuntimeError) and "does not fit" in str(mine["error"]), key
            else:
                assert_same_outcome(mine, oracle, key)


def test_a_failed_load_changes_no_parameter():
    """MindSpore keeps what it loaded before the RuntimeError; minims checks everything first."""
    net = sc.build_net(ms, sc._FC)
    entries = [("fc.weight", (3, 2), "float32"), ("fc.bias", (4,), "float32")]       # the bias does not fit
    with pytest.raises(RuntimeError, match=r"fc\.bias.*\(3,\).*\(4,\)"):
        ms.load_param_into_net(net, sc.build_dict(ms, entries))
    assert not net.fc.weight.asnumpy().any(), "fc.weight was written although the call failed"


# ----- save_checkpoint ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", sc.SAVE_ERRORS)
def test_save_checkpoint_wrong_arguments_as_mindspore(name, tmp_path):
    assert_same_outcome(outcome(lambda: sc.save_error(ms, name, str(tmp_path))), FACTS["save_checkpoint"][name], name)


def test_save_checkpoint_names_files_as_mindspore(tmp_path):
    for i, given in enumerate(sc.SAVE_NAMES):
        folder = tmp_path / str(i)
        folder.mkdir()
        ms.save_checkpoint(sc.build_net(ms, sc._FC), str(folder / given))
        assert sorted(os.listdir(folder)) == FACTS["save_checkpoint"]["file_names"][given], given


def trained_fc_net():
    net = sc.build_net(ms, sc._FC)
    ms.load_param_into_net(net, sc.build_dict(ms, sc._FC))
    return net


def test_append_dict_values_are_stored_with_mindspores_dtypes(tmp_path):
    path = str(tmp_path / "append.ckpt")
    ms.save_checkpoint(trained_fc_net(), path, append_dict=dict(sc.APPEND_VALUES))
    loaded = {k: describe(v) for k, v in ms.load_checkpoint(path).items()}
    assert loaded == FACTS["save_checkpoint"]["append_dict"]
    assert list(loaded) == ["fc.weight", "fc.bias", *sc.APPEND_VALUES]


SAME_BYTES = {
    "fc_net_file_hex": lambda net, path, d: ms.save_checkpoint(net, path),
    "fc_net_file_with_crc_hex": lambda net, path, d: ms.save_checkpoint(net, path, crc_check=True),
    "parameter_list_file_hex": lambda net, path, d: ms.save_checkpoint(list(net.get_parameters())[::-1], path),
    "dict_list_file_hex": lambda net, path, d: ms.save_checkpoint(
        [{"name": "x", "data": ms.Tensor(sc.array("int16"))}, {"name": "y", "data": ms.Tensor(sc.array("bool"))}],
        path),
    "choice_func_file_hex": lambda net, path, d: ms.save_checkpoint(net, path, choice_func=lambda n: n.endswith("weight")),
    "duplicate_names_and_empty_string_hex": lambda net, path, d: ms.save_checkpoint(
        [ms.Parameter(ms.Tensor(sc.array("float32")), name="w"), ms.Parameter(ms.Tensor(sc.array("float64")), name="v"),
         ms.Parameter(ms.Tensor(sc.array("int8")), name="w")], path, append_dict={"s": ""}),
    "loaded_dict_resaved_hex": lambda net, path, d: ms.save_checkpoint(ms.load_checkpoint(d), path),
    "empty_list_file_hex": lambda net, path, d: ms.save_checkpoint([], path),
}


@pytest.mark.parametrize("name", sorted(SAME_BYTES))
def test_minims_writes_the_bytes_mindspore_writes(name, tmp_path):
    net = trained_fc_net()
    appended = str(tmp_path / "append.ckpt")
    ms.save_checkpoint(net, appended, append_dict=dict(sc.APPEND_VALUES))
    path = str(tmp_path / "out.ckpt")
    SAME_BYTES[name](net, path, appended)
    assert Path(path).read_bytes().hex() == FACTS["save_checkpoint"][name]


def test_an_empty_save_loads_as_mindspores_value_error(tmp_path):
    path = str(tmp_path / "empty.ckpt")
    ms.save_checkpoint([], path)
    assert_same_outcome(outcome(lambda: list(ms.load_checkpoint(path))),
                        FACTS["save_checkpoint"]["empty_list_file_loaded"], "empty")


def test_load_checkpoint_with_net_loads_it(tmp_path):
    path = str(tmp_path / "fc.ckpt")
    ms.save_checkpoint(trained_fc_net(), path)
    fresh = sc.build_net(ms, sc._FC)
    loaded = ms.load_checkpoint(path, net=fresh)
    assert {"returned": sorted(loaded), "net": net_state(fresh)} == FACTS["save_checkpoint"]["load_checkpoint_with_net"]


def test_saved_files_are_not_made_read_only(tmp_path):
    """MindSpore 2.10 leaves its checkpoints read-only (0o400); minims keeps a new file's usual mode."""
    assert FACTS["save_checkpoint"]["saved_file_mode"] == "0o400"
    path = tmp_path / "w.ckpt"
    ms.save_checkpoint(trained_fc_net(), str(path))
    assert os.stat(path).st_mode & 0o200, "the owner can write the file"
