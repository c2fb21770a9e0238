"""Where the accuracy harness samples each elementwise primitive: its documented domains.

Each measured primitive has a few named domains.  ``core`` is where a textbook example lives; the
others go where rules break: saturation (tanh, sigmoid), values next to a zero of the function (sin
near k pi, log near 1), poles and every magnitude the format holds (reciprocal, sqrt, log), and the
edges of the range, where the result itself under- or overflows (exp).  A domain may differ
between float64 and float32 (the range of ``exp`` does), so each input's sampling rule can be given
per format.

Points are drawn by a generator seeded from the primitive, domain and format names, so every run
samples the same points; they are rounded to the format first, and the reference is evaluated at
the rounded value.

``NOT_MEASURED`` names the elementwise primitives the harness leaves out, and why: they compute no
rounded arithmetic (a copy, a selection, a comparison).
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ... import ops
from ...primitives import activation as A
from ...primitives import input_grads as G
from ...primitives import math as M

__all__ = ["Interval", "Near", "Fixed", "PerFormat", "Domain", "Entry", "MEASURED", "NOT_MEASURED",
           "sample"]


@dataclass(frozen=True)
class Interval:
    """Values from ``[lo, hi]``: uniform (``scale="linear"``), or with a log-uniform magnitude in
    ``[lo, hi]`` (``scale="log"``, ``0 < lo``) and the sign(s) ``signs`` ("+", "-" or "±")."""

    lo: float
    hi: float
    scale: str = "linear"
    signs: str = "+"

    def draw(self, rng, n):
        if self.scale == "linear":
            return rng.uniform(self.lo, self.hi, n)
        magnitude = np.exp(rng.uniform(math.log(self.lo), math.log(self.hi), n))
        return magnitude * _signs(rng, self.signs, n)

    def describe(self) -> str:
        if self.scale == "linear":
            return f"[{_g(self.lo)}, {_g(self.hi)}]"
        where = f"{_g(self.lo)} ≤ |·| ≤ {_g(self.hi)}, log-uniform"
        return where if self.signs == "±" else f"{where}, {'positive' if self.signs == '+' else 'negative'}"


@dataclass(frozen=True)
class Near:
    """Values ``k * step + offset + d`` for a whole ``k`` in ``[-kmax, kmax]`` and ``|d|`` log-uniform in
    ``[lo, hi]`` (either sign): next to the zeros of sin (``step=pi``) or cos, or next to 1 for log."""

    step: float
    offset: float
    kmax: int
    lo: float
    hi: float

    def draw(self, rng, n):
        k = rng.integers(-self.kmax, self.kmax + 1, n)
        d = np.exp(rng.uniform(math.log(self.lo), math.log(self.hi), n)) * _signs(rng, "±", n)
        return k * self.step + self.offset + d

    def describe(self) -> str:
        centre = (f"{_g(self.offset)}" if self.kmax == 0 else
                  f"k·π{' + π/2' if self.offset else ''}, |k| ≤ {self.kmax}")
        return f"{centre} ± d, {_g(self.lo)} ≤ d ≤ {_g(self.hi)}"


@dataclass(frozen=True)
class Fixed:
    """An input held at one Python number (``x ** 3``): not sampled and not differentiated."""

    value: float

    def describe(self) -> str:
        return f"= {_g(self.value)}"


@dataclass(frozen=True)
class PerFormat:
    """A sampling rule that differs between the formats."""

    float64: object
    float32: object


def _signs(rng, signs, n):
    if signs == "±":
        return rng.choice([-1.0, 1.0], n)
    return np.full(n, -1.0 if signs == "-" else 1.0)


def _g(v) -> str:
    if v == math.pi:
        return "π"
    if v != 0 and (abs(v) >= 1e5 or abs(v) < 1e-3):
        return f"{v:.0e}".replace("e+", "e")
    return f"{v:g}"


@dataclass(frozen=True)
class Domain:
    """A named domain: one sampling rule per input, and what makes it hard."""

    name: str
    inputs: tuple
    why: str = ""

    def rule(self, i: int, fmt: str):
        spec = self.inputs[i]
        return getattr(spec, fmt) if isinstance(spec, PerFormat) else spec

    def describe(self, names, fmt: str) -> str:
        return "; ".join(f"{n} {'' if isinstance(self.rule(i, fmt), Fixed) else '∈ '}{self.rule(i, fmt).describe()}"
                         for i, n in enumerate(names))


@dataclass(frozen=True)
class Entry:
    """A measured primitive: how to make it, its inputs' names, its domains."""

    make: Callable
    inputs: tuple
    domains: tuple


