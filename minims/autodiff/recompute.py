"""``Cell.recompute()``: gradient checkpointing — keep a Cell's inputs, compute its inside again.

Without it, a gradient level records every operation inside the Cell, and each node keeps the
values its rule needs: a deep network holds all its activations until the backward pass frees them.
A Cell marked ``recompute()`` is one node instead (``Recompute``, a primitive made per call that
records itself through the tape's custom-node seam, ``record_node``): its forward runs on the
values alone, with nothing recorded inside, and the node keeps only the Cell's inputs and the
Parameters it reads.  When the backward pass reaches the node, its rule runs ``construct`` again on
a new gradient level (``vjp_call``, as ``grad`` does) and differentiates that — memory for
computation.  The gradients are the same, bit for bit: the same operations run on the same values.

The replay runs under the levels outside, so a second derivative differentiates it in turn.  It
reads the Parameters as they are when the backward pass runs (unchanged since the forward, unless
the function itself wrote them after this Cell: then, as MindSpore warns, the results differ).  The
random stream is put back to where the forward found it (Dropout draws the same mask, as in
MindSpore 2.10), and the Parameter writes the replay makes (BatchNorm's moving statistics) are
undone: the forward made them once already.  (MindSpore 2.10 writes them a second time.)
Forward mode, batching and a graph being compiled run ``construct`` as it is (``inline``).
"""
from __future__ import annotations

from ..context import global_rng
from ..core.primitive import Primitive, wants_grad
from ..core.stack import Tracer, dispatch
from ..core.staging import rebuild
from ..core.tensor import Tensor
from ..tensors import lending, undo
from .custom_bprop import _tree
from .grad_api import vjp_call

__all__ = ["Recompute"]


class Recompute(Primitive):
    """The tape node of one call of a Cell marked ``recompute()``: inputs, then the Cell's
    Parameters; outputs, the Tensors of ``construct``'s result (``structured`` rebuilds it)."""

    skips_unneeded_grads = True         # the replay differentiates only what a gradient is wanted for
    takes_missing_cotangents = True     # ... from only the outputs a cotangent reached

    def __init__(self, cell, n_inputs: int, params: tuple):
        self.cell, self.n_inputs, self.params = cell, n_inputs, params
        self.tree = ("leaf", 0)
        self.rng_state = global_rng().bit_generator.state      # where the forward's draws start

    @property
    def name(self) -> str:
        return f"{type(self.cell).__name__}.recompute"

    def _attrs(self) -> dict:
        return {}

    def structured(self, flat):
        """The primitive's flat output in ``construct``'s structure."""
        return rebuild(self.tree, list(flat) if isinstance(flat, tuple) else [flat])

    def _flat(self, out):
        leaves = []
        self.tree = _tree(out, leaves)
        return leaves[0] if self.tree[0] == "leaf" else tuple(leaves)

    # ----- forward --------------------------------------------------------------------------------
    def impl(self, *arrays):
        inputs = [Tensor._make(a) if hasattr(a, "dtype") and hasattr(a, "shape") else a
                  for a in arrays[:self.n_inputs]]
        with lending.parameters_as_themselves():       # nothing inside is recorded
            out = self._flat(self.cell.construct(*inputs))
        return tuple(t._data for t in out) if isinstance(out, tuple) else out._data

    def inline(self, args):
        """Staging, forward mode, batching: ``construct`` runs under them as it is."""
        return self._flat(self.cell.construct(*args[:self.n_inputs]))

    def record_node(self, trace, args):
        """A gradient level keeps the inputs and Parameters (and the outputs), nothing from inside."""
        primals, parents = [], []
        for a in args:
            own = trace.owns(a)
            if not own and isinstance(a, Tensor) and not isinstance(a, Tracer):
                a = Tensor._make(a._data)           # a constant: its value now, as the tape keeps it
            primals.append(a._primal if own else a)
            parents.append((a._node, a._index) if own else None)
        out = dispatch(self, primals)               # the levels below: each records its own node
        if not any(p is not None for p in parents):
            return out
        return trace.add_node(self, primals, parents, out)

    # ----- backward: the forward again, differentiated ---------------------------------------------
    def bprop(self, *args):
        n, k = self.n_inputs, len(self.params)
        inputs, dout = args[:n], args[-1]
        positions = tuple(i for i in range(n) if wants_grad(i) and isinstance(inputs[i], Tensor))
        wanted = tuple(j for j in range(k) if wants_grad(n + j))
        grads = [None] * (n + k)
        if not positions and not wanted:
            return tuple(grads)
        rng = global_rng()
        resume = rng.bit_generator.state
        rng.bit_generator.state = self.rng_state
        try:
            # the Parameters are read as the forward read them: their values (unchanged since), or
            # the stand-ins of the levels outside that differentiate them too
            with undo.discarding_writes():
                _, input_grads, weight_grads = vjp_call(
                    lambda *xs: self._flat(self.cell.construct(*xs)), inputs, positions,
                    tuple(self.params[j] for j in wanted), sens=dout, where=self.name)
        finally:
            rng.bit_generator.state = resume
        for i, g in zip(positions, input_grads):
            grads[i] = g
        for j, g in zip(wanted, weight_grads):
            grads[n + j] = g
        return tuple(grads)
