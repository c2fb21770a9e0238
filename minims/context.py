"""Execution context: ``set_context``/``get_context``, the two modes, and ``set_seed``.

minims always computes on the CPU with NumPy.  ``device_target="GPU"`` or ``"Ascend"`` is accepted
so that documentation code runs unchanged, with a single warning that the CPU is used instead.

``fast_path`` routes the hot primitives to optional Numba kernels (``minims.fast``).  Its default:
on when Numba is installed, except inside a Jupyter kernel, where notebooks keep the NumPy path
and so print byte-identical numbers everywhere (the two paths agree to float32 rounding, not to the
last bit).  ``MINIMS_FAST=0`` or ``=1`` in the environment when minims is imported overrides the
default; ``set_context(fast_path=...)`` switches at any time.  Asked for without Numba it warns
once, stays on the NumPy path, and ``get_context("fast_path")`` reads back ``False``.

``check_nan=True`` (off by default) checks the float outputs of every primitive, forward, backward
and in compiled graphs, and raises ``NonFiniteError`` (a RuntimeError) at the first primitive that
makes NaN or Inf out of finite inputs, naming it, the pass, the Cell and a fix
(``minims.interpreters.nan_check``).  Off, NaN and Inf propagate as in NumPy, and silently as in
MindSpore: NumPy's "divide by zero / invalid value / overflow encountered" warnings raised inside
minims' kernels are filtered out (they would point at minims' source, not at the user's line).
"""
from __future__ import annotations

import difflib
import os
import sys
import warnings

import numpy as np


__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "set_context", "get_context", "set_seed", "get_seed",
           "global_rng"]

GRAPH_MODE = 0
PYNATIVE_MODE = 1
# jit_syntax_level's values (mindspore.STRICT ...): accepted, of no effect (minims traces, it parses nothing)
STRICT, COMPATIBLE, LAX = 0, 1, 2

_DEVICES = ("CPU", "GPU", "Ascend")
_state = {
    "mode": PYNATIVE_MODE,
    "device_target": "CPU",
    "device_id": 0,
    "pynative_synchronize": False,
    "save_graphs": False,
    "save_graphs_path": ".",
}
# Options whose one home is the module that acts on them (``minims.fast``, ``nan_check``): read and
# switched there, through the (getter, setter) each registers with ``own_option`` when imported.
_OWNED: dict = {}


def own_option(key: str, getter, setter) -> None:
    """Make ``get_context(key)``/``set_context(key=...)`` read and switch an option through the
    module that acts on it (so that this module imports none of them)."""
    _OWNED[key] = (getter, setter)
_warned_devices: set = set()

# Every other keyword MindSpore 2.10's set_context accepts (read from its context.py: the context's
# setters, parameters and attributes, and the deprecated keywords it still takes with a warning):
# accepted so that MindSpore code runs, remembered, and of no effect here.
_MINDSPORE_KEYS = frozenset("""
    aoe_config aoe_job_type aoe_tune_mode ascend_config auto_tune_mode bias_add_comm_swap check_bprop
    compile_cache_path compute_communicate_fusion_level conv_allow_tf32 conv_dgrad_algo conv_fprop_algo
    conv_wgrad_algo cur_step_num dataset_broadcast_opt_level debug_level deterministic
    disable_format_transform enable_allreduce_slice_to_reducescatter enable_auto_mixed_precision
    enable_begin_end_inline_opt enable_compile_cache enable_concat_eliminate_opt enable_debug_runtime
    enable_flash_attention_load_balance enable_fused_cast_add_opt enable_ge enable_grad_comm_opt
    enable_graph_kernel enable_interleave_parallel_branch enable_interleave_split_concat_branch
    enable_offloading_packed_experts enable_opt_shard_comm_opt enable_parallel_split enable_profiling
    enable_reduce_precision enable_sparse enable_task_opt env_config_path exec_order gpu_config
    graph_kernel_flags hccl_watchdog infer_boost inter_op_parallel_num interleaved_layernorm_comm
    interleaved_matmul_comm jit_config jit_level jit_syntax_level last_triggered_step matmul_allow_tf32
    matmul_grad_comm_overlap max_call_depth max_device_memory memory_optimize_level mempool_block_size
    need_ckpt op_timeout pp_1f1b_overlap print_file_path profiling_options
    recompute_allgather_overlap_fagrad recompute_comm_overlap reserve_class_name_in_scope
    runtime_num_threads save_checkpoint_steps support_binary topo_order variable_memory_max_size
""".split())
# Keywords MindSpore 2.10 refuses here with "Please set '...' through parameter ascend_config".
_ASCEND_CONFIG_KEYS = ("precision_mode", "jit_compile", "atomic_clean_policy", "matmul_allow_hf32",
                       "conv_allow_hf32", "op_precision_mode", "host_scheduling_max_threshold", "ge_options",
                       "op_debug_option")

# NaN and Inf propagate silently, as in MindSpore: NumPy's floating-point warnings from minims' own
# kernels (the primitives' impl, in PyNative and in compiled graphs) would only point at minims' source.
warnings.filterwarnings("ignore", message=r"(divide by zero|invalid value|overflow) encountered",
                        category=RuntimeWarning, module=r"minims\.")


def _check_bool(key, value):
    if not isinstance(value, bool):
        raise TypeError(f"set_context: {key} must be a bool, but got {type(value).__name__} {value!r}.")


