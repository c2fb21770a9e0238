"""A gradient level: the tape interpreter and its backward pass (reverse mode).

``vjp`` pushes one ``TapeTrace``.  While the function runs, every primitive applied to one of this
level's tracers is evaluated by the interpreters *below* (so outer levels record it too) and written
onto this level's tape as a ``Node``.  The backward pass walks the tape in reverse and calls each
``bprop`` with the *primal* values.  By then this level has left the stack, so the backward
computation itself is recorded by the outer levels: that is the whole of higher-order
differentiation.  Two seams (``core/__init__.py``): a primitive with ``record_node`` records itself (a
compiled graph keeps its residuals), and ``set_rule_runner`` runs the rules that need more than a
call (a user's rule has its result checked; ``check_nan`` names the rule running).
"""
from __future__ import annotations

from . import prims
from .stack import Trace, Tracer, dispatch, evaluator, gradient_mask, pop_trace, push_trace
from .tensor import Tensor

__all__ = ["TapeTrace", "TapeTracer", "Node", "vjp", "grad", "set_rule_runner"]


class Node:
    """One recorded application (a leaf when ``prim`` is None): the primitive, its primal arguments,
    its parents (per argument the (node, output index) it came from at this level, None for a
    constant — not the tracer, which ``t[i] = v`` may change), its primal output, its cotangents."""

    __slots__ = ("prim", "args", "parents", "out", "cot")

    def __init__(self, prim, args, parents, out):
        self.prim, self.args, self.parents, self.out, self.cot = prim, args, parents, out, None


class TapeTracer(Tracer):
    """A Tensor being differentiated at one gradient level."""

    __slots__ = ("_primal", "_node", "_index")

    def _primal_value(self):
        return self._primal

    def _is_input(self) -> bool:
        return self._node.prim is None

    @property
    def dtype(self):
        # the primal's own: under the symbolic interpreter ``_data`` holds SymPy objects
        return self._primal.dtype


_new = object.__new__


def _box(trace, primal, node, index):
    t = _new(TapeTracer)
    t._data, t._primal, t._trace, t._node, t._index = primal._data, primal, trace, node, index
    return t


class TapeTrace(Trace):
    """One gradient level (MindSpore's PyNative grad graph, JAX's JVPTrace/autograd's tape)."""

    def __init__(self):
        self.tape: list[Node] = []

    def new_input(self, value: Tensor) -> TapeTracer:
        """A leaf tracer: a function input or a lent weight."""
        return _box(self, value, Node(None, (), (), value), None)

    # The hot path of every op under grad.  A constant Tensor (a Parameter too) is kept as it is now:
    # a later t[i] = v or assignment gives it a new array, and the rule must see the value read here.
    # Primals that are tracers of a level below go down the stack; otherwise they are evaluated.
    def process(self, prim, args):
        if prim.record_node is not None:
            return prim.record_node(self, args)     # seam: the primitive records its own node
        primals, parents, below = [], [], False
        for a in args:
            if type(a) is TapeTracer and a._trace is self:
                a, parent = a._primal, (a._node, a._index)
            else:
                parent = None
                if isinstance(a, Tensor) and not isinstance(a, Tracer):
                    c = _new(Tensor)
                    c._data = a._data
                    a = c
            if not below and type(a) is not Tensor and isinstance(a, Tracer):
                below = True
            primals.append(a)
            parents.append(parent)
        out = dispatch(prim, primals) if below else evaluator()(prim, primals)
        return self.add_node(prim, primals, parents, out) if prim.differentiable else out

    def add_node(self, rule, primals, parents, out):
        """Record ``out = rule(*primals)`` and return ``out`` as this level's tracers."""
        node = Node(rule, primals, parents, out)
        self.tape.append(node)
        if isinstance(out, tuple):
            return tuple(_box(self, o, node, i) if isinstance(o, Tensor) else o for i, o in enumerate(out))
        return _box(self, out, node, None)

    def owns(self, value) -> bool:
        return isinstance(value, TapeTracer) and value._trace is self

    def primal_of(self, value):
        """``value`` without this level's tracer (what the levels below see)."""
        return value._primal if self.owns(value) else value

    # Runs after this level left the stack, so the outer levels record the rules' operations.  The tape
    # is freed as the pass goes, unless ``keep`` (a ``vjp_fn`` may be called again).  The mask is set
    # once per rule that asks (no save/restore per call: a nested backward pass restores it).
    def backward(self, outputs, sens, keep: bool = False) -> None:
        """Propagate cotangents ``sens`` from ``outputs`` (this level's tracers) to the leaves."""
        for out, s in zip(outputs, sens):
            if self.owns(out) and s is not None:
                _accumulate(out._node, out._index, s)
        tape = self.tape
        if not keep:
            self.tape = []
        runner, every, outer_mask = _runner, _runner_for_every_rule, gradient_mask.mask
        try:
            for node in reversed(tape):
                cot, node.cot, prim = node.cot, None, node.prim
                if cot is None:
                    continue
                dout = _douts(node, cot) if isinstance(node.out, tuple) else cot[0]
                gradient_mask.mask = node.parents if prim.skips_unneeded_grads else None
                if runner is not None and (every or prim.checks_rule_results):
                    grads = runner(node, dout)
                else:
                    grads = prim.bprop(*node.args, node.out, dout)
                for parent, g in zip(node.parents, grads):
                    if parent is not None and g is not None:
                        if parent[1] is None and parent[0].cot is None:
                            parent[0].cot = [g]         # the common case of _accumulate, inline
                        else:
                            _accumulate(parent[0], parent[1], g)
                if not keep:
                    node.args = node.parents = node.out = None      # free memory as we go
        finally:
            gradient_mask.mask = outer_mask

    @staticmethod
    def leaf_cotangent(tracer: TapeTracer, clear: bool = False):
        """The leaf's cotangent (``clear``: then cleared, for a tape that is run again)."""
        cot = tracer._node.cot
        if clear:
            tracer._node.cot = None
        return None if cot is None else cot[0]


