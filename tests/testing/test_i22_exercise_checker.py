"""Issue 22, items 19 and 20: the exercise checker never passes a wrong answer nor fails a right one.

Item 19: a check at one point, with one value of a layer's constant, over a narrow range, lets wrong
answers through (a weight gradient that ignores ``dout``, a LeakyReLU with alpha written in, a rule
right only near 0).  Item 20: right answers were refused (Parameters assigned in another order, an SGD
step through ``TrainOneStepCell``, where the checker's own ``KeyError`` was blamed on the learner), and
two "solved" texts described the model solution instead of the answer.

The expected values are the checker's references, which come from SymPy (``sympy.diff`` of the
exercise's formula, evaluated with 30 digits) or mpmath, never from minims' rules; where a test states
a number it is a closed form, said in its docstring.  The catalogues: ``exercise_wrong_answers.WRONG``
(every wrong answer refused, with its diagnosis) and ``exercise_right_answers.RIGHT`` (answers written
otherwise than the model solutions, every one accepted).
"""
import operator

import numpy as np
import pytest

import minims.ops as ops
from minims.testing.exercises import Exercise, evaluate, exercises
from minims.testing.exercises import chapter02
from minims.testing.exercises.measure import where

import exercise_right_answers as right
import exercise_wrong_answers as wrong
from exercise_right_answers import RIGHT
from test_exercises import SOLUTIONS, with_var_exp


def refused(exercise_id, answer, kind):
    feedback = evaluate(exercise_id, answer)
    assert feedback.status == "wrong", feedback.text
    assert feedback.kind == kind, feedback.text
    return feedback


def accepted(exercise_id, answer):
    feedback = evaluate(exercise_id, answer)
    assert feedback.status == "solved", feedback.text
    return feedback


# ----- item 19: wrong answers passed -------------------------------------------------------------------
def test_a_weight_gradient_that_ignores_dout_is_refused():
    """Item 19 (3.2): the gradient of <dout, w x> for w (shape [1]) is sum(x * dout) (closed form);
    ``sum(x)`` equals it only when sum(x (dout - 1)) = 0, which the one point and the old dout levels
    happened to give (x = [0.5, -1, 2], dout = [1.5, 0.75, 0.75]).  Refused, diagnosed 'dout ignored'."""
    feedback = refused("3.2", wrong.ScaleWeightNoDout, "dout")
    assert "the gradient for w (order 1)" in feedback.text


def test_a_leaky_relu_that_hard_codes_alpha_is_refused():
    """Item 19 (3.1): only LeakyReLU(0.1) was ever built, so ``0.1 * x`` written into construct
    passed.  Now alpha varies; the value at an alpha other than 0.1 is refused, and the diagnosis says
    the answer gives what alpha = 0.1 gives (SymPy's Piecewise at both alphas)."""
    feedback = refused("3.1", wrong.LeakyReLUAlphaWrittenIn, "setting")
    assert "alpha = 0.1 gives" in feedback.text


def test_a_softplus_rule_right_only_near_zero_is_refused():
    """Item 19 (1.1): the points stopped at x = 2.5, so a bprop that takes sigmoid(x) as 1 beyond
    x = 3 passed.  sigmoid(3) = 0.9526 (closed form), not 1: refused now that the points reach |x| = 10."""
    refused("1.1", wrong.SoftplusSaturatesEarly, "values")
    refused("9.1", wrong.SoftplusJvpSaturatesEarly, "values")


@pytest.mark.parametrize("exercise_id, answer, kind", [
    ("2.2", wrong._sgd(wrong._lr_written_in), "factor"),
    ("5.2", wrong.ce_grad_four_examples, "factor"),
    ("9.3", wrong.per_example_four, "error"),
    ("10.1", wrong.tanh_derivative_no_abs, "digits"),
], ids=["2.2-lr 0.1 written in", "5.2-N = 4 written in", "9.3-a batch of 4 written in", "10.1-no abs"])
def test_a_constant_of_the_one_example_written_in_is_refused(exercise_id, answer, kind):
    """Item 19, the audit: exercises checked with one learning rate (2.2), one batch size (5.2, 9.3)
    or over |x| <= 20 only (10.1) let an answer pass that wrote that constant in, or that overflows
    further out (tanh'(-220) = 1.4e-191, closed form 4 e^-440; (1 + e^440)**2 overflows to inf)."""
    refused(exercise_id, answer, kind)


def test_every_exercise_is_checked_at_several_points_with_a_new_dout_at_each():
    """Item 19, the audit of chapters 01-10: every exercise is checked at three points or more (drawn
    at random, seeded), and a derivative exercise uses a different random dout (or tangent) at each
    point, never one of all ones or all equal entries."""
    for exercise_id, ex in exercises().items():
        quantities = ex.expected()
        points = {q.at for q in quantities if q.at}
        if exercise_id == "10.2":       # one vector of cases (c, t), each a point of its own
            points = quantities[0].at.split("), (")
        assert len(points) >= 3, (exercise_id, points)
        douts = {q.at: q.sens for q in quantities
                 if q.kind in ("gradient", "tangent") and q.order == 1 and q.sens is not None}
        assert len({d.tobytes() + bytes(str(d.shape), "ascii") for d in douts.values()}) == len(douts), exercise_id
        for d in douts.values():
            assert not np.all(np.abs(d) == 1) and (d.size == 1 or len(np.unique(d)) > 1), (exercise_id, d)


