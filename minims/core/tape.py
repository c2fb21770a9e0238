"""A gradient level: the tape interpreter and its backward pass.

``grad`` pushes one ``TapeTrace`` on the interpreter stack.  While the function runs, every
primitive applied to one of this level's tracers is evaluated by the interpreters *below* (so outer
gradient levels record it too) and written onto this level's tape as a ``Node``.

The backward pass walks the tape in reverse and calls each primitive's ``bprop`` with the
*primal* values (the values of the levels below).  By then this level has left the stack, so the
backward computation itself is recorded by the outer levels: that is the whole of higher-order
differentiation.  When ``backward`` returns, the tape is dropped.
"""
from __future__ import annotations

from .. import ops
from ..interpreters import nan_check
from .stack import Trace, Tracer, dispatch, evaluator, MinimsError
from .primitive import gradient_mask
from ..tensor.parameter import Parameter
from .tensor import Tensor

__all__ = ["TapeTrace", "TapeTracer", "Node", "GradientError", "check_every_rule"]

#: True: check every rule's result (count and shapes), the built-in ones too.  The property tests
#: over the primitive table set it; otherwise only user rules (``checks_rule_results``) are checked.
check_every_rule = False


class GradientError(MinimsError, RuntimeError):
    """A backward rule returned something unusable (wrong count, shape or type)."""


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
        node = Node(None, (), (), value)
        return _box(self, value, node, None)

    def process(self, prim, args):
        # the hot path of every op under grad: no helper calls for the common single-output case
        primals = []
        parents = []
        below = False           # is a primal a tracer of a level below? else they are evaluated
        for a in args:
            if type(a) is TapeTracer and a._trace is self:
                a, parent = a._primal, (a._node, a._index)
            else:
                parent = None
            # a constant Tensor, or a Parameter (a lent weight's primal is the Parameter itself), is
            # kept as it is now: a later t[i] = v or ops.assign gives it a new array, and the rule
            # must see the value this operation read
            if (type(a) is Tensor and parent is None) or isinstance(a, Parameter):
                c = _new(Tensor)
                c._data = a._data
                a = c
            if not below and type(a) is not Tensor and isinstance(a, Tracer):
                below = True
            primals.append(a)
            parents.append(parent)
        split = None
        if prim.forward_for_gradient is not None:      # a compiled graph: forward once, keep residuals
            split = prim.forward_for_gradient(primals, tuple(p is not None for p in parents))
        if split is not None:
            out, rule = split
        else:
            out, rule = dispatch(prim, primals) if below else evaluator()(prim, primals), prim
        if not prim.differentiable:
            return out
        node = _new(Node)
        node.prim, node.args, node.parents, node.out, node.cot = rule, primals, parents, out, None
        self.tape.append(node)
        if isinstance(out, tuple):
            return tuple(_box(self, o, node, i) if isinstance(o, Tensor) else o
                         for i, o in enumerate(out))
        t = _new(TapeTracer)
        t._data, t._primal, t._trace, t._node, t._index = out._data, out, self, node, None
        return t

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
        if not nan_check.enabled:
            return self._propagate(outputs, sens, keep, False)
        outer_rule = nan_check.current_rule()      # check_nan's errors name the rule being run
        try:
            self._propagate(outputs, sens, keep, True)
        finally:
            nan_check.set_rule(outer_rule)

    def _propagate(self, outputs, sens, keep, naming_rules) -> None:
        for out, s in zip(outputs, sens):
            if self.owns(out) and s is not None:
                _accumulate(out._node, out._index, s)
        tape = self.tape
        if not keep:
            self.tape = []
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
                if naming_rules:
                    nan_check.set_rule(node)
                # only rules that ask wants_grad() get a mask: the parents themselves (None for an
                # input that is a constant at this level)
                gradient_mask.mask = node.parents if prim.skips_unneeded_grads else None
                grads = prim.bprop(*node.args, node.out, dout)
                if prim.checks_rule_results or check_every_rule:
                    grads = _check_rule_result(node, grads)
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
    return ops.zeros_like(value) if isinstance(value, Tensor) else None


def _accumulate(node: Node, index, g) -> None:
    n = len(node.out) if isinstance(node.out, tuple) else 1
    if node.cot is None:
        node.cot = [None] * n
    i = 0 if index is None else index
    prev = node.cot[i]
    node.cot[i] = g if prev is None else ops.add(prev, g)


def _check_rule_result(node: Node, grads):
    """A primitive's bprop must return one gradient (or None) per input, each shaped like it."""
    prim = node.prim
    if not isinstance(grads, (tuple, list)):
        raise GradientError(
            f"{prim.name}.bprop returned {type(grads).__name__}; expected a tuple with one gradient "
            f"per input ({len(node.args)}). Fix: return (dx,) even for one input."
        )
    if len(grads) != len(node.args):
        raise GradientError(
            f"{prim.name}.bprop returned {len(grads)} gradients for {len(node.args)} inputs. "
            "Fix: return exactly one gradient (or None) per input."
        )
    for i, (g, a) in enumerate(zip(grads, node.args)):
        if g is None or not isinstance(a, Tensor):
            continue
        if not isinstance(g, Tensor):
            raise GradientError(
                f"{prim.name}.bprop: gradient {i} is a {type(g).__name__}, expected a Tensor of shape "
                f"{list(a.shape)}."
            )
        if g.shape != a.shape:
            raise GradientError(
                f"{prim.name}.bprop: gradient {i} has shape {list(g.shape)}, but input {i} has shape "
                f"{list(a.shape)}. Fix: reduce the broadcast dimensions of the gradient."
            )
    return grads
