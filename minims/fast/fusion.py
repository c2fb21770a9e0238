"""Code generation for fused elementwise kernels: one Numba loop per chain of primitives.

The graph pass (``minims.graph.fuse``) finds the chains and describes each as a :class:`KernelSpec`:
its iteration shape, its inputs (arrays that broadcast against that shape, and Python numbers), its
steps (a primitive applied to inputs and earlier steps, with the step's dtype) and its outputs (a
step stored into an array, or summed / averaged over some axes).  This module turns the spec into
Python source, compiles it with Numba and returns a function of the inputs.

Where the arithmetic comes from
-------------------------------
Not from a second table: each step's scalar code is the primitive's own ``sympy`` rule applied to
fresh symbols (``opnd0``, ``opnd1``, ...) and printed by a small SymPy printer as Numba-compatible
Python (``math.sin``, ``a if c else b``).  A new elementwise primitive with a ``sympy`` rule is
fusible without touching this file.  Where SymPy's exact-arithmetic form and IEEE floats part ways
the printer chooses the float behaviour NumPy has: ``Max``/``Min`` propagate NaN as ``np.maximum``
does (Python's ``max`` does not), ``sign`` of NaN is NaN and of -0.0 is +0.0, ``floor`` stays a
float.  What SymPy cannot say at all — which operand a tie of ``np.maximum`` returns (SymPy sorts
``Max``'s arguments), ``np.clip`` keeping -0.0, a kernel computed in float64 and rounded once — a
primitive says in its ``fused_sympy`` form with the functions of ``minims.fast.scalar_forms``,
printed as the helpers below.  So every exactly rounded operation (+, -, *, /, sqrt, max, min,
select, casts, ...) gives the NumPy path's bits, signed zeros, subnormals, infinities and NaN
included.  Each step's result is cast to its dtype (``f32(...)``), so a
float32 chain rounds after every primitive, as the NumPy path does; Python numbers are passed in the
dtype of the step that reads them (NumPy's "weak" scalars), so ``x * 0.01`` in float32 is the same
single-precision product.  Transcendental functions come from the C library instead of NumPy's own
loops, and sums accumulate in float64 in order rather than pairwise: there results agree with the NumPy
path to float32 rounding, not bit for bit (the same NaN, infinities and zeros).  ``error_model="numpy"``:
x / 0 is inf or NaN, never an exception.

Broadcasting and loops
----------------------
Shapes are static in a graph, so broadcasting is resolved while generating: axes of size 1 are
dropped, neighbouring axes that every operand treats alike (all present, or all broadcast) are merged
into one, and an operand is indexed ``a3[i0, 0]`` along an axis it broadcasts.  Most chains become
a single flat loop.  A reduction accumulates in float64: a scalar for a full reduction, an array
with the reduced axes of length 1 otherwise.

Caches
------
The source encodes everything that matters — the steps, their dtypes, the broadcasting pattern, the
reductions — and nothing that does not (sizes and constants are arguments), so it is the cache key.
In memory, one compiled kernel per source (:data:`_KERNELS`).  Across processes, Numba's
``cache=True`` needs the function to live in a real file: the source is written once to
``<cache dir>/fused_<sha1 of source>.py`` and imported; Numba keeps the machine code beside it in
``__pycache__`` and a later process loads it instead of compiling.  The cache directory is
``$MINIMS_FUSION_CACHE`` if set, else ``minims/fast/__pycache__/fused`` (ignored by git, like the
other kernels' cache), else the user's cache directory.  Numba is imported only when a kernel is
first compiled.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
import tempfile
import threading
from dataclasses import dataclass

import numpy as np
import sympy
from sympy.printing.pycode import PythonCodePrinter

from .scalar_forms import FORMS

__all__ = ["KernelSpec", "InputSpec", "StepSpec", "OutputSpec", "Unfusable", "scalar_template", "source_of",
           "compile_kernel", "cache_dir", "kernel_stats"]

FLOATS = ("float32", "float64")
BLOCK_LIMIT = 4096          # loops up to this many elements store their outputs in one block per dtype


class Unfusable(Exception):
    """This primitive (or this configuration) has no scalar form the printer can write."""


# ===== the spec ======================================================================================
@dataclass(frozen=True)
class InputSpec:
    kind: str               # "array" (broadcasts against the iteration shape) or "scalar" (a number)
    shape: tuple            # static shape of an array input; () for a scalar
    dtype: str              # a scalar is passed in this dtype (that of the step that reads it)


@dataclass(frozen=True)
class StepSpec:
    template: str           # scalar code with operands opnd0, opnd1, ... (see scalar_template)
    operands: tuple         # ("in", k) or ("step", j), one per opnd<i>
    dtype: str              # the step's result dtype: float32 or float64


@dataclass(frozen=True)
class OutputSpec:
    kind: str               # "store", "sum" or "mean"
    step: int
    axes: tuple = ()        # reduced axes of the iteration shape ("sum"/"mean")
    shape: tuple = ()       # the output's static shape
    dtype: str = "float32"


@dataclass(frozen=True)
class KernelSpec:
    shape: tuple            # the iteration shape: every step has it (its operands broadcast to it)
    inputs: tuple
    steps: tuple
    outputs: tuple


# ===== scalar forms from the SymPy rules ==============================================================
class _Printer(PythonCodePrinter):
    """SymPy's Python printer, with IEEE float behaviour where SymPy thinks in exact numbers."""

    def __init__(self):
        super().__init__({"fully_qualified_modules": True, "strict": True})

    def _fold(self, name, args):
        out = self._print(args[0])
        for a in args[1:]:
            out = f"{name}({out}, {self._print(a)})"
        return out

    def _print_Max(self, expr):
        return self._fold("np_maximum", expr.args)

    def _print_Min(self, expr):
        return self._fold("np_minimum", expr.args)

    def _print_sign(self, expr):
        return f"np_sign({self._print(expr.args[0])})"

    def _print_sech(self, expr):
        return f"_sech({self._print(expr.args[0])})"

    def _print_floor(self, expr):
        return f"np.floor({self._print(expr.args[0])})"

    def _print_ceiling(self, expr):
        return f"np.ceil({self._print(expr.args[0])})"

    def _print_Function(self, expr):
        name = expr.func.__name__
        if name in FORMS:                   # minims.fast.scalar_forms: a helper below (or f64)
            return f"{name}({', '.join(self._print(a) for a in expr.args)})"
        return super()._print_Function(expr)


