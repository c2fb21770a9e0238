"""``mindspore.common.api``: the module where MindSpore defines ``jit`` (``minims.graph``'s) and
``jit_class``, and ``_pynative_executor`` and ``_cell_graph_executor``, which MindSpore's own tests
import to wait for queued operators and to compile a Cell without running it."""
from ..graph import jit
from ..layout import missing_name
from ..core.tensor import Tensor
from ..nn import Cell
from ..nn.cell_call import _compiled_call
from ..tensors.convert import _describe

__all__ = ["jit", "jit_class"]


def jit_class(cls):
    """``@jit_class``: MindSpore marks a class whose instances a compiled graph may use. minims compiles
    by running the Python code, which can use any object, so the class is returned as it is."""
    if not isinstance(cls, type):       # TypeError, as MindSpore 2.10
        raise TypeError(f"jit_class: decorates a class, but got {_describe(cls)}. Fix: put @jit_class "
                        "above a class statement.")
    return cls


class _PynativeExecutor:
    """MindSpore's executor of PyNative operators, as far as code outside MindSpore touches it."""

    def sync(self):
        """Wait for the operators launched so far: minims runs each one when it is called, so none is pending."""


_pynative_executor = _PynativeExecutor()


class _CellGraphExecutor:
    """MindSpore's executor of compiled Cells, as far as code outside MindSpore calls it: ``compile``."""

    def compile(self, obj, *args, phase="predict", do_convert=True, jit_config_dict=None, **kwargs):
        """Compile the Cell ``obj`` for ``args`` as a Graph-mode call does, without running it: the names
        of its Parameters are checked (ValueError for two alike, as MindSpore), then its call is traced
        into the graph the Graph-mode calls of these shapes use. Returns MindSpore's pair
        ``(phase key, whether a graph was compiled now)``."""
        if not isinstance(obj, Cell):       # MindSpore: AttributeError, it has no construct method
            raise AttributeError(f"_cell_graph_executor.compile: compiles a Cell, but got {_describe(obj)}, "
                                 "which has no construct method. Fix: jit(fn) compiles a function.")
        if kwargs:
            raise TypeError(f"_cell_graph_executor.compile: {type(obj).__name__}'s inputs are taken by "
                            f"position, but got the keywords {sorted(kwargs)}. Fix: pass them in order.")
        obj.check_names()
        compiled = _compiled_call(obj)
        before = compiled.traces
        compiled.graph(*args)               # traces only when no graph serves these inputs yet
        return f"{phase}.{type(obj).__name__}({_signature(args)})", compiled.traces > before


def _signature(args):
    """``Float32[1, 2], 3``: what a graph is compiled for, in the phase key (MindSpore's holds addresses)."""
    return ", ".join(f"{a.dtype}{list(a.shape)}" if isinstance(a, Tensor) else repr(a) for a in args)


_cell_graph_executor = _CellGraphExecutor()

__getattr__ = missing_name(__name__, "mindspore.common.api")
