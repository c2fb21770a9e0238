"""Source conversion, MindSpore's route (issue 24 item 3): ``jit`` functions and Graph-mode ``construct``s
rewritten so that ``if``/``while`` on Tensors become ``Cond``/``While`` in one graph for every input.

MindSpore's default ``jit(capture_mode="ast")`` parses the function's source; so does this package,
the first time a function is compiled (the rewrite is kept per code object):

1. the source comes from ``inspect.getsource`` (a notebook cell's too: IPython registers each cell
   in ``linecache``); decorators are dropped;
2. ``rewrite.py`` rewrites the statements into calls of ``runtime.py``'s ``ms_cond``/``ms_while``
   over small functions per branch, which decide per call whether the condition is a Python value
   (plain Python) or a Tensor being staged (a ``Cond``/``While``); ``builtins.py`` gives ``print`` and a
   dict's ``keys``/``values``/``items``/``has_key`` their graph-mode meaning (``print`` is a run-time
   ``Print``, as in MindSpore);
3. the new function is compiled with the original's file name and line numbers (errors point at
   the user's lines) and made with the original's globals dict (read live), default arguments and
   closure cells (matched by name; ``super()`` gets the ``__class__`` cell and ``self``).

A function with no source (a lambda, code made by ``exec`` without ``linecache``, a builtin), a
generator, or nothing to convert runs as it is; ``converted_source(fn)`` says which.  Only the
compiled function and the ``construct`` of each Cell it calls are converted, not other functions
they call (an ``if`` on a Tensor there compiles guarded variants: correct values, more graphs).

``converted_source(fn)`` — also ``f.converted_source()`` on a ``jit`` function, and
``minims.converted_source(net.construct)`` for a Graph-mode Cell — shows the rewritten source.
"""
from __future__ import annotations

import ast
import functools
import inspect
import textwrap
import types

from ..graph import conversion
from ..graph.jit import JitFunction
from .rewrite import rewrite
from .runtime import RUNTIME, Undefined

__all__ = ["converted_source", "convert"]

_FACTORY = "ms_factory"
# id(code object) -> (code object, _Conversion): by identity, as two code objects compiled from the
# same text in two places compare equal (the code object is held, so its id is not reused)
_cache: dict = {}


class _Conversion:
    """One code object's rewrite: the new code (None: run the original), its source, and notes."""

    def __init__(self, code=None, source="", notes=()):
        self.code, self.source, self.notes = code, source, list(notes)


def _function_of(fn):
    """The plain function under ``fn`` (a bound method's, a ``jit`` function's), or None."""
    fn = fn.fn if isinstance(fn, JitFunction) else getattr(fn, "__func__", fn)
    return fn if isinstance(fn, types.FunctionType) else None


def _why_not(fn, code) -> str | None:
    if code.co_name == "<lambda>":
        return "a lambda (its source is part of another statement)"
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        return "a generator or coroutine"
    return None


def _parse(fn, code):
    """The function's ``def`` as an ``ast`` node, with the lines of its file; or a reason string."""
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as exc:
        return f"its source is not available ({exc}; e.g. code made by exec without linecache)"
    tree = ast.parse(textwrap.dedent("".join(lines)))
    ast.increment_lineno(tree, max(first, 1) - 1)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == code.co_name:
            return node
    return "its source does not start with its def"


def _conversion(fn) -> _Conversion:
    code = fn.__code__
    held = _cache.get(id(code))
    if held is not None and held[0] is code:
        return held[1]
    why = _why_not(fn, code)
    node = _parse(fn, code) if why is None else why
    if isinstance(node, str):
        found = _Conversion(source=f"# {fn.__qualname__} is not converted: {node}.")
    else:
        converted, notes = rewrite(node)
        source = ast.unparse(node)
        if not converted:
            found = _Conversion(source=source, notes=notes + ["nothing to convert (no if, while, conditional "
                                                              "expression, print or dict method): the function "
                                                              "runs as written"])
        else:
            found = _Conversion(_compile(node, code, _owner(fn)), source, notes)
    _cache[id(code)] = (code, found)
    return found


