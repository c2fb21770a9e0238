"""``minims.numpy``: MindSpore's NumPy-like namespace, ``mindspore.numpy`` (``import minims.numpy as mnp``).

The core of it: creation (``array``, ``zeros``, ``arange``, ``linspace``, ``eye``, ``diag``, ``tril``,
``meshgrid`` ...), elementwise math (``add`` ... ``power``, ``exp``, ``log``, ``sqrt``, the
trigonometric and hyperbolic functions, ``clip``, ``where``, comparisons), reductions (``sum``,
``mean``, ``amax``, ``argmax``, ``std``, ``var``, ``average``, ``cumsum`` ...), shape manipulation
(``reshape``, ``transpose``, ``concatenate``, ``stack``, ``split``, ``tile``, ``repeat``, ``flip`` ...)
and products (``dot``, ``matmul``, ``tensordot``, ``outer``, ``inner``, ``kron``, ``norm`` ...).

Every function is a composition of ``minims.ops``, so it is differentiable and runs under ``grad``,
``jit`` and ``vmap`` with no rules of its own.  Results, dtypes and exceptions are MindSpore 2.10's
(recorded from the real MindSpore in ``tests/data/oracle_mnp_facts.json``); where MindSpore 2.10
returns a wrong or lower-precision result, minims keeps NumPy's (each case is listed in
``tests/test_mindspore_numpy.py``).

Where things are: ``array_creations``, ``math_ops`` (elementwise), ``logic_ops`` (comparisons,
``where``), ``reductions``, ``array_ops`` (shapes), ``products`` (``dot`` ... ``norm``), ``dtypes``.
A name MindSpore 2.10's ``mindspore.numpy`` has and minims lacks raises an AttributeError that says so.
"""
import difflib as _difflib

from . import array_creations, array_ops, dtypes, logic_ops, math_ops, products, reductions
from .array_creations import *  # noqa: F401,F403
from .array_ops import *  # noqa: F401,F403
from .dtypes import (NINF, PINF, bool_, float16, float32, float64, float_, inf, int8, int16, int32,  # noqa: F401
                     int64, int_, nan, numeric_types, pi, uint8)
from .products import *  # noqa: F401,F403
from .logic_ops import *  # noqa: F401,F403
from .math_ops import *  # noqa: F401,F403
from .reductions import *  # noqa: F401,F403
from .reductions import max, min, sum  # noqa: F401,A004 - mindspore.numpy's names

#: Names of MindSpore 2.10's ``mindspore.numpy`` that minims does not have (yet).
_MINDSPORE_ONLY = frozenset("""
apply_along_axis apply_over_axes arccos arcsin arctan arctan2 argwhere around array_str bartlett bincount
bitwise_and bitwise_not bitwise_or bitwise_xor blackman choose convolve copysign corrcoef correlate cov
cross diag_indices diagflat diff digitize divmod ediff1d fft gcd geomspace gradient hamming hanning
histogram histogram2d histogram_bin_edges histogramdd in1d indices interp intersect1d invert isin
isscalar ix_ lcm mgrid nancumsum nanmax nanmin nanstd nanvar ogrid pad piecewise polyadd polyder polyint
polymul polysub polyval promote_types rand randint randn ravel_multi_index result_type rint round
searchsorted select setdiff1d sometrue trapz tril_indices tril_indices_from triu_indices
triu_indices_from uint uint16 uint32 uint64 unique unravel_index unwrap vander
""".split())


def __getattr__(name):
    if name in _MINDSPORE_ONLY:
        raise AttributeError(
            f"mindspore.numpy.{name} exists in MindSpore 2.10 but not in minims.numpy, which has the core of "
            "the namespace (creation, elementwise math, reductions, shapes, products). Fix: write it with "
            "the functions minims.numpy has, or with minims.ops.")
    close = _difflib.get_close_matches(name, [n for n in globals() if not n.startswith("_")], n=1)
    hint = f" Did you mean mnp.{close[0]}?" if close else ""
    raise AttributeError(f"module 'minims.numpy' has no attribute '{name}' (nor has MindSpore 2.10's "
                         f"mindspore.numpy).{hint}")
