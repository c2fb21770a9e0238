"""MindSpore's functional operators (``ops.add``, ``ops.matmul``, ``ops.sum`` ...): the vocabulary the
primitives' rules are written in.  ``minims.ops`` re-exports them, with the transforms (``grad``,
``jvp``, ``vmap`` ...) beside them; the rules use this module, which sits below the transforms.

Each function calls one shared primitive instance, so ``ops.mul(x, y)`` and ``ops.Mul()(x, y)`` run
exactly the same table entry.  Composite functions (``matmul`` on vectors, ``flatten``) are written
in terms of primitives and are therefore differentiable without rules of their own.
"""
from __future__ import annotations

import numpy as np

from .. import dtype as mstype
from . import activation as _act
from . import array as _arr
from . import compare as _cmp
from . import linalg as _lin
from . import math as _math
from . import reduce as _red
from . import state as _state
from ..core.stack import MinimsError
from ..core.stack import Tracer
from ..core.staging import StagingTracer
from .operands import normalize_axis
from ..core.tensor import Tensor
from ..tensors.convert import _describe
from . import views
from ..core.primitive import Primitive
from ..core.prims import _Binary, _Unary
from ..core import install
from ..core.stack import bind
from ..tensors.convert import describe, describe_args
from .operands import as_operand, binary_operands


# ----- MindSpore's calling convention for the elementwise primitives ------------------------------------
# Installed on the core's bases (``minims.core.prims._Binary``, ``_Unary``), whose rows ``Add`` ...
# ``Cos`` are, and on which ``math.py`` builds the rest: ``ops.Mul()(x, 2.0)``, ``ops.sin(x)`` and
# ``x * y`` all come here first.
_MISSING = object()      # default of an input that was not passed (for the arity message)


def arity_error(prim, names, args):
    """A Primitive called with the wrong number of inputs (TypeError, as Python and MindSpore)."""
    got = [a for a in args if a is not _MISSING]
    return TypeError(
        f"{prim.name} takes {len(names)} input{'s' if len(names) != 1 else ''} ({', '.join(names)}), but "
        f"was called with {len(got)}{': ' + describe_args(got) if got else ''}. "
        f"Fix: ops.{type(prim).__name__}()({', '.join(names)})."
    )


# ----- MindSpore's calling convention, on the core's bases -------------------------------------------
def _binary_call(self, x=_MISSING, y=_MISSING, *extra):
    if y is _MISSING or extra:
        raise arity_error(self, ("x", "y"), (x, y) + extra)
    if isinstance(x, Tensor) and isinstance(y, Tensor):
        dt = x._data.dtype
        if dt is y._data.dtype and (dt.kind == "f" or not self.float_result):
            return bind(self, x, y)     # binary_operands' first case, without its frame
    x, y = binary_operands(self, x, y, self.float_result)
    return bind(self, x, y)


def _binary_failure(self, exc, args):
    if "broadcast" in str(exc):
        shapes = [list(getattr(a, "shape", ())) for a in args]
        return ValueError(
            f"{self.name}: the shapes {shapes[0]} and {shapes[1]} cannot be broadcast together: "
            "aligned from the right, each pair of dimensions must be equal or contain a 1. "
            "Fix: reshape or expand_dims one operand.")
    return Primitive.explain_failure(self, exc, args)


def _unary_call(self, x=_MISSING, *extra):
    if x is _MISSING or extra:
        raise arity_error(self, ("x",), (x,) + extra)
    if not isinstance(x, Tensor):
        as_operand(self.name, x, "x")            # the message for arrays, lists and other types
        # a Python number too: TypeError, as MindSpore ("Failed calling Sin with Sin()(input=float)")
        raise TypeError(f"{self.name}: input 'x' must be a Tensor, but got {describe(x)}. Fix: "
                        f"wrap the number, Tensor({x!r}).")
    if self.float_only and x._data.dtype.kind != "f" and not x.dtype.is_float:   # (a float array: no lookup)
        x = cast(x, mstype.float32)
    return bind(self, x)


