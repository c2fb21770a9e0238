"""The ``ast`` rewrite: ``if``/``while``/conditional expressions into calls of ``ms_cond``/``ms_while``.

``rewrite(function_def)`` changes a parsed function in place, one statement at a time:

* ``if test: A else: B`` becomes two small functions, ``if_true_N`` and ``if_false_N``, taking and
  returning the variables the statement assigns that are used afterwards (or read before they are
  written inside it), and ``(x, y) = ms_cond(test, if_true_N, if_false_N, (x, y), ('x', 'y'))``.
  An ``if`` whose branches both end in ``return`` becomes ``return ms_cond(...)``; a ``return``
  inside an ``if`` with statements after it is first made into that shape by moving those
  statements into the branches that do not return (``_normalise_returns``), so ``if c: return a``
  followed by ``return b`` reads as ``if c: return a else: return b``;
* ``while test: body`` becomes ``while_cond_N`` and ``while_body_N`` over the loop variables (the
  variables the body assigns that the test, the next iteration or later code reads) and
  ``(x, i) = ms_while(while_cond_N, while_body_N, (x, i), ('x', 'i'))``;
* ``a if test else b`` becomes ``ms_cond(test, lambda: a, lambda: b)``; ``and``/``or``/``not`` in a
  condition become ``ms_and``/``ms_or``/``ms_not`` (a Tensor predicate cannot go through Python's
  ``bool``).

Inside a ``while``, ``break`` and ``continue`` become flags (``broke_N``, ``continued_N``: Bool
Tensors made by ``ms_flag``) and the statements after one run under ``if not broke_N:``; the loop's
test becomes ``not broke_N and test``.  ``return v`` inside a ``while`` becomes the did-return state
``returned_N = ms_flag(True); return_value_N = v; break``, and after the loop ``if returned_N:
return return_value_N``.

A variable that may have no value yet when the statement starts is passed as
``ms_local(locals(), 'y')``.  A statement that the conversion cannot express is left as Python,
with a note saying why (``notes``): one with a side effect a graph cannot repeat (a call whose
result is unused, such as ``list.append`` or ``print``; a write to an attribute or an item;
``raise``, ``try``, ``with``, ``global``), a ``break``/``continue``/``return`` that is not under
``if`` statements of its loop (inside a ``try``, or a ``for`` loop's), and a ``while ... else``.
``for`` stays Python's loop (unrolled while tracing, as MindSpore unrolls ``for i in range(n)`` and
``for row in x``); the statements inside it are converted.
"""
from __future__ import annotations

import ast
import copy
from collections import Counter

from .builtins import rewrite_builtins

__all__ = ["rewrite"]

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_LOOPS = (ast.While, ast.For, ast.AsyncFor)
_NOT_REPEATABLE = {ast.Global: "`global`", ast.Nonlocal: "`nonlocal`", ast.Raise: "`raise`",
                   ast.Assert: "`assert`", ast.Try: "`try`", ast.With: "`with`", ast.AsyncWith: "`with`",
                   ast.Delete: "`del`", ast.Import: "`import`", ast.ImportFrom: "`import`",
                   ast.ClassDef: "a class statement", ast.Yield: "`yield`", ast.YieldFrom: "`yield`",
                   ast.Await: "`await`"}


# ----- what a piece of code reads and writes --------------------------------------------------------
def _in_scope(nodes):
    """The nodes of ``nodes`` in the function's own scope (not inside nested functions or classes,
    whose names are their own), nested definitions themselves included."""
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES + _COMPREHENSIONS):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def stores(nodes) -> set:
    """The names ``nodes`` assign in this scope."""
    out = set()
    for node in _in_scope(nodes):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
    return out


def loads(nodes) -> Counter:
    """How often each name is read in ``nodes`` (nested functions included: they may read it later)."""
    count = Counter()
    for root in nodes:
        for node in ast.walk(root):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                count[node.id] += 1
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                count[node.target.id] += 1          # x += 1 reads x
    return count


def definite(stmts, defined) -> set:
    """``defined`` and the names ``stmts`` assign on every path (a loop may run zero times)."""
    d = set(defined)
    for s in stmts:
        if isinstance(s, ast.If):
            d |= definite(s.body, d) & definite(s.orelse, d)
        elif not isinstance(s, _LOOPS + (ast.Try, ast.With)):
            d |= stores([s])
    return d


