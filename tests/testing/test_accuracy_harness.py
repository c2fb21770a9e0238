"""The accuracy harness measures what it says: ULPs of the true value, a reference that survives
cancellation, and the classes of points outside the normal range.

Expected values come from the definition of the formats (``np.nextafter``, powers of two) and from
mpmath evaluating a *different* formula than the one under test (sech² for 1 - tanh²).
"""
import math

import mpmath
import numpy as np
import sympy

from minims.testing.accuracy import reference as ref
from minims.testing.accuracy.domains import MEASURED, sample
from minims.testing.accuracy.ulp import FORMATS, subnormal_errors, ulp_errors

F64, F32 = FORMATS["float64"], FORMATS["float32"]


def test_the_next_float_is_one_ulp_away_in_both_formats():
    for fmt, dtype in ((F64, np.float64), (F32, np.float32)):
        t = np.array([1.0, 3.0, 1e-30, 7e30], dtype=dtype)
        up = np.nextafter(t, np.array(np.inf, dtype=dtype))
        err = ulp_errors(up, t.astype(np.float64), np.zeros(4), fmt)
        np.testing.assert_array_equal(err, 1.0)


def test_the_ulp_is_that_of_the_true_value_not_of_the_result():
    # the true value is the largest double below 1, whose ULP is 2**-53; answering 1.0 is 1 ULP off
    below_one = np.nextafter(1.0, 0.0)
    assert ulp_errors(np.array([1.0]), np.array([below_one]), np.zeros(1), F64)[0] == 1.0
    # the low part of the double-double reference counts: 1 + 2**-60 vs 1.0 is 2**-60 / 2**-52 ULP
    assert ulp_errors(np.array([1.0]), np.array([1.0]), np.array([2.0 ** -60]), F64)[0] == 2.0 ** -8


def test_zero_where_the_true_value_is_normal_is_about_two_to_the_precision_ulps():
    # float32 tanh'(10) = 8.24e-9 in [2**-27, 2**-26): its ULP is 2**-50, so 0 is about 2**23.2 ULP off
    true = float(mpmath.sech(10) ** 2)
    err = ulp_errors(np.array([0.0], np.float32), np.array([true]), np.zeros(1), F32)[0]
    assert err == true / 2.0 ** (-27 - 23)


def test_nan_or_infinity_is_an_infinite_error():
    assert np.all(np.isinf(ulp_errors(np.array([np.nan, np.inf]), np.array([1.0, 1.0]), np.zeros(2), F64)))


def test_subnormal_errors_are_in_units_of_the_smallest_subnormal():
    tiny = np.float32(np.finfo(np.float32).smallest_subnormal)
    assert subnormal_errors(np.array([3 * tiny]), np.array([float(tiny)]), np.zeros(1), F32)[0] == 2.0


def test_the_reference_survives_the_cancellation_of_one_minus_tanh_squared():
    x = sympy.Symbol("x", real=True)
    r = ref.Reference(1 - sympy.tanh(x) ** 2, (x,))
    for point in (0.5, 20.0, 300.0, 354.0):
        with mpmath.workdps(80):
            expected = mpmath.sech(mpmath.mpf(point)) ** 2       # no cancellation in this form
        truth = ref.evaluate(r, [np.array([point])])
        assert truth.hi[0] == float(expected) and not truth.zero[0], point


def test_a_true_zero_is_zero_and_a_cancelled_one_is_not():
    x, y = sympy.symbols("x y", real=True)
    zero = ref.evaluate(ref.Reference(sympy.diff(x * y, x, 2), (x, y)), [np.array([2.0]), np.array([3.0])])
    assert zero.zero[0]
    tiny = ref.evaluate(ref.Reference(1 - sympy.tanh(x) ** 2, (x,)), [np.array([300.0])])
    assert not tiny.zero[0] and 0 < tiny.hi[0] < 1e-250


def test_points_are_classed_by_where_the_true_value_falls_in_each_format():
    x = sympy.Symbol("x", real=True)
    truth = ref.evaluate(ref.Reference(sympy.exp(x), (x,)), [np.array([0.0, -100.0, -740.0, 100.0, 800.0])])
    assert list(truth.classes(F64)) == ["normal", "normal", "subnormal", "normal", "overflow"]
    assert list(truth.classes(F32)) == ["normal", "subnormal", "subnormal", "overflow", "overflow"]


def test_a_point_outside_the_formula_s_domain_is_undefined():
    x = sympy.Symbol("x", real=True)
    truth = ref.evaluate(ref.Reference(sympy.log(x), (x,)), [np.array([-1.0, 1.0])])
    assert list(truth.undefined) == [True, False]


def test_the_formula_comes_from_the_primitive_s_own_sympy_rule():
    x = sympy.Symbol("x", real=True)
    assert ref.formula(MEASURED["Tanh"].make(), [x]) == sympy.tanh(x)
    assert ref.formula(MEASURED["Pow"].make(), [x, 3.0]) == x ** 3


def test_sampling_is_the_same_every_run_and_rounded_to_the_format():
    tanh = MEASURED["Tanh"]
    a = sample("Tanh", tanh.domains[1], "float32", 50)
    b = sample("Tanh", tanh.domains[1], "float32", 50)
    np.testing.assert_array_equal(a[0], b[0])
    assert a[0].dtype == np.float32 and np.max(np.abs(a[0])) <= 46 and np.min(np.abs(a[0])) >= 1e-6 * (1 - 1e-6)
    assert math.isclose(np.mean(a[0] < 0), 0.5, abs_tol=0.25)
