"""``mindspore.ops.functional`` (``F``): the functional operators (``minims.primitives.functional``, the
vocabulary the rules are written in) and, beside them, the functional transforms."""
from ..primitives.functional import *  # noqa: F401,F403
from ..transforms import derivative, jacfwd, jacrev, jet, jvp, linearize, vjp, vmap  # noqa: F401