def exposed(stmts, defined=frozenset()) -> set:
    """The names ``stmts`` may read before assigning them (not in ``defined``)."""
    out, d = set(), set(defined)
    for s in stmts:
        if isinstance(s, (ast.If, ast.While)):
            out |= (set(loads([s.test])) - d) | exposed(s.body, d) | exposed(s.orelse, d)
        elif isinstance(s, (ast.For, ast.AsyncFor)):
            out |= (set(loads([s.iter])) - d) | exposed(s.body, d | stores([s.target])) | exposed(s.orelse, d)
        else:
            out |= set(loads([s])) - d              # a statement reads before it writes
        d = definite([s], d)
    return out


def _header_loads(loop) -> set:
    return set(loads([loop.test if isinstance(loop, ast.While) else loop.iter]))


def live_after(fn: ast.FunctionDef) -> dict:
    """``{id(statement): names possibly read after it}`` for each ``if``/``while``: read anywhere
    else in the function, or, inside a loop, by the loop's next iteration."""
    total, facts = loads(fn.body), {}

    def visit(stmts, loops):
        for s in stmts:
            if isinstance(s, (ast.If, ast.While)):
                inside = loads([s])
                live = {n for n, k in total.items() if k > inside[n]}
                for loop in loops:
                    live |= exposed(loop.body) | _header_loads(loop)
                facts[id(s)] = live
            if isinstance(s, _SCOPES):
                continue
            inner = loops + [s] if isinstance(s, _LOOPS) else loops
            for field in ("body", "orelse", "finalbody"):
                visit(getattr(s, field, []), inner if field == "body" else loops)
            for handler in getattr(s, "handlers", []):
                visit(handler.body, loops)
    visit(fn.body, [])
    return facts


# ----- returns --------------------------------------------------------------------------------------
def _returns(nodes) -> bool:
    return any(isinstance(n, ast.Return) for n in _in_scope(nodes))


def _always_returns(stmts) -> bool:
    return any(isinstance(s, (ast.Return, ast.Raise)) or (
        isinstance(s, ast.If) and s.orelse and _always_returns(s.body) and _always_returns(s.orelse))
        for s in stmts)


def _returns_in_loops(nodes) -> bool:
    return any(isinstance(n, _LOOPS) and _returns(n.body + n.orelse) for n in _in_scope(nodes))


def _normalise_returns(stmts: list) -> list:
    """Statements after an ``if`` that returns on some path move into its branches that do not."""
    for i, s in enumerate(stmts):
        if isinstance(s, ast.If) and _returns([s]) and not _returns_in_loops([s]):
            rest = stmts[i + 1:]
            if not _always_returns(s.body):
                s.body = s.body + copy.deepcopy(rest)
            if not _always_returns(s.orelse):
                s.orelse = s.orelse + copy.deepcopy(rest)
            s.body, s.orelse = _normalise_returns(s.body), _normalise_returns(s.orelse)
            return stmts[:i + 1]
        if isinstance(s, ast.If):
            s.body, s.orelse = _normalise_returns(s.body), _normalise_returns(s.orelse)
    return stmts


# ----- return inside a loop ---------------------------------------------------------------------------
def _lower_loop_returns(fn) -> None:
    """``return v`` inside a ``while`` becomes ``returned_N = ms_flag(True); return_value_N = v; break``,
    and after the loop ``if returned_N: return return_value_N`` (the did-return state)."""
    count = 0
    for block in list(_blocks(fn.body)):
        i = 0
        while i < len(block):
            loop = block[i]
            if not (isinstance(loop, ast.While) and not loop.orelse and _loop_returns(loop.body)):
                i += 1
                continue
            count += 1
            flag, value = f"returned_{count}", f"return_value_{count}"
            _replace_returns(loop.body, flag, value)
            before = [_flag(flag, False), ast.Assign(targets=[_name(value, store=True)],
                                                     value=_call("ms_unset", ast.Constant(value)))]
            after = ast.If(test=_name(flag), body=[ast.Return(value=_name(value))], orelse=[])
            block[i:i + 1] = [ast.copy_location(s, loop) for s in before] + [loop, ast.copy_location(after, loop)]
            i += 4