# Each helper does what the NumPy kernel named in minims.fast.scalar_forms does, on every float.
_HELPERS = {
    "np_maximum": "def np_maximum(a, b):\n    return a if (a > b or a != a) else b\n",   # NaN wins; a tie: b
    "np_minimum": "def np_minimum(a, b):\n    return a if (a < b or a != a) else b\n",
    "np_clip": ("def np_clip(a, lo, hi):\n    if a < lo:\n        return lo\n    if a > hi:\n        return hi\n"
                "    return a\n"),                                          # NaN and -0.0 stay
    "np_sign": ("def np_sign(a):\n    if a > 0:\n        return 1.0\n    if a < 0:\n        return -1.0\n"
                "    if a == 0:\n        return 0.0\n    return a\n"),          # +0.0 for both zeros; NaN stays
    # in float64 whatever the operand: cosh overflows to inf (sech 0) without a warning in Numba
    "_sech": "def _sech(a):\n    return 1.0 / math.cosh(np.float64(a))\n",
    "logistic": ("def logistic(a):\n    x = np.float64(a)\n    e = math.exp(-abs(x))\n"
                 "    return 1.0 / (1.0 + e) if x >= 0 else e / (1.0 + e)\n"),     # accurate.logistic
    "sech2_narrow": ("def sech2_narrow(a, scale):\n    m = abs(np.float64(a))\n"
                     "    m = m if (m < 700.0 or m != m) else 700.0\n"
                     "    s = 1.0 / math.cosh(m if scale == 1.0 else m * scale)\n"
                     "    return s * s\n"),                          # accurate.sech_squared_for_narrow
}
_OPERAND = re.compile(r"\bopnd(\d+)\b")
_templates: dict = {}


