"""Issue 27, item 3 ("the checker teaches"): one test per feedback case.

The feedback is wrapped to about 100 columns and never breaks a word; a misuse of ``check`` (an
instance for the class, an unknown id, the answer and the id swapped, a function's result for the
function) is explained with a ``Fix:`` instead of failing inside the checker or as a bare KeyError;
the three rejections the issue found vague (1.3 an ``exp`` returning a float, 2.1 plain Tensors
instead of Parameters, 6.2 the PyTorch reading of ``grad_input``) get a diagnosis of their own; the
first run shows a hint and the worked answer comes only on request; "solved" says what the answer did.

Expected values come from closed forms stated in each docstring (the chain rule, the definition of a
Cell's trainable Parameters), or from MindSpore 2.10 run on the oracle where the docstring says so;
never from minims' own output.
"""
import io
import math
import re
from contextlib import redirect_stdout

import numpy as np
import pytest

from minims.testing.exercises import evaluate, exercises

import exercise_right_answers as right
import exercise_wrong_answers as wrong
from exercise_wrong_answers import WRONG
from test_exercises import SOLUTIONS, with_var_exp


def printed(fn, *args, **kwargs) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        fn(*args, **kwargs)
    return out.getvalue()


def all_feedback():
    """The feedback on every exercise's stub (None), solution and catalogued wrong answer."""
    for exercise_id in exercises():
        yield evaluate(exercise_id, None)
        yield evaluate(exercise_id, SOLUTIONS[exercise_id])
    for exercise_id, _, answer, _ in WRONG:
        yield evaluate(exercise_id, with_var_exp(answer) if exercise_id == "1.3" else answer)


# ----- layout ------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_feedback_is_wrapped_to_100_columns_between_words():
    """Item 3: the feedback was one long line, which JupyterLab breaks inside words.  What ``check``
    prints now has lines of at most 100 columns (a single token longer than that stays whole), made of
    the same words in the same order: the wrapping only moved line breaks."""
    feedbacks = list(all_feedback())     # evaluated once: checking every answer takes seconds
    texts = [str(feedback) for feedback in feedbacks]
    for feedback, text in zip(feedbacks, texts):
        for line in text.splitlines():
            assert len(line) <= 100 or " " not in line.strip(), line
        assert text.split() == feedback.text.split()
    assert any("\n    " in t for t in texts)                 # a continued line is indented
    assert max(len(feedback.text.splitlines()[0]) for feedback in feedbacks) > 100   # it had to wrap


def test_check_prints_the_wrapped_feedback():
    """Item 3: ``check`` prints ``str(feedback)``, the wrapped text, for the learner to read."""
    from minims.testing.exercises import check
    text = printed(check, "10.1", wrong.tanh_derivative_textbook)
    assert max(map(len, text.splitlines())) <= 100
    assert "Diagnosis: the formula is right, but" in text


# ----- misuse of check -----------------------------------------------------------------------------------
def test_an_instance_instead_of_the_class_is_explained():
    """Item 3: ``check("1.1", Softplus())`` reported "impl() missing 1 required positional argument" (the
    checker calling the instance).  The checker builds its own instances, so it needs the class: the
    feedback says so, names the class, and gives the corrected call."""
    feedback = evaluate("1.1", SOLUTIONS["1.1"]())
    assert feedback.status == "misused" and feedback.kind == "instance", feedback.text
    assert "asks for the class Softplus itself" in feedback.text
    assert 'Fix: check("1.1", Softplus)' in feedback.text
    assert "missing 1 required positional argument" not in feedback.text


def test_an_unknown_exercise_id_lists_the_valid_ids():
    """Item 3: ``check("1.4", ...)`` raised a bare ``KeyError: '1.4'``.  It now says there is no such
    exercise and lists every id there is, chapter by chapter, and how to write one."""
    from minims.testing.exercises import check
    text = printed(check, "1.4", SOLUTIONS["1.1"])
    assert "there is no exercise '1.4'" in text
    for exercise_id in exercises():
        assert re.search(rf"\b{re.escape(exercise_id)}\b", text), exercise_id
    assert "chapter 10: 10.1, 10.2" in text and 'Fix: give the number' in text
    assert evaluate("1.4", None).status == "misused"


