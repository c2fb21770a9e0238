"""``mindspore._extends.parse``: MindSpore's parser of Python into its graphs; minims compiles by tracing
(``minims.graph``) and holds only ``compile_config``."""
from . import compile_config  # noqa: F401

__all__ = []        # private, as in MindSpore
