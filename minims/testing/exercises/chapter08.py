"""Exercises of chapter 08 (common mistakes): fix the code of two catalogue entries.

8.1  a bprop that reads a Parameter (refused): declare it in ``internal_params`` and return its gradient;
8.2  a matrix product of float32 and float64 (refused): cast, and keep the float32 result.
"""
from __future__ import annotations

from ... import dtype as mstype
from ...core.tensor import Tensor
from .declare import Box, cell_of, derivative_exercise, drawn
from ... import ops


INTERNAL_PARAMS = derivative_exercise(
    "8.1", "a bprop that needs its Parameter",
    "chapter 03 shows the attribute that lets a bprop use a Parameter, and what the bprop "
    "returns then.",
    build=cell_of("w"),
    formula=lambda x, w: x * w,
    points=[{"x": [1.0, -2.0, 0.5], "w": [0.5, 1.5, -1.0]},
            *drawn("8.1", 2, x=Box((3,), -2.0, 2.0), w=Box((3,), -2.0, 2.0))],
    orders=(0, 1), params=("w",), wants="class ScaleW",
    worked="Declare the Parameter: self.internal_params = [self.w]. The bprop may then read self.w, and "
           "returns a pair: the input gradients and a dict with w's gradient, "
           "((dout * self.w,), {self.w: dout * x}).")


def _predict_dtype(predict):
    x = Tensor([[1.0, 2.0]], mstype.float32)
    return str(predict(x, Tensor([[0.5], [-1.0]], mstype.float64)).dtype)


DTYPES = derivative_exercise(
    "8.2", "one dtype per matrix product",
    "Tensor.astype converts a Tensor; which of the two should change so that the result is "
    "float32?",
    build=lambda predict, point: (lambda x, w: predict(x.astype(mstype.float32), w)),
    formula=lambda x, w: ops.matmul(x, w),
    # multiples of 1/4: float32 computes these products exactly, so only a wrong answer can differ
    points=[{"x": [[1.0, 2.0], [3.0, -1.0]], "w": [[0.5, -1.0], [2.0, 0.25]]},
            *drawn("8.2", 2, x=Box((3, 2), -3.0, 3.0, step=0.25), w=Box((2, 2), -2.0, 2.0, step=0.25))],
    orders=(0, 1),
    facts=[("the dtype of predict(float32 x, float64 w)", _predict_dtype, "Float32")],
    wants="function predict",
    worked="Cast the float64 weight to the input's dtype, so that the product is float32: "
           "ops.matmul(x, w.astype(x.dtype)).")

EXERCISES = (INTERNAL_PARAMS, DTYPES)