install(_Binary, __call__=_binary_call, explain_failure=_binary_failure, float_result=False)
install(_Unary, __call__=_unary_call, float_only=False)


# ----- in-place writes: a Tensor takes the value of the write applied to it -----------------------------
def _tracer_becomes(self, other) -> None:
    """Take ``other``'s place in place (``t[i] = v`` on a traced value: ``t`` is now the result).
    ``other`` is the result of a primitive applied to ``self``: a tracer of the same trace."""
    if type(other) is not type(self) or other._trace is not self._trace:
        raise MinimsError(
            f"In-place write: the new value ({type(other).__name__}) does not belong to the same "
            f"interpreter level as the Tensor written into ({type(self).__name__}). Fix: build the "
            "result as a new Tensor (ops.select, ops.concat) instead of writing into one from "
            "another level.")
    for cls in type(self).__mro__:
        for name in cls.__dict__.get("__slots__", ()):
            if name not in ("__weakref__", "__dict__"):
                setattr(self, name, getattr(other, name))


def _tracer_unguarded_array(self):
    """The value a traced Tensor stands for, read to copy or store it (``Tensor(x)``,
    ``save_checkpoint``), not to decide a branch: a placeholder of a graph being compiled refuses,
    where ``bool(x)`` or ``x.asnumpy()`` would record a guard (graph/guards.py) and the copy or the
    write would happen at compile time only."""
    value = self
    while isinstance(value, Tracer):
        if isinstance(value, StagingTracer):
            StagingTracer._primal_value(value)      # raises: a placeholder has no value
        value = value._primal_value()
    return value._data


def _tracer_has_no_value(self) -> bool:
    # asked without reading the value: under jit, a read records a guard (graph/guards.py)
    try:
        _tracer_unguarded_array(self)
    except MinimsError:
        return True
    return False


# a plain Tensor gets the new array (copy on write: arrays may be shared with a tape); a placeholder
# of a graph being compiled, or a batch inside vmap, has no value to read here
install(Tensor, _become=lambda self, other: setattr(self, "_data", other._data),
        _has_no_value=lambda self: False, _unguarded_array=lambda self: self._data)
install(Tracer, _become=_tracer_becomes, _has_no_value=_tracer_has_no_value, _is_input=lambda self: False,
        _unguarded_array=_tracer_unguarded_array)


class InPlaceWriteError(MinimsError, RuntimeError):
    """``t[i] = v`` that cannot be recorded: into a differentiated input, or a traced value into a
    constant (MindSpore: RuntimeError)."""


_add, _sub, _mul, _div, _pow = _math.Add(), _math.Sub(), _math.Mul(), _math.Div(), _math.Pow()
_maximum, _minimum = _math.Maximum(), _math.Minimum()
_neg, _exp, _log, _sqrt, _square = _math.Neg(), _math.Exp(), _math.Log(), _math.Sqrt(), _math.Square()
_abs, _sign, _sin, _cos, _tanh = _math.Abs(), _math.Sign(), _math.Sin(), _math.Cos(), _math.Tanh()
_sigmoid, _reciprocal, _floor = _math.Sigmoid(), _math.Reciprocal(), _math.Floor()
_floordiv, _mod, _fmod = _math.FloorDiv(), _math.FloorMod(), _math.Mod()
_relu, _relu6 = _act.ReLU(), _act.ReLU6()
_gt, _lt, _ge, _le = _cmp.Greater(), _cmp.Less(), _cmp.GreaterEqual(), _cmp.LessEqual()
_eq, _ne = _cmp.Equal(), _cmp.NotEqual()
_and, _or, _not = _cmp.LogicalAnd(), _cmp.LogicalOr(), _cmp.LogicalNot()
_select = _cmp.Select()
_reshape, _transpose, _expand_dims = _arr.Reshape(), _arr.Transpose(), _arr.ExpandDims()
_getitem, _fill, _cast = _arr.GetItem(), _arr.Fill(), _arr.Cast()
_setitem, _identity = _arr.SetItem(), _arr.Identity()
_ones_like, _zeros_like, _stop_gradient = _arr.OnesLike(), _arr.ZerosLike(), _arr.StopGradient()
_matmul = _lin.MatMul()
_assign = _state.Assign()
_sum_keep, _sum = _red.ReduceSum(True), _red.ReduceSum(False)
_mean_keep, _mean = _red.ReduceMean(True), _red.ReduceMean(False)
_max_keep, _max = _red.ReduceMax(True), _red.ReduceMax(False)
_min_keep, _min = _red.ReduceMin(True), _red.ReduceMin(False)


