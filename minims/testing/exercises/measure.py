"""The quantities of a derivative exercise: measured with minims, and derived with SymPy.

``measured(fn, point, ...)`` runs the learner's function ``fn`` with minims: its value, and its
derivatives of each order for each input (reverse mode: ``ops.grad`` of ``<dout, f>``, nested;
forward mode: ``ops.jvp`` along ``v``, nested), and the gradients of the Parameters it was given.

``derived(formula, point, ...)`` computes the same quantities from a formula with SymPy: the formula
(minims ops, run on symbols by the symbolic interpreter, or a function of SymPy object arrays) is
differentiated with ``sympy.diff`` and evaluated with 30 digits.  None of minims' backward or
forward rules is involved, so it is a reference for them.  It also works out the value a typical
slip would give (the gradient for ``dout = 1``), which the feedback recognises.

A *point* is a dict ``{name: array}`` in the order of ``fn``'s arguments (float64).
"""
from __future__ import annotations

import numpy as np
import sympy

from ... import ops
from ...core.tensor import Tensor
from ...interpreters.symbolic import symbolic_call, symbols_like
from .feedback import AnswerError, Quantity, show

__all__ = ["array_of", "gradient_of", "elementwise", "measured", "derived", "sensitivity", "where", "symbols_of", "values_of", "run_formula", "diff",
           "dot", "numbers"]

#: Sensitivities (dout) and tangents are drawn from these magnitudes, with a random sign: two decimals
# (the feedback prints them exactly), about 190 values, so that a rule that ignores dout, or weighs it
# wrongly, cannot agree with the reference by a coincidence of a few levels (Σx = Σ x·dout); never 1
# (that would be "dout ignored") nor 1/2 (a slip by a factor 2 must not look like "dout ignored").
_MAGNITUDES = np.array([m for m in range(55, 151) if m != 100]) / 100


def sensitivity(shape, seed) -> np.ndarray:
    """A fixed (seeded), random dout (or tangent) of the given shape."""
    rng = np.random.default_rng(seed)
    return rng.choice(_MAGNITUDES, size=shape) * rng.choice([-1.0, 1.0], size=shape)


def where(point: dict) -> str:
    """The point as text: 'x = [-1.5, 0.3], y = 2.0'."""
    return ", ".join(f"{name} = {show(np.asarray(value))}" for name, value in point.items())


def elementwise(scalar_formula):
    """A formula for :func:`derived` (``symbolic=False``) that applies a SymPy function of one
    number to each entry: ``elementwise(lambda s: sympy.Piecewise((s, s > 0), (0, True)))``."""
    return lambda x: np.vectorize(scalar_formula, otypes=[object])(np.asarray(x, dtype=object))