def _loop_returns(stmts) -> bool:
    """Does the loop body return, only from inside ``if`` statements or directly (not nested loops)?"""
    found = False
    for s in stmts:
        if isinstance(s, ast.Return):
            found = True
        elif isinstance(s, ast.If):
            inner = [_loop_returns(s.body), _loop_returns(s.orelse)]
            if None in inner:
                return None
            found = found or any(inner)
        elif not isinstance(s, _SCOPES) and _returns([s]):
            return None                     # a return inside a nested loop or a try: stays Python
    return found


def _replace_returns(stmts, flag, value) -> None:
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Return):
            stmts[i:i + 1] = [ast.copy_location(n, s) for n in (
                _flag(flag, True), ast.Assign(targets=[_name(value, store=True)],
                                              value=s.value or ast.Constant(None)), ast.Break())]
            return
        if isinstance(s, ast.If):
            _replace_returns(s.body, flag, value)
            _replace_returns(s.orelse, flag, value)


# ----- break and continue ----------------------------------------------------------------------------
def _exits(nodes) -> set:
    """The ``break``/``continue`` kinds in ``nodes`` that leave the loop around them (not a nested one)."""
    found = set()

    def walk(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Break, ast.Continue)):
                found.add(type(child))
            elif not isinstance(child, _SCOPES + _LOOPS):
                walk(child)
    for n in nodes:
        walk(ast.Module(body=[n], type_ignores=[]))
    return found


def _only_under_ifs(stmts) -> bool:
    """Are the loop's ``break``/``continue`` only inside ``if`` statements (where flags can replace them)?"""
    for s in stmts:
        if isinstance(s, ast.If):
            if not _only_under_ifs(s.body) or not _only_under_ifs(s.orelse):
                return False
        elif not isinstance(s, (ast.Break, ast.Continue) + _LOOPS + _SCOPES) and _exits([s]):
            return False
    return True


def _flag(name, value):
    return ast.Assign(targets=[_name(name, store=True)], value=_call("ms_flag", ast.Constant(value)))


