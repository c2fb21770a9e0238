"""``jacfwd`` ≡ ``jacrev`` ≡ SymPy's ``Matrix.jacobian``, and ``jacfwd(jacrev(f))`` ≡ ``sympy.hessian``.

Random programs from ``tests/programs.py``'s ``SYMBOLIC`` space (elementwise ops with broadcasting,
reductions, matmul, shapes, select, softmax, dense layers, integer inputs held constant; every
primitive has a SymPy rule) are run on SymPy symbols by the symbolic interpreter; SymPy's
``Matrix.jacobian`` of the flattened outputs with respect to the flattened float inputs, evaluated at
the point to 30 digits, is the reference for the Jacobian of every output with respect to every
float input (shape ``out.shape + in.shape``, MindSpore's structure: output first, then input), and
``sympy.hessian`` of a weighted sum of the first output for the four Hessians
``jacfwd(jacrev)``, ``jacrev(jacfwd)``, ``jacfwd(jacfwd)`` and ``jacrev(jacrev)``.

Each is computed in PyNative mode, inside ``minims.jit`` and in a Graph-mode Cell's ``construct``.
Points exactly on a kink (a Heaviside or Piecewise whose argument is 0 there: no derivative) are
discarded.  Bounded and deterministic by default; ``MINIMS_DEEP=1`` runs a long randomised search.
"""

import numpy as np
import pytest
import sympy
from hypothesis import assume, given
from hypothesis import strategies as st

import minims as ms
import minims.nn as nn
from minims import Tensor, ops
from minims.interpreters.symbolic import as_sympy_array
from minims.testing import leftover_state, symbolic_call, symbols_like
from search_budget import bounded
from programs import SYMBOLIC, programs

RTOL, ATOL = 1e-9, 1e-9
JACOBIANS = {"jacfwd": ops.jacfwd, "jacrev": ops.jacrev}
HESSIANS = {"jacfwd(jacrev)": (ops.jacfwd, ops.jacrev), "jacrev(jacfwd)": (ops.jacrev, ops.jacfwd),
            "jacfwd(jacfwd)": (ops.jacfwd, ops.jacfwd), "jacrev(jacrev)": (ops.jacrev, ops.jacrev)}


@pytest.fixture(autouse=True)
def clean():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert not leftover_state(), leftover_state()


# ----- SymPy references ------------------------------------------------------------------------------------
class OnAKink(Exception):
    """A SymPy derivative has no value at the point (a Heaviside, DiracDelta or Piecewise exactly at
    its switch)."""


def _sign_derivative(d):
    """SymPy differentiates ``sign(u)`` only for a symbol ``u``; for an expression it leaves
    ``Derivative(sign(u), x)``, which is ``2 DiracDelta(u) du/dx`` (0 wherever ``u != 0``)."""
    (u,), ((x, order),) = d.expr.args, d.variable_count
    if order != 1:
        raise OnAKink(f"{d}: a higher derivative of sign")
    return 2 * sympy.DiracDelta(u) * sympy.diff(u, x)


def number(expr, point):
    expr = sympy.sympify(expr)
    if expr.has(sympy.Derivative):
        expr = expr.replace(lambda e: isinstance(e, sympy.Derivative) and isinstance(e.expr, sympy.sign),
                            _sign_derivative)
    value = expr.xreplace(point).evalf(30)
    try:
        return float(value)
    except TypeError:
        raise OnAKink(str(expr)) from None


def symbolic_inputs(args, positions):
    syms = [symbols_like(f"a{i}", a.shape) if i in positions else a for i, a in enumerate(args)]
    point = {s: sympy.Float(float(v), 30) for i in positions for s, v in zip(syms[i].flat, args[i].asnumpy().flat)}
    return syms, point