# ----- elementwise arithmetic -------------------------------------------------------------------
def add(input, other):
    """``ops.add``: elementwise sum with broadcasting."""
    return _add(input, other)


def sub(input, other):
    return _sub(input, other)


def mul(input, other):
    return _mul(input, other)


def div(input, other):
    """True division (integers give Float32)."""
    return _div(input, other)


def pow(input, exponent):  # noqa: A001 - MindSpore's name
    return _pow(input, exponent)


def floor_divide(input, other):
    return _floordiv(input, other)


def floor_mod(input, other):
    """``ops.floor_mod``: ``x - y * floor(x / y)``, the sign of ``y`` (Python's ``%``)."""
    return _mod(input, other)


remainder = floor_mod


def fmod(input, other):
    """``ops.fmod``: ``x - y * trunc(x / y)``, the sign of ``x`` (``ops.Mod``)."""
    return _fmod(input, other)


def maximum(input, other):
    return _maximum(input, other)


def minimum(input, other):
    return _minimum(input, other)


def neg(input):
    return _neg(input)


def exp(input):
    return _exp(input)


def log(input):
    return _log(input)


def sqrt(input):
    return _sqrt(input)


def square(input):
    return _square(input)


def abs(input):  # noqa: A001
    return _abs(input)


def sign(input):
    return _sign(input)


def sin(input):
    return _sin(input)


def cos(input):
    return _cos(input)


def tanh(input):
    return _tanh(input)


def sigmoid(input):
    return _sigmoid(input)


def reciprocal(input):
    return _reciprocal(input)


def floor(input):
    return _floor(input)


def relu(input):
    return _relu(input)


def relu6(x):
    return _relu6(x)


def softmax(input, axis=-1):
    return _act.Softmax(axis)(input)


def log_softmax(logits, axis=-1):
    return _act.LogSoftmax(axis)(logits)


# ----- comparisons and selection -------------------------------------------------------------------
def gt(input, other):
    return _gt(input, other)


def lt(input, other):
    return _lt(input, other)


def ge(input, other):
    return _ge(input, other)


def le(input, other):
    return _le(input, other)


def equal(input, other):
    return _eq(input, other)


def ne(input, other):
    return _ne(input, other)


greater, less, greater_equal, less_equal, not_equal = gt, lt, ge, le, ne


def logical_and(input, other):
    return _and(input, other)


def logical_or(input, other):
    return _or(input, other)


def logical_not(input):
    return _not(input)


def select(cond, x, y):
    """``ops.select(cond, x, y)``: ``x`` where ``cond`` else ``y``."""
    return _select(cond, x, y)


where = select


# ----- creation and dtype -------------------------------------------------------------------------
def fill(type, shape, value):  # noqa: A002 - MindSpore's parameter name
    """``ops.fill(type, shape, value)``."""
    return _fill(type, shape, value)


def full(size, fill_value, *, dtype=None):
    dt = dtype or (mstype.float32 if isinstance(fill_value, float) else
                   mstype.bool_ if isinstance(fill_value, bool) else mstype.int64)
    return _fill(dt, size, fill_value)


def ones(shape, dtype=None):
    return _fill(dtype or mstype.float32, shape, 1)


