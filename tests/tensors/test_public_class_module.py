"""``type(t)`` names MindSpore's module path for Tensor and Parameter (issue 25, tutorial pages).

beginner_tensor blocks 10 and 12 print ``type(t)``: MindSpore 2.10 prints
``<class 'mindspore.common.tensor.Tensor'>`` (oracle); minims, whose package name is the one the
user changed, ``<class 'minims.common.tensor.Tensor'>``.
"""
import pickle

import minims as ms


def test_tensor_and_parameter_print_mindspores_module_path():
    """Oracle: ``mindspore.Tensor`` is ``<class 'mindspore.common.tensor.Tensor'>``,
    ``mindspore.Parameter`` is ``<class 'mindspore.common.parameter.Parameter'>``."""
    assert str(type(ms.Tensor([1.0]))) == "<class 'minims.common.tensor.Tensor'>"
    assert str(ms.Parameter) == "<class 'minims.common.parameter.Parameter'>"


def test_pickle_finds_the_classes_at_that_path():
    t = pickle.loads(pickle.dumps(ms.Tensor([1.0, 2.0])))
    assert type(t) is ms.Tensor and t.asnumpy().tolist() == [1.0, 2.0]
