"""Gradient checking: forward- and reverse-mode derivatives against finite differences.

``check_grads(f, args, order=2, modes=("rev",))`` is the minims counterpart of JAX's ``check_grads``.
It needs no MindSpore and no symbolic algebra, only the defining property of a vector-Jacobian
product.  For a random cotangent ``w`` (one per output) and a random direction ``u`` of an input ``x``:

    <vjp(w), u>  =  d/dt <w, f(x + t u)>  at t = 0

The left side is what ``ops.grad`` computes with sensitivity ``w`` (the backward rules); the right
side is a number obtained by evaluating ``f`` twice, with a central difference::

    d/dt <w, f(x + t u)>  ~  (<w, f(x + eps u)> - <w, f(x - eps u)>) / (2 eps)

Checking one random direction per input is cheap, and a wrong rule almost never passes by chance.
Each differentiable argument is checked in turn, so a failure can name it (the JAX form,
``sum_i <vjp_i(w), u_i>`` over all arguments at once, follows by adding the checks up).

For ``order >= 2`` the same check runs on the gradient function ``x -> vjp(f)(x, w)`` itself: its own
gradient comes from differentiating the backward rules, so order 2 checks the bprop of the bprops,
order 3 the bprop of those, and so on.

With ``"fwd"`` in ``modes`` the forward-mode rules are checked the same way: ``<w, jvp(u)>`` (the
``jvp`` rules' tangent, paired with ``w``) must equal the same central difference; for higher orders
the check recurses on ``x -> jvp(f)(x, u)``.  Each level recurses in every mode, so ``order=2`` with
both modes checks reverse over reverse, forward over reverse, reverse over forward and forward over
forward.

Float Tensor arguments are converted to float64 first (a central difference in float32 is far too
noisy to check anything); integer and Bool Tensors and non-Tensor arguments are held fixed.

``numerical_grad(f, args)`` is the brute-force version, one central difference per element: the full
gradient of the sum of ``f``'s outputs, for small inputs.
"""
from __future__ import annotations

import numpy as np

from ..autodiff.grad_api import vjp_call
from ..transforms.transforms import _jvp_call
from .. import ops
from ..core.tensor import Tensor
from ..tensors.convert import _describe

__all__ = ["check_grads", "numerical_grad", "DEFAULT_EPS", "DEFAULT_RTOL", "DEFAULT_ATOL"]

#: step of the central difference (float64); its error is about eps**2 * |f'''| / 6
DEFAULT_EPS = 1e-4
DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-6

_ORDER_NAMES = {1: "the gradient (the backward rules)",
                2: "the gradient of the gradient (the bprop of the bprops)",
                3: "the third derivative (the bprop of the bprop of the bprops)"}
_MODES = ("fwd", "rev")


# ----- arguments and outputs -------------------------------------------------------------------------
def _as_args(args) -> tuple:
    return (args,) if isinstance(args, Tensor) or not isinstance(args, (tuple, list)) else tuple(args)


def _to_float64(args: tuple) -> tuple:
    """Float Tensors become float64 Tensors; everything else is left alone."""
    return tuple(Tensor(np.asarray(a._data, dtype=np.float64))
                 if isinstance(a, Tensor) and a.dtype.is_float else a for a in args)


def _float_positions(args: tuple) -> tuple:
    return tuple(i for i, a in enumerate(args) if isinstance(a, Tensor) and a.dtype.is_float)


def _flat_outputs(out) -> list:
    """The outputs of ``f`` in order (a Tensor, or nested tuples/lists of them)."""
    if isinstance(out, (tuple, list)):
        return [o for item in out for o in _flat_outputs(item)]
    return [out]


def _is_float_tensor(value) -> bool:
    return isinstance(value, Tensor) and value.dtype.is_float


def _pairing(cotangents, outputs) -> float:
    """<w, f(x)>: the sum over outputs of sum(w * output), in float64."""
    total = 0.0
    for w, o in zip(cotangents, outputs):
        if w is not None:
            total += float(np.sum(w._data * np.asarray(o._data, dtype=np.float64)))
    return total


