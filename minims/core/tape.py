"""A gradient level: the tape interpreter and its backward pass (reverse mode).

``grad`` pushes one ``TapeTrace`` on the interpreter stack.  While the function runs, every
primitive applied to one of this level's tracers is evaluated by the interpreters *below* (so outer
gradient levels record it too) and written onto this level's tape as a ``Node``.

The backward pass walks the tape in reverse and calls each primitive's ``bprop`` with the
*primal* values (the values of the levels below).  By then this level has left the stack, so the
backward computation itself is recorded by the outer levels: that is the whole of higher-order
differentiation.  When ``backward`` returns, the tape is dropped.

Two seams let the layers above in (``seams.py``): a primitive with a ``record_node`` method records
itself (a compiled graph keeps its residuals), and ``set_rule_runner`` runs the rules that need
more than a call (a user's rule has its result checked; ``check_nan`` names the rule running).
"""
from __future__ import annotations

from . import prims
from .primitive import gradient_mask
from .stack import Trace, Tracer, dispatch, evaluator, pop_trace, push_trace
from .tensor import Tensor

__all__ = ["TapeTrace", "TapeTracer", "Node", "vjp", "grad", "set_rule_runner"]


class Node:
    """One recorded primitive application (or a leaf, when ``prim`` is None)."""

    __slots__ = ("prim", "args", "parents", "out", "cot")

    def __init__(self, prim, args, parents, out):
        self.prim = prim          # the primitive (anything with ``bprop``), None for an input
        self.args = args          # primal arguments, as the levels below see them
        # per argument: (node, output index) it came from at this level, or None for a constant; not the
        # tracer object itself, which an in-place write (t[i] = v) may turn into another value later
        self.parents = parents
        self.out = out            # primal output (a value or a tuple of values)
        self.cot = None           # accumulated cotangents, one slot per output


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
    t._data = primal._data
    t._primal = primal
    t._trace = trace
    t._node = node
    t._index = index
    return t


