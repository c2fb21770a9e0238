"""Solutions of chapter 06's exercises (hooks)."""
import minims.ops as ops


def clip_hook(grad):
    """6.1: the gradient arriving at the hook, clipped to [-1, 1]."""
    return (ops.minimum(ops.maximum(grad[0], -1.0), 1.0),)


def halve(cell_id, grad_input, grad_output):
    """6.2: replace the gradients for the Cell's inputs by half of them."""
    return tuple(g * 0.5 for g in grad_output)


SOLUTIONS = {"6.1": clip_hook, "6.2": halve}
