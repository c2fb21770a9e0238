"""``mindspore.common.api``: the module where MindSpore defines ``jit`` (``minims.graph``'s), and
``_pynative_executor``, which MindSpore's own tests import to wait for queued operators."""
from ..graph import jit
from ..layout import missing_name

__all__ = ["jit"]


class _PynativeExecutor:
    """MindSpore's executor of PyNative operators, as far as code outside MindSpore touches it."""

    def sync(self):
        """Wait for the operators launched so far: minims runs each one when it is called, so none is pending."""


_pynative_executor = _PynativeExecutor()

__getattr__ = missing_name(__name__, "mindspore.common.api")