def outputs_of(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def sympy_jacobians(fn, args, positions):
    """``J[k][j]``: Matrix.jacobian of output k with respect to float input ``positions[j]``, shaped
    ``out_k.shape + in.shape``."""
    syms, point = symbolic_inputs(args, positions)
    blocks = []
    for out in outputs_of(symbolic_call(fn, *syms)):
        arr = as_sympy_array(out)
        column = sympy.Matrix([e for e in arr.flat])
        row = []
        for p in positions:
            jac = column.jacobian(list(syms[p].flat))
            values = np.array([number(e, point) for e in jac], dtype=np.float64)
            row.append(values.reshape(arr.shape + syms[p].shape))
        blocks.append(row)
    return blocks


def sympy_hessian(fn, args, positions, weights):
    """``H[i][j]``: sympy.hessian of ``sum(weights * first output)``, blocks ``in_i.shape + in_j.shape``."""
    syms, point = symbolic_inputs(args, positions)
    first = as_sympy_array(outputs_of(symbolic_call(fn, *syms))[0])
    scalar = sympy.Add(*[sympy.Float(float(w), 30) * e for w, e in zip(weights.flat, first.flat)])
    variables = [s for p in positions for s in syms[p].flat]
    hess = np.array([number(e, point) for e in sympy.hessian(scalar, variables)]).reshape(len(variables), -1)
    sizes = np.cumsum([0] + [syms[p].size for p in positions])
    return [[hess[sizes[i]:sizes[i + 1], sizes[j]:sizes[j + 1]].reshape(syms[pi].shape + syms[pj].shape)
             for j, pj in enumerate(positions)] for i, pi in enumerate(positions)]


# ----- minims, in three modes ---------------------------------------------------------------------------
def as_blocks(result, n_outputs, n_inputs):
    """MindSpore's structure (a bare Tensor for one output and one input; output first) as a list of
    lists of arrays."""
    rows = [result] if n_outputs == 1 else list(result)
    return [[r.asnumpy()] if n_inputs == 1 else [b.asnumpy() for b in r] for r in rows]


class Transformed(nn.Cell):
    """A Cell whose construct calls a transform of ``fn``: compiled whole in Graph mode."""

    def __init__(self, transform):
        super().__init__()
        self.transform = transform

    def construct(self, *args):
        return self.transform(*args)


def in_every_mode(transform, args):
    """``transform(*args)`` in PyNative, inside ``jit`` and in a Graph-mode Cell."""
    results = {"pynative": transform(*args), "jit": ms.jit(lambda *a: transform(*a))(*args)}
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        results["graph"] = Transformed(transform)(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    return results


def compare(name, got_blocks, expected_blocks):
    for k, (got_row, exp_row) in enumerate(zip(got_blocks, expected_blocks, strict=True)):
        for j, (g, e) in enumerate(zip(got_row, exp_row, strict=True)):
            assert g.shape == e.shape, f"{name}: block [{k}][{j}] has shape {g.shape}, expected {e.shape}"
            np.testing.assert_allclose(g, e, rtol=RTOL, atol=ATOL, err_msg=f"{name}: block [{k}][{j}]")


def float64_args(args):
    return tuple(Tensor(np.asarray(a._data, np.float64)) if a.dtype.is_float else a for a in args)


# ----- random programs ---------------------------------------------------------------------------------------
@pytest.mark.slow
@bounded(60)
@given(case=programs(SYMBOLIC))
def test_jacobians_of_random_programs_match_sympy(case):
    program, args = case
    assume(not program.has("nosym"))
    args = float64_args(args)
    positions = tuple(i for i, a in enumerate(args) if a.dtype.is_float)
    try:
        expected = sympy_jacobians(program, args, positions)
    except OnAKink:
        assume(False)
    try:
        for name, jac in JACOBIANS.items():
            transform = jac(program, positions)
            for mode, result in in_every_mode(transform, args).items():
                compare(f"{name} in {mode}", as_blocks(result, len(expected), len(positions)), expected)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n\n{program.reproducer(args)}") from None


@pytest.mark.slow
@bounded(30)
@given(case=programs(SYMBOLIC), seed=st.integers(0, 2 ** 16))
def test_hessians_of_random_programs_match_sympy(case, seed):
    program, args = case
    assume(not program.has("nosym"))
    args = float64_args(args)
    positions = tuple(i for i, a in enumerate(args) if a.dtype.is_float)
    first = outputs_of(program(*args))[0]
    weights = np.random.default_rng(seed).standard_normal(first.shape)
    try:
        expected = sympy_hessian(program, args, positions, weights)
    except OnAKink:
        assume(False)

    def scalar(*a):
        return ops.sum(outputs_of(program(*a))[0] * Tensor(weights))
    try:
        for name, (outer, inner) in HESSIANS.items():
            transform = outer(inner(scalar, positions), positions)
            results = in_every_mode(transform, args) if name == "jacfwd(jacrev)" else {"pynative": transform(*args)}
            for mode, result in results.items():
                compare(f"{name} in {mode}", as_blocks(result, len(positions), len(positions)), expected)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\nweights {weights.tolist()}\n\n{program.reproducer(args)}") from None


# ----- by hand: matrix inputs, several outputs ------------------------------------------------------------
def test_jacobian_of_matrix_inputs_and_several_outputs_matches_sympy():
    """Two matrix inputs, three outputs of different ranks: blocks ``out.shape + in.shape``, output first."""
    rng = np.random.default_rng(8)
    a, b = Tensor(rng.standard_normal((2, 3))), Tensor(rng.uniform(0.5, 2.0, (3, 2)))

    def f(x, y):
        return ops.matmul(ops.tanh(x), y), ops.sum(x * x, 1) / ops.sum(y), ops.log(y)[0, 1] * x[1, 2]
    expected = sympy_jacobians(f, (a, b), (0, 1))
    for name, jac in JACOBIANS.items():
        for mode, result in in_every_mode(jac(f, (0, 1)), (a, b)).items():
            got = as_blocks(result, 3, 2)
            assert [[g.shape for g in row] for row in got] == [[(2, 2, 2, 3), (2, 2, 3, 2)], [(2, 2, 3), (2, 3, 2)],
                                                               [(2, 3), (3, 2)]]
            compare(f"{name} in {mode}", got, expected)


def test_hessian_of_a_softmax_cross_entropy_matches_sympy():
    """A scalar loss of a matrix: the Hessian is ``in.shape + in.shape``, symmetric, SymPy's."""
    rng = np.random.default_rng(9)
    z = Tensor(rng.standard_normal((2, 3)))
    labels = Tensor(np.array([[0.2, 0.5, 0.3], [0.0, 1.0, 0.0]]))

    def loss(x):
        return -ops.sum(labels * ops.log_softmax(x, -1))
    expected = sympy_hessian(loss, (z,), (0,), np.ones(()))[0][0]
    for name, (outer, inner) in HESSIANS.items():
        h = outer(inner(loss))(z).asnumpy()
        assert h.shape == (2, 3, 2, 3)
        np.testing.assert_allclose(h, expected, rtol=RTOL, atol=ATOL, err_msg=name)
        np.testing.assert_allclose(h.reshape(6, 6), h.reshape(6, 6).T, rtol=1e-12, atol=1e-14)
