"""The symbolic interpreter: run a minims function on SymPy symbols.

``symbolic_call(f, x)`` pushes a :class:`SymbolicTrace` on the interpreter stack and calls ``f`` with
:class:`SymbolicTracer` inputs.  A symbolic tracer is a Tensor whose data is a NumPy *object* array
of SymPy expressions, so ``x.shape`` and indexing behave as usual.  Every primitive applied to it
comes to :meth:`SymbolicTrace.process`, which calls the primitive's ``sympy`` rule instead of its
``impl``: the same computation, written on expressions.  What comes out is a formula::

    >>> x = symbols_like("x", (2,))
    >>> symbolic_call(lambda t: ops.sum(ops.tanh(t) * t), x)
    x_0*tanh(x_0) + x_1*tanh(x_1)

``sympy.diff`` of that formula is a gradient obtained *without* any of minims' backward rules, which
is what makes it a reference for them: ``symbolic_grad`` returns it, and ``reference_grad`` evaluates
it at the values of some Tensors, to compare with ``ops.grad``.

Conventions:

* constant Tensors (weights, masks) become object arrays of SymPy numbers; Python scalars and static
  arguments (axes, shapes, dtypes, indices) reach the rule as they are, except that a float with an
  integral value becomes a SymPy integer (``x ** 2`` rather than ``x ** 2.0``);
* comparisons give SymPy relationals (``x_0 > 0``) and ``select`` a ``Piecewise``; a relational cast
  to a number is ``Piecewise((1, cond), (0, True))``, and so is a relational used in arithmetic (the
  symbolic counterpart of MindSpore promoting a Bool tensor);
* a symbolic tracer's ``dtype`` is ``Bool`` when it holds relationals, otherwise ``Float64``;
* Python control flow on a symbolic value (``if x > 0:``) cannot be traced: use ``ops.select``.
"""
from __future__ import annotations

import numpy as np
import sympy
from sympy.logic.boolalg import Boolean

from .. import dtype as mstype
from ..core.tensor import Tensor
from ..core.primitive import has_rule
from ..core.stack import MinimsError
from ..core.stack import Trace, Tracer, pop_trace, push_trace

__all__ = ["SymbolicTrace", "SymbolicTracer", "SymbolicEscapeError", "symbols_like", "symbolic_call",
           "symbolic_grad", "reference_grad"]


class SymbolicEscapeError(MinimsError, RuntimeError):
    """A symbolic value was used after its ``symbolic_call`` had finished."""


# ----- SymPy values ----------------------------------------------------------------------------------
def _is_boolean(e) -> bool:
    """True for relationals and logical values (``x > 0``, ``true``), False for numbers and symbols.

    (A SymPy ``Symbol`` is both an ``Expr`` and a ``Boolean``; here it counts as a number.)
    """
    return isinstance(e, Boolean) and not isinstance(e, sympy.Expr)


def _sympify(v):
    """One Python/NumPy/SymPy value as a SymPy object (integral floats become integers: ``2*x``)."""
    if isinstance(v, sympy.Basic):
        return v
    if isinstance(v, (bool, np.bool_)):
        return sympy.true if v else sympy.false
    if isinstance(v, (int, np.integer)):
        return sympy.Integer(int(v))
    if isinstance(v, (float, np.floating)):
        v = float(v)
        if v.is_integer():
            return sympy.Integer(int(v))
        return sympy.Float(v)
    return sympy.sympify(v)


def _to_number(e):
    """A relational used as a number: 1 where it holds, 0 elsewhere."""
    if _is_boolean(e):
        return sympy.Piecewise((1, e), (0, True))
    return e


def as_sympy_array(value) -> np.ndarray:
    """An object ndarray of SymPy objects from an expression, a nested list, an array or a Tensor."""
    if isinstance(value, Tensor):
        value = value._data
    if isinstance(value, np.ndarray):
        arr = value
    elif isinstance(value, (list, tuple)):
        arr = np.array(value, dtype=object)
    else:
        arr = np.empty((), dtype=object)
        arr[()] = value
    out = np.empty(arr.shape, dtype=object)
    for idx in np.ndindex(arr.shape):
        out[idx] = _sympify(arr[idx])
    return out


def symbols_like(name: str, shape, **assumptions) -> np.ndarray:
    """An object array of fresh SymPy symbols ``name_i_j`` with the given shape (real by default).

    ``symbols_like("x", (2, 3))[1, 2]`` is the symbol ``x_1_2``; for ``shape=()`` the 0-d array holds
    the symbol ``x`` itself.  Symbols are real unless told otherwise, so that e.g. ``Abs(x)``
    differentiates to ``sign(x)``.
    """
    assumptions.setdefault("real", True)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    out = np.empty(shape, dtype=object)
    for idx in np.ndindex(shape):
        label = "_".join([name, *map(str, idx)])
        out[idx] = sympy.Symbol(label, **assumptions)
    return out