def scalar_template(prim, operands: tuple, dtype: str = "float64") -> str:
    """The scalar code of ``prim`` from its ``sympy`` rule (or its ``fused_sympy`` form for a result
    of ``dtype``, where it has one): data operands are ``opnd<i>``.

    ``operands`` has one entry per input of the equation: None for a data operand (a tensor or a
    number), the value itself for a static one (a dtype, a shape).  A shape is replaced by ``()``:
    the loop's indexing does the broadcasting, the scalar form of ``BroadcastTo`` is its input.
    Raises :class:`Unfusable` when there is no rule or the printer cannot write it.
    """
    key = (type(prim), tuple(sorted((k, repr(v)) for k, v in vars(prim).items())),
           tuple(None if o is None else repr(o) for o in operands), dtype)
    cached = _templates.get(key)
    if cached is None:
        cached = _templates[key] = _derive(prim, operands, dtype)
    if isinstance(cached, Unfusable):
        raise cached
    return cached


def _derive(prim, operands, dtype):
    args = []
    for i, o in enumerate(operands):
        if o is None:
            args.append(np.array(sympy.Symbol(f"opnd{i}"), dtype=object))
        else:
            args.append(() if isinstance(o, tuple) else o)
    try:
        if prim.fused_sympy is None:
            expr = prim.sympy(*args)
        else:
            expr = prim.fused_sympy(dtype, *args)
            if expr is None:
                return Unfusable(f"{prim.name}: not fused in {dtype} (its NumPy kernel is more accurate)")
        expr = np.asarray(expr, dtype=object)
        if expr.shape != ():
            return Unfusable(f"{prim.name}: its SymPy rule is not elementwise")
        code = _Printer().doprint(expr[()])
    except Exception as exc:                 # no rule, or a function the printer does not know
        return Unfusable(f"{prim.name}: {type(exc).__name__}: {exc}")
    return code


# ===== source generation ==============================================================================
def _collapse(spec: KernelSpec):
    """The loop shape after dropping size-1 axes and merging axes every operand treats alike, and per
    array input / reduction the flags "present along this loop axis"."""
    shape = spec.shape
    rank = len(shape)

    def flags_of(sub_shape):
        padded = (1,) * (rank - len(sub_shape)) + tuple(sub_shape)
        return [p == s for p, s in zip(padded, shape)]
    patterns = [flags_of(i.shape) for i in spec.inputs if i.kind == "array"]
    patterns += [[d not in o.axes for d in range(rank)] for o in spec.outputs if o.kind != "store"]
    axes = [d for d in range(rank) if shape[d] != 1]
    groups = []                 # lists of original axes merged into one loop axis
    for d in axes:
        if groups and all(p[d] == p[groups[-1][-1]] for p in patterns):
            groups[-1].append(d)
        else:
            groups.append([d])
    loop = tuple(int(np.prod([shape[d] for d in g])) for g in groups) or (1,)
    groups = groups or [[]]

    def collapsed(pattern):
        return tuple(bool(pattern[g[0]]) if g else False for g in groups)
    return loop, groups, collapsed


def _index(flags) -> str:
    return ", ".join(f"i{d}" if f else "0" for d, f in enumerate(flags))


