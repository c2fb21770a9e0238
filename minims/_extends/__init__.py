"""``mindspore._extends``: the Python side of MindSpore's graph compiler (issue 25). minims holds only
``parse.compile_config``, which MindSpore's own tests set (see there)."""
from . import parse  # noqa: F401

__all__ = []        # private, as in MindSpore
