"""Issue 28 item 2: ``nn.Momentum``'s PyNative update on NumPy arrays (``minims/nn/optim/eager_update.py``)
stores the same bits as its op-by-op update.

The expected values are the reference path's: the same steps with ``Momentum._update_arrays``
returning False, so that ``_update`` runs its minims ops one by one, as before issue 28.
"""
from __future__ import annotations

import numpy as np
import pytest

import minims as ms
import minims.nn as nn
from minims import Parameter, Tensor, ops
from minims.nn.optim.momentum import Momentum


def _steps(dtype, group_lr, dynamic_lr, op_by_op, monkeypatch, nesterov=False, loss_scale=1.0):
    """Parameters and moments after three steps of a Momentum on fixed random gradients."""
    if op_by_op:
        monkeypatch.setattr(Momentum, "_update_arrays", lambda self, grads, lrs: False)
    else:
        monkeypatch.undo()
    rng = np.random.default_rng(7)
    params = [Parameter(Tensor(rng.standard_normal(s).astype(dtype)), name=f"w{i}")
              for i, s in enumerate([(5, 3), (3,), (2, 2, 2)])]
    lr = [0.1, 0.05, 0.02] if dynamic_lr else 0.037
    groups = ([{"params": params[:1], "lr": 0.01}, {"params": params[1:]}] if group_lr else params)
    opt = nn.Momentum(groups, lr, 0.9, use_nesterov=nesterov, loss_scale=loss_scale)
    for _ in range(3):
        opt(tuple(Tensor(rng.standard_normal(p.shape).astype(dtype)) for p in params))
    return [p.asnumpy() for p in params] + [m.asnumpy() for m in opt.moments]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("group_lr, dynamic_lr, nesterov, loss_scale",
                         [(False, False, False, 1.0), (True, False, False, 1.0), (False, True, False, 1.0),
                          (False, False, True, 1.0), (False, False, False, 4.0)],
                         ids=["plain", "group lr", "dynamic lr", "nesterov", "loss scale"])
def test_momentum_update_on_arrays_stores_the_op_by_op_bits(dtype, group_lr, dynamic_lr, nesterov, loss_scale,
                                                            monkeypatch):
    """Issue 28 item 2: three Momentum steps give bit-identical parameters and moments with and
    without the array update (learning-rate groups, a dynamic rate, Nesterov and a loss scale too)."""
    reference = _steps(dtype, group_lr, dynamic_lr, True, monkeypatch, nesterov, loss_scale)
    got = _steps(dtype, group_lr, dynamic_lr, False, monkeypatch, nesterov, loss_scale)
    for r, g in zip(reference, got):
        assert r.dtype == g.dtype and r.tobytes() == g.tobytes()


def test_momentum_updates_on_arrays_only_in_plain_pynative():
    """Issue 28 item 2: eager and plain, the array update runs; under a gradient level, in a graph
    being compiled or with ``check_nan`` on, the op-by-op update does (it is recorded or checked)."""
    p = Parameter(Tensor(np.ones(3, np.float32)), name="w")
    opt = nn.Momentum([p], 0.1, 0.9)
    g, lr = (Tensor(np.ones(3, np.float32)),), (opt.get_lr(),)
    assert opt._update_arrays(g, lr) is True
    seen = []

    def probe(x):
        seen.append(opt._update_arrays(g, lr))
        return x.sum()
    x = Tensor(np.ones(2, np.float32))
    ops.grad(probe)(x)
    ms.jit(probe)(x)
    ms.set_context(check_nan=True)
    try:
        probe(x)
    finally:
        ms.set_context(check_nan=False)
    assert seen == [False, False, False]


def test_momentum_updates_on_arrays_when_a_gradient_has_an_equal_but_distinct_dtype(monkeypatch):
    """Issue 28 item 2: a kernel may return float32 as a dtype object equal to, but not the same
    instance as, ``np.dtype('float32')`` (W2's conv2 weight gradient from the Numba path); the array
    update still runs, with the op-by-op bits (the reference: ``_update_arrays`` switched off)."""
    distinct = np.dtype("float32").newbyteorder("=")
    assert distinct == np.dtype("float32") and distinct is not np.dtype("float32")

    def run(op_by_op):
        p = Parameter(Tensor(np.linspace(-1, 1, 6, dtype=np.float32)), name="w")
        opt = nn.Momentum([p], 0.1, 0.9)
        g = Tensor(np.linspace(0.3, -0.2, 6, dtype=np.float32))
        g._data = g._data.view(distinct)
        taken = opt._update_arrays((g,), (opt.get_lr(),)) if not op_by_op else False
        if not taken:
            opt((g,))
        opt((g,))
        return taken, p.asnumpy().tobytes() + opt.moments[0].asnumpy().tobytes()
    monkeypatch.setattr(Momentum, "_update_arrays", Momentum._update_arrays)
    taken, got = run(False)
    monkeypatch.setattr(Momentum, "_update_arrays", lambda self, grads, lrs: False)
    _, reference = run(True)
    assert taken is True
    assert got == reference
