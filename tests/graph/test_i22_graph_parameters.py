"""Graph mode, jit and Parameters (issue 22, items 5-12): calls that gave a silently wrong result.

One test per item; each docstring says where the expected value comes from (a MindSpore 2.10 run
on the oracle, or a closed form worked out by hand).
"""
import numpy as np
import pytest

import minims as ms
import minims.nn as nn
import minims.ops as ops
from minims import Parameter, Tensor, jit
from minims.testing import leftover_state

MODES = pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])


@pytest.fixture(autouse=True)
def clean():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert not leftover_state(), leftover_state()


def _vec(*values):
    return Tensor(np.array(values, np.float32))


# ----- item 5: a Parameter assigned, then read ------------------------------------------------------
@pytest.mark.parametrize("compiled", [False, True])
def test_a_read_after_assign_takes_no_gradient_through_the_assignment(compiled):
    """Item 5.  ``ops.assign(p, 3a); return sum(a * p)`` at a = [1, 2]: MindSpore 2.10 gives the
    gradient [3, 6] in PyNative, under jit and in Graph mode (oracle run): the read is p's new value
    3a, and an assignment is not differentiable.  minims gave [6, 12] under jit."""
    p = Parameter(Tensor(np.zeros(2, np.float32)), name="p")

    def f(a):
        ops.assign(p, 3 * a)
        return (a * p).sum()
    g = ms.grad(jit(f) if compiled else f)(_vec(1, 2))
    assert g.tolist() == [3.0, 6.0]
    assert p.asnumpy().tolist() == [3.0, 6.0]


@MODES
def test_a_graph_mode_read_after_assign_is_the_value_written(mode):
    """Item 5.  ``ops.assign(self.p, 2 p); return a * self.p`` with p = [1, 1], a = [1, 2]:
    MindSpore 2.10 (oracle, both modes) gives the value [2, 4], the input gradient [2, 2] (the new
    p) and the weight gradient [1, 2] (a: the read is the Parameter).  minims' Graph mode gave the
    input gradient [4, 4]: its backward replayed the forward on the Parameter already written."""
    ms.set_context(mode=mode)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = Parameter(Tensor(np.ones(2, np.float32)), name="p")

        def construct(self, a):
            ops.assign(self.p, 2 * self.p)
            return a * self.p
    net = Net()
    value, (ga, (gp,)) = ms.value_and_grad(net, 0, net.trainable_params())(_vec(1, 2))
    assert value.tolist() == [2.0, 4.0]
    assert ga.tolist() == [2.0, 2.0] and gp.tolist() == [1.0, 2.0]
    assert net.p.asnumpy().tolist() == [2.0, 2.0]


@MODES
def test_a_rule_recorded_before_an_assign_keeps_the_value_it_read(mode):
    """Item 5.  ``y = a * p; assign(p, 5 p); return y * p`` with p = [1, 1], a = [1, 2]: the output
    is a * p0 * p1 with p1 = 5 p0, so d/da = p0 * p1 = [5, 5] (MindSpore 2.10 Graph mode gives
    [5, 5]; its PyNative gives [25, 25], reading the written Parameter in the backward pass) and the
    weight gradient, both reads counted as p, is a * p1 + y = 6a = [6, 12] (MindSpore, both modes).
    minims gave [125, 125] and [30, 60] in Graph mode, [25, 25] in PyNative."""
    ms.set_context(mode=mode)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.p = Parameter(Tensor(np.ones(2, np.float32)), name="p")

        def construct(self, a):
            y = a * self.p
            ops.assign(self.p, 5 * self.p)
            return y * self.p
    net = Net()
    ga, (gp,) = ms.grad(net, 0, net.trainable_params())(_vec(1, 2))
    assert ga.tolist() == [5.0, 5.0] and gp.tolist() == [6.0, 12.0]


# ----- item 6: a Parameter returned as it is ---------------------------------------------------------
@MODES
def test_a_weight_returned_as_an_output_gets_the_gradient_of_that_output(mode):
    """Item 6.  ``construct`` returning ``(x * w, w)`` with w = [1, 2], x = [3, 4]: MindSpore 2.10
    (oracle, both modes) gives the weight gradient x + 1 = [4, 5], and 1 = [1, 1] for ``return w``
    alone (so does ``ms.vjp``).  minims gave [3, 4] and [0, 0]: the returned Parameter was not the
    stand-in the gradient level watched."""
    ms.set_context(mode=mode)
    w = Parameter(_vec(1, 2), name="w")

    class Both(nn.Cell):
        def construct(self, x):
            return x * w, w
    x = _vec(3, 4)
    assert ms.grad(Both(), None, [w])(x)[0].tolist() == [4.0, 5.0]
    assert ms.grad(lambda x: w, None, [w])(x)[0].tolist() == [1.0, 1.0]
    assert jit(lambda x: ms.grad(lambda y: w, None, [w])(x))(x)[0].tolist() == [1.0, 1.0]
    _, vjp_fn = ops.vjp(lambda x: w, x, weights=[w])
    assert vjp_fn(ops.ones_like(x))[1][0].tolist() == [1.0, 1.0]


