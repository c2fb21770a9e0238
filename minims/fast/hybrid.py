"""MindSpore's Hybrid DSL: ``@ops.kernel`` functions, run as Python or compiled by Numba.

A kernel is a Python function written with loops over NumPy-like arrays and a few intrinsics
(MindSpore's "Hybrid DSL")::

    @ops.kernel
    def add(a, b):
        c = output_tensor(a.shape, a.dtype)
        for i0 in range(a.shape[0]):
            for i1 in range(a.shape[1]):
                c[i0, i1] = a[i0, i1] + b[i0, i1]
        return c

* Called directly (or given to ``ops.Custom`` with ``func_type="pyfunc"``), it runs as plain Python
  with the intrinsics bound to NumPy, as in MindSpore: ``output_tensor``/``allocate`` make zero
  arrays, ``serial``/``parallel``/``vectorize``/``reduce`` are ``range``, ``sqrt``/``exp``/... are
  NumPy's functions.  No Numba needed, and slow.
* With ``func_type="hybrid"`` MindSpore compiles it with AKG; minims compiles it with Numba:
  :func:`compiled` reads the kernel's source, rewrites the intrinsics into what Numba's ``njit``
  knows (``output_tensor(s, d)`` becomes ``np.zeros(s, d)``, the loop kinds ``range``, a ``with
  block_realize(c):`` its body), and compiles it on the first call.  Numba is imported only then.
  ``grid`` (an iterator over index tuples) has no Numba form and is refused.
"""
from __future__ import annotations

import ast
import functools
import inspect
import itertools
import math
import textwrap

import numpy as np

from ..core.stack import MinimsError

__all__ = ["kernel", "compiled", "INTRINSICS", "HybridSyntaxError"]


class HybridSyntaxError(MinimsError, ValueError):
    """A kernel uses something of the Hybrid DSL that the Numba compilation cannot express."""


def _allocate(shape, dtype="float32", scope="global"):
    del scope
    return np.zeros(shape, dtype)


def _grid(extents):
    return itertools.product(*(range(e) for e in extents))


class _Scope:
    """``attr(...)`` and ``block_realize(...)``: scopes that only mark code for MindSpore's compiler."""

    def __call__(self, *args, **kwargs):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _rsqrt(x):
    return 1.0 / np.sqrt(x)


def _ceil_div(a, b):
    return (a + b - 1) // b


_LOOPS = ("range", "serial", "vectorize", "parallel", "reduce")
_BUFFERS = ("output_tensor", "allocate")
_SCOPES = ("attr", "block_realize")

#: The intrinsics of the Hybrid DSL that are functions of numbers, as NumPy (and Numba) functions.
_MATH = {
    "sqrt": np.sqrt, "sign": np.sign, "log": np.log, "tanh": np.tanh, "exp": np.exp, "abs": np.abs,
    "int32": np.int32, "float16": np.float16, "float32": np.float32, "power": np.power,
    "rsqrt": _rsqrt, "erf": math.erf, "isnan": np.isnan, "int8": np.int8, "int16": np.int16,
    "int64": np.int64, "float64": np.float64, "sin": np.sin, "cos": np.cos, "isinf": np.isinf,
    "isfinite": np.isfinite, "atan": np.arctan, "atan2": np.arctan2, "expm1": np.expm1, "floor": np.floor,
    "ceil": np.ceil, "trunc": np.trunc, "round": np.round, "ceil_div": _ceil_div,
}

#: Every intrinsic as the Python run binds it.
INTRINSICS = {**_MATH, **{n: range for n in _LOOPS[1:]}, "grid": _grid, "output_tensor": _allocate,
              "allocate": _allocate, "attr": _Scope(), "block_realize": _Scope()}