def _douts(node, cot) -> tuple:
    """The cotangents of a node with several outputs: zeros for those none reached, unless its rule
    takes None for them (``takes_missing_cotangents``)."""
    if node.prim.takes_missing_cotangents:
        return tuple(cot)
    return tuple(c if c is not None or not isinstance(o, Tensor) else prims.zeros_like(o)
                 for c, o in zip(cot, node.out))


def _accumulate(node: Node, index, g) -> None:
    n = len(node.out) if isinstance(node.out, tuple) else 1
    if node.cot is None:
        node.cot = [None] * n
    i = 0 if index is None else index
    prev = node.cot[i]
    node.cot[i] = g if prev is None else prims.add(prev, g)


# ----- seam: the rule runner ----------------------------------------------------------------------------
_runner = None                  # fn(node, dout) -> the rule's gradients
_runner_for_every_rule = False


def set_rule_runner(fn, for_every_rule: bool = False) -> None:
    """Seam 3: run ``fn(node, dout)`` instead of calling ``node.prim.bprop`` directly — for the
    primitives whose ``checks_rule_results`` is set (a user's rule), or for every rule."""
    global _runner, _runner_for_every_rule
    _runner, _runner_for_every_rule = fn, for_every_rule


# ----- reverse mode, as functions --------------------------------------------------------------------
def vjp(fn, primals, positions=None):
    """``(fn(*primals), vjp_fn)``: ``vjp_fn(*cotangents)`` (one per output, None for none) gives the
    gradients of the inputs at ``positions`` (all by default).  MindSpore's ``grad``, with its
    options, takes the same steps (``minims.autodiff.grad_api``)."""
    positions = tuple(range(len(primals))) if positions is None else tuple(positions)
    trace = push_trace(TapeTrace())
    try:
        args = list(primals)
        for p in positions:
            args[p] = trace.new_input(primals[p])
        out = fn(*args)
    finally:
        pop_trace(trace)            # popped first: the rules run under the levels outside
    outs = out if isinstance(out, tuple) else (out,)

    def vjp_fn(*cotangents):
        trace.backward(outs, cotangents, keep=True)
        grads = [trace.leaf_cotangent(args[p], clear=True) for p in positions]
        return tuple(prims.zeros_like(primals[p]) if g is None else g for p, g in zip(positions, grads))
    value = tuple(trace.primal_of(o) for o in outs) if isinstance(out, tuple) else trace.primal_of(out)
    return value, vjp_fn


def grad(fn):
    """``grad(fn)(*xs)``: the gradient of ``fn`` (a scalar function) with respect to every input."""
    def grad_fn(*xs):
        out, vjp_fn = vjp(fn, xs)
        return vjp_fn(prims.ones_like(out))
    return grad_fn
