"""``ops.Custom``: a row of the primitive table that the user writes at run time.

``Custom(func, out_shape, out_dtype, func_type="pyfunc", bprop=None)`` is MindSpore's user-defined
operator.  Each argument fills one column of the row every built-in primitive has:

* ``impl`` — ``func``, called on NumPy arrays (``func_type="pyfunc"``), or a ``@ops.kernel`` function
  in MindSpore's Hybrid DSL compiled by Numba (``func_type="hybrid"``; ``minims.fast.hybrid``);
* the abstract evaluation — ``out_shape`` and ``out_dtype``, values or functions of the inputs'
  shapes (lists) and dtypes: what a graph being compiled (``jit``, Graph mode) records without
  running ``func``.  Running ``func`` then checks that its result is what they promised;
* ``bprop`` — ``bprop(*inputs, out, dout)``, returning one gradient per input (a tuple), written in
  minims ops like every rule of the table, so it runs under the levels outside and can itself be
  differentiated; its result is checked as a Cell's custom bprop is;
* ``jvp`` — derived from ``bprop`` by transposition (``jvp_from_bprop``), as MindSpore does; or
  minims' keyword ``jvp=fn(primals, tangents) -> (out, tangent_out)``;
* the batching rule — minims' keyword ``vmap=fn(axis_size, in_batched, *args) -> (out, out_batched)``,
  the batched arguments with their batch axis in front; without it ``vmap`` calls the op once per
  example and says so once (``CustomLoopWarning``);
* the SymPy rule — minims' keyword ``sympy=fn(*inputs)`` on object arrays of SymPy expressions;
  without it the symbolic interpreter refuses, naming the op.

MindSpore's other ``func_type`` values need its compilers (``aot``: a C++/CUDA ``.so``; ``akg``,
``tbe``, ``aicpu``: Ascend tool chains) and are refused with a clear error.
"""
from __future__ import annotations

import itertools
import numbers
import warnings

import numpy as np

from .. import dtype as mstype
from ..core.primitive import NoGradientRule, NoJvpRule, Primitive
from ..core.stack import MinimsError
from ..core.tensor import Tensor
from .. import fast
from ..fast import hybrid
from ..primitives.batch_rules import loop, move_to_front
from ..primitives.functional import zeros_like
from ..tensors.convert import _describe
from ..tracebacks import user_stacklevel
from .custom_bprop import BpropError, _check_like
from .hooks import call_user_fn
from .jvp_from_bprop import jvp_from_bprop

__all__ = ["Custom", "CustomOpError", "CustomOutputError", "CustomLoopWarning"]

#: MindSpore 2.10's ``func_type`` values; minims runs the first two.
FUNC_TYPES = ("pyfunc", "hybrid", "aot", "akg", "tbe", "aicpu")
_PLACEHOLDER_SHAPE = (1,)           # MindSpore's output for out_shape=() (and for no output at all)


class CustomOpError(MinimsError, TypeError, ValueError):
    """``ops.Custom`` was built with arguments it cannot use (MindSpore: TypeError or ValueError)."""


class CustomOutputError(MinimsError, RuntimeError):
    """``func`` returned something other than ``out_shape``/``out_dtype`` promised (MindSpore 2.10:
    RuntimeError "memcpy failed", or in Graph mode a result padded with whatever memory held)."""


class CustomLoopWarning(UserWarning):
    """``vmap`` runs an ``ops.Custom`` without a batching rule once per example."""


_counter = itertools.count(1)


