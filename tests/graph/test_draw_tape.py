"""The picture of a tape: every node's value and gradient, checked against SymPy; a stable PNG."""
import numpy as np
import pytest
import sympy

import minims.ops as ops
from minims import Tensor
from minims.graph import draw
from minims.graph.draw_tape import draw_tape, tape_values


def T(value):
    return Tensor(np.asarray(value, dtype=np.float64))


def f(x, y):
    return ops.sin(x * y) + x


def test_every_node_has_its_value_and_the_gradient_of_the_output_with_respect_to_it():
    x, y, u, s = sympy.symbols("x y u s", real=True)
    at = {x: 0.5, y: 2.0}
    rows = {r.name: r for r in tape_values(f, T(0.5), T(2.0), names=("x", "y"))}
    assert [(r.op, r.args) for r in rows.values()] == [
        ("input", []), ("input", []), ("Mul", ["x", "y"]), ("Sin", ["v1"]), ("Add", ["v2", "x"])]
    out = sympy.sin(x * y) + x
    expected = {                     # (value, d out / d node), from SymPy
        "x": (x, sympy.diff(out, x)), "y": (y, sympy.diff(out, y)),
        "v1": (x * y, sympy.diff(sympy.sin(u) + x, u).subs(u, x * y)),
        "v2": (sympy.sin(x * y), sympy.diff(s + x, s)),
        "v3": (out, sympy.Integer(1)),
    }
    for name, (value, grad) in expected.items():
        np.testing.assert_allclose(rows[name].value, float(value.subs(at)), rtol=1e-14)
        np.testing.assert_allclose(rows[name].grad, float(grad.subs(at)), rtol=1e-14)


def test_constants_and_nodes_that_do_not_reach_the_output():
    def g(x):
        unused = ops.exp(x)              # recorded, but the output does not use it  # noqa: F841
        return x * 2.0
    rows = tape_values(g, T([1.0, -1.0]))
    assert [(r.name, r.op, r.args) for r in rows] == [("x", "input", []), ("v1", "Exp", ["x"]),   # g's parameter
                                                      ("v2", "Mul", ["x", "2"])]
    assert rows[1].grad is None
    np.testing.assert_array_equal(rows[0].grad, [2.0, 2.0])


def test_the_picture_is_the_same_every_time():
    png = [draw._save(draw_tape(f, T(0.5), T(2.0), names=("x", "y")), "png", Software=None) for _ in range(2)]
    assert png[0] == png[1] and png[0][:8] == b"\x89PNG\r\n\x1a\n"


def test_an_output_that_does_not_depend_on_the_inputs_is_refused():
    with pytest.raises(ValueError, match="does not depend on its inputs"):
        draw_tape(lambda x: T(1.0), T(0.5))