def _lower_exits(stmts, flags) -> list:
    """``break``/``continue`` become ``broke_N``/``continued_N = ms_flag(True)``; the statements after
    one that may have set a flag run under ``if not (flags):``."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, (ast.Break, ast.Continue)):
            out.append(ast.copy_location(_flag(flags[type(s)], True), s))
            return out                      # what follows in this block never runs
        kinds = _exits([s]) if isinstance(s, ast.If) else ()
        if kinds:
            s.body, s.orelse = _lower_exits(s.body, flags), _lower_exits(s.orelse, flags)
            out.append(s)
            rest = _lower_exits(stmts[i + 1:], flags)
            if rest:
                raised = [_name(flags[kind]) for kind in (ast.Break, ast.Continue) if kind in kinds]
                test = ast.UnaryOp(op=ast.Not(), operand=raised[0] if len(raised) == 1 else
                                   ast.BoolOp(op=ast.Or(), values=raised))
                out.append(ast.copy_location(ast.If(test=test, body=rest, orelse=[]), s))
            return out
        out.append(s)
    return out


def _lower_loop_exits(fn) -> list:
    """Rewrite the ``break``/``continue`` of each ``while`` into flags (autograph's way); returns the
    statements to put before each such loop, as ``[(loop, [statement])]``."""
    before, count = [], 0
    for loop in [n for n in _in_scope(fn.body) if isinstance(n, ast.While)]:
        kinds = _exits(loop.body)
        if not kinds or loop.orelse or not _only_under_ifs(loop.body):
            continue
        count += 1
        flags = {ast.Break: f"broke_{count}", ast.Continue: f"continued_{count}"}
        loop.body = _lower_exits(loop.body, flags)
        if ast.Continue in kinds:
            loop.body.insert(0, ast.copy_location(_flag(flags[ast.Continue], False), loop))
        if ast.Break in kinds:
            loop.test = ast.BoolOp(op=ast.And(), values=[
                ast.UnaryOp(op=ast.Not(), operand=_name(flags[ast.Break])), loop.test])
            before.append((loop, ast.copy_location(_flag(flags[ast.Break], False), loop)))
    return before


def _insert_before(stmts, pairs) -> None:
    """Put each ``(loop, statement)``'s statement just before its loop, wherever the loop is."""
    where = {id(loop): stmt for loop, stmt in pairs}
    for block in _blocks(stmts):
        i = 0
        while i < len(block):
            if id(block[i]) in where:
                block.insert(i, where.pop(id(block[i])))
                i += 1
            i += 1


def _blocks(stmts):
    """Every statement list of this scope, ``stmts`` included."""
    yield stmts
    for s in stmts:
        if isinstance(s, _SCOPES):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _blocks(getattr(s, field, []))
        for handler in getattr(s, "handlers", []):
            yield from _blocks(handler.body)


# ----- what cannot be converted -----------------------------------------------------------------------
def _obstacle(stmt, allow_return: bool):
    """Why ``stmt`` (an ``if`` or ``while``) must stay Python, or None."""
    if isinstance(stmt, ast.While) and stmt.orelse:
        return "a `while ... else`"
    if isinstance(stmt, ast.While) and any(isinstance(n, ast.NamedExpr) for n in ast.walk(stmt.test)):
        return "an assignment expression (:=) in the condition"

    def walk(node, loop_depth):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _SCOPES[:3]):
                continue
            kind = type(child)
            if kind in _NOT_REPEATABLE:
                return f"{_NOT_REPEATABLE[kind]} inside"
            if isinstance(child, ast.Expr) and isinstance(child.value, ast.Call):
                return f"`{ast.unparse(child.value)}`, a call whose result is unused (a side effect)"
            targets = (child.targets if isinstance(child, ast.Assign) else [child.target]
                       if isinstance(child, (ast.AugAssign, ast.AnnAssign)) else [])
            for target in targets:
                for t in ast.walk(target):
                    if isinstance(t, (ast.Attribute, ast.Subscript)):
                        return f"`{ast.unparse(t)} = ...`, a write to an attribute or item (a side effect)"
            if isinstance(child, (ast.Break, ast.Continue)) and loop_depth == 0:
                return f"`{ast.unparse(child)}` inside"
            if isinstance(child, ast.Return) and (loop_depth or not allow_return):
                return "`return` inside a loop" if loop_depth else "`return` inside"
            found = walk(child, loop_depth + isinstance(child, _LOOPS))
            if found:
                return found
        return None
    if isinstance(stmt, ast.While):
        return walk(ast.Module(body=stmt.body, type_ignores=[]), 0)
    return walk(stmt, 0)


# ----- building nodes -------------------------------------------------------------------------------------
def _name(id_, store=False):
    return ast.Name(id=id_, ctx=ast.Store() if store else ast.Load())


def _call(fn, *args):
    return ast.Call(func=_name(fn), args=list(args), keywords=[])


def _strings(names):
    return ast.Tuple(elts=[ast.Constant(n) for n in names], ctx=ast.Load())


def _thunk(expr):
    return ast.Lambda(args=_params([]), body=expr)


def _params(names):
    return ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in names], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])


def _def(name, params, body, where):
    node = ast.FunctionDef(name=name, args=_params(params), body=body or [ast.Pass()], decorator_list=[],
                           returns=None)
    if "type_params" in ast.FunctionDef._fields:        # Python 3.12+
        node.type_params = []
    return ast.copy_location(node, where)


def _tuple(names, store=False):
    return ast.Tuple(elts=[_name(n, store) for n in names], ctx=ast.Store() if store else ast.Load())