class Custom(Primitive):
    """``ops.Custom(func, out_shape=None, out_dtype=None, func_type="pyfunc", bprop=None,
    reg_info=None, *, jvp=None, vmap=None, sympy=None)`` (module docstring)."""

    rows_per_instance = True        # primitives.table() lists minims' rows; each Custom is the user's

    def __init__(self, func, out_shape=None, out_dtype=None, func_type="pyfunc", bprop=None, reg_info=None,
                 *, jvp=None, vmap=None, sympy=None):
        if func_type not in FUNC_TYPES:
            raise CustomOpError(f"ops.Custom: 'func_type' must be one of {list(FUNC_TYPES)}, but got "
                                f"{func_type!r}. Fix: func_type='pyfunc' for a NumPy function.")
        if func_type not in ("pyfunc", "hybrid"):
            raise CustomOpError(
                f"ops.Custom: func_type={func_type!r} needs MindSpore's compilers ('aot': a C++/CUDA library; "
                "'akg', 'tbe', 'aicpu': Ascend tool chains), which minims does not have. Fix: write the "
                "operator as a NumPy function (func_type='pyfunc'), or as an @ops.kernel function "
                "(func_type='hybrid', compiled by Numba).")
        if not callable(func):
            raise CustomOpError(f"ops.Custom: 'func' must be a function, but got {_describe(func)}. Fix: pass "
                                "the function itself, ops.Custom(my_func, ...).")
        for name, rule in (("bprop", bprop), ("jvp", jvp), ("vmap", vmap), ("sympy", sympy)):
            if rule is not None and not callable(rule):
                raise CustomOpError(f"ops.Custom: '{name}' must be a function, but got {_describe(rule)}.")
        self.func_name = getattr(func, "__name__", type(func).__name__)
        self.func_type = func_type
        # one per op, deterministic in a run: graphs never merge two ops that share a source text
        self.uniq_name = f"Custom_{self.func_name}_{next(_counter)}"
        self._func, self._bprop, self._jvp, self._vmap, self._sympy = func, bprop, jvp, vmap, sympy
        self._out_shape, self._out_dtype = out_shape, out_dtype
        self._warned_loop = False
        self._no_output = func_type == "pyfunc" and isinstance(out_dtype, (tuple, list)) and not out_dtype
        if self._no_output:
            self.has_effect = True      # a function with no output is called for its effect: graphs keep it
        if func_type == "hybrid":
            self._run = _hybrid_kernel(func, self.label)
        else:
            self._run = func
            if out_shape is None or out_dtype is None:
                raise CustomOpError(
                    f"{self.label}: a pyfunc operator needs out_shape and out_dtype (values, or functions "
                    "of the inputs' shapes and dtypes), so that a graph can be compiled without running "
                    "it. Fix: e.g. ops.Custom(f, lambda x: x, lambda x: x, 'pyfunc') for an output shaped "
                    "and typed like the first input.")

    @property
    def name(self) -> str:
        return "Custom"

    @property
    def label(self) -> str:
        """The op in messages: ``ops.Custom(sin_by_numpy)``."""
        return f"ops.Custom({self.func_name})"

    # ----- the abstract evaluation: out_shape and out_dtype ----------------------------------------
    def declared(self, arrays):
        """``[(shape, numpy dtype), ...]`` and whether the op has several outputs, from
        ``out_shape``/``out_dtype`` at inputs like ``arrays`` (None: a hybrid kernel's types come from
        running it)."""
        if self._no_output:
            return [(_PLACEHOLDER_SHAPE, np.dtype(np.int32))], False
        shapes, dtypes = [], []
        for a in arrays:
            if hasattr(a, "shape") and hasattr(a, "dtype"):
                shapes.append(list(a.shape))
                dtypes.append(mstype.from_numpy(np.asarray(a).dtype))
            else:
                shapes.append([])
                dtypes.append(a)
        shape = self._out_shape(*shapes) if callable(self._out_shape) else self._out_shape
        dtype = self._out_dtype(*dtypes) if callable(self._out_dtype) else self._out_dtype
        if shape is None and dtype is None:
            return None, None
        several = isinstance(dtype, (tuple, list))
        dtype_list = list(dtype) if several else [dtype]
        shape_list = list(shape) if several and isinstance(shape, (tuple, list)) else [shape]
        if len(shape_list) != len(dtype_list):
            raise CustomOpError(f"{self.label}: out_dtype gives {len(dtype_list)} outputs but out_shape gives "
                                f"{len(shape_list)}: {shape!r}. Fix: one shape per output, e.g. "
                                "((2, 3), (2, 3)) with (ms.float32, ms.float32).")
        return [(self._shape(s), self._dtype(d)) for s, d in zip(shape_list, dtype_list)], several

    def _shape(self, s):
        if not isinstance(s, (tuple, list)) or not all(isinstance(n, numbers.Integral) and n >= 0 for n in s):
            raise CustomOpError(f"{self.label}: 'out_shape' must be a list or tuple of sizes (or a function "
                                f"returning one), but got {_describe(s)}. Fix: e.g. out_shape=(2, 3).")
        if len(s) == 0:         # MindSpore stores a scalar output in a Tensor of shape [1]
            warnings.warn(f"{self.label}: 'out_shape' is empty; the output is a Tensor of shape [1], as in "
                          "MindSpore 2.10.", stacklevel=user_stacklevel())
            return _PLACEHOLDER_SHAPE
        return tuple(int(n) for n in s)

    def _dtype(self, d):
        if isinstance(d, mstype.DType):
            return d.np_dtype
        try:
            return mstype.from_numpy(np.dtype(d)).np_dtype
        except TypeError:
            raise CustomOpError(f"{self.label}: 'out_dtype' must be a dtype such as mindspore.float32 (or a "
                                f"function returning one), but got {_describe(d)}.") from None

    def abstract_eval(self, *arrays):
        types, several = self.declared(arrays)
        if types is None:
            return self.impl(*arrays)           # a hybrid kernel without declared types: run it
        outs = tuple(np.zeros(s, d) for s, d in types)
        return outs if several else outs[0]

    # ----- impl: the user's function, its result checked against the declaration -------------------
    def impl(self, *arrays):
        # copies: MindSpore hands the function copies, so writing into an input changes nothing
        result = self._run(*(np.array(a) if isinstance(a, np.ndarray) else a for a in arrays))
        types, several = self.declared(arrays)
        if self._no_output:
            return np.zeros(_PLACEHOLDER_SHAPE, np.int32)
        if types is None:       # a hybrid kernel's own result is its type
            return tuple(np.asarray(r) for r in result) if isinstance(result, tuple) else np.asarray(result)
        results = list(result) if isinstance(result, (tuple, list)) else [result]
        if len(results) != len(types):
            raise CustomOutputError(
                f"{self.label}: func returned {len(results)} output{'s' if len(results) != 1 else ''}, but "
                f"out_shape/out_dtype declare {len(types)}. Fix: return one array per declared output, or "
                "declare what func returns.")
        outs = tuple(self._checked_output(i, r, s, d) for i, (r, (s, d)) in enumerate(zip(results, types)))
        return outs if several else outs[0]

    def _checked_output(self, i, result, shape, dtype):
        out = np.asarray(result)
        if out.shape != shape and not (shape == _PLACEHOLDER_SHAPE and out.size == 1):
            raise CustomOutputError(
                f"{self.label}: output {i} has shape {list(out.shape)}, but out_shape declares {list(shape)}. "
                "Fix: make out_shape say what func returns (a function of the inputs' shapes, e.g. "
                "lambda x: x).")
        if out.dtype != dtype:
            raise CustomOutputError(
                f"{self.label}: output {i} has dtype {_dtype_name(out.dtype)}, but out_dtype declares "
                f"{_dtype_name(dtype)}. Fix: return that dtype from func (e.g. .astype(np.{dtype.name})), "
                "or declare what func returns.")
        return out.reshape(shape)

    # ----- bprop ---------------------------------------------------------------------------------
    def bprop(self, *args):
        if self._bprop is None:
            raise NoGradientRule(
                f"{self.label} has no bprop, so it cannot be differentiated (MindSpore: \"bprop not "
                "defined\"). Fix: ops.Custom(func, out_shape, out_dtype, bprop=fn), where fn(*inputs, out, "
                "dout) returns a tuple with one gradient per input, written with minims ops; or "
                "ops.stop_gradient where no gradient is needed.")
        inputs, out, dout = args[:-2], args[-2], args[-1]
        where = f"{self.label}'s bprop"
        grads = call_user_fn(self._bprop, (*inputs, out, dout), where,
                             lambda: f"bprop({', '.join(f'x{i}' for i in range(len(inputs)))}, out, dout)")
        if not isinstance(grads, tuple):
            raise BpropError(f"{where} must return a tuple with one gradient per input, but returned "
                             f"{_describe(grads)}. Fix: write `return (dx,)` even for a single input.")
        if len(grads) != len(inputs):
            raise BpropError(f"{where} returned {len(grads)} gradient{'s' if len(grads) != 1 else ''} but the "
                             f"op has {len(inputs)} input{'s' if len(inputs) != 1 else ''}. Fix: return "
                             "exactly one gradient per input, in the order of the inputs.")
        return tuple(_check_like(g, x, f"{where} gradient {i}") if isinstance(x, Tensor) else None
                     for i, (g, x) in enumerate(zip(grads, inputs)))

    # ----- forward mode ----------------------------------------------------------------------------
    def jvp(self, primals, tangents):
        if self._jvp is not None:       # a zero tangent (None inside the level) reaches the user as zeros
            tangents = tuple(zeros_like(p) if t is None and isinstance(p, Tensor) else t
                             for p, t in zip(primals, tangents))
            return call_user_fn(self._jvp, (tuple(primals), tangents), f"{self.label}'s jvp",
                                "jvp(primals, tangents)")
        if self._bprop is None:
            raise NoJvpRule(f"{self.label} has neither a bprop nor a jvp, so forward mode cannot differentiate "
                            "it. Fix: give ops.Custom a bprop=fn (forward mode follows it, as in MindSpore).")
        return jvp_from_bprop(self, primals, tangents)

    # ----- vmap ----------------------------------------------------------------------------------
    def batch(self, values, dims, size):
        if self._vmap is None:
            if not self._warned_loop:
                self._warned_loop = True
                warnings.warn(f"{self.label} has no batching rule, so vmap calls it once per example "
                              f"({size} calls). Fix, if that is slow: ops.Custom(..., vmap=rule) with "
                              "rule(axis_size, in_batched, *args) -> (out, out_batched).",
                              CustomLoopWarning, stacklevel=user_stacklevel())
            return loop(self, values, dims, size)
        args = [move_to_front(v, d) if d is not None else v for v, d in zip(values, dims)]
        in_batched = tuple(d is not None for d in dims)
        out, out_batched = call_user_fn(self._vmap, (size, in_batched, *args), f"{self.label}'s vmap rule",
                                        "rule(axis_size, in_batched, *args)")
        if isinstance(out, tuple):
            flags = out_batched if isinstance(out_batched, tuple) else (out_batched,) * len(out)
            return out, tuple(0 if b else None for b in flags)
        return out, (0 if out_batched else None)

    # ----- the symbolic interpreter -----------------------------------------------------------------
    def sympy(self, *args):
        if self._sympy is None:
            raise NotImplementedError(
                f"symbolic interpreter: {self.label} runs a {'Numba kernel' if self.func_type == 'hybrid' else 'NumPy function'}, "
                "which cannot run on SymPy symbols, and has no SymPy form. Fix: ops.Custom(..., sympy=fn), "
                "where fn computes the same on object arrays of SymPy expressions (e.g. "
                "np.frompyfunc(sympy.sin, 1, 1)(x) for a sine).")
        return self._sympy(*args)


def _hybrid_kernel(func, label):
    """``func`` compiled by Numba (``minims.fast.hybrid``): an ``@ops.kernel`` function, and Numba
    installed (the pure-NumPy path has no compiler; ``func_type="pyfunc"`` runs the kernel as Python)."""
    if not getattr(func, "ms_kernel_flag", False):
        raise CustomOpError(f"{label}: with func_type='hybrid', 'func' must be a function decorated by "
                            "@ops.kernel (MindSpore's Hybrid DSL). Fix: decorate it, or use func_type='pyfunc' "
                            "for a NumPy function.")
    if not fast.numba_available():
        raise CustomOpError(
            f"{label}: func_type='hybrid' compiles the kernel with Numba, which is not installed. Fix: "
            "pip install numba (minims' 'fast' extra), or use func_type='pyfunc', which runs the same "
            "@ops.kernel function as plain Python.")
    return hybrid.compiled(func)


def _dtype_name(np_dtype) -> str:
    try:
        return str(mstype.from_numpy(np_dtype))
    except TypeError:
        return str(np_dtype)
