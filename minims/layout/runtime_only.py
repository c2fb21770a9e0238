"""Names whose work only MindSpore's C++ runtime can do: importable, refusing when used (issue 25).

MindSpore's own test files import such names beside the ones they test (``from
mindspore.train.serialization import save_checkpoint, export, load``: ``export`` writes a MindIR or
AIR graph for MindSpore's compiler, ``load`` reads one back into it). Were the name missing, the
import would stop the whole file; here it imports, and calling it raises ``MissingNameError`` saying
what needs MindSpore's runtime and what to use in minims instead.
"""
from . import MissingNameError

__all__ = ["runtime_only", "refusing_getattr"]


def runtime_only(mindspore_name, needs, fix):
    """A function named like ``mindspore_name``'s last part that raises ``MissingNameError`` when called:
    ``needs`` says what of MindSpore's runtime the name does, ``fix`` what to do in minims."""
    def refuse(*args, **kwargs):
        raise MissingNameError(f"{mindspore_name} {needs}, which only MindSpore's C++ runtime has: "
                               f"minims does not implement it. Fix: {fix}")
    refuse.__name__ = refuse.__qualname__ = mindspore_name.rsplit(".", 1)[-1]
    refuse.__doc__ = f"MindSpore's ``{mindspore_name}``: refused in minims ({needs})."
    return refuse


def refusing_getattr(module_name, why):
    """A module ``__getattr__`` for a stand-in of MindSpore's runtime: a dunder is simply absent (Python's
    own look-ups), any other name raises ``MissingNameError`` with ``why(name)``: what the name is in
    MindSpore, what minims has instead, and a ``Fix:``."""
    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(f"module '{module_name}' has no attribute '{name}'")
        raise MissingNameError(f"module '{module_name}' has no attribute '{name}': {why(name)}")
    return __getattr__
