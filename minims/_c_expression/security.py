"""``mindspore._c_expression.security``: whether MindSpore was built in security mode."""

__all__ = ["enable_security"]


def enable_security():
    """False: minims has no security build (MindSpore's turns off graph dumps and printing)."""
    return False