@pytest.mark.slow
def test_the_points_are_the_same_on_every_run():
    """Item 19: random points, but seeded by the exercise, so that the feedback can be reproduced:
    another Python process (another hash seed) draws the same points and douts as this one."""
    import os
    import subprocess
    import sys
    some = ("1.1", "3.1", "5.2", "9.3", "10.2")
    code = ("from minims.testing.exercises import exercises\n"
            f"print([(q.at, repr(q.sens)) for i in {some!r} for q in exercises()[i].expected()])")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    there = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    here = [(q.at, repr(q.sens)) for i in some for q in exercises()[i].expected()]
    assert there.stdout.strip() == repr(here)


# ----- item 20: right answers refused ------------------------------------------------------------------
def test_parameters_may_be_assigned_in_any_order():
    """Item 20 (2.1): ``self.b`` assigned before ``self.w``: trainable_params() lists ['b', 'w'] (as
    MindSpore 2.10 does: the assignment order), and the names were compared as an ordered list."""
    accepted("2.1", right.AffineBiasFirst)


def test_an_sgd_step_through_train_one_step_cell_is_accepted():
    """Item 20 (2.2): ``TrainOneStepCell(loss_cell, SGD(...))`` renames the Dense's Parameters
    'net.weight' (MindSpore 2.10 does too: 'n.weight' for an attribute n), and the checker looked the
    Parameters up by their names after the step: its own KeyError, reported as the learner's."""
    accepted("2.2", right.sgd_train_one_step)


def test_the_checkers_own_failure_is_never_blamed_on_the_answer(monkeypatch):
    """Item 20, the shared mechanism: every exception raised while checking was reported as "Your code
    raised ...".  Here the checker's bookkeeping after a right SGD step raises KeyError 'n.weight', as
    the old lookup by name did; the feedback must say the checker failed, and where."""
    monkeypatch.setattr(chapter02, "where", operator.itemgetter("n.weight"))
    feedback = evaluate("2.2", SOLUTIONS["2.2"])
    assert feedback.status == "checker failed", feedback.text
    assert "not right yet" not in feedback.text and "Your code" not in feedback.text
    assert "KeyError: 'n.weight'" in feedback.text and "chapter02.py" in feedback.text
    assert "Fix:" in feedback.text

    bare = Exercise("t.1", "a checker that fails on its own", "", run=where, expect=lambda: [])
    feedback = evaluate(bare, 42)                    # where(42): AttributeError inside measure.py
    assert feedback.status == "checker failed", feedback.text


def test_the_answers_own_failure_is_still_the_answers():
    """Item 20: the other side of the mechanism: an error raised in the learner's code, a refusal by
    minims of what it returned, and a result that is not a number stay "not right yet"."""
    class SoftplusTypo(wrong.ch01.Softplus):
        def bprop(self, x, out, dout):
            return (dout * ops.sigmod(x),)           # noqa: the typo is the point
    assert evaluate("1.1", SoftplusTypo).status == "wrong"
    assert evaluate("1.1", wrong.SoftplusBare).kind == "tuple"          # minims refused a bare Tensor
    assert evaluate("10.1", lambda x: "4u / (1 + u)**2").kind == "returned"


def test_the_hvp_solved_text_says_what_the_answer_did():
    """Item 20 (9.2): "No Hessian was built: one jvp of one grad" was printed for every right answer.
    It now names the transforms the answer nested around f (outermost first, the chapter's names for
    the four compositions) and whether it made an array of n x n entries (the Hessian's size)."""
    text = accepted("9.2", SOLUTIONS["9.2"]).text
    assert "jvp(grad(f)) (forward over reverse)" in text and "no array as large as" in text
    text = accepted("9.2", right.hvp_reverse_over_reverse).text
    assert "grad(grad(f)) (reverse over reverse)" in text and "jvp of one grad" not in text
    text = accepted("9.2", right.hvp_hessian_matrix).text
    assert "vmap(jvp(grad(f)))" in text and "as large as the Hessian" in text


def test_the_newton_solved_text_says_what_the_answer_did():
    """Item 20 (7.2): "The unrolled iteration converges" was printed even for ``ops.sqrt(a)``.  It now
    describes the graph jit made of the answer: 30 Newton steps x <- (x + a/x)/2 are 30 Add and 60 Div
    (a/x and the halving; counted from the solution's code), ops.sqrt one Sqrt."""
    text = accepted("7.2", SOLUTIONS["7.2"]).text
    assert "one graph of 90 equations (30 Add, 60 Div)" in text
    text = accepted("7.2", right.newton_sqrt_op).text
    assert "one graph of 1 equation (1 Sqrt)" in text and "unrolled" not in text


@pytest.mark.parametrize("exercise_id, what, answer", RIGHT, ids=[f"{r[0]}-{r[1]}" for r in RIGHT])
def test_a_right_answer_written_otherwise_is_accepted(exercise_id, what, answer):
    """Item 20: right answers that differ from the model solutions (another op, another order,
    another API, another composition of transforms) are accepted."""
    accepted(exercise_id, with_var_exp(answer) if exercise_id == "1.3" else answer)