def test_the_answer_given_where_the_id_goes_is_explained():
    """Item 3: ``check(Softplus, "1.1")`` (arguments swapped) is named as such, with the right order."""
    feedback = evaluate(SOLUTIONS["1.1"], "1.1")
    assert feedback.status == "misused" and "the exercise id comes first" in feedback.text
    assert 'Fix: check("1.1", Softplus)' in feedback.text


def test_a_functions_result_instead_of_the_function_is_explained():
    """Item 3: passing what the function returned (a Tensor) where the function is wanted is named, with
    the corrected call; so is a class where a function is wanted."""
    from minims import Tensor
    result = SOLUTIONS["5.2"](Tensor(np.array([[1.0, 2.0]])), Tensor(np.array([0], np.int32)))
    feedback = evaluate("5.2", result)
    assert feedback.status == "misused" and feedback.kind == "result", feedback.text
    assert "got a Tensor" in feedback.text and 'Fix: check("5.2", ce_grad)' in feedback.text
    assert evaluate("5.2", SOLUTIONS["1.1"]).kind == "class"


def test_every_exercise_says_what_kind_of_answer_it_takes():
    """Item 3: the misuse checks rely on each exercise's ``wants`` ("class Softplus", "function
    ce_grad"), which must agree with its model solution."""
    for exercise_id, ex in exercises().items():
        kind, name = ex.wants.split()
        assert kind == ("class" if isinstance(SOLUTIONS[exercise_id], type) else "function"), exercise_id
        assert name.isidentifier()


# ----- targeted diagnoses ---------------------------------------------------------------------------------
def test_an_exp_returning_a_float_is_diagnosed():
    """Item 3 (1.3): ``Var.exp`` returning ``math.exp(self.value)`` was rejected with "1 of 1 entries
    differ": the engine lifts the float into a Var without parents, so x.grad of exp(x y) + x is only
    dout (the '+ x' part, chain rule).  Now: a float, not a Var, and what to return."""
    feedback = evaluate("1.3", with_var_exp(wrong.var_exp_float))
    assert feedback.status == "wrong" and feedback.kind == "returned", feedback.text
    assert "your exp returns a float, not a Var" in feedback.text
    assert "entries differ" not in feedback.text
    assert f"float {math.exp(1.0)!r}" in feedback.text        # e^1, what it returned at x = 1


def test_plain_tensors_instead_of_parameters_are_diagnosed():
    """Item 3 (2.1): a Cell that keeps w and b as plain Tensors has no trainable Parameters (a Cell
    trains only Parameters; MindSpore 2.10 likewise lists none), so the feedback only said "expected
    ['b', 'w'], got []".  Now it names the two attributes and the fix."""
    feedback = evaluate("2.1", wrong.AffineTensors)
    assert feedback.status == "wrong" and feedback.kind == "parameters", feedback.text
    assert "self.b and self.w as plain Tensors" in feedback.text
    assert "Parameter(w, name='w')" in feedback.text


def test_the_pytorch_reading_of_grad_input_is_diagnosed():
    """Item 3 (6.2): halving ``grad_input`` is right in MindSpore 2.10 (oracle: the hook's grad_input
    has the shapes of the Cell's inputs there, and returning it halved halves the gradient) but not in
    minims, which follows the documentation page: grad_input is the gradient at the Cell's output.
    For tanh(3x) with the hook on the tanh, that answer gives 3 * dout / 2 (chain rule), which was
    rejected as "3 of 3 entries differ".  Now the diagnosis names the two conventions."""
    feedback = evaluate("6.2", wrong.halve_grad_input)
    assert feedback.status == "wrong" and feedback.kind == "convention", feedback.text
    assert "grad_input is the gradient arriving at the Cell's output" in feedback.text
    assert "MindSpore 2.10" in feedback.text and "PyTorch" in feedback.text
    assert "entries differ" not in feedback.text