def _with_arg(args: tuple, position: int, value: np.ndarray) -> tuple:
    new = list(args)
    new[position] = Tensor(np.asarray(value, dtype=np.float64))   # (0-d sums are NumPy scalars)
    return tuple(new)


# ----- check_grads -----------------------------------------------------------------------------------
def check_grads(f, args, order=2, eps=None, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL, seed=0, modes=("rev",)):
    """Check the derivatives of ``f`` at ``args`` up to ``order`` against finite differences.

    ``modes``: ``("rev",)`` checks the backward rules (``vjp``), ``("fwd",)`` the forward-mode rules
    (``jvp``), ``("fwd", "rev")`` both and every mixture of them at higher orders.

    ``args`` is a tuple of ``f``'s arguments (a single Tensor is accepted too).  Outputs may be a
    Tensor of any shape or a (nested) tuple of Tensors.  Raises ``AssertionError`` naming the order,
    the argument, the analytic and numeric values, the relative error and the tolerance when
    ``|analytic - numeric| > atol + rtol * |numeric|``.  ``seed`` fixes the random cotangents and
    directions, so a check is reproducible.
    """
    if not isinstance(order, int) or order < 1:
        raise ValueError(f"check_grads: order must be an int >= 1, got {order!r}.")
    modes = (modes,) if isinstance(modes, str) else tuple(modes)
    if not modes or any(m not in _MODES for m in modes):
        raise ValueError(f"check_grads: modes must be a tuple of 'fwd' and/or 'rev', got {modes!r}.")
    args = _to_float64(_as_args(args))
    positions = _float_positions(args)
    if not positions:
        raise ValueError("check_grads: no argument is a float Tensor, so there is nothing to differentiate.")
    eps = DEFAULT_EPS if eps is None else float(eps)
    name = getattr(f, "__name__", type(f).__name__)
    rng = np.random.default_rng(seed)
    _check(f, args, positions, order, 1, dict(eps=eps, rtol=rtol, atol=atol, seed=seed, name=name,
                                              modes=modes), rng)


def _check(f, args, positions, order, level, opts, rng):
    """Check the first derivative of ``f`` in each mode, then recurse on the derivative functions."""
    outputs = _flat_outputs(f(*args))
    cotangents = [Tensor(np.asarray(rng.standard_normal(o.shape), dtype=np.float64))
                  if _is_float_tensor(o) else None
                  for o in outputs]
    if all(w is None for w in cotangents):
        raise ValueError(f"check_grads: {opts['name']} has no float Tensor output to differentiate.")
    for mode in opts["modes"]:
        derivative = (_check_rev if mode == "rev" else _check_fwd)(f, args, positions, level, opts, rng,
                                                                    cotangents)
        if order > 1:
            _check(derivative, args, positions, order - 1, level + 1, opts, rng)


def _difference(f, args, p, u, cotangents, eps) -> float:
    """d/dt <w, f(x + t u)> at t = 0 by a central difference (argument ``p`` moves along ``u``)."""
    x = args[p]._data
    plus = _pairing(cotangents, _flat_outputs(f(*_with_arg(args, p, x + eps * u))))
    minus = _pairing(cotangents, _flat_outputs(f(*_with_arg(args, p, x - eps * u))))
    return (plus - minus) / (2 * eps)


def _compare(analytic, numeric, level, p, args, opts, mode):
    allowed = opts["atol"] + opts["rtol"] * abs(numeric)
    if not abs(analytic - numeric) <= allowed:          # also fails for NaN
        raise AssertionError(_report(level, p, args[p], analytic, numeric, allowed, opts, mode))


def _check_rev(f, args, positions, level, opts, rng, cotangents):
    """<vjp(w), u> against the difference; returns ``x -> vjp(f)(x, w)`` for the next order."""
    # an output that is not a float Tensor (a mask, an index) gets a zero sensitivity
    outputs = _flat_outputs(f(*args))
    sens = [w if w is not None or not isinstance(o, Tensor) else ops.zeros_like(o)
            for w, o in zip(cotangents, outputs)]

    def vjp_of_f(*xs):
        """x -> the gradients of <w, f(x)> with respect to the checked arguments (a tuple)."""
        _, grads, _ = vjp_call(f, xs, positions, (), sens=sens, where="check_grads")
        return tuple(grads)

    grads = vjp_of_f(*args)
    for k, p in enumerate(positions):
        u = rng.standard_normal(args[p].shape)
        analytic = float(np.sum(np.asarray(grads[k]._data, dtype=np.float64) * u))
        _compare(analytic, _difference(f, args, p, u, cotangents, opts["eps"]), level, p, args, opts, "rev")
    return vjp_of_f