def zeros(shape, dtype=None):
    return _fill(dtype or mstype.float32, shape, 0)


def ones_like(input, dtype=None):
    out = _ones_like(input)
    return out if dtype is None else cast(out, dtype)


def zeros_like(input, dtype=None):
    out = _zeros_like(input)
    return out if dtype is None else cast(out, dtype)


def cast(input, dtype):
    """``ops.cast(input, dtype)``."""
    if isinstance(input, Tensor) and input.dtype is mstype.require_dtype(dtype, "cast"):
        return input
    return _cast(input, dtype)


def stop_gradient(value):
    return _stop_gradient(value)


def identity(input):
    """``ops.identity``: the same values as a new Tensor (differentiable: the gradient passes)."""
    return _identity(input)


# ----- shapes -------------------------------------------------------------------------------------
def reshape(input, shape):
    return _reshape(input, shape)


def transpose(input, input_perm=None):
    return _transpose(input, input_perm)


def permute(input, axis):
    return _transpose(input, axis)


def expand_dims(input_x, axis):
    return _expand_dims(input_x, axis)


unsqueeze = expand_dims


def squeeze(input, axis=None):
    return _arr.Squeeze(() if axis is None else axis)(input)


def broadcast_to(input, shape):
    return _arr.BroadcastTo(shape)(input)


def flatten(input, start_dim=1, end_dim=-1):
    shape = input.shape
    if len(shape) == 0:
        return reshape(input, (1,))
    start, end = start_dim % len(shape), end_dim % len(shape)
    new = shape[:start] + (int(np.prod(shape[start:end + 1])),) + shape[end + 1:]
    return reshape(input, new)


def concat(tensors, axis=0):
    return _arr.Concat(axis)(tensors)


cat = concat


def stack(tensors, axis=0):
    return _arr.Stack(axis)(tensors)


def getitem(input, index):
    return _getitem(input, index)


def setitem(input, index, value):
    """``input[index] = value`` (``Tensor.__setitem__``): ``input`` becomes ``input`` with those
    entries replaced, recorded as the primitive ``SetItem`` (differentiable, and an equation inside
    a compiled graph).

    * A Parameter: the write is a side effect, ``ops.assign(param, <the written value>)`` (undone
      if the call it happens in fails; kept in a compiled graph like any assignment).
    * A Tensor being differentiated: it becomes the traced result.  Writing into an *input* of the
      function being differentiated is refused (RuntimeError, as in MindSpore): the gradient with
      respect to the old value would be meaningless.
    * A constant Tensor: it gets a new array; writing a value that is being differentiated into it
      is refused (a constant cannot carry a gradient).

    A view (``t[i]``, ``t.view(...)``) and the Tensor it was taken from share their entries, as in
    MindSpore: the write is passed on between them (``views.py``).
    """
    if not isinstance(value, Tensor):
        value = value if isinstance(value, (bool, int, float)) else Tensor(value, input.dtype)
    elif value.dtype is not input.dtype:
        value = cast(value, input.dtype)
    if getattr(input, "_is_parameter", False):
        return assign(input, _setitem(input, index, value))
    if isinstance(input, Tracer) and input._trace.active and input._is_input():
        raise InPlaceWriteError(
            f"Tensor.__setitem__: cannot write into {_describe(input)}, an input of the function "
            "being differentiated (the gradient would be taken with respect to a value that no longer "
            "exists). Fix: copy it first, y = x * 1 (or ops.identity(x)), and write into the copy.")
    new = _setitem(input, index, value)
    if isinstance(new, Tracer) and not isinstance(input, Tracer):
        raise InPlaceWriteError(
            "Tensor.__setitem__: the value written (or the index) depends on something being "
            "differentiated (or traced), "
            "but the Tensor written into is a constant, which cannot carry it. Fix: build the result "
            "as a new Tensor, e.g. with ops.select or ops.concat, or start from a traced value "
            "(y = x * 0 + constant).")
    input._become(new)
    views.written(input)        # a view shares its entries with the Tensor it was taken from
    return input