# ----- item 7: a Parameter passed in or returned stays a Parameter -------------------------------------
def test_a_parameter_passed_to_a_graph_mode_construct_is_written_and_returned_as_itself():
    """Item 7.  MindSpore 2.10 in Graph mode (oracle): a construct given a Parameter q can
    ``ops.assign(q, 3x)`` (q becomes [9, 12] for x = [3, 4], and ``q * 1`` reads it), returns q
    itself (``out is q``), and a construct returning ``self.w`` returns that Parameter (``.name``
    'w').  minims turned both into plain Tensors, so ops.assign on them was refused."""
    ms.set_context(mode=ms.GRAPH_MODE)

    class Write(nn.Cell):
        def construct(self, p, x):
            ops.assign(p, x * 3)
            return p * 1

    class Same(nn.Cell):
        def construct(self, p):
            return p

    class Own(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(_vec(1, 2), name="w")

        def construct(self, x):
            return self.w
    q, r, x = Parameter(_vec(1, 2), name="q"), Parameter(_vec(5, 6), name="r"), _vec(3, 4)
    write = Write()
    assert write(q, x).tolist() == [9.0, 12.0] and q.asnumpy().tolist() == [9.0, 12.0]
    assert write(r, x * 2).tolist() == [18.0, 24.0] and r.asnumpy().tolist() == [18.0, 24.0]
    assert q.asnumpy().tolist() == [9.0, 12.0]          # the graph for q does not write r, nor r's q
    assert Same()(q) is q
    own = Own()
    assert own(x) is own.w and own(x).name == "w"


# ----- item 8: a Cell attribute set inside a compiled construct -------------------------------------
@MODES
def test_an_attribute_set_inside_jit_holds_the_value_of_the_call(mode):
    """Item 8.  ``self.last = x * 2`` inside a ``@jit`` construct: MindSpore 2.10 (oracle) gives
    [2, 4] after a call with x = [1, 2] (and keeps that first value after a call with [5, 10]);
    minims sets it to each call's value, as PyNative does: [2, 4], then [10, 20].  minims left the
    compile-time placeholder (``value=<%1 in graph ...>``) there."""
    ms.set_context(mode=mode)

    class Net(nn.Cell):
        @jit
        def construct(self, x):
            self.last = x * 2
            self.pair = (x, x + 1)
            return x + 1
    net = Net()
    net(_vec(1, 2))
    assert net.last.tolist() == [2.0, 4.0]
    net(_vec(5, 10))
    assert net.last.tolist() == [10.0, 20.0]
    assert [t.tolist() for t in net.pair] == [[5.0, 10.0], [6.0, 11.0]]


# ----- item 9: sens_param with a @jit construct; a custom bprop with a nested output -----------------------
@MODES
def test_sens_param_counts_the_inputs_of_a_jit_construct_without_self(mode):
    """Item 9.  ``GradOperation(get_all=True, sens_param=True)`` of a Cell whose ``@jit``
    construct is ``x * y``, at x = [1, 2], y = [3, 4], sens = [1, 10]: MindSpore 2.10 (oracle, both
    modes) gives ([3, 40], [1, 20]).  minims counted ``self`` as an input and refused the call."""
    ms.set_context(mode=mode)

    class Net(nn.Cell):
        @jit
        def construct(self, x, y):
            return x * y
    gx, gy = ops.GradOperation(get_all=True, sens_param=True)(Net())(_vec(1, 2), _vec(3, 4), _vec(1, 10))
    assert gx.tolist() == [3.0, 40.0] and gy.tolist() == [1.0, 20.0]


@MODES
def test_a_custom_bprop_cell_keeps_its_nested_output_structure(mode):
    """Item 9.  A bprop Cell returning ``(x * y, (x + y, x - y))`` at x = [1, 2], y = [3, 4]:
    MindSpore 2.10 Graph mode (oracle) returns the nested tuple ([3, 8], ([4, 6], [-2, -2])), passes
    ``dout`` nested the same way, and the gradients are ([5, 6], [1, 2]) (MindSpore's PyNative
    passes ``dout`` flat, so this bprop's unpacking fails there; minims passes it nested in both
    modes).  minims' Graph mode stacked the inner pair into one [2, 2] Tensor (or crashed when the
    two had different shapes); its PyNative gave the bprop ``None`` for the inner cotangents."""
    ms.set_context(mode=mode)

    class Net(nn.Cell):
        def construct(self, x, y):
            return x * y, (x + y, x - y)

        def bprop(self, x, y, out, dout):
            d0, (d1, d2) = dout
            return d0 * y + d1 + d2, d0 * x + d1 - d2
    x, y = _vec(1, 2), _vec(3, 4)
    out = Net()(x, y)
    assert isinstance(out, tuple) and len(out) == 2 and isinstance(out[1], tuple)
    assert [out[0].tolist(), out[1][0].tolist(), out[1][1].tolist()] == [[3.0, 8.0], [4.0, 6.0], [-2.0, -2.0]]
    gx, gy = ops.GradOperation(get_all=True)(Net())(x, y)
    assert gx.tolist() == [5.0, 6.0] and gy.tolist() == [1.0, 2.0]


# ----- item 10: the BatchNorm primitive updates its moving statistics ----------------------------------
@MODES
def test_a_training_batchnorm_primitive_updates_mean_and_variance_in_place(mode):
    """Item 10.  ``ops.BatchNorm(is_training=True)`` (momentum 0.1) on x = [[1, 2, 3], [3, 2, 1]]
    with Parameters mean = 0, variance = 1: MindSpore 2.10 (oracle, both modes; plain Tensors too)
    leaves mean = 0.9 * 0 + 0.1 * [2, 2, 2] = [0.2, 0.2, 0.2] and variance = 0.9 * 1 + 0.1 * the
    *unbiased* batch variance [2, 0, 2] = [1.1, 0.9, 1.1]; on constant data the variance goes 1 -> 0.9.
    minims left both unchanged."""
    ms.set_context(mode=mode)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bn = ops.BatchNorm(is_training=True)
            self.mean = Parameter(Tensor(np.zeros(3, np.float32)), name="mean", requires_grad=False)
            self.var = Parameter(Tensor(np.ones(3, np.float32)), name="var", requires_grad=False)

        def construct(self, x):
            return self.bn(x, Tensor(np.ones(3, np.float32)), Tensor(np.zeros(3, np.float32)),
                           self.mean, self.var)[0]
    net = Net()
    net(Tensor(np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]], np.float32)))
    np.testing.assert_allclose(net.mean.asnumpy(), [0.2, 0.2, 0.2], rtol=1e-6)
    np.testing.assert_allclose(net.var.asnumpy(), [1.1, 0.9, 1.1], rtol=1e-6)
    constant = Net()
    constant(Tensor(np.ones((4, 3), np.float32)))
    np.testing.assert_allclose(constant.var.asnumpy(), [0.9, 0.9, 0.9], rtol=1e-6)
    if mode == ms.PYNATIVE_MODE:        # a plain Tensor is written too (MindSpore 2.10, PyNative)
        mean, var = Tensor(np.zeros(3, np.float32)), Tensor(np.ones(3, np.float32))
        ops.BatchNorm(is_training=True)(Tensor(np.ones((4, 3), np.float32)), Tensor(np.ones(3, np.float32)),
                                        Tensor(np.zeros(3, np.float32)), mean, var)
        np.testing.assert_allclose(mean.asnumpy(), [0.1, 0.1, 0.1], rtol=1e-6)
        np.testing.assert_allclose(var.asnumpy(), [0.9, 0.9, 0.9], rtol=1e-6)


