"""Comparing what a learner's code computed with the reference, and saying what is wrong.

Both sides of an exercise are lists of :class:`Quantity`: a value, a gradient of some order for
some input, a tangent, the change of a Parameter, a dtype ...  :func:`first_difference` walks the
expected list in order and returns the first quantity the learner's code got wrong, with a
diagnosis.  The diagnoses are the same for every exercise; they recognise the usual slips by the
numbers alone:

======================  ==========================================================================
``missing``             no value where one was expected (a gradient of ``None``)
``shape``               the shape differs (``sum_to``: a broadcast input's gradient not summed)
``nan``                 NaN or Inf where the reference is finite
``sign``                got = -expected
``swapped``             got = the expected value of another input (gradients in the wrong order)
``dout`` / ``tangent``  got = the value with a sensitivity (tangent) of ones: ``dout`` ignored
``unchanged``           got = the gradient a hook should have changed
``setting``             got = the value for another setting (alpha): the answer ignores its argument
``factor``              got = c * expected for one constant c (a forgotten 2, 1/N, learning rate)
``zero``                got = 0 where the reference is not (a cut gradient, a Parameter not updated)
``higher-order``        order 1 right, order >= 2 wrong: the rule is not itself differentiable
``digits``              a value checked in ULP (``Quantity.ulps``) right to a few digits, or 0 where
                        the truth is tiny, but too many ULP off: a formula that cancels
``values``              none of the above: where it differs, expected vs got
======================  ==========================================================================

Errors raised while running the learner's code are diagnosed from their type and message by
:func:`diagnose_error` (a bare Tensor instead of a tuple, one gradient too many, a Python ``if`` on a
Tensor in Graph mode ...).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Quantity", "Difference", "AnswerError", "first_difference", "diagnose_error", "ulp_distance",
           "RTOL", "ATOL", "show"]

#: Tolerances of the comparison: the exercises compute in float64, the references with 30 digits.
RTOL, ATOL = 1e-6, 1e-9


def show(value) -> str:
    """A value as the feedback prints it: arrays with 4 decimals on one line, or with 4 significant
    digits when an entry that is not 0 would print as 0 (tanh'(300) is 1.4e-260, not 0)."""
    if value is None:
        return "None"
    if isinstance(value, np.ndarray) and value.dtype != object:
        value = np.where(value == 0, 0.0, value)           # no "-0." in the feedback
        tiny = value.dtype.kind == "f" and bool(np.any((value != 0) & (np.abs(value) < 5e-5)))
        return np.array2string(value, precision=4, suppress_small=not tiny, separator=", ",
                               floatmode="maxprec", max_line_width=10_000).replace("\n", "")
    return repr(value) if isinstance(value, str) else str(value)


@dataclass
class Quantity:
    """One number (or array, or label) an exercise checks.

    ``kind`` says what it is ("value", "gradient", "tangent", or a free text such as "the
    Parameter names"); ``of`` which input or Parameter; ``order`` the order of the derivative
    (0 for a value); ``at`` the point, as text.  ``sens`` is the sensitivity (``dout``) or tangent
    used, and ``alternatives`` maps the name of a typical slip to the value that slip gives (the name
    may carry a detail for the diagnosis after a colon: ``"setting:alpha = 0.1"``).
    """

    kind: str
    of: str
    order: int
    at: str
    value: object
    sens: np.ndarray | None = None
    alternatives: dict = field(default_factory=dict)
    source: str = ""            # where the expected value comes from, if not the exercise's reference
    ulps: float | None = None   # compare in ULP of the true value (float64), not with RTOL/ATOL ...
    lo: object = None           # ... the truth being value + lo (a double-double), lo = 0 if None

    @property
    def key(self):
        return (self.kind, self.of, self.order, self.at)

    def label(self) -> str:
        """'the gradient for x (order 1) at x = [...], with dout = [...]'."""
        what = {"value": "the value", "gradient": f"the gradient for {self.of}",
                "tangent": "the forward-mode tangent"}.get(self.kind, self.kind)
        if self.kind in ("gradient", "tangent") and self.order:
            what += " (order 1)" if self.order == 1 else f" (order {self.order}: the derivative of the derivative)"
        text = f"{what} at {self.at}" if self.at else what
        if self.sens is not None:
            name = "v" if self.kind == "tangent" else "dout"
            text += f", with {name} = {show(self.sens)}"
        return text


@dataclass
class Difference:
    """The first quantity that differs: what was expected, what came, and the diagnosis."""

    quantity: Quantity
    got: object
    kind: str
    diagnosis: str


# ----- comparing -----------------------------------------------------------------------------------
def _array(value):
    if value is None or isinstance(value, (str, tuple, list, bool)):
        return None
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    return arr


def _close(a, b) -> bool:
    return a is not None and b is not None and a.shape == b.shape and bool(
        np.allclose(a, b, rtol=RTOL, atol=ATOL))


def ulp_distance(q: Quantity, arr) -> np.ndarray:
    """The error of ``arr`` in ULP (float64) of the true value ``q.value + q.lo``, elementwise."""
    from ..accuracy.ulp import FORMATS, ulp_errors
    lo = np.zeros(np.shape(q.value)) if q.lo is None else q.lo
    return ulp_errors(arr, _array(q.value), _array(lo), FORMATS["float64"])


def _same(expected: Quantity, got) -> bool:
    exp, arr = _array(expected.value), _array(got)
    if exp is None:                         # a label: names, a dtype, a count
        return got == expected.value
    if expected.ulps is not None:
        return arr is not None and arr.shape == exp.shape and bool(
            np.all(ulp_distance(expected, arr) <= expected.ulps))
    return _close(arr, exp)


def _lost_digits(q: Quantity, arr, exp):
    """(kind, text) when a value checked in ULP is right to a few digits (or 0 where the truth is tiny)
    wherever it is too far off: digits lost to cancellation or overflow, not a wrong formula.  None
    otherwise."""
    ulps = ulp_distance(q, arr)
    bad = ulps > q.ulps
    if not bad.any() or np.all(arr == 0):
        return None
    rel = np.abs(arr - exp) / np.maximum(np.abs(exp), np.finfo(np.float64).tiny)
    vanished = (arr == 0) & (np.abs(exp) < np.finfo(np.float64).eps)
    if not np.all((rel[bad] <= RTOL) | vanished[bad]):
        return None
    worst = tuple(int(i) for i in np.unravel_index(np.argmax(ulps), ulps.shape))
    where = f" at index {list(worst)}" if worst else ""
    lost = (f"{int(bad.sum())} of {bad.size} entries are more than {q.ulps:g} ULP off, the worst{where} by "
            f"2**{np.log2(ulps[worst]):.0f} ULP (expected {exp[worst]:.6g}, got {arr[worst]:.6g})")
    if np.all(vanished[bad]):       # nothing left at all: a cancellation, or an intermediate overflowed
        return "digits", (
            f"the formula is right, but it gives 0 where the truth is tiny: {lost}. Either it subtracts two "
            "nearly equal rounded numbers (like 1 - tanh(x)**2 once tanh(x) rounds to 1), or an intermediate "
            "overflows to inf and a division by it gives 0 (exp of a large positive number, squared). "
            "Rewrite it from the input so that nothing cancels and nothing overflows.")
    return "digits", (
        f"the formula is right, but digits are lost: {lost}. The formula subtracts two nearly equal rounded "
        "numbers (like 1 - tanh(x)**2 once tanh(x) rounds to 1): only their rounding error is left. Rewrite "
        "it so that nothing cancels, from the input.")


_SLIPS = {
    "dout": ("dout", "this is the gradient for dout = 1: the rule ignores dout. A backward rule "
                     "multiplies its local derivative by dout (the chain rule)."),
    "tangent": ("tangent", "this is the derivative along a tangent of ones: the rule ignores the "
                           "tangent. A forward rule multiplies its local derivative by the tangent."),
    "unchanged": ("unchanged", "this is the gradient without your change: the hook returned None or the "
                               "gradient it received. Return the changed gradient, as a tuple (g,)."),
    "setting": ("setting", "this is what {detail} gives (the first point's setting): the answer ignores the "
                           "value it was built with. Keep the argument (self.alpha = alpha) and use it, rather "
                           "than a number written into the code."),
    "grad_input": ("convention", "this is what changing grad_input gives. In minims, as on the documentation "
                                 "page chapter 06 follows, grad_input is the gradient arriving at the Cell's "
                                 "output, and grad_output holds the gradients for the Cell's inputs, the ones a "
                                 "returned tuple replaces. PyTorch, and MindSpore 2.10 with its current hook "
                                 "page, use the names the other way round. Change grad_output here (the "
                                 "picture in section 6.4 shows both conventions)."),
}


def _diagnose(q: Quantity, got, expected_list, got_map):
    """(kind, text) for a numeric quantity that differs from the reference."""
    exp = _array(q.value)
    arr = _array(got)
    if got is None:
        return "missing", (f"nothing came back for {q.of or 'it'}. Return a value here (a bprop "
                           "returns one gradient per input, in order).")
    if exp is None or arr is None:
        return "values", f"expected {show(q.value)}, got {show(got)}."
    if arr.shape != exp.shape:
        try:
            summed = np.broadcast_to(exp, arr.shape).shape == arr.shape
        except ValueError:
            summed = False
        if summed:
            return "shape", (f"the shape is {list(arr.shape)} but {q.of or 'the input'} has shape "
                             f"{list(exp.shape)}: a broadcast input's gradient must be summed over the "
                             "broadcast dimensions (sum_to, or ops.sum(..., keepdim=True)).")
        return "shape", f"the shape is {list(arr.shape)}, expected {list(exp.shape)}."
    if not np.all(np.isfinite(arr)) and np.all(np.isfinite(exp)):
        return "nan", "the result holds NaN or Inf where the reference is finite."
    if q.ulps is not None:
        lost = _lost_digits(q, arr, exp)
        if lost:
            return lost
    if np.any(np.abs(exp) > ATOL) and _close(arr, -exp):
        return "sign", "the sign is flipped: got = -expected."
    for other in expected_list:
        if (other.kind == q.kind and other.order == q.order and other.at == q.at and other.of != q.of
                and _close(arr, _array(other.value))):
            return "swapped", (f"this is the {q.kind} expected for {other.of}: the results are in the "
                               f"wrong order (return them in the order of the inputs).")
    for name, value in q.alternatives.items():
        if _close(arr, _array(value)):
            slip, _, detail = name.partition(":")      # "setting:alpha = 0.1": the slip and its detail
            kind, text = _SLIPS[slip]
            return kind, text.format(detail=detail)
    if q.order >= 2:
        lower = [o for o in expected_list if o.kind == q.kind and o.order < q.order and o.kind != "value"]
        if lower and all(_same(o, got_map.get(o.key)) for o in lower):
            return "higher-order", (
                f"the derivatives of lower order are right, but order {q.order} is not: the rule "
                "itself is differentiated wrongly. Write it with minims ops (ops.mul, ops.exp, ...), "
                "not NumPy or .asnumpy(), so that an outer grad (or jvp) records it.")
    nonzero = np.abs(exp) > ATOL
    if nonzero.any() and np.all(np.abs(arr) <= ATOL):
        return "zero", ("got zeros where the reference is not zero: nothing reached this point (a "
                        "gradient cut by a constant, a Parameter never updated, a result never returned).")
    if nonzero.sum() >= 2 and np.all(np.abs(arr[~nonzero]) <= ATOL):    # one number is always "a factor"
        ratios = arr[nonzero] / exp[nonzero]
        if np.allclose(ratios, ratios.flat[0], rtol=RTOL) and abs(ratios.flat[0] - 1) > RTOL:
            return "factor", (f"off by a constant factor: got = {ratios.flat[0]:.6g} x expected (a "
                              "missing or extra factor: a 2, 1/N, the learning rate ...).")
    bad = ~np.isclose(arr, exp, rtol=RTOL, atol=ATOL)
    first = tuple(int(i) for i in np.argwhere(bad)[0]) if arr.ndim else ()
    where = f" at index {list(first)}" if first else ""
    return "values", (f"{int(bad.sum())} of {bad.size} entries differ; the first{where}: expected "
                      f"{exp[first]:.6g}, got {arr[first]:.6g}.")


def first_difference(expected: list[Quantity], got: list[Quantity]) -> Difference | None:
    """The first expected quantity the learner's results get wrong (None when all agree)."""
    got_map = {q.key: q.value for q in got}
    for q in expected:
        value = got_map.get(q.key, None)
        if _same(q, value):
            continue
        if _array(q.value) is None:
            return Difference(q, value, "values", f"expected {show(q.value)}, got {show(value)}.")
        kind, text = _diagnose(q, value, expected, got_map)
        return Difference(q, value, kind, text)
    return None


# ----- errors --------------------------------------------------------------------------------------
class AnswerError(TypeError):
    """What the learner's code returned cannot be used (a string where a Tensor was expected ...):
    raised by the checker on the answer's behalf, so that the feedback blames the answer.  An
    exercise that recognises the slip gives its own ``kind`` and ``advice`` (the diagnosis)."""

    def __init__(self, message: str, kind: str = "returned", advice: str = ""):
        super().__init__(message)
        self.kind, self.advice = kind, advice


_ERRORS = (     # (name of the exception class or None, regex on the message, kind, diagnosis)
    ("AnswerError", None, "returned",
     "return what the exercise asks for: a Tensor (or a number), as the message says."),
    ("StaticGraphError", None, "graph",
     "one graph for every input cannot branch on a Tensor's value: the function must not use Python "
     "if/while/float()/.asnumpy() on a Tensor. Use ops.select(cond, a, b), or a loop over a Python int."),
    ("PredicateError", None, "graph",
     "an if or while on a Tensor needs one truth value (jit turns it into a Cond or While of the graph), "
     "and this Tensor has several entries: decide element by element with ops.select(cond, a, b)."),
    (None, r"expected a tuple|must return a tuple|must return None or a tuple", "tuple",
     "return a tuple of gradients: (dx,) even for a single input."),
    (None, r"returned \d+ gradients?", "count",
     "return exactly one gradient per input, in the order of the inputs."),
    (None, r"internal_params", "internal_params",
     "a bprop may use a Parameter only if the Cell lists it in self.internal_params; the bprop then "
     "returns (input_gradients, {parameter: gradient})."),
    (None, r"same dtype", "dtype",
     "both operands of one op need the same dtype: cast one of them, e.g. w.astype(x.dtype)."),
    (None, r"has no truth value|truth value .* ambiguous", "branch",
     "a Python if on a Tensor of several elements has no single answer: use ops.select(cond, a, b), "
     "which decides element by element."),
)


_SHAPES = re.compile(r"has shape (\[[\d, ]*\]).*?input(?: \d+)? has shape (\[[\d, ]*\])")


def _shape_error(message: str):
    """A gradient of the wrong shape: bigger than its input (a broadcast not summed back) or not."""
    found = _SHAPES.search(message)
    if not found:
        return None
    got, want = ([int(d) for d in re.findall(r"\d+", s)] for s in found.groups())
    if np.prod(got, dtype=np.int64) > np.prod(want, dtype=np.int64):
        return "shape", ("a gradient must have its input's shape: sum over the broadcast dimensions "
                         "(sum_to, or ops.sum(..., keepdim=True)).")
    return "swapped", ("this gradient has the shape of another input, or was summed too far: return "
                       "one gradient per input, in the order of the inputs, each shaped like its input.")


def diagnose_error(exc: BaseException) -> tuple[str, str]:
    """(kind, advice) for an exception raised by the learner's code."""
    if isinstance(exc, AnswerError) and exc.advice:
        return exc.kind, exc.advice
    names = {cls.__name__ for cls in type(exc).__mro__}
    message = str(exc)
    shape = _shape_error(message)
    if shape:
        return shape
    for cls, pattern, kind, advice in _ERRORS:
        if (cls is None or cls in names) and (pattern is None or re.search(pattern, message)):
            return kind, advice
    return "error", "read the message above: it says what was expected and what came."
