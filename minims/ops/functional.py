"""``mindspore.ops.functional`` (``F``): the functional operators (``minims.primitives.functional``, the
vocabulary the rules are written in) and, beside them, the functional transforms."""
from ..primitives.functional import *  # noqa: F401,F403
from ..transforms import derivative, jacfwd, jacrev, jet, jvp, linearize, vjp, vmap  # noqa: F401
from ..autodiff.grad_api import get_grad, grad, value_and_grad  # noqa: F401 - F.grad, as MindSpore
from ..layout import missing_name

__getattr__ = missing_name(__name__, "mindspore.ops.functional")     # says what minims lacks