def source_of(spec: KernelSpec) -> tuple[str, dict]:
    """``(source, layout)``: the kernel's module source, and how the wrapper shapes its arguments
    (``layout["arguments"]``: how many arrays and numbers the kernel takes)."""
    loop, groups, collapsed = _collapse(spec)
    rank = len(loop)
    full = tuple(True for _ in loop)
    arrays = [k for k, i in enumerate(spec.inputs) if i.kind == "array"]
    in_flags = {}
    for k in arrays:
        shape, padded = spec.inputs[k].shape, None
        padded = (1,) * (len(spec.shape) - len(shape)) + tuple(shape)
        in_flags[k] = collapsed([p == s for p, s in zip(padded, spec.shape)])
    out_flags = {m: collapsed([d not in o.axes for d in range(len(spec.shape))])
                 for m, o in enumerate(spec.outputs) if o.kind != "store"}

    def operand(ref):
        kind, k = ref
        if kind == "step":
            return f"t{k}"
        return f"x{k}" if spec.inputs[k].kind == "array" else f"s{k}"

    params = [f"n{d}" for d in range(rank)]
    # Small loops store into one block per dtype (a row per output): one allocation and one
    # argument instead of one per output — for a gradient's forward graph with 80 residuals of 4
    # floats that per-output cost was most of the call.  Large outputs get arrays of their own, so
    # that a returned value does not keep the other outputs' memory alive.
    stores = [m for m, o in enumerate(spec.outputs) if o.kind == "store"]
    blocks = {}                         # output -> (block name, row)
    if int(np.prod(loop)) <= BLOCK_LIMIT and len(stores) > 1:
        for m in stores:
            name = f"b{spec.outputs[m].dtype}"
            blocks[m] = (name, sum(1 for b, _ in blocks.values() if b == name))
    block_names = sorted({b for b, _ in blocks.values()})
    params += block_names
    params += [f"o{m}" for m in stores if m not in blocks]
    params += [f"p{m}" for m, o in enumerate(spec.outputs) if o.kind != "store" and not all(
        not f for f in out_flags[m])]
    params += [f"a{k}" if i.kind == "array" else f"s{k}" for k, i in enumerate(spec.inputs)]
    scalar_sums = [m for m, o in enumerate(spec.outputs) if o.kind != "store" and not any(out_flags[m])]

    body = []
    indent = "    "
    for m in scalar_sums:
        body.append(f"{indent}r{m} = 0.0")
    for d in range(rank):
        body.append(f"{indent}for i{d} in range(n{d}):")
        indent += "    "
    for k in arrays:
        body.append(f"{indent}x{k} = a{k}[{_index(in_flags[k])}]")
    used = set()
    for j, step in enumerate(spec.steps):
        code = _OPERAND.sub(lambda mt: operand(step.operands[int(mt.group(1))]), step.template)
        used.update(h for h in _HELPERS if h + "(" in code)
        body.append(f"{indent}t{j} = {'f32' if step.dtype == 'float32' else 'f64'}({code})")
    for m, o in enumerate(spec.outputs):
        if m in blocks:
            body.append(f"{indent}{blocks[m][0]}[{blocks[m][1]}, {_index(full)}] = t{o.step}")
        elif o.kind == "store":
            body.append(f"{indent}o{m}[{_index(full)}] = t{o.step}")
        elif m in scalar_sums:
            body.append(f"{indent}r{m} += t{o.step}")
        else:
            body.append(f"{indent}p{m}[{_index(out_flags[m])}] += t{o.step}")
    ret = ", ".join(f"r{m}" for m in scalar_sums)
    body.append(f"    return ({ret}{',' if scalar_sums else ''})" if scalar_sums else "    return 0")

    lines = ["# generated by minims.fast.fusion: one loop over a fused chain of elementwise primitives",
             "import math", "import numpy as np", "from numba import njit", "",
             "f32 = np.float32", "f64 = np.float64", ""]
    for h in sorted(used):
        lines += ["@njit(inline='always')", _HELPERS[h]]
    lines += ["@njit(cache=True, nogil=True, error_model='numpy')", f"def kernel({', '.join(params)}):"]
    source = "\n".join(lines + body) + "\n"
    layout = dict(loop=loop, in_flags=in_flags, out_flags=out_flags, scalar_sums=scalar_sums, groups=groups,
                  blocks=blocks, block_names=block_names, arguments=len(params) - rank)   # not the loop sizes
    return source, layout


