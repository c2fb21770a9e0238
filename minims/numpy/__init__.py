"""``minims.numpy``: MindSpore's NumPy-like namespace, ``mindspore.numpy`` (``import minims.numpy as mnp``).

Creation (``array``, ``zeros``, ``arange``, ``linspace``, ``eye``, ``diag``, ``tril``, ``meshgrid``
...), elementwise math (``add`` ... ``power``, ``exp``, ``log``, ``sqrt``, the trigonometric and
hyperbolic functions, ``clip``, ``where``, comparisons, ``rint``), reductions (``sum``, ``mean``,
``amax``, ``argmax``, ``std``, ``var``, ``average``, ``cumsum``, the ``nan...`` ones), shape
manipulation (``reshape``, ``transpose``, ``concatenate``, ``stack``, ``split``, ``tile``, ``repeat``,
``flip``, ``take`` ...), products (``dot``, ``matmul``, ``tensordot``, ``outer``, ``inner``, ``kron``,
``norm`` ...) and numerical methods (``diff``, ``trapz``, ``cross``, ``convolve``, polynomials,
``cov``, ``gradient``, ``interp``, ``pad``) and random arrays (``randn``, ``rand``, ``randint``).  What MindSpore 2.10 has beyond that — the inverse
trigonometric functions, bitwise and integer functions (``gcd``), histograms, set operations whose
result's shape depends on the values (``unique``), ``fft`` — is listed in
``_MINDSPORE_ONLY``.

Every function is a composition of ``minims.ops``, so it is differentiable and runs under ``grad``,
``jit`` and ``vmap`` with no rules of its own.  Results, dtypes and exceptions are MindSpore 2.10's
(recorded from the real MindSpore in ``tests/data/oracle_mnp_facts.json``); where MindSpore 2.10
returns a wrong or lower-precision result, minims keeps NumPy's (each case is listed in
``tests/numpy/test_mindspore_numpy.py``).

Where things are: ``array_creations``, ``math_ops`` (elementwise), ``logic_ops`` (comparisons,
``where``), ``reductions``, ``array_ops`` (shapes), ``products`` (``dot`` ... ``norm``), ``numerical``,
``dtypes``, ``random_arrays``.
A name MindSpore 2.10's ``mindspore.numpy`` has and minims lacks raises an AttributeError that says so.
"""
import difflib as _difflib

from . import array_creations, array_ops, dtypes, logic_ops, math_ops, numerical, products, reductions
from .array_creations import *  # noqa: F401,F403
from .array_ops import *  # noqa: F401,F403
from .dtypes import (NINF, PINF, bool_, float16, float32, float64, float_, inf, int8, int16, int32,  # noqa: F401
                     int64, int_, nan, numeric_types, pi, promote_types, result_type, uint8)
from .products import *  # noqa: F401,F403
from .logic_ops import *  # noqa: F401,F403
from .math_ops import *  # noqa: F401,F403
from .numerical import *  # noqa: F401,F403
from .reductions import *  # noqa: F401,F403
from .random_arrays import rand, randint, randn  # noqa: F401

#: Names of MindSpore 2.10's ``mindspore.numpy`` that minims does not have (yet).
_MINDSPORE_ONLY = frozenset("""
arccos arcsin arctan arctan2 argwhere bincount bitwise_and bitwise_not bitwise_or bitwise_xor fft gcd
histogram histogram2d histogram_bin_edges histogramdd intersect1d invert lcm setdiff1d
uint uint16 uint32 uint64 unique
""".split())


def __getattr__(name):
    if name in ("uint", "uint16", "uint32", "uint64"):
        raise AttributeError(
            f"mindspore.numpy.{name} exists in MindSpore 2.10, but minims has no unsigned integer type "
            "other than uint8. Fix: mnp.int64 holds every uint32 value (or mnp.uint8 for bytes).")
    if name in _MINDSPORE_ONLY:
        raise AttributeError(
            f"mindspore.numpy.{name} exists in MindSpore 2.10 but not in minims.numpy, which has the core of "
            "the namespace. Fix: write it with the functions minims.numpy has, or with minims.ops.")
    close = _difflib.get_close_matches(name, [n for n in globals() if not n.startswith("_")], n=1)
    hint = f" Did you mean mnp.{close[0]}?" if close else ""
    raise AttributeError(f"module 'minims.numpy' has no attribute '{name}' (nor has MindSpore 2.10's "
                         f"mindspore.numpy).{hint}")