class TapeTrace(Trace):
    """One gradient level (MindSpore's PyNative grad graph, JAX's JVPTrace/autograd's tape)."""

    def __init__(self):
        self.tape: list[Node] = []

    # ----- forward ----------------------------------------------------------------------------
    def new_input(self, value: Tensor) -> TapeTracer:
        """A leaf tracer: a function input or a lent weight."""
        return _box(self, value, Node(None, (), (), value), None)

    def process(self, prim, args):
        # the hot path of every op under grad: no helper calls for the common single-output case
        if prim.record_node is not None:
            return prim.record_node(self, args)     # seam: the primitive records its own node
        primals = []
        parents = []
        below = False           # is a primal a tracer of a level below? else they are evaluated
        for a in args:
            if type(a) is TapeTracer and a._trace is self:
                a, parent = a._primal, (a._node, a._index)
            else:
                parent = None
                # a constant Tensor (a Parameter too) is kept as it is now: a later t[i] = v or
                # assignment gives it a new array, and the rule must see the value this op read
                if isinstance(a, Tensor) and not isinstance(a, Tracer):
                    c = _new(Tensor)
                    c._data = a._data
                    a = c
            if not below and type(a) is not Tensor and isinstance(a, Tracer):
                below = True
            primals.append(a)
            parents.append(parent)
        out = dispatch(prim, primals) if below else evaluator()(prim, primals)
        if not prim.differentiable:
            return out
        return self.add_node(prim, primals, parents, out)

    def unbox(self, args):
        """``(primals, parents)`` of ``args`` at this level (``process`` does the same, inline)."""
        primals, parents = [], []
        for a in args:
            own = self.owns(a)
            if not own and isinstance(a, Tensor) and not isinstance(a, Tracer):
                a = Tensor._make(a._data)       # a constant, kept as it is now
            primals.append(a._primal if own else a)
            parents.append((a._node, a._index) if own else None)
        return primals, parents

    def add_node(self, rule, primals, parents, out):
        """Record ``out = rule(*primals)`` and return ``out`` as this level's tracers."""
        node = _new(Node)
        node.prim, node.args, node.parents, node.out, node.cot = rule, primals, parents, out, None
        self.tape.append(node)
        if isinstance(out, tuple):
            return tuple(_box(self, o, node, i) if isinstance(o, Tensor) else o for i, o in enumerate(out))
        return _box(self, out, node, None)

    def owns(self, value) -> bool:
        return isinstance(value, TapeTracer) and value._trace is self

    def primal_of(self, value):
        """``value`` without this level's tracer (what the levels below see)."""
        return value._primal if self.owns(value) else value

    # ----- backward ---------------------------------------------------------------------------
    def backward(self, outputs, sens, keep: bool = False) -> None:
        """Propagate cotangents ``sens`` from ``outputs`` (this level's tracers) to the leaves.

        Must run after this level left the stack, so that the rules' own operations are
        recorded by the outer levels.  Leaves keep their cotangent in ``leaf_cotangent``.
        The tape is freed node by node as the pass goes, unless ``keep`` (``vjp``'s ``vjp_fn``,
        which may be called again with other cotangents).
        """
        for out, s in zip(outputs, sens):
            if self.owns(out) and s is not None:
                _accumulate(out._node, out._index, s)
        tape = self.tape
        if not keep:
            self.tape = []
        runner, every = _runner, _runner_for_every_rule
        # the mask wants_grad() reads is set once per rule, with no save/restore around each call:
        # a rule that runs a backward pass of its own gets the mask back when that pass ends
        outer_mask = gradient_mask.mask
        try:
            for node in reversed(tape):
                cot = node.cot
                if cot is None:
                    continue
                node.cot = None
                prim = node.prim
                if isinstance(node.out, tuple):
                    missing = None if prim.takes_missing_cotangents else _zeros_for
                    dout = tuple(c if c is not None or missing is None else missing(o)
                                 for c, o in zip(cot, node.out))
                else:
                    dout = cot[0]
                # only rules that ask wants_grad() get a mask: the parents themselves (None for an
                # input that is a constant at this level)
                gradient_mask.mask = node.parents if prim.skips_unneeded_grads else None
                if runner is not None and (every or prim.checks_rule_results):
                    grads = runner(node, dout)
                else:
                    grads = prim.bprop(*node.args, node.out, dout)
                for parent, g in zip(node.parents, grads):
                    if parent is not None and g is not None:
                        target, index = parent
                        if index is None and target.cot is None:
                            target.cot = [g]            # the common case of _accumulate, inline
                        else:
                            _accumulate(target, index, g)
                if not keep:
                    node.args = node.parents = node.out = None      # free memory as we go
        finally:
            gradient_mask.mask = outer_mask

    @staticmethod
    def take_leaf_cotangent(tracer: TapeTracer):
        """The leaf's cotangent, which is then cleared (for a tape that is run again)."""
        cot, tracer._node.cot = tracer._node.cot, None
        return None if cot is None else cot[0]

    @staticmethod
    def leaf_cotangent(tracer: TapeTracer):
        cot = tracer._node.cot
        return None if cot is None else cot[0]


def _zeros_for(value):
    return prims.zeros_like(value) if isinstance(value, Tensor) else None


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
    """``(fn(*primals), vjp_fn)``: ``vjp_fn(*cotangents)`` gives the gradients of the inputs at
    ``positions`` (all by default; zeros where no cotangent reached one), one cotangent per output
    (None for an output that gets none).  The steps every gradient in minims takes (MindSpore's
    ``grad``, with its options, is built on them in ``minims.autodiff.grad_api``)."""
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
        grads = [trace.take_leaf_cotangent(args[p]) for p in positions]
        return tuple(prims.zeros_like(primals[p]) if g is None else g for p, g in zip(positions, grads))
    value = tuple(trace.primal_of(o) for o in outs) if isinstance(out, tuple) else trace.primal_of(out)
    return value, vjp_fn


def grad(fn):
    """``grad(fn)(*xs)``: the gradient of ``fn`` (a scalar function) with respect to every input."""
    def grad_fn(*xs):
        out, vjp_fn = vjp(fn, xs)
        return vjp_fn(prims.ones_like(out))
    return grad_fn
