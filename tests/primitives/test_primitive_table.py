"""``minims.primitives.table()``: the front door of the primitive table says the truth.

The rows are checked against an independent walk over every module of the package, and each
column against what the class really does: a ✓ under bprop/sympy means the class overrides the
base class's rule, a kernel name under numba means that calling the primitive with the fast path on
calls exactly that function of ``minims.fast``.
"""
import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import minims
import minims.primitives as primitives
from minims import Tensor, fast
from minims.primitives import Primitive, table
from minims.primitives import nn as P
from minims.primitives import activation


def every_primitive_class():
    """Primitive subclasses with an ``impl`` of their own, found by importing every module (but
    ``ops.Custom``, whose rows are its instances: issue 26 item 3)."""
    found = set()
    for info in pkgutil.walk_packages(minims.__path__, "minims."):
        if info.name.startswith("minims.fast.") and not fast.numba_available():
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if (inspect.isclass(obj) and issubclass(obj, Primitive) and obj.__module__ == info.name
                    and not obj.__name__.startswith("_") and obj.impl is not Primitive.impl
                    and not getattr(obj, "rows_per_instance", False)):
                found.add(obj)
    return found


def test_the_table_lists_every_primitive_once():
    rows = table()
    assert len({r.cls for r in rows}) == len(rows)
    assert {r.cls for r in rows} == every_primitive_class()
    assert {"Add", "MatMul", "Conv2D", "CellBprop", "GraphCall", "HookBackward"} <= {r.name for r in rows}


def test_each_column_says_what_the_class_does():
    for r in table():
        assert r.impl and r.cls.impl is not Primitive.impl
        if not r.cls.differentiable:
            assert r.bprop is None, r.name
        else:
            # a compiled graph records its own node, whose rule runs its backward graph
            assert r.bprop == (r.cls.bprop is not Primitive.bprop or r.cls.record_node is not None), r.name
        assert r.sympy == (r.cls.sympy is not Primitive.sympy), r.name
        assert r.where.endswith(".py") and r.cls.__module__.replace(".", "/").endswith(r.where[:-3]
                                                                                        .removesuffix("/__init__"))


def test_only_relu6grad_misses_a_backward_rule():
    """MindSpore defines no second-order rule for ReLU6 (the custom-bprop page's example); every
    other differentiable primitive has one."""
    assert table().missing("bprop") == ["ReLU6Grad"] == table().missing("jvp")
    with pytest.raises(ValueError, match="unknown rule"):
        table().missing("jvp_rule")


def test_the_text_form_has_a_row_per_primitive():
    text = str(table())
    lines = text.splitlines()
    assert lines[0].startswith(f"{len(table())} primitives")
    assert lines[1].split() == ["primitive", "defined", "in", "impl", "bprop", "jvp", "batch", "sympy", "numba"]
    assert len(lines) == 3 + len(table())
    row = next(line for line in lines if line.startswith("Conv2D "))
    assert row.split() == ["Conv2D", "primitives/nn/conv.py", "✓", "✓", "✓", "✓", "·", "✓"]
    assert next(line for line in lines if line.startswith("Greater ")).split()[3] == "–"
    assert primitives.table is table


def _kernel_calls():
    """For every primitive with a Numba kernel: a call of it on small float64 inputs."""
    rng = np.random.default_rng(0)

    def t(*shape):
        return Tensor(rng.standard_normal(shape))
    x, w, dy = t(2, 3, 6, 6), t(4, 3, 3, 3), t(2, 4, 4, 4)
    pooled = t(2, 3, 3, 3)
    logits, labels = t(4, 5), Tensor(np.eye(5)[[0, 2, 1, 4]])
    sparse = Tensor(np.array([0, 2, 1, 4], np.int32))
    c = Tensor(np.ones(3))
    return {
        "Conv2D": lambda: P.Conv2D(4, 3)(x, w),
        "Conv2DBackpropInput": lambda: P.Conv2DBackpropInput(4, 3)(dy, w, x.shape),
        "Conv2DTranspose": lambda: P.Conv2DTranspose(4, 3)(dy, w, x.shape),
        "Conv2DBackpropFilter": lambda: P.Conv2DBackpropFilter(4, 3)(dy, x, w.shape),
        "MaxPool": lambda: P.MaxPool(2, 2)(x),
        "MaxPoolGrad": lambda: P.MaxPoolGrad(2, 2)(x, pooled, pooled),
        "MaxPoolGradGrad": lambda: P.MaxPoolGradGrad(2, 2)(x, pooled, x),
        "AvgPool": lambda: P.AvgPool(2, 2)(x),
        "AvgPoolGrad": lambda: P.AvgPoolGrad(2, 2)(x, pooled, pooled),
        "BatchNorm": lambda: P.BatchNorm(True)(x, c, c, c, c),
        "SoftmaxCrossEntropyWithLogits": lambda: P.SoftmaxCrossEntropyWithLogits()(logits, labels),
        "SparseSoftmaxCrossEntropyWithLogits": lambda: P.SparseSoftmaxCrossEntropyWithLogits()(logits, sparse),
        "Softmax": lambda: activation.Softmax()(logits),
    }


@pytest.mark.skipif(not fast.numba_available(), reason="Numba is not installed")
def test_a_numba_column_names_the_kernel_the_primitive_calls(monkeypatch):
    calls = _kernel_calls()
    rows = [r for r in table() if r.numba]
    assert {r.name for r in rows} == set(calls)
    before = fast.enabled
    minims.set_context(fast_path=True)
    try:
        for r in rows:
            module_name, function = r.numba.split(".")
            module = getattr(fast, module_name)
            seen = []
            # the kernel answers "not mine" (None): the primitive then takes its NumPy path
            monkeypatch.setattr(module, function, lambda *a, seen=seen: seen.append(1))
            calls[r.name]()
            assert seen, f"{r.name} declares {r.numba} but did not call it"
            monkeypatch.undo()
    finally:
        minims.set_context(fast_path=before)
