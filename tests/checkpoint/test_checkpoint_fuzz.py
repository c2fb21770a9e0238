"""Fuzzing load_checkpoint with damaged files: a result or a clear ValueError, never anything else.

Two generators: real checkpoints with random damage (bytes changed, cut, inserted, removed, a huge
varint written over a length or a dimension), and entries built field by field with random dims
(negative, huge, overflowing), dtype names and content lengths.  For each file the test asserts:

* ``load_checkpoint`` returns, or raises ``ValueError`` whose message names the file — no other
  exception, no NumPy or protobuf error escaping;
* nothing large is allocated (tracemalloc: under 4 MiB for files of a few hundred bytes), so a
  header that promises terabytes costs nothing;
* what it returns is backed by the file: never more element bytes than the file holds;
* it finishes: a 20 s watchdog (SIGALRM) turns a hang into a failure.

Bounded and deterministic in ``make test`` (a few seconds); ``MINIMS_DEEP=1`` runs many more examples.
"""
import os
import signal
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ckpt_scenarios as sc
import minims as ms

# the slow tier (`pytest -m "not slow"` leaves it out): Hypothesis writes and damages hundreds of files
pytestmark = pytest.mark.slow

DEEP = os.environ.get("MINIMS_DEEP", "") not in ("", "0")
PEAK_LIMIT = 4 << 20


def fuzz_settings(bounded):
    return settings(max_examples=5000 if DEEP else bounded, deadline=None, derandomize=not DEEP, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


def _timeout(signum, frame):
    raise AssertionError("load_checkpoint did not finish within 20 s: a hang")


def load_checks(tmp_path, content):
    path = tmp_path / "fuzz.ckpt"
    path.write_bytes(content)
    previous = signal.signal(signal.SIGALRM, _timeout)
    signal.alarm(20)
    tracemalloc.start()
    try:
        try:
            loaded = ms.load_checkpoint(str(path))
        except ValueError as exc:
            assert str(path) in str(exc), f"the message does not name the file: {exc}"
            loaded = None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert peak < PEAK_LIMIT, f"{peak} bytes allocated to read {len(content)} bytes"
    if loaded is not None:
        carried = sum(v.nbytes for v in loaded.values() if not isinstance(v, str))
        assert carried <= len(content), "more element bytes than the file holds: something was made up"
    return loaded


arrays = st.sampled_from(sc.DTYPES).flatmap(
    lambda d: hnp.arrays(d, hnp.array_shapes(min_dims=0, max_dims=3, max_side=3)))
good_files = st.lists(arrays, min_size=1, max_size=3).map(
    lambda arrs: sc.checkpoint_bytes([(f"p{i}.w", a) for i, a in enumerate(arrs)]))
HUGE_VARINT = b"\xff" * 9 + b"\x01"


@st.composite
def damaged(draw):
    data = bytearray(draw(good_files))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["change", "cut", "insert", "remove", "huge_varint"]))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "change" and data:
            data[at] = draw(st.integers(0, 255))
        elif kind == "cut":
            del data[at:]
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif kind == "remove":
            del data[at:at + draw(st.integers(1, 8))]
        elif kind == "huge_varint":
            data[at:at + 1] = HUGE_VARINT
    return bytes(data)


@fuzz_settings(300)
@given(content=damaged())
def test_a_damaged_checkpoint_gives_a_result_or_a_clear_value_error(tmp_path, content):
    load_checks(tmp_path, content)


TYPE_NAMES = [*sc.TYPE_NAMES.values(), "str", "UInt16", "BFloat16", "Float8", "", "float32"]
dims = st.lists(st.one_of(st.integers(-3, 4), st.integers(-2 ** 63, 2 ** 63 - 1), st.just(2 ** 31)), max_size=5)


@st.composite
def built(draw):
    out = b""
    for i in range(draw(st.integers(1, 3))):
        tensor = sc.tensor_bytes(draw(dims), draw(st.sampled_from(TYPE_NAMES)), draw(st.binary(max_size=48)),
                                 omit=draw(st.sets(st.sampled_from(["tensor_type", "tensor_content"]), max_size=1)))
        out += sc.value_bytes(draw(st.sampled_from(["w", "b", f"x{i}"])), tensor)
    return out


@fuzz_settings(300)
@given(content=built())
def test_entries_with_random_dims_dtypes_and_sizes_give_a_result_or_a_clear_value_error(tmp_path, content):
    load_checks(tmp_path, content)


@fuzz_settings(100)
@given(content=good_files)
def test_undamaged_files_always_load(tmp_path, content):
    assert load_checks(tmp_path, content)