def sample(entry_name: str, domain: Domain, fmt: str, n: int) -> list:
    """The points of one domain in one format: per input, an array of ``n`` values of that format
    (or the fixed Python number)."""
    rng = np.random.default_rng(zlib.crc32(f"{entry_name}/{domain.name}/{fmt}".encode()))
    out = []
    for i in range(len(domain.inputs)):
        rule = domain.rule(i, fmt)
        if isinstance(rule, Fixed):
            out.append(rule.value)
        else:
            with np.errstate(over="ignore"):
                out.append(np.asarray(rule.draw(rng, n)).astype(fmt))
    return out


# ----- the domains ------------------------------------------------------------------------------------
F64, F32 = np.finfo(np.float64), np.finfo(np.float32)


def _all_magnitudes(signs="±"):
    """Every normal magnitude of the format."""
    return PerFormat(Interval(float(F64.smallest_normal), float(F64.max), "log", signs),
                     Interval(float(F32.smallest_normal), float(F32.max), "log", signs))


def _magnitudes(e64, e32, signs="±"):
    return PerFormat(Interval(10.0 ** -e64, 10.0 ** e64, "log", signs),
                     Interval(10.0 ** -e32, 10.0 ** e32, "log", signs))


CORE = Interval(-10, 10)
CORE_NONZERO = Interval(0.1, 10, "log", "±")

_core = Domain("core", (CORE,))
_core2 = Domain("core", (CORE, CORE))

# tanh' = sech^2 x = 4 e^{-2|x|}/(1 + e^{-2|x|})^2 stays normal up to |x| = 354.9 (float64) and 44.4
# (float32); sigma' ~ e^{-|x|} up to 708.4 and 87.3.  A little beyond shows the subnormal tail.
_SATURATION = Domain("saturation", (PerFormat(Interval(1e-6, 360, "log", "±"), Interval(1e-6, 46, "log", "±")),),
                     "the output rounds to ±1 long before the derivative leaves the normal range")
_SIGMOID_SATURATION = Domain(
    "saturation", (PerFormat(Interval(1e-6, 720, "log", "±"), Interval(1e-6, 90, "log", "±")),),
    "the output rounds to 1 (x > 37 in float64, x > 17 in float32) or becomes tiny")

_UNARY_ANY = {
    "Neg": (M.Neg, (_core, Domain("all magnitudes", (_all_magnitudes(),)))),
    "Exp": (M.Exp, (_core, Domain("full range", (PerFormat(Interval(-746, 710), Interval(-104, 89)),),
                                  "the result runs from subnormal to overflow"))),
    "Log": (M.Log, (Domain("near 1", (Near(0, 1, 0, 1e-12, 0.5),), "log has its zero at 1"),
                    Domain("all magnitudes", (_all_magnitudes("+"),),
                           "the second derivative -1/x² overflows for tiny x"))),
    "Sqrt": (M.Sqrt, (Domain("core", (Interval(1e-3, 100),)),
                      Domain("all magnitudes", (_all_magnitudes("+"),)))),
    "Square": (M.Square, (_core, Domain("all magnitudes", (_magnitudes(200, 25),),
                                        "x² under- and overflows"))),
    "Abs": (M.Abs, (_core,)),
    "Sin": (M.Sin, (Domain("core", (Interval(-4, 4),)),
                    Domain("large", (Interval(-1e5, 1e5),), "argument reduction"),
                    Domain("near zeros", (Near(math.pi, 0, 100, 1e-6, 1e-2),),
                           "sin is small next to kπ, and cos (its derivative) next to kπ + π/2"))),
    "Cos": (M.Cos, (Domain("core", (Interval(-4, 4),)),
                    Domain("large", (Interval(-1e5, 1e5),), "argument reduction"),
                    Domain("near zeros", (Near(math.pi, math.pi / 2, 100, 1e-6, 1e-2),),
                           "cos is small next to kπ + π/2"))),
    "Tanh": (M.Tanh, (Domain("core", (Interval(-3, 3),)), _SATURATION)),
    "Sigmoid": (M.Sigmoid, (Domain("core", (Interval(-3, 3),)), _SIGMOID_SATURATION)),
    "Reciprocal": (M.Reciprocal, (Domain("core", (CORE_NONZERO,)),
                                  Domain("all magnitudes", (_all_magnitudes(),),
                                         "1/x² and 2/x³ overflow near the pole"))),
    "ReLU": (A.ReLU, (_core,)),
    "ReLU6": (A.ReLU6, (Domain("core", (Interval(-4, 10),)),)),
    "Sign": (M.Sign, (_core,)),
    "Floor": (M.Floor, (Domain("core", (Interval(-100, 100),)),)),
}

