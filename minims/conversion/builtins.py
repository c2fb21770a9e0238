"""Python built-ins that MindSpore's graph mode gives a meaning of its own, and their rewrite.

In a function MindSpore 2.10 compiles from source (``jit``, a Graph-mode ``construct``):

* ``print(a, b, ...)`` is its ``Print`` operator: it runs **every time the graph runs**, not once while
  the function is traced, and prints each argument on its own line — a Tensor with its value, a
  Python value as the graph holds it (``True`` as ``1``, ``2.5`` as C's ``%g``, a list or tuple of
  numbers as ``(1, 2)``, one with strings or nesting flattened, a dict as its values).  It takes no
  ``sep``/``end``/``file`` (MindSpore raises RuntimeError: "Got an unexpected keyword argument");
* a dict's ``keys()`` and ``values()`` are tuples, ``items()`` a list of pairs, and ``has_key(k)``
  exists (``k in d``).

``rewrite_builtins(fn)`` turns such calls into ``ms_print(print, ...)`` and ``ms_method(obj, 'keys')``;
what they do is decided when they run (``runtime.py``): a ``print`` the function rebinds, or a
``keys`` of an object that is not a dict, is called as written.
"""
from __future__ import annotations

import ast

__all__ = ["rewrite_builtins", "DICT_METHODS"]

#: dict methods whose graph-mode meaning differs from Python's
DICT_METHODS = ("keys", "values", "items", "has_key")


class _Builtins(ast.NodeTransformer):
    def __init__(self):
        self.count = 0

    def visit_FunctionDef(self, node):      # a nested def is rewritten on its own (rewrite.py)
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Call(self, node):
        self.generic_visit(node)
        fn = node.func
        if isinstance(fn, ast.Name) and fn.id == "print":
            args = [fn] + node.args
            name = "ms_print"
        elif isinstance(fn, ast.Attribute) and fn.attr in DICT_METHODS:
            args = [fn.value, ast.Constant(fn.attr)] + node.args
            name = "ms_method"
        else:
            return node
        self.count += 1
        return ast.copy_location(ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=args,
                                          keywords=node.keywords), node)


def rewrite_builtins(fn: ast.FunctionDef) -> int:
    """Rewrite the ``print`` and dict-method calls of ``fn``'s own body in place; how many."""
    rewriter = _Builtins()
    fn.body = [rewriter.visit(s) for s in fn.body]
    return rewriter.count
