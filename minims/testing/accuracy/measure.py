"""The measurement: every rule of every measured primitive, on every domain, in float64 and float32.

For one primitive, domain and format the points are sampled once (``domains.sample``); the reference
of each derivative is evaluated once (``reference``); then each rule kind runs on the whole array of
points (``rules.run``) and its result is compared point by point.  One :class:`Row` comes out per
(primitive, domain, format, rule kind, derivative): the maximum and median ULP error over the points
whose true value is a normal number, and apart from them the points whose true value is zero,
subnormal, beyond the range or undefined, with how the rule did there.

The paths (``Row.path``), each held to the same bounds:

* ``"numpy"`` — PyNative with the fast path off: the NumPy ``impl`` and rules;
* ``"numba"`` — PyNative with the fast path on, for a primitive with a Numba kernel (``fast_kernel``);
* ``"fused"`` — what Graph mode with the fast path runs: the rule compiled by ``jit``, each
  elementwise equation of its graph in a fused Numba kernel (``rules.run_fused``), for a primitive
  that fusion compiles (``graph.fuse.ELEMENTWISE``); where nothing of the rule's graph fuses (a
  primitive fusion leaves to its NumPy kernel in that format) the row is marked ``rules.NOT_FUSED``.

``measure`` takes the first two by default (:data:`DEFAULT_PATHS`); the table in the README is
measured on all three (:data:`PATHS`), which compiles a few hundred kernels the first time (Numba
keeps them on disk).
"""
from __future__ import annotations

import itertools
import warnings
from dataclasses import asdict, dataclass, field

import numpy as np
import sympy

from ... import context, fast
from ...core.tensor import Tensor
from ...graph.fuse import ELEMENTWISE
from ...core.primitive import NoGradientRule, NoJvpRule
from ...primitives.table import table
from . import reference as ref
from .bounds import bound_for, condition_for
from .domains import MEASURED, Fixed, sample
from .rules import NOT_FUSED, ORDER, RULE_KINDS, run, run_fused
from .ulp import FORMATS, subnormal_errors, ulp_errors

__all__ = ["Row", "measure", "FORMAT_NAMES", "DEFAULT_POINTS", "PATHS", "DEFAULT_PATHS"]

FORMAT_NAMES = ("float64", "float32")
DEFAULT_POINTS = 2000
PATHS = ("numpy", "numba", "fused")
DEFAULT_PATHS = ("numpy", "numba")


@dataclass
class Row:
    """The accuracy of one rule on one domain in one format."""

    primitive: str
    domain: str
    where: str                   # the domain, spelled out for this format
    format: str
    rule: str                    # a rule kind (rules.RULE_KINDS)
    wrt: str                     # the derivative: "" (the value), "x", "xy" (d/dy of d/dx), ...
    path: str                    # "numpy", "numba" (fast path on) or "fused" (jit, fused kernels)
    bound: float                 # the documented bound, in ULP (times kappa for a conditioned row)
    points: int
    normal: int = 0              # points whose true value is a normal number of the format
    max_ulp: float = 0.0
    median_ulp: float = 0.0
    conditioned: str = ""        # the condition number the bound is scaled by ("": none)
    max_scaled: float = 0.0      # the largest error divided by that condition number (= max_ulp without one)
    worst_at: list = field(default_factory=list)     # the inputs of the largest error
    zero: int = 0                # true value exactly 0 ...
    zero_wrong: int = 0          # ... and the rule gave something else
    subnormal: int = 0           # true value below the normal range ...
    subnormal_max: float = 0.0   # ... and the largest error in units of the smallest subnormal
    overflow: int = 0            # true value beyond the largest finite number ...
    overflow_finite: int = 0     # ... and the rule gave a finite number
    undefined: int = 0           # no real true value (a kink, outside the formula's domain)
    missing: str = ""            # the rule does not exist (why), and nothing was measured

    @property
    def ok(self) -> bool:
        return bool(self.missing) or self.max_scaled <= self.bound

    def as_dict(self) -> dict:
        return asdict(self)


def _derivatives(n_vary: int, order: int):
    """Derivative multi-indices of one order: (), (0,), (1,), (0, 0), (0, 1), (1, 0), (1, 1) ..."""
    return list(itertools.product(range(n_vary), repeat=order))


def _rules_of(name: str):
    row = table().row(name)
    kinds = ["impl"]
    if row.bprop:
        kinds += ["bprop", "bprop∘bprop"]
    if row.jvp:
        kinds += ["jvp", "jvp∘jvp"]
    return [k for k in RULE_KINDS if k in kinds], row