# ===== the Python wrapper around a kernel ============================================================
def _wrapper_source(spec: KernelSpec, layout) -> str:
    """A function of the inputs that allocates outputs, reshapes arrays to the loop's rank, calls the
    kernel and shapes the results back (generated, so a call does no looping over the spec)."""
    loop = layout["loop"]
    lines = [f"def run({', '.join(f'v{k}' for k in range(len(spec.inputs)))}):"]
    args = [str(n) for n in loop]
    blocks = layout["blocks"]
    for name in layout["block_names"]:
        rows = sum(1 for b, _ in blocks.values() if b == name)
        lines.append(f"    {name} = empty({(rows,) + tuple(loop)!r}, {name[1:]})")
        args.append(name)
    for m, o in enumerate(spec.outputs):
        if o.kind == "store" and m not in blocks:
            lines.append(f"    o{m} = empty({loop!r}, {o.dtype})")
            args.append(f"o{m}")
    for m, o in enumerate(spec.outputs):
        if o.kind != "store" and m not in layout["scalar_sums"]:
            shape = tuple(n if f else 1 for n, f in zip(loop, layout["out_flags"][m]))
            lines.append(f"    p{m} = zeros({shape!r}, float64)")
            args.append(f"p{m}")
    for k, i in enumerate(spec.inputs):
        if i.kind == "scalar":
            args.append(f"{i.dtype}(v{k})")
            continue
        target = tuple(n if f else 1 for n, f in zip(loop, layout["in_flags"][k]))
        args.append(f"v{k}" if tuple(i.shape) == target else f"reshape(v{k}, {target!r})")
    lines.append(f"    r = kernel({', '.join(args)})")
    for name in layout["block_names"]:
        lines.append(f"    rows_{name} = tuple({name})")
    results = []
    for m, o in enumerate(spec.outputs):
        if o.kind == "store":
            value = f"rows_{blocks[m][0]}[{blocks[m][1]}]" if m in blocks else f"o{m}"
            results.append(value if tuple(o.shape) == loop else f"{value}.reshape({tuple(o.shape)!r})")
            continue
        value = f"r[{layout['scalar_sums'].index(m)}]" if m in layout["scalar_sums"] else f"p{m}"
        if o.kind == "mean":
            count = int(np.prod([spec.shape[d] for d in o.axes])) if o.axes else 1
            value = f"{value} / {count}" if count else f"({value} * nan)"
        results.append(f"asarray({value}, {o.dtype}).reshape({tuple(o.shape)!r})")
    lines.append(f"    return ({', '.join(results)},)")
    return "\n".join(lines) + "\n"


# ===== compiling, with the two caches ==================================================================
_KERNELS: dict = {}             # source -> compiled Numba dispatcher (this process)
_lock = threading.Lock()


def cache_dir() -> str:
    """Where generated sources (and Numba's machine code beside them) are kept; see the docstring."""
    chosen = os.environ.get("MINIMS_FUSION_CACHE")
    candidates = [chosen] if chosen else [
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__", "fused"),
        os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
                     "minims", "fused"),
        os.path.join(tempfile.gettempdir(), "minims-fused")]
    for path in candidates:
        try:
            os.makedirs(path, exist_ok=True)
            if os.access(path, os.W_OK):
                return path
        except OSError:
            continue
    raise OSError(f"minims.fast.fusion: no writable cache directory among {candidates}")


def _load(source: str):
    """The compiled kernel of ``source``: from memory, else imported from its file in the cache dir
    (written once; Numba's own cache beside it holds the machine code)."""
    kernel = _KERNELS.get(source)
    if kernel is not None:
        return kernel
    with _lock:
        kernel = _KERNELS.get(source)
        if kernel is not None:
            return kernel
        digest = hashlib.sha1(source.encode()).hexdigest()[:20]
        folder = cache_dir()
        path = os.path.join(folder, f"fused_{digest}.py")
        if not os.path.exists(path):
            # written once, atomically: rewriting would change the file's time stamp, which
            # Numba's cache index checks, and throw away the machine code compiled for it
            fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                f.write(source)
            try:
                os.link(tmp, path)           # fails if another process wrote it first: keep theirs
            except FileExistsError:
                pass
            except OSError:
                os.replace(tmp, path)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        name = f"_minims_fused_{digest}"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        kernel = _KERNELS[source] = module.kernel
        return kernel


def compile_kernel(spec: KernelSpec):
    """A function ``run(*inputs) -> tuple of outputs`` for ``spec`` (compiled on its first call)."""
    source, layout = source_of(spec)
    kernel = _load(source)
    namespace = {"kernel": kernel, "empty": np.empty, "zeros": np.zeros, "reshape": np.reshape,
                 "asarray": np.asarray, "float32": np.float32, "float64": np.float64, "nan": np.nan}
    exec(compile(_wrapper_source(spec, layout), "<fused kernel wrapper>", "exec"), namespace)  # noqa: S102
    run = namespace.pop("run")          # not left in its own globals: no reference cycle to collect
    run.source = source
    run.kernel = kernel
    return run


def kernel_stats() -> dict:
    """For each kernel compiled or loaded in this process: Numba's disk-cache hits and misses."""
    out = {}
    for source, kernel in _KERNELS.items():
        s = kernel.stats
        out[hashlib.sha1(source.encode()).hexdigest()[:20]] = {"hits": sum(s.cache_hits.values()),
                                                              "misses": sum(s.cache_misses.values())}
    return out
