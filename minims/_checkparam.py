"""``mindspore._checkparam``: MindSpore's argument validators, which its own tests and layers call
(issue 25; ``from mindspore import _checkparam as Validator``).

Each check returns the value when it is valid and otherwise raises MindSpore 2.10's exception type
with its message, word for word (checked on the oracle): ``check_positive_int(-1, 'k', 'Conv2d')``
raises ``ValueError: For 'Conv2d', the 'k' must be int and must > 0, but got '-1' with type 'int'.``
The module is private in MindSpore too, so it holds only the checks whose behaviour minims can give
exactly; any other of its names raises ``MissingNameError``.
"""
import math
import re

from .layout import missing_name

__all__ = []        # private, as in MindSpore: nothing for ``import *``


def _type_name(value):
    return type(value).__name__


def _subject(arg_name, prim_name):
    """How MindSpore's messages open: "For 'Conv2d', the 'k'", "The 'k'" or "The input value"."""
    name = f"the '{arg_name}'" if arg_name else "the input value"
    if prim_name:
        return f"For '{prim_name}', {name}"
    return name[0].upper() + name[1:]


def _is_exactly(value, kind):
    """``isinstance`` without bool counting as an int (MindSpore's checks refuse True as a number)."""
    return isinstance(value, kind) and not isinstance(value, bool)


def _is_check(kind):
    """A check that the value is a ``kind`` (not a bool) and, for a float, finite."""
    def check(arg_value, arg_name=None, prim_name=None):
        subject = _subject(arg_name, prim_name)
        if not _is_exactly(arg_value, kind):
            typed = subject.replace("the ", "the type of ", 1) if prim_name else f"The type of {subject[4:]}"
            raise TypeError(f"{typed} must be '{kind.__name__}', but got '{_type_name(arg_value)}'.")
        if not math.isfinite(arg_value):
            raise ValueError(f"{subject} must be a legal float, but got '{arg_value}'.")
        return arg_value
    check.__doc__ = f"The value if it is a finite {kind.__name__} (not a bool); TypeError or ValueError otherwise."
    return check


check_is_int = _is_check(int)
check_is_float = _is_check(float)


def check_bool(arg_value, arg_name=None, prim_name=None):
    """The value if it is a bool; TypeError otherwise (1 is not a bool)."""
    if not isinstance(arg_value, bool):
        raise TypeError(f"{_subject(arg_name, prim_name)} must be a bool, but got {_type_name(arg_value)}.")
    return arg_value


def _number_check(kind, relation, holds):
    """A check that the value is a ``kind`` (int or float) standing in ``relation`` to 0."""
    def check(arg_value, arg_name=None, prim_name=None):
        subject = _subject(arg_name, prim_name)
        if not isinstance(arg_value, kind):
            raise TypeError(f"{subject} must be {kind.__name__}, but got '{_type_name(arg_value)}'")
        if not math.isfinite(arg_value):
            raise ValueError(f"{subject} must be a legal value, but got '{arg_value}'.")
        if isinstance(arg_value, bool) or not holds(arg_value):   # a bool (an int to Python): TypeError
            raise (TypeError if isinstance(arg_value, bool) else ValueError)(
                f"{subject} must be {kind.__name__} and must {relation} 0, but got "
                f"'{arg_value}' with type '{_type_name(arg_value)}'.")
        return arg_value
    check.__doc__ = f"The value if it is a {kind.__name__} {relation} 0; TypeError or ValueError otherwise."
    return check


check_positive_int = _number_check(int, ">", lambda v: v > 0)
check_negative_int = _number_check(int, "<", lambda v: v < 0)
check_non_negative_int = _number_check(int, ">=", lambda v: v >= 0)
check_non_positive_int = _number_check(int, "<=", lambda v: v <= 0)
check_positive_float = _number_check(float, ">", lambda v: v > 0)
check_negative_float = _number_check(float, "<", lambda v: v < 0)
check_non_negative_float = _number_check(float, ">=", lambda v: v >= 0)
check_non_positive_float = _number_check(float, "<=", lambda v: v <= 0)


def check_str_by_regular(target, reg=None, flag=re.ASCII, prim_name=None):
    """True if ``target`` matches ``reg`` (by default: a word character, then letters, digits, _ and .)."""
    if reg is None:
        reg = r"^\w+[0-9a-zA-Z\_\.]*$"
    if re.match(reg, target, flag) is None:
        opening = f"For '{prim_name}', the" if prim_name else "The"
        raise ValueError(f"{opening} '{target}' is illegal, it must be match regular'{reg}' by flags'{flag}.'")
    return True


def check_input_format(input_param):
    """The data format if it is "NCHW", the only one MindSpore's CPU layers take; ValueError otherwise."""
    if input_param == "NCHW":
        return input_param
    raise ValueError(f"The data format must be NCHW, but got {input_param}.")


def _expand_tuple(n_dimensions):
    """A function turning an int into an ``n_dimensions``-tuple of it (a tuple of ints passes through)."""
    def convert(m):
        if not isinstance(m, tuple):
            if _is_exactly(m, int):
                return (m,) * n_dimensions
            raise TypeError("When expanding an int number to tuple, input type must be integer or tuple[int], "
                            f"but got {type(m)}")
        if len(m) != n_dimensions:
            raise TypeError(f"When expanding an int number to tuple, input tuple dimension must be {n_dimensions}, "
                            f"but got {m}")
        for element in m:
            if not _is_exactly(element, int):
                raise TypeError("When expanding an int number to tuple, the type of element in input tuple must "
                                f"be an integer, but got {type(element)}.")
        return m
    return convert


once, twice, triple = _expand_tuple(1), _expand_tuple(2), _expand_tuple(3)

__getattr__ = missing_name(__name__, "mindspore._checkparam")
