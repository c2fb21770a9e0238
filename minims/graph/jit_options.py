"""The options of ``mindspore.jit``, checked as MindSpore 2.10 checks them (types, values, exception kinds).

minims compiles one way whatever the options say, so most of them change nothing here, but a
misspelt value is refused as MindSpore refuses it, instead of being ignored:

* ``capture_mode`` ``"ast"`` | ``"bytecode"`` | ``"trace"``: how MindSpore captures the graph (parsing
  the source, reading the bytecode, running it once).  minims traces; with ``"ast"`` (the default) it
  first rewrites the source so that ``if``/``while`` on Tensors become ``Cond``/``While``
  (``minims/conversion/``); with the others it traces the function as written.  It never keeps one
  call's branch for another's input: what is not converted gives guarded variants (``guards.py``),
  where MindSpore's ``"trace"`` silently reuses the first call's branch;
* ``jit_level`` ``"O0"`` | ``"O1"``, ``dynamic`` 0 | 1, ``backend`` ``""`` | ``"ms_backend"`` | ``"GE"``;
* ``fullgraph`` (a bool): True refuses guarded variants — a Tensor's value read while compiling is then
  a ``StaticGraphError``, as in a graph that must be whole;
* ``**options``: MindSpore's device options (``exec_order``, ``infer_boost`` ...) are type-checked and
  have no effect on the CPU; an unknown name warns, as MindSpore does.
"""
from __future__ import annotations

import warnings

__all__ = ["check_jit_options", "CAPTURE_MODES", "JIT_LEVELS", "BACKENDS"]

CAPTURE_MODES = ("ast", "bytecode", "trace")
JIT_LEVELS = ("O0", "O1")
BACKENDS = ("", "ms_backend", "GE")

#: MindSpore 2.10's device options: the values each takes (a type, or a tuple of allowed strings).
_DEVICE_OPTIONS = {"disable_format_transform": bool, "exec_order": ("bfs", "dfs"), "ge_options": dict,
                   "infer_boost": ("on", "off"), "auto_offload": ("weight", "activation", "all")}


def _one_of(name: str, value, allowed) -> None:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"For 'jit', the '{name}' must be str and must be in '{list(allowed)}', but got "
                         f"{value!r}. Fix: {name}={allowed[0]!r} (the default) or another of those.")


def check_jit_options(capture_mode, jit_level, dynamic, fullgraph, backend, options: dict) -> None:
    """Raise as MindSpore 2.10 does for a wrong option; warn for an option it does not know."""
    _one_of("capture_mode", capture_mode, CAPTURE_MODES)
    _one_of("jit_level", jit_level, JIT_LEVELS)
    if not isinstance(fullgraph, bool):
        raise TypeError(f"For 'jit', the 'fullgraph' must be a bool, but got {type(fullgraph).__name__}. "
                        "Fix: fullgraph=True or fullgraph=False.")
    if isinstance(dynamic, bool) or dynamic not in (0, 1):
        raise ValueError(f"For 'jit', the 'dynamic' must be in range of [0, 1], but got {dynamic!r} with type "
                         f"'{type(dynamic).__name__}'. Fix: dynamic=0 (the default) or dynamic=1.")
    if backend not in BACKENDS:
        raise RuntimeError(f"Invalid backend name: {backend!r} (jit knows {list(BACKENDS)}). Fix: leave "
                           "backend out (minims runs on the CPU whatever it says).")
    for name, value in options.items():
        kind = _DEVICE_OPTIONS.get(name)
        if kind is None:
            warnings.warn(f"For 'jit(options)', the option argument '{name}' is not recognized, please check! "
                          f"(MindSpore 2.10 knows {sorted(_DEVICE_OPTIONS)}.)", UserWarning, stacklevel=3)
        elif isinstance(kind, tuple):
            _one_of(name, value, kind)
        elif not isinstance(value, kind):
            raise TypeError(f"For 'jit(options)', the type of '{name}' must be {kind.__name__}, but got "
                            f"{type(value).__name__}.")
