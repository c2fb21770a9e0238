"""Solutions of chapter 07's exercises (Graph mode)."""
import minims.ops as ops


def soft_threshold(x):
    """7.1: x - 1 above 1, x + 1 below -1, 0 between; both branches computed, select picks."""
    return ops.select(x > 1, x - 1, ops.select(x < -1, x + 1, ops.zeros_like(x)))


def newton_sqrt(a):
    """7.2: Newton's iteration for sqrt(a), a fixed number of steps (unrolled while tracing)."""
    x = a
    for _ in range(30):
        x = (x + a / x) / 2
    return x


SOLUTIONS = {"7.1": soft_threshold, "7.2": newton_sqrt}