def gather(input_params, input_indices, axis, batch_dims=0):
    """``ops.gather``: take ``input_indices`` along ``axis`` (an index expression underneath, whose
    index Tensor is an operand: a compiled graph reads each call's indices).  An index out of range
    is a RuntimeError when the op runs, as in MindSpore 2.10."""
    if batch_dims != 0:
        raise NotImplementedError("gather: batch_dims other than 0 is not supported yet")
    ndim = len(input_params.shape)
    if not -ndim <= axis < ndim:
        raise ValueError(f"Gather: axis {axis} is out of range for a tensor of rank {ndim}.")
    if not isinstance(input_indices, Tensor):
        input_indices = Tensor(np.asarray(input_indices))
    if input_indices.dtype.kind != "int":
        raise TypeError(f"Gather: input_indices must be an int Tensor, but got dtype {input_indices.dtype}. "
                        "Fix: Tensor(indices, mindspore.int32).")
    return _getitem(input_params, (slice(None),) * (axis % ndim) + (input_indices,))


def one_hot(indices, depth, on_value=1, off_value=0, axis=-1, *, dtype=None):
    """``ops.one_hot``: ``on_value`` where ``indices == class`` along a new axis of size ``depth``.

    Built from a comparison with the constant ``0..depth-1``, so it traces like any op: a compiled
    graph takes each call's indices (never the values seen while compiling).
    """
    if not isinstance(indices, Tensor) or indices.dtype.kind != "int":
        raise TypeError(f"OneHot: indices must be an int Tensor, but got "
                        f"{indices.dtype if isinstance(indices, Tensor) else type(indices).__name__}. "
                        "Fix: class indices are ints, e.g. Tensor(labels, mindspore.int32).")
    if not isinstance(depth, (int, np.integer)) or depth < 1:
        raise ValueError(f"OneHot: depth must be a positive int, but got {depth!r}.")
    ndim = len(indices.shape) + 1
    axis = axis % ndim
    classes = Tensor._make(np.arange(depth, dtype=indices._data.dtype).reshape(
        (depth,) + (1,) * (ndim - 1 - axis)))
    hit = equal(expand_dims(indices, axis), classes)
    dt = dtype or (on_value.dtype if isinstance(on_value, Tensor) else
                   mstype.float32 if isinstance(on_value, float) or isinstance(off_value, float) else mstype.int64)
    return select(hit, cast(fill(dt, hit.shape, on_value if not isinstance(on_value, Tensor) else on_value.item()), dt),
                  cast(fill(dt, hit.shape, off_value if not isinstance(off_value, Tensor) else off_value.item()), dt))


# ----- linear algebra -----------------------------------------------------------------------------
def matmul(input, other):
    """``ops.matmul``: NumPy's matmul semantics (vectors, matrices, broadcast batches)."""
    x, y = input, other
    for name, v in (("input", x), ("other", y)):
        if not isinstance(v, Tensor):
            raise TypeError(f"matmul: '{name}' must be a Tensor, but got {_describe(v)}. "
                            "Fix: convert it first, e.g. Tensor(data, mindspore.float32).")
    x_vec, y_vec = len(x.shape) == 1, len(y.shape) == 1
    if x_vec:
        x = expand_dims(x, 0)
    if y_vec:
        y = expand_dims(y, 1)
    out = _matmul(x, y)
    if x_vec and y_vec:
        return reshape(out, ())
    if x_vec:
        return squeeze(out, -2)
    if y_vec:
        return squeeze(out, -1)
    return out


def mm(input, mat2):
    """``ops.mm``: the product of two matrices (2-D only, as MindSpore's)."""
    for name, v in (("input", input), ("mat2", mat2)):
        if isinstance(v, Tensor) and v.ndim != 2:
            raise ValueError(f"mm: '{name}' must be a 2-D matrix, but got shape {list(v.shape)}. Fix: "
                             "ops.matmul for vectors and batches of matrices.")
    return matmul(input, mat2)