# ----- hint first, answer on request ------------------------------------------------------------------------
def test_the_first_run_gives_a_hint_not_the_answer():
    """Item 3 (10.1): the hint printed the whole answer, tanh'(x) = 4u / (1 + u)**2, on the first run.
    The first run now says what to look at and how to ask for more; the formula is in the worked
    answer only."""
    text = str(evaluate("10.1", None))
    assert "not solved yet" in text and "Hint:" in text
    assert "4u" not in text and "(1 + u)" not in text
    assert 'hint("10.1", answer=True)' in text


def test_hint_repeats_the_hint_and_answer_true_shows_a_worked_answer():
    """Item 3: ``hint(id)`` prints the hint again; ``hint(id, answer=True)`` prints the explanation and
    the model solution's code, read from chapters/solutions/chNN.py (for 1.3 the chapter's
    ``var_exp``, which the module's SOLUTIONS dict does not list)."""
    from minims.testing.exercises import hint
    text = printed(hint, "10.1")
    assert "Hint:" in text and "4u" not in text
    worked = printed(hint, "10.1", answer=True)
    assert "4u / (1 + u)**2" in worked and "chapters/solutions/ch10.py" in worked
    assert "    def tanh_derivative(x):" in worked and "u = ops.exp(-2 * ops.abs(x))" in worked
    assert "    def var_exp(self):" in printed(hint, "1.3", answer=True)
    for exercise_id in exercises():           # every exercise has its worked answer's code
        assert "The model solution, from chapters/solutions/" in printed(hint, exercise_id, answer=True)
    assert "there is no exercise '1.4'" in printed(hint, "1.4")


# ----- solved: what the answer did -----------------------------------------------------------------------
def test_solved_says_which_primitives_the_answers_code_called():
    """Item 3: "solved" described the model solution.  It now lists the primitives the learner's code
    bound (not the checker's own): the solution's Softplus rule calls sigmoid and mul, a rule written as
    e^x / (1 + e^x) calls Exp and Div instead; the checker's ReduceSum (its weighting by dout) is not
    listed."""
    text = evaluate("1.1", SOLUTIONS["1.1"]).text
    assert "Your code called the minims primitives Sigmoid and Mul." in text
    other = evaluate("1.1", right.SoftplusExpRatio).text
    assert "Exp" in other and "Div" in other and "Sigmoid" not in other
    assert "ReduceSum" not in text and "ReduceSum" not in other


@pytest.mark.parametrize("exercise_id, answer, said", [
    ("1.3", None, "At x = 1 your exp made a Var of value 2.71828 with 1 parent (local derivative 2.71828"),
    ("2.1", right.AffineBiasFirst, "holds the trainable Parameters b [2] and w [3, 2]"),
    ("6.1", None, "came back as [-1.0, 1.0]"),
    ("6.2", None, "half of grad_output"),
    ("7.1", None, "one graph of 6 equations (1 Add, 1 Greater, 1 Less, 2 Select, 1 Sub)"),
    ("9.3", None, "inside vmap(grad(example_loss))"),
    ("10.2", None, "your ulp_error gave 1, 0.5, 0.5"),
], ids=["1.3", "2.1", "6.1", "6.2", "7.1", "9.3", "10.2"])
def test_solved_measures_what_the_answer_did(exercise_id, answer, said):
    """Item 3: the "solved" texts that described the model solution now measure the answer: the Var its
    exp made (e^1 = 2.71828, closed form), its Parameters as it ordered them, what the hook returned for
    the gradients outside [-1, 1] (clipping gives ±1), which tuple the hook halved, the graph jit made
    (select(x > 1, x - 1, select(x < -1, x + 1, 0)): one Greater, Less, Sub, Add, two Selects), the
    transforms around example_loss, and the errors on the chapter's cases (1 + 2**-52 is 1 ULP from 1;
    1 - 2**-53 and -1 + 2**-53 are half a ULP of 1: the definition)."""
    feedback = evaluate(exercise_id, SOLUTIONS[exercise_id] if answer is None else answer)
    assert feedback.status == "solved", feedback.text
    assert said in feedback.text