# ----- item 12: a checkpoint reads values as asnumpy does ------------------------------------------------
def test_save_checkpoint_refuses_a_value_that_has_none_inside_vmap_or_jit(tmp_path):
    """Item 12.  Saving ``v * 2`` from inside ``vmap`` wrote example 0 of the batch, and from inside
    ``jit`` the placeholder's zeros (so did ``Tensor(v)``).  A traced value has no single value
    there: the save is refused, as ``.asnumpy()`` is (MindSpore 2.10 raises RuntimeError inside
    vmap; oracle run).  Inside ``grad`` the value exists and is saved: 2 * [[0, 1], [2, 3]]."""
    path = str(tmp_path / "v.ckpt")

    def save_double(v):
        ms.save_checkpoint([{"name": "v", "data": v * 2}], path)
        return v
    x = Tensor(np.arange(4, dtype=np.float32).reshape(2, 2))
    with pytest.raises(RuntimeError, match="no single value"):
        ms.vmap(save_double)(x)
    with pytest.raises(RuntimeError, match="cannot read the value"):
        jit(save_double)(x)
    with pytest.raises(RuntimeError, match="cannot read the value"):
        jit(lambda v: Tensor(v))(x)             # the same read: a Tensor made from a placeholder
    ms.grad(lambda v: save_double(v).sum())(x)
    assert ms.load_checkpoint(path)["v"].asnumpy().tolist() == [[0.0, 2.0], [4.0, 6.0]]


