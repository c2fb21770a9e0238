"""``ops.GetNext``: the op that reads the next batch a dataset pipeline sends to a device.

minims has no device queue (a network gets its data as arguments, or from a dataset's iterator), so
``GetNext`` can be built but never runs: calling it raises ``RuntimeError``, as MindSpore 2.10 does
on the CPU ("Unsupported op [GetNext] on CPU").  The debugging page uses it for exactly that: an op
that fails, to show where PyNative mode reports the failure.
"""
from __future__ import annotations

from ..dtype import DType
from ..core.stack import MinimsError
from ..core.primitive import Primitive


class NoDatasetPipeline(MinimsError, RuntimeError):
    """``GetNext`` called: there is no dataset pipeline feeding a device queue."""


class GetNext(Primitive):
    """``ops.GetNext(types, shapes, output_num, shared_name)``: checked when built, refused when run."""

    checks_rule_results = False       # built-in rule: checked over the table by the tests

    differentiable = False

    def __init__(self, types, shapes, output_num, shared_name):
        super().__init__()
        if not isinstance(types, (list, tuple)) or not all(isinstance(t, DType) for t in types):
            raise TypeError(f"GetNext: types must be a list of mindspore dtypes, but got {types!r}. "
                            "Fix: e.g. [mindspore.float32].")
        if not isinstance(shapes, (list, tuple)) or len(shapes) != len(types):
            raise ValueError(f"GetNext: shapes must be a list with one shape per type ({len(types)}), but "
                             f"got {shapes!r}. Fix: e.g. [(1, 1)] for one Float32 input.")
        if not isinstance(output_num, int) or output_num != len(types):
            raise ValueError(f"GetNext: output_num must be the number of types ({len(types)}), but got "
                             f"{output_num!r}.")
        if not isinstance(shared_name, str):
            raise TypeError(f"GetNext: shared_name must be a string, but got {shared_name!r}.")
        self.types, self.shapes = list(types), [tuple(s) for s in shapes]
        self.output_num, self.shared_name = output_num, shared_name

    def __call__(self, *args):
        if args:
            raise TypeError(f"GetNext takes no inputs (it reads from the dataset queue '{self.shared_name}'), "
                            f"but got {len(args)}.")
        raise NoDatasetPipeline(
            f"GetNext: there is no dataset pipeline sending batches to the queue '{self.shared_name}' "
            "(minims has no device queue; MindSpore 2.10 on the CPU fails here too, with \"Unsupported op "
            "[GetNext] on CPU\"). Fix: pass the data to the network as arguments, net(x); the shipped digits "
            "come in batches from minims.dataset.batches(images, labels, batch_size).")
