"""Context: modes, device targets, pynative_synchronize, set_seed."""
import warnings

import numpy as np
import pytest

import minims as ms
from minims import context


OPTIONS = ("mode", "device_target", "device_id", "pynative_synchronize", "save_graphs", "save_graphs_path",
           "check_nan", "fast_path")


@pytest.fixture(autouse=True)
def restore_context():
    saved = {key: ms.get_context(key) for key in OPTIONS}
    yield
    ms.set_context(**saved)


def test_default_mode_is_pynative():
    assert ms.get_context("mode") == ms.PYNATIVE_MODE == 1
    assert ms.GRAPH_MODE == 0


def test_set_and_get_through_both_spellings():
    ms.set_context(mode=ms.GRAPH_MODE)
    assert context.get_context("mode") == context.GRAPH_MODE
    context.set_context(mode=context.PYNATIVE_MODE, pynative_synchronize=True)
    assert ms.get_context("pynative_synchronize") is True


def test_gpu_target_is_accepted_with_one_warning(monkeypatch):
    monkeypatch.setattr(context, "_warned_devices", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ms.set_context(device_target="GPU")
        ms.set_context(device_target="GPU")
        ms.set_context(device_target="Ascend")
    messages = [str(w.message) for w in caught]
    assert sum("GPU" in m for m in messages) == 1
    assert sum("Ascend" in m for m in messages) == 1
    assert ms.get_context("device_target") == "GPU" or ms.get_context("device_target") == "Ascend"


def test_unknown_device_is_rejected():
    with pytest.raises(ValueError, match="device_target"):
        ms.set_context(device_target="TPU")


def test_pynative_synchronize_must_be_bool():
    with pytest.raises(TypeError, match="pynative_synchronize"):
        ms.set_context(pynative_synchronize="yes")


def test_unknown_get_context_key():
    with pytest.raises(ValueError, match="unknown option"):
        ms.get_context("no_such_option")


def test_set_seed_makes_minims_and_numpy_random_streams_reproducible():
    ms.set_seed(3)
    a = context.global_rng().standard_normal(3), np.random.rand(2)
    ms.set_seed(3)
    b = context.global_rng().standard_normal(3), np.random.rand(2)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    # MindSpore's set_seed seeds numpy.random too (checked on MindSpore 2.10)
    np.random.seed(3)
    np.testing.assert_array_equal(np.random.rand(2), a[1])


def test_set_seed_rejects_negative_and_non_int():
    with pytest.raises(ValueError):
        ms.set_seed(-1)
    with pytest.raises(ValueError):
        ms.set_seed(1.5)