def _as64(out) -> np.ndarray:
    """A result of the learner's code as a float64 array; what is not numbers is the answer's fault."""
    if isinstance(out, Tensor):
        return np.asarray(out.asnumpy(), dtype=np.float64)
    try:
        return np.asarray(out, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise AnswerError(f"expected a Tensor or a number, but the answer gave {type(out).__name__} "
                          f"{show(out)[:80]} ({exc}).") from None


def array_of(result):
    """What the learner's function returned, as a float64 array (None stays None)."""
    return None if result is None else _as64(result)


def _weighted_sum(fn, weight):
    w = Tensor(weight)
    return lambda *a: ops.sum(fn(*a) * w)


def _jvp_along(fn, tangent):
    v = Tensor(tangent)
    return lambda x: ops.jvp(fn, (x,), (v,))[1]


def measured(fn, point: dict, orders=(0, 1), wrt=None, mode="rev", seed=0, params=None,
             at=None) -> list[Quantity]:
    """What minims computes for ``fn`` at ``point``: the value and the derivatives of each order.

    ``wrt``: the names of the inputs to differentiate (default: all).  ``params``: a dict
    ``{name: Parameter}`` whose gradients (order 1) are measured too.  In forward mode ``fn`` has
    one input and the tangent is the same fixed ``v`` at every order.  ``at``: the point as the
    feedback names it (default: ``where(point)``; an exercise adds its Parameters' values).
    """
    names = list(point)
    wrt = names if wrt is None else list(wrt)
    args = [Tensor(np.asarray(point[n], dtype=np.float64)) for n in names]
    at = where(point) if at is None else at
    out_shape = np.shape(_as64(fn(*args)))
    found = []
    if 0 in orders:
        found.append(Quantity("value", "", 0, at, _as64(fn(*args))))
    if mode == "fwd":
        v = sensitivity(args[0].shape, seed)
        d = fn
        for order in range(1, max(orders) + 1):
            d = _jvp_along(d, v)
            if order in orders:
                found.append(Quantity("tangent", "", order, at, _as64(d(*args)), sens=v))
        return found
    dout = sensitivity(out_shape, seed)
    for i, name in (p for p in enumerate(names) if p[1] in wrt):
        g = ops.grad(_weighted_sum(fn, dout), grad_position=i)
        if 1 in orders:
            found.append(Quantity("gradient", name, 1, at, array_of(g(*args)), sens=dout))
        if 2 in orders:
            dout2 = sensitivity(args[i].shape, seed + 1 + i)
            g2 = ops.grad(_weighted_sum(g, dout2), grad_position=i)
            found.append(Quantity("gradient", name, 2, at, array_of(g2(*args)), sens=dout2))
    if params:
        grads = ops.grad(_weighted_sum(fn, dout), grad_position=None, weights=list(params.values()))(*args)
        for name, g in zip(params, grads):
            found.append(Quantity("gradient", name, 1, at, array_of(g), sens=dout))
    return found


# ----- SymPy ---------------------------------------------------------------------------------------
def symbols_of(point: dict) -> dict:
    """One array of SymPy symbols per entry of the point, named after it (x_0, x_1 ...)."""
    return {name: symbols_like(name, np.shape(value)) for name, value in point.items()}


def values_of(point: dict, syms: dict) -> dict:
    """The substitution {symbol: value with 30 digits} that evaluates a formula at the point."""
    subs = {}
    for name, value in point.items():
        for s, v in zip(np.asarray(syms[name]).flat, np.asarray(value, dtype=np.float64).flat):
            subs[s] = sympy.Float(float(v), 30)
    return subs


def numbers(exprs, subs) -> np.ndarray:
    """Expressions evaluated at ``subs``, as a float64 array of the same shape."""
    arr = np.asarray(exprs, dtype=object)
    values = [sympy.sympify(e).xreplace(subs).evalf(30) for e in arr.flat]
    return np.array([float(v) for v in values], dtype=np.float64).reshape(arr.shape)


def run_formula(formula, syms: list, symbolic: bool = True):
    """``formula`` on symbols: through the symbolic interpreter (minims ops) or called directly."""
    out = symbolic_call(formula, *syms) if symbolic else formula(*syms)
    return np.asarray(out, dtype=object)


def diff(total, syms) -> np.ndarray:
    """The derivative of the expression ``total`` by each symbol of ``syms`` (same shape)."""
    arr = np.asarray(syms, dtype=object)
    out = np.empty(arr.shape, dtype=object)
    for idx in np.ndindex(arr.shape):
        out[idx] = sympy.diff(total, arr[idx])
    return out


def dot(weights, exprs):
    """sum(weights * exprs): the scalar whose gradient is the vjp with cotangent ``weights``."""
    return sympy.Add(*[w * e for w, e in zip(np.asarray(weights).flat, np.asarray(exprs, dtype=object).flat)])


def gradient_of(formula, point: dict, wrt: str, symbolic=True) -> np.ndarray:
    """SymPy's gradient of the sum of ``formula``'s outputs for ``point[wrt]``, at the point."""
    syms = symbols_of(point)
    out = run_formula(formula, [syms[n] for n in point], symbolic)
    return numbers(diff(dot(np.ones(out.shape), out), syms[wrt]), values_of(point, syms))


def derived(formula, point: dict, orders=(0, 1), wrt=None, mode="rev", seed=0, params=(),
            symbolic=True, value_formula=None, settings=(), at=None) -> list[Quantity]:
    """The same quantities as :func:`measured`, from ``formula`` with SymPy.

    ``formula`` takes the point's values in order (inputs, then the Parameters named in ``params``
    and the settings named in ``settings``): minims ops run on symbols (``symbolic=True``) or plain
    functions of SymPy object arrays.  ``value_formula`` (same conventions) gives the value when it
    differs from the function whose derivative is expected (a surrogate gradient).  ``params`` are
    reported as gradients of order 1, after the inputs, as ``measured`` reports them; ``settings``
    (a layer's constant, such as LeakyReLU's alpha) are not differentiated.  ``at`` as in
    :func:`measured`.
    """
    names = list(point)
    inputs = [n for n in names if n not in params and n not in settings]
    wrt = inputs if wrt is None else list(wrt)
    syms = symbols_of(point)
    subs = values_of(point, syms)
    at = where({n: point[n] for n in inputs}) if at is None else at
    out = run_formula(formula, [syms[n] for n in names], symbolic)
    found = []
    if 0 in orders:
        value = out if value_formula is None else run_formula(value_formula, [syms[n] for n in names], symbolic)
        found.append(Quantity("value", "", 0, at, numbers(value, subs)))
    if mode == "fwd":
        x = np.asarray(syms[names[0]], dtype=object)
        v = sensitivity(x.shape, seed)
        t = sympy.Symbol("t", real=True)
        moved = {s: s + t * sympy.Float(float(vi), 30) for s, vi in zip(x.flat, v.flat)}
        ones = {s: s + t for s in x.flat}
        for order in range(1, max(orders) + 1):
            if order not in orders:
                continue
            along = [sympy.diff(e.xreplace(moved), t, order).subs(t, 0) for e in out.flat]
            q = Quantity("tangent", "", order, at, numbers(np.array(along, dtype=object).reshape(out.shape), subs),
                         sens=v)
            if order == 1:
                plain = [sympy.diff(e.xreplace(ones), t).subs(t, 0) for e in out.flat]
                q.alternatives["tangent"] = numbers(np.array(plain, dtype=object).reshape(out.shape), subs)
            found.append(q)
        return found
    dout = sensitivity(out.shape, seed)
    total = dot(dout, out)
    plain_total = dot(np.ones(out.shape), out)
    for i, name in (p for p in enumerate(inputs) if p[1] in wrt):
        first = diff(total, syms[name])
        if 1 in orders:
            q = Quantity("gradient", name, 1, at, numbers(first, subs), sens=dout)
            q.alternatives["dout"] = numbers(diff(plain_total, syms[name]), subs)
            found.append(q)
        if 2 in orders:
            dout2 = sensitivity(np.shape(point[name]), seed + 1 + i)
            found.append(Quantity("gradient", name, 2, at, numbers(diff(dot(dout2, first), syms[name]), subs),
                                  sens=dout2))
    for name in params:
        q = Quantity("gradient", name, 1, at, numbers(diff(total, syms[name]), subs), sens=dout)
        q.alternatives["dout"] = numbers(diff(plain_total, syms[name]), subs)
        found.append(q)
    return found
