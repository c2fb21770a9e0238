"""``mindspore._extends.parse.compile_config``: the settings of MindSpore's graph compiler (issue 25).

MindSpore's own tests set one of them, ``CHECK_BPROP`` (``compile_config.CHECK_BPROP = 1``, then
``''``): with it set, MindSpore checks that a custom bprop returns one gradient per input, each of its
input's shape and dtype. minims makes that check on every custom bprop
(``minims.autodiff.custom_bprop``), whatever the setting; the name holds MindSpore's default, and a
program may assign it. MindSpore's other settings steer its C++ compiler, which minims does not
have: reading one raises ``MissingNameError``.
"""
from ...layout.runtime_only import refusing_getattr

__all__ = []        # private, as in MindSpore

#: MindSpore's default (off); minims checks custom bprop results always.
CHECK_BPROP = ""


__getattr__ = refusing_getattr(__name__, lambda name: (
    f"compile_config.{name} is a setting of MindSpore's C++ graph compiler, which minims does not have (only "
    "CHECK_BPROP is here: minims checks custom bprop results always). Fix: leave the setting out."))