class _Rewriter(ast.NodeTransformer):
    """Rewrites one function's statements (see the module docstring)."""

    def __init__(self, facts):
        self.facts, self.count, self.notes, self.converted = facts, 0, [], 0
        self.helpers = set()            # ids of the functions it made (super() is rewritten in them)

    # expressions: conditional expressions anywhere, and/or/not in conditions
    def visit_IfExp(self, node):
        self.generic_visit(node)
        self.converted += 1
        return ast.copy_location(_call("ms_cond", self.test(node.test), _thunk(node.body), _thunk(node.orelse)),
                                 node)

    def visit_FunctionDef(self, node):
        """A nested function of the user's (a loop body given to ``ops.ForiLoop``, a branch given to
        ``cond``) is part of the same source, as in MindSpore: it is converted too, keeping its
        decorators."""
        decorators = node.decorator_list
        converted, notes = rewrite(node)
        node.decorator_list = decorators
        self.converted += converted
        self.notes += notes
        return node

    def visit_ClassDef(self, node):         # a class defined inside: left as it is
        return node

    visit_AsyncFunctionDef = visit_ClassDef

    def test(self, expr):
        if isinstance(expr, ast.BoolOp):
            fn = "ms_and" if isinstance(expr.op, ast.And) else "ms_or"
            return ast.copy_location(_call(fn, *[_thunk(self.test(v)) for v in expr.values]), expr)
        if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            return ast.copy_location(_call("ms_not", self.test(expr.operand)), expr)
        return self.visit(expr)

    # statements
    def block(self, stmts, defined) -> list:
        out, d = [], set(defined)
        for s in stmts:
            after = definite([s], d)
            out.extend(self.statement(s, d))
            d = after
        return out

    def statement(self, s, defined) -> list:
        if isinstance(s, _SCOPES):
            return [self.visit(s) if isinstance(s, ast.FunctionDef) else s]
        if isinstance(s, ast.If):
            terminal = bool(s.orelse) and _always_returns(s.body) and _always_returns(s.orelse)
            why = _obstacle(s, allow_return=terminal)
            if why is None:
                return self.convert_if(s, defined, terminal)
            self.note(s, why)
            s.test = self.test(s.test)
        elif isinstance(s, ast.While):
            why = _obstacle(s, allow_return=False)
            if why is None:
                return self.convert_while(s, defined)
            self.note(s, why)
            s.test = self.test(s.test)
        elif isinstance(s, (ast.For, ast.AsyncFor)):
            s.iter = self.visit(s.iter)
            s.body = self.block(s.body, defined | stores([s.target]))
            s.orelse = self.block(s.orelse, defined)
            return [s]
        else:
            for field in ("test", "value", "targets", "target", "items", "exc", "msg"):
                if hasattr(s, field) and getattr(s, field) is not None:
                    value = getattr(s, field)
                    setattr(s, field, [self.visit(v) for v in value] if isinstance(value, list) else self.visit(value))
        for field in ("body", "orelse", "finalbody"):
            if hasattr(s, field):
                setattr(s, field, self.block(getattr(s, field), defined))
        for handler in getattr(s, "handlers", []):
            handler.body = self.block(handler.body, defined)
        return [s]

    def note(self, s, why):
        kind = "if" if isinstance(s, ast.If) else "while"
        self.notes.append(f"line {s.lineno}: this `{kind}` stays Python ({why}): a Tensor condition there "
                          "compiles a guarded variant per way it goes")

    def operands(self, names, defined):
        return ast.Tuple(elts=[_name(n) if n in defined else _call("ms_local", _call("locals"), ast.Constant(n))
                               for n in names], ctx=ast.Load())

    def helper(self, name, params, body, where):
        node = _def(name, params, body, where)
        self.helpers.add(id(node))
        return node

    def convert_if(self, s, defined, terminal) -> list:
        self.count += 1
        self.converted += 1
        n = self.count
        assigned = stores(s.body + s.orelse)
        names = sorted(assigned & (self.facts[id(s)] | exposed(s.body) | exposed(s.orelse)))
        back = [] if terminal else [ast.Return(value=_tuple(names))]
        true_fn = self.helper(f"if_true_{n}", names, self.block(s.body, set(names)) + back, s)
        false_fn = self.helper(f"if_false_{n}", names, self.block(s.orelse, set(names)) + back, s)
        args = [self.test(s.test), _name(true_fn.name), _name(false_fn.name)]
        if names:
            args += [self.operands(names, defined), _strings(names)]
        call = _call("ms_cond", *args)
        if terminal:
            result = ast.Return(value=call)
        elif names:
            result = ast.Assign(targets=[_tuple(names, store=True)], value=call)
        else:
            result = ast.Expr(value=call)
        return [true_fn, false_fn, ast.copy_location(result, s)]

    def convert_while(self, s, defined) -> list:
        self.count += 1
        self.converted += 1
        n = self.count
        carry = sorted(stores(s.body) & (self.facts[id(s)] | exposed(s.body) | set(loads([s.test]))))
        cond_fn = self.helper(f"while_cond_{n}", carry, [ast.Return(value=self.test(s.test))], s)
        body_fn = self.helper(f"while_body_{n}", carry,
                              self.block(s.body, set(carry)) + [ast.Return(value=_tuple(carry))], s)
        call = _call("ms_while", _name(cond_fn.name), _name(body_fn.name), self.operands(carry, defined),
                     _strings(carry))
        result = ast.Assign(targets=[_tuple(carry, store=True)], value=call) if carry else ast.Expr(value=call)
        return [cond_fn, body_fn, ast.copy_location(result, s)]