def _check_fwd(f, args, positions, level, opts, rng, cotangents):
    """<w, jvp(u)> against the difference; returns ``x -> jvp(f)(x, u)`` for the next order."""
    def jvp_along(tangents):
        def fn(*xs):
            moving = [i for i, t in enumerate(tangents) if t is not None]
            def inner(*ys):
                full = list(xs)
                for i, y in zip(moving, ys):
                    full[i] = y
                return f(*full)
            return _jvp_call(inner, [xs[i] for i in moving], [tangents[i] for i in moving])[1]
        return fn

    for p in positions:
        u = rng.standard_normal(args[p].shape)
        tangents = [None] * len(args)
        tangents[p] = Tensor(np.asarray(u, dtype=np.float64))
        analytic = _pairing(cotangents, _flat_outputs(jvp_along(tangents)(*args)))
        _compare(analytic, _difference(f, args, p, u, cotangents, opts["eps"]), level, p, args, opts, "fwd")
    every = [Tensor(np.asarray(rng.standard_normal(args[p].shape), dtype=np.float64)) if p in positions else None
             for p in range(len(args))]
    return jvp_along(every)


def _report(level, position, arg, analytic, numeric, allowed, opts, mode="rev") -> str:
    diff = abs(analytic - numeric)
    rel = diff / max(abs(numeric), np.finfo(np.float64).tiny)
    what = (_ORDER_NAMES.get(level, f"derivative of order {level}") if mode == "rev" else
            f"the derivative of order {level} by the forward-mode (jvp) rules")
    # seven significant digits: the last digits of a float64 product depend on the CPU's BLAS kernel
    return (
        f"check_grads failed at order {level}, {what}, of {opts['name']} "
        f"for argument {position} ({_describe(arg)}):\n"
        f"  analytic  {'<vjp(w), u>' if mode == 'rev' else '<w, jvp(u)>':<34} = {analytic: .6e}   "
        f"({'reverse' if mode == 'rev' else 'forward'} mode)\n"
        f"  numeric   {'d/dt <w, f(x + t u)> at t = 0':<34} = {numeric: .6e}   "
        f"(central difference, eps={opts['eps']:g})\n"
        f"  relative error {rel:.3e}: |analytic - numeric| = {diff:.3e} exceeds the tolerance "
        f"atol + rtol * |numeric| = {allowed:.3e} (rtol={opts['rtol']:g}, atol={opts['atol']:g})\n"
        f"  (w: random output cotangent, u: random direction of argument {position}; seed={opts['seed']})"
    )


# ----- numerical_grad ----------------------------------------------------------------------------------
def numerical_grad(f, args, eps=1e-6):
    """The gradient of the sum of ``f``'s outputs by central differences, one element at a time.

    Returns a float64 array per argument (``None`` for arguments held fixed: integer/Bool Tensors and
    non-Tensors) as a tuple, or a single array when ``args`` is a single Tensor.  The cost is two
    evaluations of ``f`` per input element: for small inputs only.
    """
    single = isinstance(args, Tensor)
    args = _to_float64(_as_args(args))
    grads = []
    for p, a in enumerate(args):
        if p not in _float_positions(args):
            grads.append(None)
            continue
        x = a._data
        g = np.zeros(x.shape, dtype=np.float64)
        for idx in np.ndindex(x.shape):
            step = np.zeros(x.shape)
            step[idx] = eps
            plus = _total(f(*_with_arg(args, p, x + step)))
            minus = _total(f(*_with_arg(args, p, x - step)))
            g[idx] = (plus - minus) / (2 * eps)
        grads.append(g)
    return grads[0] if single else tuple(grads)


def _total(out) -> float:
    return sum(float(np.sum(np.asarray(o._data, dtype=np.float64)))
               for o in _flat_outputs(out) if _is_float_tensor(o))