# ----- reductions ---------------------------------------------------------------------------------
def _axis_arg(axis, dim):
    return dim if axis is None else axis


def sum(input, dim=None, keepdim=False, *, axis=None, keepdims=None, dtype=None):  # noqa: A001
    """``ops.sum(input, dim=None, keepdim=False)``; ``axis``/``keepdims`` are accepted too."""
    keep = keepdim if keepdims is None else keepdims
    out = (_sum_keep if keep else _sum)(input, _axis_arg(axis, dim))
    return out if dtype is None else cast(out, dtype)


def reduce_sum(x, axis=(), keep_dims=False):
    return (_sum_keep if keep_dims else _sum)(x, axis)


def mean(input, axis=None, keep_dims=False, *, keepdims=None, dim=None):
    keep = keep_dims if keepdims is None else keepdims
    return (_mean_keep if keep else _mean)(input, _axis_arg(axis, dim))


def var(input, axis=None, ddof=0, keepdims=False):
    """``ops.var(input, axis=None, ddof=0, keepdims=False)``: the mean squared deviation from the
    mean, divided by ``n - ddof`` (``ddof=0``: the population variance, as MindSpore's default).
    Written in ops, so it is differentiable to any order.  Fewer than ``ddof + 1`` values give NaN."""
    if not isinstance(ddof, int) or isinstance(ddof, bool) or ddof < 0:
        raise TypeError(f"var: ddof must be an int >= 0, but got {_describe(ddof)}. Fix: ddof=0 for the "
                        "population variance, ddof=1 for the unbiased sample variance.")
    if not isinstance(input, Tensor):
        raise TypeError(f"var: input must be a Tensor, but got {_describe(input)}. Fix: Tensor(data).")
    axes = normalize_axis("var", axis, input.ndim)
    count = int(np.prod([input.shape[a] for a in axes]))
    centered = sub(input, mean(input, axes, keep_dims=True))
    squares = sum(mul(centered, centered), axes, keepdims)
    if count - ddof <= 0:            # no degrees of freedom left: NaN, as NumPy (without its warning)
        return mul(squares, float("nan"))
    return div(squares, count - ddof)


def std(input, axis=None, ddof=0, keepdims=False):
    """``ops.std``: the square root of :func:`var` (same arguments)."""
    return sqrt(var(input, axis, ddof, keepdims))


def amax(input, axis=None, keepdims=False):
    return (_max_keep if keepdims else _max)(input, axis)


def amin(input, axis=None, keepdims=False):
    return (_min_keep if keepdims else _min)(input, axis)


def max(input, axis=None, keepdims=False):  # noqa: A001
    """``ops.max``: MindSpore 2.x returns ``(values, indices)``."""
    values = amax(input, axis, keepdims)
    return values, argmax(input, axis, keepdims)


def min(input, axis=None, keepdims=False):  # noqa: A001
    values = amin(input, axis, keepdims)
    return values, argmin(input, axis, keepdims)


def argmax(input, dim=None, keepdim=False):
    if dim is None:
        out = _red.Argmax(axis=None, output_type=mstype.int64)(input)
        return reshape(out, (1,) * len(input.shape)) if keepdim else out
    out = _red.Argmax(axis=dim, output_type=mstype.int64)(input)
    return expand_dims(out, dim) if keepdim else out


def argmin(input, dim=None, keepdim=False):
    if dim is None:
        out = _red.Argmin(axis=None, output_type=mstype.int64)(input)
        return reshape(out, (1,) * len(input.shape)) if keepdim else out
    out = _red.Argmin(axis=dim, output_type=mstype.int64)(input)
    return expand_dims(out, dim) if keepdim else out


# ----- side effects -------------------------------------------------------------------------------
def assign(variable, value):
    """``ops.assign(variable, value)``: write ``value`` into the Parameter ``variable``."""
    return _assign(variable, value)