class _Super(ast.NodeTransformer):
    """``super()`` in a helper function has no ``self`` of its own: ``super(__class__, self)``."""

    def __init__(self, first, helpers):
        self.first, self.helpers = first, helpers

    def visit_FunctionDef(self, node):
        return self.generic_visit(node) if id(node) in self.helpers else node

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args and not node.keywords:
            node.args = [_name("__class__"), _name(self.first)]
        return node


def rewrite(fn: ast.FunctionDef) -> tuple:
    """Rewrite ``fn`` in place: ``(statements converted, notes on those left as Python)``."""
    fn.decorator_list = []
    builtin_calls = rewrite_builtins(fn)        # first: the branches made below hold the rewritten calls
    _lower_loop_returns(fn)
    if _returns(fn.body) and not _always_returns(fn.body) and any(
            isinstance(s, ast.If) and _returns([s]) for s in _in_scope(fn.body)):
        fn.body.append(ast.copy_location(ast.Return(value=None), fn.body[-1]))
    fn.body = _normalise_returns(fn.body)
    _insert_before(fn.body, _lower_loop_exits(fn))
    args = fn.args.posonlyargs + fn.args.args
    params = ({a.arg for a in args + fn.args.kwonlyargs}
              | {a.arg for a in (fn.args.vararg, fn.args.kwarg) if a is not None})
    outer = _outer_first_values(fn, params)
    rewriter = _Rewriter(live_after(fn))
    fn.body = outer + rewriter.block(fn.body, params | {a.targets[0].id for a in outer})
    if args:
        _Super(args[0].arg, rewriter.helpers).generic_visit(fn)
    return rewriter.converted + len(outer) + builtin_calls, rewriter.notes


def _read_before_written(fn, names) -> set:
    """Those of ``names`` whose first appearance in the source is a read (``z += i`` reads first).  A
    name written somewhere before it is read (``if c: y = ...`` then ``return y``) is not: on a path
    that skips the write, Python's UnboundLocalError stays, never a global's value."""
    augmented = {id(node.target) for node in _in_scope(fn.body) if isinstance(node, ast.AugAssign)}
    first = {}
    for node in _in_scope(fn.body):
        if isinstance(node, ast.Name) and node.id in names:
            reads = isinstance(node.ctx, ast.Load) or id(node) in augmented
            where = (node.lineno, node.col_offset)
            if node.id not in first or where < first[node.id][0]:
                first[node.id] = (where, reads)
    return {name for name, (_, reads) in first.items() if reads}


def _outer_first_values(fn, params) -> list:
    """``z = ms_global(globals(), 'z')`` for each local the function reads before any write of it: Python
    raises UnboundLocalError there, MindSpore's graph mode reads the global of that name (its
    tutorial's ``for i in x: z += i`` on a global ``z``), and so does converted code."""
    declared = {name for node in _in_scope(fn.body) if isinstance(node, (ast.Global, ast.Nonlocal))
                for name in node.names}
    early = sorted(_read_before_written(fn, (exposed(fn.body, params) & stores(fn.body)) - declared - params))
    return [ast.copy_location(ast.Assign(targets=[_name(n, True)],
                                         value=_call("ms_global", _call("globals"), ast.Constant(n))), fn.body[0])
            for n in early]