def _compile(node: ast.FunctionDef, code, owner=None):
    """The code object of the rewritten ``node``, compiled inside a factory whose parameters are the
    original's free variables and the runtime's names (so they become closure cells, not globals)."""
    params = list(code.co_freevars) + [n for n in RUNTIME if n not in code.co_freevars]
    factory = ast.FunctionDef(name=_FACTORY, args=ast.arguments(
        posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None, kwonlyargs=[], kw_defaults=[],
        kwarg=None, defaults=[]), body=[node, ast.Return(value=ast.Name(id=node.name, ctx=ast.Load()))],
        decorator_list=[], returns=None)
    if "type_params" in ast.FunctionDef._fields:
        factory.type_params = []
    ast.copy_location(factory, node)
    top = factory
    if owner is not None:
        # inside a class statement of the original's class name, so that private names (self.__w)
        # are mangled as in the original
        top = ast.copy_location(ast.ClassDef(name=owner, bases=[], keywords=[], body=[factory], decorator_list=[]),
                                node)
        if "type_params" in ast.ClassDef._fields:
            top.type_params = []
    module = ast.fix_missing_locations(ast.Module(body=[top], type_ignores=[]))
    compiled = compile(module, code.co_filename, "exec")
    for name in ([owner] if owner is not None else []) + [_FACTORY, node.name]:
        compiled = next(c for c in compiled.co_consts if isinstance(c, types.CodeType) and c.co_name == name)
    return compiled


def _owner(fn):
    """The name of the class ``fn`` is defined in (its private names are mangled with it), or None."""
    parts = fn.__qualname__.split(".")
    return parts[-2] if len(parts) > 1 and parts[-2] != "<locals>" else None


def _instantiate(conv: _Conversion, fn):
    """The converted function: the new code with ``fn``'s globals, defaults and closure cells."""
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    closure = tuple(cells[n] if n in cells else types.CellType(RUNTIME[n]) for n in conv.code.co_freevars)
    new = types.FunctionType(conv.code, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__, new.__module__ = fn.__qualname__, fn.__module__
    return new


def _unassigned(value):
    """The first ``Undefined`` in ``value`` (a result, through tuples, lists and dicts), or None."""
    if isinstance(value, Undefined):
        return value
    items = value.values() if isinstance(value, dict) else value if isinstance(value, (tuple, list)) else ()
    return next((u for u in map(_unassigned, items) if u is not None), None)


def _refusing_unassigned(new):
    """``new``, raising where it would return a variable no path assigned (a converted ``if`` assigns it
    in one branch only): Python's UnboundLocalError, never the placeholder as a value."""
    @functools.wraps(new)
    def converted(*args, **kwargs):
        out = new(*args, **kwargs)
        unset = _unassigned(out)
        if unset is not None:
            unset._refuse()
        return out
    return converted


def convert(fn):
    """``fn`` with its ``if``/``while`` on Tensors converted; ``fn`` itself where nothing is.  A gradient
    function (``ops.grad(f)``) is made again over ``f`` converted: a wrapper that says how
    (``fn.minims_rewrap = (f, make)``, ``make(g)`` the same wrapper over ``g``) is converted through,
    as MindSpore parses the functions a compiled function calls.  (A ``jit`` function inside converts
    when it traces.)"""
    rewrap = getattr(fn, "minims_rewrap", None)
    if rewrap is not None:
        inner, make = rewrap
        new_inner = convert(inner) if not isinstance(inner, JitFunction) else inner
        return fn if new_inner is inner else make(new_inner)
    plain = _function_of(fn)
    if plain is None:
        return fn
    conv = _conversion(plain)
    if conv.code is None:
        return fn
    new = _refusing_unassigned(_instantiate(conv, plain))
    return types.MethodType(new, fn.__self__) if inspect.ismethod(fn) else new


def converted_source(fn) -> str:
    """The rewritten source of ``fn`` (a function, a ``jit`` function, a Cell's ``construct``), with
    notes on what stays Python; or a comment saying why it is not converted."""
    plain = _function_of(fn)
    if plain is None:
        return f"# {fn!r} is not converted: it is not a Python function (no source to rewrite)."
    why = _why_not(plain, plain.__code__)
    if why is not None:
        return f"# {plain.__qualname__} is not converted: {why}."
    conv = _conversion(plain)
    notes = "".join(f"\n# {note}" for note in conv.notes)
    return conv.source + notes


class _Converter:
    convert = staticmethod(convert)
    source = staticmethod(converted_source)


conversion.register(_Converter())