def _compare(row: Row, computed, truth, fmt_name: str, inputs):
    fmt = FORMATS[fmt_name]
    computed = np.broadcast_to(np.asarray(computed, dtype=np.float64), truth.hi.shape)
    classes = truth.classes(fmt)
    normal = classes == "normal"
    row.normal = int(normal.sum())
    if row.normal:
        err = ulp_errors(computed[normal], truth.hi[normal], truth.lo[normal], fmt)
        worst = int(np.argmax(err))
        row.max_ulp = float(err[worst])
        row.median_ulp = float(np.median(err))
        row.worst_at = [float(np.asarray(v)[normal][worst]) if not isinstance(v, float) else v for v in inputs]
        row.max_scaled = row.max_ulp
        condition = condition_for(row.primitive, row.wrt)
        if condition is not None:
            kappa = condition.kappa(*(np.broadcast_to(np.asarray(v, np.float64), normal.shape)[normal] for v in inputs))
            row.conditioned = condition.formula
            row.max_scaled = float(np.max(err / kappa))
    zero = classes == "zero"
    row.zero, row.zero_wrong = int(zero.sum()), int((computed[zero] != 0).sum())
    sub = classes == "subnormal"
    row.subnormal = int(sub.sum())
    if row.subnormal:
        row.subnormal_max = float(subnormal_errors(computed[sub], truth.hi[sub], truth.lo[sub], fmt).max())
    over = classes == "overflow"
    row.overflow = int(over.sum())
    row.overflow_finite = int(np.isfinite(computed[over]).sum())
    row.undefined = int((classes == "undefined").sum())


def measure(names=None, points: int = DEFAULT_POINTS, formats=FORMAT_NAMES, progress=None,
            paths=DEFAULT_PATHS) -> list[Row]:
    """Measure the primitives ``names`` (default: all of ``domains.MEASURED``) on ``points`` points
    per domain and format, on the ``paths`` that apply to each (module docstring).
    ``progress(name)`` is called before each primitive."""
    rows = []
    for name in names or MEASURED:
        if progress:
            progress(name)
        rows += _measure_primitive(name, points, formats, paths)
    return rows


def _paths_of(name, table_row, wanted) -> list:
    paths = ["numpy"]
    if table_row.numba:
        paths.append("numba")
    if name in ELEMENTWISE and fast.numba_available():
        paths.append("fused")
    return [p for p in paths if p in wanted]


def _measure_primitive(name, points, formats, wanted):
    entry = MEASURED[name]
    kinds, table_row = _rules_of(name)
    paths = _paths_of(name, table_row, wanted)
    rows = []
    for domain, fmt_name in itertools.product(entry.domains, formats):
        inputs = sample(name, domain, fmt_name, points)
        vary = tuple(k for k, v in enumerate(inputs) if not isinstance(v, float))
        symbols = [sympy.Symbol(f"a{k}", real=True) for k in range(len(inputs))]
        sym_args = [inputs[k] if k not in vary else symbols[k] for k in range(len(inputs))]
        expr = ref.formula(entry.make(), sym_args)
        vary_symbols = [symbols[k] for k in vary]
        vary_points = [inputs[k] for k in vary]
        truths = {}

        def truth(wrt):
            key = tuple(sorted(wrt))                     # mixed partials agree (smooth functions)
            if key not in truths:
                expression = ref.derivative(expr, tuple(vary_symbols), key)
                truths[key] = ref.evaluate(ref.Reference(expression, vary_symbols), vary_points)
            return truths[key]

        args = [Tensor(v) if not isinstance(v, float) else v for v in inputs]
        where = domain.describe(entry.inputs, fmt_name)
        for path, kind in itertools.product(paths, kinds):
            for wrt in _derivatives(len(vary), ORDER[kind]):
                names = [entry.inputs[vary[i]] for i in wrt]        # "xy"; "x,dout" for longer names
                label = ("," if any(len(n) > 1 for n in names) else "").join(names)
                row = Row(name, domain.name, where, fmt_name, kind, label, path, bound_for(name, label), points)
                try:
                    computed = _run(kind, entry.make(), args, vary, wrt, path)
                except (NoGradientRule, NoJvpRule) as exc:
                    row.missing = str(exc).split(" (bprop)")[0].split(" (jvp)")[0]
                    rows.append(row)
                    continue
                if computed is None:                    # nothing fused: the "numpy" row says it
                    row.missing = NOT_FUSED
                else:
                    _compare(row, computed, truth(wrt), fmt_name, inputs)
                rows.append(row)
    return rows


def _run(kind, prim, args, vary, wrt, path):
    saved = context.get_context("fast_path")
    try:
        context.set_context(fast_path=path != "numpy")
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)   # overflow at the edges is measured, not warned
            return (run_fused if path == "fused" else run)(kind, prim, args, vary, wrt)
    finally:
        context.set_context(fast_path=saved)