# ----- the interpreter -------------------------------------------------------------------------------
class SymbolicTracer(Tracer):
    """A Tensor of SymPy expressions (``_data`` is an object ndarray) on a :class:`SymbolicTrace`."""

    __slots__ = ("_dtype",)

    @property
    def dtype(self) -> mstype.DType:
        """``Bool`` for relationals, otherwise ``Float64`` (an object array has no NumPy number type)."""
        return self._dtype

    @property
    def itemsize(self) -> int:
        return self._dtype.np_dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.itemsize * self.size

    def _primal_value(self):
        raise SymbolicEscapeError(
            "A symbolic value (SymPy expressions) was used after its symbolic_call returned; it has "
            "no numeric value. Fix: use the expressions symbolic_call returned, not a tracer saved "
            "from inside the function."
        )

    def __bool__(self) -> bool:
        if self.size == 1 and self._data.reshape(-1)[0] in (sympy.true, sympy.false):
            return self._data.reshape(-1)[0] is sympy.true
        raise TypeError(
            f"A symbolic value ({self}) has no truth value, so Python control flow (if/while/and/or) "
            "on it cannot be traced symbolically. Fix: express the branch with ops.select(cond, a, b)."
        )

    def __repr__(self) -> str:
        return f"SymbolicTensor(shape={list(self.shape)}, dtype={self._dtype}, value={self})"

    def __str__(self) -> str:
        return str(self._data) if self._data.ndim else str(self._data[()])


def _dtype_of(arr: np.ndarray, float_dtype=mstype.float64) -> mstype.DType:
    if arr.size and all(_is_boolean(e) for e in arr.flat):
        return mstype.bool_
    return float_dtype


class SymbolicTrace(Trace):
    """An interpreter that evaluates primitives with their ``sympy`` rules on object arrays.

    ``float_dtype`` is the dtype symbolic values claim (Float64 unless told otherwise): a float32
    network's dtype checks then pass, and Python float constants are rounded to that precision, as
    the numeric ops round them (``x > 0.1`` compares with float32(0.1) on a Float32 tensor).
    """

    def __init__(self, float_dtype=mstype.float64):
        self.float_dtype = float_dtype

    def new_input(self, value) -> SymbolicTracer:
        """Wrap an expression, a nested list or an object array as a tracer of this trace."""
        return self._box(as_sympy_array(value))

    def _box(self, arr: np.ndarray) -> SymbolicTracer:
        t = object.__new__(SymbolicTracer)
        t._data = arr
        t._trace = self
        t._dtype = _dtype_of(arr, self.float_dtype)
        return t

    def process(self, prim, args):
        if not has_rule(prim, "sympy"):
            raise NotImplementedError(
                f"symbolic interpreter: primitive {prim.name} has no sympy rule, so this function "
                f"cannot be run on SymPy symbols. Fix: add a method `sympy(self, ...)` to "
                f"{type(prim).__module__}.{type(prim).__qualname__} computing the same thing as its "
                "impl on object arrays of SymPy expressions."
            )
        values = [self._lower(a) for a in args]
        if not prim.takes_booleans:
            values = [_numbers(v) for v in values]
        out = prim.sympy(*values)
        if isinstance(out, tuple):
            return tuple(self._box(as_sympy_array(o)) for o in out)
        return self._box(as_sympy_array(out))

    def _lower(self, a):
        """What the sympy rule receives for one argument."""
        if isinstance(a, SymbolicTracer):
            return a._data
        if isinstance(a, Tracer):
            raise TypeError(
                f"symbolic interpreter: a value being differentiated by an outer level "
                f"({type(a).__name__}) reached a symbolic computation. symbolic_call cannot run on "
                "values captured from an enclosing grad; pass numbers (Tensors) or symbols instead."
            )
        if isinstance(a, Tensor):
            return as_sympy_array(a._data)          # a constant
        if isinstance(a, float) and a.is_integer():
            return sympy.Integer(int(a))            # x ** 2.0 reads better as x**2
        if isinstance(a, float) and self.float_dtype is not mstype.float64:
            return float(np.asarray(a, self.float_dtype.np_dtype))   # the precision the op computes in
        return a                                    # Python scalar or static argument


def _numbers(v):
    if isinstance(v, np.ndarray) and v.dtype == object:
        if any(_is_boolean(e) for e in v.flat):
            return np.frompyfunc(_to_number, 1, 1)(v).astype(object)
    return v


# ----- public API ------------------------------------------------------------------------------------
def _is_symbolic_input(v) -> bool:
    if isinstance(v, sympy.Basic):
        return True
    if isinstance(v, np.ndarray):
        return v.dtype == object
    if isinstance(v, (list, tuple)):
        return any(_is_symbolic_input(e) for e in v)
    return False


def _to_sympy(out):
    """fn's output with tracers (and constant Tensors) replaced by expressions, same structure."""
    if isinstance(out, (tuple, list)):
        return type(out)(_to_sympy(o) for o in out)
    if isinstance(out, Tensor):          # a SymbolicTracer, or a constant that ignores the inputs
        arr = out._data if isinstance(out, SymbolicTracer) else as_sympy_array(out._data)
        return arr[()] if arr.ndim == 0 else arr
    if isinstance(out, (bool, int, float, np.generic)):
        return _sympify(out)
    return out