def set_context(**kwargs):
    """Set context options (``mindspore.set_context``):

    * ``mode``: ``GRAPH_MODE`` (0) or ``PYNATIVE_MODE`` (1, the default);
    * ``device_target``: ``"CPU"``; ``"GPU"``/``"Ascend"`` are accepted and computed on the CPU;
    * ``check_nan``: True to stop at the first primitive that produces NaN or Inf from finite
      inputs, with a ``NonFiniteError`` naming it, the pass (forward, or which backward rule), the
      Cell, its inputs and a fix; False (the default) lets NaN/Inf propagate silently, as NumPy
      values do;
    * ``fast_path``: True to run the hot primitives with Numba kernels (``minims.fast``);
    * ``pynative_synchronize``, ``save_graphs``, ``save_graphs_path``, ``device_id``: accepted for
      MindSpore code, no effect; MindSpore 2.10's other keywords are accepted and remembered.

    A keyword MindSpore does not know either (``devcie_target``) is a ValueError naming it and the
    closest known keyword, and nothing is set.
    """
    for key in kwargs:                  # all checked before any is set: a typo changes nothing
        _check_known(key)
    for key, value in kwargs.items():
        if key == "mode":
            if not isinstance(value, int):          # TypeError, as MindSpore ("must be <class 'int'>")
                raise TypeError(
                    f"set_context: mode must be an int, GRAPH_MODE (0) or PYNATIVE_MODE (1), but got "
                    f"{type(value).__name__} {value!r}. Fix: set_context(mode=mindspore.GRAPH_MODE)."
                )
            if value not in (GRAPH_MODE, PYNATIVE_MODE) or isinstance(value, bool):
                raise ValueError(
                    f"set_context: mode must be GRAPH_MODE (0) or PYNATIVE_MODE (1), but got {value!r}. "
                    "Fix: set_context(mode=mindspore.GRAPH_MODE) or mode=mindspore.PYNATIVE_MODE."
                )
        elif key == "device_target":
            if value not in _DEVICES:
                raise ValueError(f"set_context: device_target must be one of {_DEVICES}, but got {value!r}.")
            if value != "CPU" and value not in _warned_devices:
                _warned_devices.add(value)
                warnings.warn(
                    f"minims runs on the CPU with NumPy; device_target='{value}' is accepted and "
                    "computed on the CPU.", UserWarning, stacklevel=2)
        elif key in ("pynative_synchronize", "save_graphs"):
            _check_bool(key, value)
        elif key in _OWNED:
            _check_bool(key, value)
            _OWNED[key][1](value)           # fast_path stays off without Numba (after one warning)
            continue
        elif key == "device_id":
            if not isinstance(value, int) or value < 0:
                raise ValueError(f"set_context: device_id must be a non-negative int, got {value!r}.")
        _state[key] = value


def _check_known(key):
    """A keyword MindSpore's set_context does not take is a ValueError naming it, as in MindSpore
    2.10 ("the keyword argument devcie_target is not recognized"), with the closest known keyword."""
    if key in _state or key in _OWNED or key in _MINDSPORE_KEYS:
        return
    if key in _ASCEND_CONFIG_KEYS:
        raise ValueError(f"set_context: {key} is not a keyword of set_context; MindSpore 2.10 takes it "
                         f"inside ascend_config, which minims accepts and ignores (it runs on the CPU). "
                         f"Fix: set_context(ascend_config={{'{key}': ...}}), or leave it out.")
    known = sorted({*_state, *_OWNED, *_MINDSPORE_KEYS})
    close = difflib.get_close_matches(key, known, n=1)
    fix = (f"Did you mean {close[0]!r}? Fix: set_context({close[0]}=...)." if close else
           f"Fix: check the spelling (minims acts on mode, {', '.join(sorted(_OWNED))}; MindSpore 2.10's "
           "other keywords are accepted without effect).")
    raise ValueError(f"set_context: the keyword argument {key!r} is not recognized (nothing was set). {fix}")


def get_context(attr_key):
    """The current value of one context option."""
    if attr_key in _OWNED:
        return _OWNED[attr_key][0]()
    if attr_key not in _state:
        raise ValueError(f"get_context: unknown option {attr_key!r}; known: {sorted([*_state, *_OWNED])}.")
    return _state[attr_key]


_seed = None
_rng = np.random.default_rng()
_seed_listeners = []          # called with the new seed: the data pipeline's seed follows set_seed


def add_seed_listener(listener):
    """Call ``listener(seed)`` on every ``set_seed`` (``minims.dataset.config`` uses it)."""
    _seed_listeners.append(listener)


def set_seed(seed):
    """Seed minims' random streams (initializers, dropout) and, as MindSpore does, ``numpy.random``."""
    global _seed, _rng
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"set_seed: seed must be a non-negative int, but got {seed!r}.")
    _seed = seed
    _rng = np.random.default_rng(seed)
    np.random.seed(seed)
    for listener in _seed_listeners:
        listener(seed)


def get_seed():
    return _seed


def global_rng() -> np.random.Generator:
    """The generator every random primitive and initializer draws from."""
    return _rng




from .layout import missing_name  # noqa: E402 - after the module's names

__getattr__ = missing_name(__name__, "mindspore.context")