_BINARY_ANY = {
    "Add": (M.Add, (_core2, Domain("all magnitudes", (_magnitudes(150, 18), _magnitudes(150, 18))))),
    "Sub": (M.Sub, (_core2, Domain("all magnitudes", (_magnitudes(150, 18), _magnitudes(150, 18))))),
    "Mul": (M.Mul, (_core2, Domain("all magnitudes", (_magnitudes(150, 18), _magnitudes(150, 18))))),
    "Div": (M.Div, (Domain("core", (CORE, CORE_NONZERO)),
                    Domain("all magnitudes", (_magnitudes(150, 18), _magnitudes(150, 18)),
                           "x/y² and x/y³ overflow for small y"))),
    "Pow": (M.Pow, (Domain("core", (Interval(0.1, 10), Interval(-5, 5))),
                    Domain("wide", (Interval(1e-3, 1e3, "log"), PerFormat(Interval(-40, 40), Interval(-10, 10))),
                           "large |y log x|: the result spans many binades"),
                    Domain("cube", (CORE, Fixed(3.0)), "x ** 3 with a Python exponent"))),
    "Maximum": (M.Maximum, (_core2,)),
    "Minimum": (M.Minimum, (_core2,)),
    "FloorDiv": (M.FloorDiv, (Domain("core", (Interval(-100, 100), CORE_NONZERO)),)),
    "FloorMod": (M.FloorMod, (Domain("core", (Interval(-100, 100), CORE_NONZERO)),)),
    "Mod": (M.Mod, (Domain("core", (Interval(-100, 100), CORE_NONZERO)),)),
    "ReluGrad": (A.ReluGrad, (_core2,)),
    "ReLU6Grad": (A.ReLU6Grad, (Domain("core", (CORE, Interval(-4, 10))),)),
}

# the gradient primitives computed from the input: x over the domains of their primitive, and a
# cotangent dout that is not 1 (its product is one more rounding)
_DOUT = Interval(-2, 2)
_BINARY_ANY.update({
    "TanhGrad": (G.TanhGrad, tuple(Domain(d.name, d.inputs + (_DOUT,), d.why) for d in _UNARY_ANY["Tanh"][1])),
    "SigmoidGrad": (G.SigmoidGrad, tuple(Domain(d.name, d.inputs + (_DOUT,), d.why)
                                         for d in _UNARY_ANY["Sigmoid"][1])),
    "SqrtGrad": (G.SqrtGrad, tuple(Domain(d.name, d.inputs + (_DOUT,), d.why) for d in _UNARY_ANY["Sqrt"][1])),
})



class LogSoftmaxOfPair:
    """``log_softmax([x, y])[0]``: LogSoftmax (and its rules) over an axis of two entries, as a
    function of both, so that the elementwise machinery measures it point by point (the other entry
    is this one with x and y swapped).  Its SymPy form is LogSoftmax's own, through the symbolic
    interpreter."""

    def __call__(self, x, y):
        return ops.log_softmax(ops.stack([x, y], -1), -1)[..., 0]


_BINARY_ANY["LogSoftmax"] = (LogSoftmaxOfPair, (
    _core2, Domain("far apart", (CORE, PerFormat(Interval(-700, 700), Interval(-100, 100))),
                   "y far below x: the result, and 1 - softmax, are as small as e^(y - x)")))

_NAMES = {"ReluGrad": ("dout", "out"), "ReLU6Grad": ("dout", "x"), "TanhGrad": ("x", "dout"),
          "SigmoidGrad": ("x", "dout"), "SqrtGrad": ("x", "dout")}

#: Every measured primitive, by its name in ``minims.primitives.table()``.
MEASURED: dict[str, Entry] = {}
for _name, (_cls, _domains) in _UNARY_ANY.items():
    MEASURED[_name] = Entry(_cls, ("x",), _domains)
for _name, (_cls, _domains) in _BINARY_ANY.items():
    MEASURED[_name] = Entry(_cls, _NAMES.get(_name, ("x", "y")), _domains)

#: Elementwise primitives the harness does not measure, and why.
NOT_MEASURED = {
    **dict.fromkeys(("Identity", "StopGradient"), "copies"),
    **dict.fromkeys(("OnesLike", "ZerosLike"), "constants"),
    "Select": "picks an input, and its rules pick the gradient",
    "Cast": "one correctly rounded conversion, and its rules cast back",
    **dict.fromkeys(("Greater", "Less", "GreaterEqual", "LessEqual", "Equal", "NotEqual", "LogicalAnd",
                     "LogicalOr", "LogicalNot"), "Bool results"),
}
NOT_MEASURED["Erf"] = ("not yet measured (issue 25 item 2 added it): its value is Python's math.erf in float64, "
                       "rounded once to the format; its rules are checked against SymPy and central differences")