# ----- item 11: a view shares its entries with the Tensor it was taken from ---------------------------
def test_a_view_and_its_tensor_share_their_entries():
    """Item 11.  MindSpore 2.10 PyNative (oracle): ``b = t.view((3, 2)); b[0][0] = 100`` makes
    ``t[0][0]`` 100; ``t[0][0] = 100`` (chained indexing) writes into t; ``r = t[0]; r[1] = 50``
    writes into t; a write into t shows in a view taken before (``b[2][0]`` becomes 7 after
    ``t[1, 1] = 7``); ``t.reshape`` shares too.  minims copied silently in every case."""
    def fresh():
        return Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    t = fresh()
    b = t.view((3, 2))
    b[0][0] = 100
    assert t.asnumpy().tolist() == [[100.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert b.asnumpy().tolist() == [[100.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    t = fresh()
    t[0][0] = 100
    assert t.asnumpy()[0, 0] == 100.0
    t = fresh()
    r = t[0]
    r[1] = 50
    assert t.asnumpy()[0].tolist() == [0.0, 50.0, 2.0] and r.asnumpy().tolist() == [0.0, 50.0, 2.0]
    t = fresh()
    b = t.view((3, 2))
    t[1, 1] = 7
    assert b.asnumpy().tolist() == [[0.0, 1.0], [2.0, 3.0], [7.0, 5.0]]
    t = fresh()
    t.reshape((3, 2))[0, 0] = 100
    assert t.asnumpy()[0, 0] == 100.0


def test_writes_through_views_are_differentiated_alike_in_every_mode():
    """Item 11, under grad and jit.  ``t = x * 1; b = t.view((2, 2)); b[0][1] = 5 x3; r = t[1:3];
    t[2] = 7`` leaves t = [x0, 5 x3, 7, x3], r = [5 x3, 7], b = [[x0, 5 x3], [7, x3]], so
    ``sum(t x) + sum(r r) + sum(b)`` has the gradient (2 x0 + 1, 5 x3, 7, 5 x1 + 52 x3 + 6) = (3, 20, 7,
    224) at x = [1, 2, 3, 4] (closed form; MindSpore 2.10's own gradient ignores the sharing, and its
    Graph mode does not share).  Every mode agrees (check_modes)."""
    from minims.testing import check_modes

    def h(x):
        t = x * 1
        b = t.view((2, 2))
        b[0][1] = x[3] * 5
        r = t[1:3]
        t[2] = 7.0
        return (t * x).sum() + (r * r).sum() + b.sum()
    x = Tensor(np.array([1.0, 2.0, 3.0, 4.0]))
    check_modes(h, (x,))
    assert ms.grad(h)(x).asnumpy().tolist() == [3.0, 20.0, 7.0, 224.0]


def test_a_view_of_a_parameter_follows_its_writes():
    """Item 11.  ``row = p[0]`` then ``ops.assign(p, 2 p)``: MindSpore 2.10 PyNative (oracle) shows
    row = [0, 2, 4]; ``row[1] = 9`` writes into p.  A compiled function that assigns p (a write that
    happens when the graph runs) updates the view after the run: p[0] + 1 = [1, 10, 5]."""
    p = Parameter(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), name="p")
    row = p[0]
    ops.assign(p, p * 2)
    assert row.asnumpy().tolist() == [0.0, 2.0, 4.0]
    row[1] = 9.0
    assert p.asnumpy()[0].tolist() == [0.0, 9.0, 4.0]

    @jit
    def step(x):
        ops.assign(p, p + x)
        return p * 1
    step(Tensor(np.ones((2, 3), np.float32)))
    assert row.asnumpy().tolist() == [1.0, 10.0, 5.0]