def kernel(fn=None, reg_info=None, compile_attrs=None):
    """``ops.kernel``: mark ``fn`` as a Hybrid DSL kernel (usable as ``@kernel`` or ``@kernel(...)``).
    The result runs ``fn`` as Python with the intrinsics bound (``reg_info`` and ``compile_attrs``,
    which steer MindSpore's compilers, are kept on the function and otherwise unused)."""
    if compile_attrs is not None and not isinstance(compile_attrs, dict):
        raise TypeError(f"kernel: 'compile_attrs' must be a dict, but got {type(compile_attrs).__name__}.")

    def wrap(func):
        @functools.wraps(func)
        def run_as_python(*args):
            with_intrinsics = _with_globals(func, INTRINSICS)
            return with_intrinsics(*args)
        run_as_python.ms_kernel_flag = True
        run_as_python.compile_attrs = dict(compile_attrs or {})
        if reg_info is not None:
            run_as_python.reg_info = reg_info
        return run_as_python
    return wrap(fn) if fn is not None else wrap


def _with_globals(func, names):
    """``func`` with ``names`` added to the globals it sees (its module is left as it is)."""
    glob = dict(func.__globals__)
    glob.update(names)
    return type(func)(func.__code__, glob, func.__name__, func.__defaults__, func.__closure__)


# ----- compiling with Numba -------------------------------------------------------------------------------
class _ToNumba(ast.NodeTransformer):
    """Rewrites the Hybrid DSL's intrinsics into code ``numba.njit`` compiles."""

    def __init__(self, name):
        self.name = name

    def visit_With(self, node):
        if all(isinstance(i.context_expr, ast.Call) and getattr(i.context_expr.func, "id", None) in _SCOPES
               for i in node.items):
            return [self.visit(s) for s in node.body]       # the scope only marks code: keep its body
        return self.generic_visit(node)

    def visit_Call(self, node):
        self.generic_visit(node)
        fn = getattr(node.func, "id", None)
        if fn in _LOOPS:
            node.func = ast.Name("range", ast.Load())
        elif fn == "grid":
            raise HybridSyntaxError(
                f"kernel {self.name}: grid(...) has no Numba form. Fix: write one range loop per axis, or "
                "use func_type='pyfunc' (the kernel then runs as plain Python).")
        elif fn in _BUFFERS:
            shape = node.args[0]
            dtype = node.args[1] if len(node.args) > 1 else ast.Constant("float32")
            if isinstance(dtype, ast.Constant) and isinstance(dtype.value, str):
                dtype = ast.Attribute(ast.Name("np", ast.Load()), dtype.value, ast.Load())
            return ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "zeros", ast.Load()), [shape, dtype], [])
        return node


def _numba_source(func):
    """The kernel's function definition, rewritten for Numba (decorators removed)."""
    inner = inspect.unwrap(func)
    tree = ast.parse(textwrap.dedent(inspect.getsource(inner)))
    fdef = next(n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
    fdef.decorator_list = []
    module = ast.Module([_ToNumba(inner.__name__).visit(fdef)], type_ignores=[])
    return ast.fix_missing_locations(module), inner


def compiled(func):
    """``func`` (an ``@kernel`` function) compiled by Numba on its first call; raises
    :class:`HybridSyntaxError` at once for what has no Numba form."""
    module, inner = _numba_source(func)
    state = {}

    def run(*args):
        if "fn" not in state:
            import numba        # only here: importing minims never imports Numba
            namespace = dict(inner.__globals__)
            namespace.update(_MATH, np=np, math=math, range=range)
            namespace.update({k: numba.njit(v) for k, v in (("_rsqrt", _rsqrt), ("_ceil_div", _ceil_div))})
            namespace.update(rsqrt=namespace["_rsqrt"], ceil_div=namespace["_ceil_div"])
            exec(compile(module, f"<kernel {inner.__name__}>", "exec"), namespace)   # noqa: S102 - the user's own kernel
            state["fn"] = numba.njit(namespace[inner.__name__])
        return state["fn"](*args)
    run.__name__ = inner.__name__
    return run