def symbolic_call(fn, *symbolic_inputs, dtype=None):
    """Run ``fn`` on SymPy values and return its output as SymPy expressions.

    ``dtype`` (default Float64) is the float dtype the symbolic values stand for: give
    ``mindspore.float32`` to run a float32 network (its weights are float32 constants).

    Each input may be a SymPy expression (a scalar), a nested list or an object array of expressions
    (see :func:`symbols_like`); anything else (a Tensor, a Python number, an axis) is passed to ``fn``
    unchanged and treated as a constant.  The output has the structure of ``fn``'s output, with each
    Tensor replaced by an object ndarray of expressions, or by one expression if it is 0-d.
    """
    trace = push_trace(SymbolicTrace(mstype.to_dtype(dtype) if dtype is not None else mstype.float64))
    try:
        boxed = tuple(trace.new_input(v) if _is_symbolic_input(v) else v for v in symbolic_inputs)
        out = fn(*boxed)
    finally:
        pop_trace(trace)
    return _to_sympy(out)


def _total(out):
    """The sum of every entry of every output: what ``ops.grad`` differentiates (sensitivity ones)."""
    if isinstance(out, (tuple, list)):
        return sympy.Add(*[_total(o) for o in out])
    if isinstance(out, np.ndarray):
        return sympy.Add(*[_to_number(e) for e in out.flat])
    return _to_number(_sympify(out))


def _diff_wrt(total, inp, position):
    arr = as_sympy_array(inp)
    for s in arr.flat:
        if not isinstance(s, sympy.Symbol):
            raise TypeError(
                f"symbolic_grad: input {position} must hold SymPy symbols to be differentiated, but "
                f"holds {s!r}. Fix: build it with symbols_like(name, shape)."
            )
    out = np.empty(arr.shape, dtype=object)
    for idx in np.ndindex(arr.shape):
        out[idx] = sympy.diff(total, arr[idx])
    return out[()] if out.ndim == 0 else out


def symbolic_grad(fn, *inputs, wrt=0, dtype=None):
    """``sympy.diff`` of the sum of ``fn``'s outputs with respect to input ``wrt`` (an int or a tuple).

    This is the reference for ``ops.grad(fn, grad_position=wrt)``, which also differentiates the sum
    of the outputs (its default sensitivity is ones).  Returns an expression for a 0-d input, an
    object array otherwise, and a tuple of those when ``wrt`` is a tuple.
    """
    total = _total(symbolic_call(fn, *inputs, dtype=dtype))
    if isinstance(wrt, int):
        return _diff_wrt(total, inputs[wrt], wrt)
    return tuple(_diff_wrt(total, inputs[p], p) for p in wrt)


def _evaluate(expr, subs) -> float:
    """A SymPy expression at the given symbol values (30-digit Floats), as a float."""
    value = sympy.sympify(expr).xreplace(subs).evalf(30)      # much faster than evalf(subs=...)
    try:
        return float(value)
    except TypeError:
        raise ValueError(
            f"reference_grad: the symbolic gradient {expr} does not evaluate to a number at the given "
            f"point (got {value}); the point may sit on a kink (e.g. relu at 0)."
        ) from None


def reference_grad(fn, *tensors, wrt=0):
    """The symbolic gradient of ``fn`` evaluated at the values of ``tensors`` (float64 arrays).

    Every float Tensor argument is replaced by symbols (``arg0``, ``arg1_0_2`` ...); other arguments
    (integer or Bool Tensors, Python values) stay constants.  The result mirrors
    ``ops.grad(fn, grad_position=wrt)(*tensors)``: one array for an int ``wrt`` or a 1-tuple, a tuple
    otherwise.
    """
    inputs, subs = [], {}
    for i, t in enumerate(tensors):
        if isinstance(t, Tensor) and t.dtype.is_float:
            syms = symbols_like(f"arg{i}", t.shape)
            inputs.append(syms)
            subs.update({s: sympy.Float(float(v), 30) for s, v in zip(syms.flat, t._data.flat)})
        else:
            inputs.append(t)
    positions = (wrt,) if isinstance(wrt, int) else tuple(wrt)
    for p in positions:
        if not (isinstance(tensors[p], Tensor) and tensors[p].dtype.is_float):
            raise TypeError(f"reference_grad: argument {p} must be a float Tensor to be differentiated.")
    float_dtypes = {t.dtype for t in tensors if isinstance(t, Tensor) and t.dtype.is_float}
    dtype = float_dtypes.pop() if len(float_dtypes) == 1 else None      # the inputs' own precision
    grads = symbolic_grad(fn, *inputs, wrt=positions, dtype=dtype)
    out = []
    for g in grads:
        arr = as_sympy_array(g)
        out.append(np.array([_evaluate(e, subs) for e in arr.flat], dtype=np.float64).reshape(arr.shape))
    return out[0] if len(out) == 1 else tuple(out)
