"""Random programs with control flow on Tensors, as Python source text (issue 24).

``tests/programs.py`` builds straight-line programs out of Python objects; the programs here are
*text*: a function ``program(x, y, m[, n])`` and a Cell ``ProgramCell`` whose ``construct`` has the
same body, written into a file-like name registered in :mod:`linecache` and exec'd from it, so
``inspect.getsource`` finds them as it finds a user's code.  That matters because ``jit`` and a
GRAPH_MODE ``construct`` may read the source (MindSpore's route: ``ast`` conversion of ``if``/
``while``/``for`` into the structured primitives) or trace the Python code (the guarded fallback);
the same program exercises whichever route the engine takes, and ``jit(capture_mode="trace")``.

A program has three float inputs — ``x`` and ``y`` of shape (3,), ``m`` of shape (2, 3) — and
sometimes an int32 scalar ``n`` in 0..3 (a loop bound given as a Tensor) and a Parameter ``w`` of
shape (3,) defined in the file, read like any value (inside branches and loop bodies too, where the
structured primitives must take it as an operand for its gradient to reach it).  Every value it makes is a
float Tensor of shape (3,); its lines are drawn from :data:`KINDS`:

==================  ===============================================================================
``assign``          ``v = E`` (elementwise ops on earlier values)
``if``              ``if P: ... elif P: ... else: ...`` on Tensor predicates, each branch a block
``if_update``       ``if P: v = E`` without ``else``: the old value flows through the other way
``ternary``         ``v = E1 if P else E2``
``while_counter``   ``while i < N`` with a Tensor counter ``i`` (``N`` a Python int or ``n``)
``while_capped``    ``while s < C`` with ``s`` a value of the inputs that grows by 1.5 s + 0.5
``for_range``       ``for k in range(N)`` with a Python ``N`` (unrolled)
``for_rows``        ``for r in m``: over a Tensor's rows
``break``           ``for k in range(3): if P: break`` — a Tensor condition leaving a loop
``while_loop_op``   ``ops.WhileLoop()(cond, body, (i, v))`` (counter) or ``(s, v)`` (capped growth)
``fori_loop_op``    ``ops.ForiLoop()(0, N, body, v, unroll=...)``, ``N`` a Python int or ``n``
``scan_op``         ``ops.Scan()(body, v, [m[0], m[1]], unroll=...)``
``cond``            ``minims.control_flow.cond(P, true_fn, false_fn, a, b)``
==================  ===============================================================================

Branches and loop bodies sometimes hold a branch or loop of their own (``update``: ``nested_if``,
``nested_ternary``, ``nested_cond``, ``nested_for``, ``nested_while``), and so do the functions
given to the structured ops (``decision_in_function`` when that is a Python ``if`` on a Tensor:
only source conversion can stage it inside a ``While``'s body; tracing refuses it).

It ends with ``return v`` (or two values), sometimes after ``if P: return E`` (a ``return``
inside a branch).  Every loop ends within a small bound whatever the values: a counter, or a value
that grows by at least 0.5 per iteration up to a cap of at most 9.

Predicates (:data:`PREDICATES`) are reductions compared with a constant, ``any``/``all`` of a
comparison; a branch flips when an input moves across a surface, so :func:`cf_programs` draws the
values at random (no ties) and the tests check gradients against central differences only where two
step sizes agree (no branch flips within the stencil).

:func:`generate` draws from a *chooser*: :class:`RandomChooser` (a seeded ``random.Random``, for a
fixed slice of cases) or :class:`DataChooser` (Hypothesis' ``data``, which shrinks a failing
program to a small one).  Test support, kept beside the tests that use it.
"""
from __future__ import annotations

import hashlib
import linecache
import random
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

import minims as ms
from minims import Tensor, nn, ops
from minims.control_flow import cond

__all__ = ["KINDS", "PREDICATES", "CFProgram", "RandomChooser", "DataChooser", "generate", "cf_programs",
           "load_source"]

KINDS = ("assign", "if", "if_update", "ternary", "while_counter", "while_capped", "for_range", "for_rows",
         "break", "while_loop_op", "fori_loop_op", "scan_op", "cond")
#: the lines with a Python ``if``/``while`` on a Tensor's value (what tracing alone cannot see)
PYTHON_DECISIONS = frozenset({"if", "if_update", "ternary", "while_capped", "break", "early_return", "nested_if",
                              "nested_ternary", "decision_in_function"})

PREDICATES = ("{a}.sum() > {c}", "({a} > {b}).any()", "({a} > {c}).all()", "{a}.mean() < {c}",
              "{a}.max() > {c}", "({a} * {b}).sum() < {c}")
CONSTANTS = ("0.0", "0.5", "-0.5", "1.0", "-1.0")
UNARY = ("ops.tanh({a})", "ops.sin({a})", "{a} * 0.5", "ops.sigmoid({a})", "ops.cos({a})", "{a} * {a}",
         "ops.exp(ops.tanh({a}))")
BINARY = ("{a} + {b}", "{a} * {b}", "{a} - {b}", "ops.tanh({a} * {b})", "{a} * 0.5 + ops.sin({b})")
SQUASH = ("ops.tanh", "ops.sin")

#: what the source text can name: the file's globals
NAMESPACE = {"ms": ms, "ops": ops, "nn": nn, "np": np, "Tensor": Tensor, "cond": cond}
#: the line that defines the Parameter ``w`` of a program that reads one
PARAMETER_LINE = 'w = ms.Parameter(Tensor(np.array([0.4, -0.3, 0.8])), name="w")'


# ===== choosers ========================================================================================
class RandomChooser:
    """Choices from a seeded ``random.Random``."""

    def __init__(self, seed: int):
        self.random = random.Random(seed)

    def choice(self, options):
        return options[self.random.randrange(len(options))]

    def integer(self, lo: int, hi: int) -> int:
        return self.random.randint(lo, hi)

    def chance(self, p: float) -> bool:
        return self.random.random() < p


class DataChooser:
    """Choices drawn by Hypothesis (``st.data()``): a failing program shrinks towards the first
    option of every choice, so the simplest option comes first in every list."""

    def __init__(self, data):
        self.data = data

    def choice(self, options):
        return self.data.draw(st.sampled_from(options))

    def integer(self, lo: int, hi: int) -> int:
        return self.data.draw(st.integers(lo, hi))

    def chance(self, p: float) -> bool:
        return self.data.draw(st.integers(0, 999)) < 1000 * p


# ===== the program ======================================================================================
def load_source(source: str, stem: str = "minims-cf-program") -> dict:
    """Exec ``source`` as the file ``<stem-DIGEST>`` registered in ``linecache`` (so that
    ``inspect.getsource`` and tracebacks show its lines); the file's namespace."""
    filename = f"<{stem}-{hashlib.sha1(source.encode()).hexdigest()[:12]}>"
    # mtime None: linecache.checkcache keeps the entry (there is no file on disk to compare with)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = dict(NAMESPACE, __name__=filename.strip("<>"))
    exec(compile(source, filename, "exec"), namespace)
    return namespace


@dataclass
class CFProgram:
    """A generated program: its source, its parameters' names, the kinds of line it holds."""

    body: list           # the lines of the body, indented by four spaces
    params: tuple        # ("x", "y", "m") or ("x", "y", "m", "n")
    kinds: frozenset
    parameter: bool = False     # does the file define (and the body read) the Parameter ``w``?

    @property
    def source(self) -> str:
        signature = ", ".join(self.params)
        construct = ["    " + line if line else line for line in self.body]
        header = [PARAMETER_LINE, "", ""] if self.parameter else []
        return "\n".join([*header, f"def program({signature}):", *self.body, "", "",
                          "class ProgramCell(nn.Cell):", f"    def construct(self, {signature}):", *construct, ""])

    def __repr__(self) -> str:
        return self.source

    @property
    def python_decisions(self) -> bool:
        """Does it hold a Python ``if``/``while`` on a Tensor's value (refused under ``vmap`` when the
        value differs per example; the structured primitives are not)?"""
        return bool(self.kinds & PYTHON_DECISIONS)

    def load(self):
        """``(program, ProgramCell, Parameters)``, exec'd from the registered source."""
        namespace = load_source(self.source)
        return namespace["program"], namespace["ProgramCell"], [namespace["w"]] if self.parameter else []

    def arguments(self, seed: int) -> tuple:
        """Arguments for one call: floats uniform in [-1.5, 1.5] (float64), ``n`` in 0..3."""
        rng = np.random.default_rng(seed)
        args = [Tensor(rng.uniform(-1.5, 1.5, s)) for s in ((3,), (3,), (2, 3))]
        if "n" in self.params:
            args.append(Tensor(np.int32(rng.integers(0, 4))))
        return tuple(args)

    def reproducer(self, args) -> str:
        """The source and the arguments, ready to paste into a test."""
        parts = [f"Tensor(np.array({np.asarray(a._data).tolist()!r}, dtype=np.{np.asarray(a._data).dtype}))"
                 for a in args]
        return f"{self.source}\nargs = ({', '.join(parts)})"


# ===== the generator ======================================================================================
class _Writer:
    """The body being written: lines, the values (shape (3,)) defined so far, fresh names."""

    def __init__(self, chooser, has_n: bool, has_w: bool):
        self.c, self.has_n = chooser, has_n
        self.lines, self.values, self.count, self.kinds = [], ["x", "y"] + (["w"] if has_w else []), 0, set()

    def fresh(self, prefix="v") -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def emit(self, depth: int, line: str):
        self.lines.append("    " * depth + line)

    def pick(self, among=None) -> str:
        return self.c.choice(tuple(among or self.values))

    # ----- expressions --------------------------------------------------------------------------
    def expr(self, among=None) -> str:
        """An elementwise expression of one or two values."""
        a, b = self.pick(among), self.pick(among)
        if self.c.chance(0.5):
            return self.c.choice(UNARY).format(a=a)
        inner = self.c.choice(BINARY).format(a=a, b=b)
        return self.c.choice(UNARY).format(a=f"({inner})") if self.c.chance(0.3) else inner

    def bounded(self, among=None) -> str:
        """An expression squashed into [-1, 1], for loop bodies (no growth however many iterations)."""
        return f"{self.c.choice(SQUASH)}({self.expr(among)})"

    def predicate(self, among=None) -> str:
        a, b = self.pick(among), self.pick(among)
        return self.c.choice(PREDICATES).format(a=a, b=b, c=self.c.choice(CONSTANTS))

    def bound(self) -> str:
        """A loop's trip count: a Python int, or the Tensor input ``n``."""
        return "n" if self.has_n and self.c.chance(0.4) else str(self.c.integer(0, 3))

    # ----- lines -----------------------------------------------------------------------------------
    def line(self, depth: int = 1):
        kind = self.c.choice(KINDS)
        self.kinds.add(kind)
        getattr(self, "_" + kind)(depth)

    def _assign(self, depth):
        v = self.fresh()
        self.emit(depth, f"{v} = {self.expr()}")
        self.values.append(v)

    def _block(self, depth, target):
        """A branch: a temporary or two (used only inside), then ``target = ...``, sometimes updated
        again by a nested branch or loop."""
        local = list(self.values)
        for _ in range(self.c.integer(0, 1)):
            t = self.fresh("t")
            self.emit(depth, f"{t} = {self.expr(local)}")
            local.append(t)
        self.emit(depth, f"{target} = {self.expr(local)}")
        if depth < 3 and self.c.chance(0.25):
            self.update(depth, target, local + [target])

    def update(self, depth, v, pool, inside_def=False):
        """One statement that gives ``v`` a new value from ``pool``, holding control flow itself:
        ``if``/``else``, a ternary, ``cond``, a ``for`` over ``range`` or a counted ``while``."""
        kind = self.c.choice(("plain", "if", "ternary", "cond", "for", "while"))
        if kind in ("if", "ternary", "while"):
            self.kinds.add("nested_" + kind)
            if inside_def:      # a Python decision on a value inside a loop body or branch function
                self.kinds.add("decision_in_function")
        if kind == "plain":
            self.emit(depth, f"{v} = {self.bounded(pool)}")
        elif kind == "if":
            self.emit(depth, f"if {self.predicate(pool)}:")
            self.emit(depth + 1, f"{v} = {self.bounded(pool)}")
            self.emit(depth, "else:")
            self.emit(depth + 1, f"{v} = {self.bounded(pool)}")
        elif kind == "ternary":
            self.emit(depth, f"{v} = {self.bounded(pool)} if {self.predicate(pool)} else {self.bounded(pool)}")
        elif kind == "cond":
            self.kinds.add("nested_cond")
            a, b = self.pick(pool), self.pick(pool)
            self.emit(depth, f"{v} = cond({self.predicate(pool)}, lambda p, q: {self.bounded(['p', 'q'])}, "
                             f"lambda p, q: {self.bounded(['p', 'q'])}, {a}, {b})")
        elif kind == "for":
            k = self.fresh("k")
            self.emit(depth, f"for {k} in range({self.c.integer(1, 2)}):")
            self.emit(depth + 1, f"{v} = {self.bounded(pool)}")
        else:
            i = self.fresh("i")
            self.emit(depth, f"{i} = ops.zeros((), ms.int32)")
            self.emit(depth, f"while {i} < {self.c.integer(1, 2)}:")
            self.emit(depth + 1, f"{v} = {self.bounded(pool)}")
            self.emit(depth + 1, f"{i} = {i} + 1")

    def _if(self, depth):
        v = self.fresh()
        self.emit(depth, f"if {self.predicate()}:")
        self._block(depth + 1, v)
        if self.c.chance(0.5):
            self.emit(depth, f"elif {self.predicate()}:")
            self._block(depth + 1, v)
        self.emit(depth, "else:")
        self._block(depth + 1, v)
        self.values.append(v)

    def _if_update(self, depth):
        v = self.fresh()
        self.emit(depth, f"{v} = {self.pick()}")
        self.emit(depth, f"if {self.predicate()}:")
        self._block(depth + 1, v)
        self.values.append(v)

    def _ternary(self, depth):
        v = self.fresh()
        self.emit(depth, f"{v} = {self.expr()} if {self.predicate()} else {self.expr()}")
        self.values.append(v)

    def _while_counter(self, depth):
        v, i = self.fresh(), self.fresh("i")
        self.emit(depth, f"{v} = {self.pick()}")
        self.emit(depth, f"{i} = ops.zeros((), ms.int32)")
        self.emit(depth, f"while {i} < {self.bound()}:")
        self.loop_body(depth + 1, v)
        self.emit(depth + 1, f"{i} = {i} + 1")
        self.values.append(v)

    def loop_body(self, depth, v):
        """``v = ...`` inside a Python loop; sometimes a branch or loop of its own."""
        if depth < 3 and self.c.chance(0.3):
            self.update(depth, v, self.values + [v])
        else:
            self.emit(depth, f"{v} = {self.bounded(self.values + [v])}")

    def _while_capped(self, depth):
        v, s = self.fresh(), self.fresh("s")
        self.emit(depth, f"{v} = {self.pick()}")
        # sqrt(a*a + 1) > 0: the capped value starts positive and grows by >= 0.5 per iteration
        a = self.pick()
        self.emit(depth, f"{s} = ops.sqrt({a} * {a} + 1.0).mean()")
        self.emit(depth, f"while {s} < {self.c.choice(('2.0', '4.0', '6.0'))}:")
        self.emit(depth + 1, f"{s} = {s} * 1.5 + 0.5")
        self.loop_body(depth + 1, v)
        self.emit(depth, f"{v} = {v} * {s}")
        self.values.append(v)

    def _for_range(self, depth):
        v, k = self.fresh(), self.fresh("k")
        self.emit(depth, f"{v} = {self.pick()}")
        self.emit(depth, f"for {k} in range({self.c.integer(0, 3)}):")
        self.emit(depth + 1, f"{v} = {self.bounded(self.values + [v])} + {v} * 0.5")
        self.values.append(v)

    def _for_rows(self, depth):
        v, r = self.fresh(), self.fresh("r")
        self.emit(depth, f"{v} = {self.pick()}")
        self.emit(depth, f"for {r} in m:")
        self.emit(depth + 1, f"{v} = {self.c.choice(SQUASH)}({v} * {r}) + {self.pick()} * {r}")
        self.values.append(v)

    def _break(self, depth):
        v, k = self.fresh(), self.fresh("k")
        self.emit(depth, f"{v} = {self.pick()}")
        self.emit(depth, f"for {k} in range(3):")
        self.emit(depth + 1, f"if {self.predicate(self.values + [v])}:")
        self.emit(depth + 2, "break")
        self.loop_body(depth + 1, v)
        self.values.append(v)

    def _while_loop_op(self, depth):
        v, name = self.fresh(), self.fresh("loop")
        outer = self.pick()
        self.emit(depth, f"def {name}_cond(c):")
        capped = self.c.chance(0.5)
        self.emit(depth + 1, f"return c[0] < {self.c.choice(('2.0', '4.0')) if capped else self.bound()}")
        self.emit(depth, f"def {name}_body(c):")
        grow = "c[0] * 1.5 + 0.5" if capped else "c[0] + 1"
        self.function_body(depth + 1, ["c[1]", outer], lambda value: f"return ({grow}, {value})")
        a = self.pick()
        start = f"ops.sqrt({a} * {a} + 1.0).mean()" if capped else "ops.zeros((), ms.int32)"
        self.emit(depth, f"{v} = ops.WhileLoop()({name}_cond, {name}_body, ({start}, {self.pick()}))[1]")
        self.values.append(v)

    def _fori_loop_op(self, depth):
        v, name = self.fresh(), self.fresh("step")
        outer = self.pick()
        self.emit(depth, f"def {name}(j, a):")
        self.function_body(depth + 1, ["a", outer], lambda value: f"return {value} + a * 0.5")
        unroll = self.c.choice(("True", "False"))
        self.emit(depth, f"{v} = ops.ForiLoop()(0, {self.bound()}, {name}, {self.pick()}, unroll={unroll})")
        self.values.append(v)

    def _scan_op(self, depth):
        v, carry, ys, name = self.fresh(), self.fresh("c"), self.fresh("ys"), self.fresh("scan")
        outer = self.pick()
        self.emit(depth, f"def {name}(c, r):")
        self.function_body(depth + 1, ["c", "r", outer],
                           lambda value: f"return {self.c.choice(SQUASH)}(c * r + {outer}), {value}")
        unroll = self.c.choice(("True", "False"))
        self.emit(depth, f"{carry}, {ys} = ops.Scan()({name}, {self.pick()}, [m[0], m[1]], unroll={unroll})")
        self.emit(depth, f"{v} = {carry} + {ys}[0] * {ys}[1]")
        self.values.append(v)

    def function_body(self, depth, pool, returned):
        """The body of a loop's function: ``return`` of a value of ``pool``, sometimes computed by a
        branch or loop of its own (a ``cond``, a Python ``if`` on the carry ...)."""
        if self.c.chance(0.35):
            u = self.fresh("u")
            self.emit(depth, f"{u} = {self.pick(pool)}")
            self.update(depth, u, pool + [u], inside_def=True)
            self.emit(depth, returned(u))
        else:
            self.emit(depth, returned(self.bounded(pool)))

    def _cond(self, depth):
        v = self.fresh()
        true, false = self.expr(["p", "q"]), self.expr(["p", "q"])
        self.emit(depth, f"{v} = cond({self.predicate()}, lambda p, q: {true}, lambda p, q: {false}, "
                         f"{self.pick()}, {self.pick()})")
        self.values.append(v)

    # ----- the end ---------------------------------------------------------------------------------
    def ending(self):
        last = self.values[-1]
        if self.c.chance(0.25):
            self.kinds.add("early_return")
            self.emit(1, f"if {self.predicate()}:")
            self.emit(2, f"return {self.expr()}")
        if self.c.chance(0.3) and len(self.values) > 3:
            self.emit(1, f"return {last}, {self.pick(self.values[2:-1])}")
        else:
            self.emit(1, f"return {last}")


def generate(chooser, steps=(1, 4), need=None) -> CFProgram:
    """A random program: ``steps`` lines (min, max) of :data:`KINDS`, the first one ``need`` when
    given (a kind the caller wants to see)."""
    has_n, has_w = chooser.chance(0.3), chooser.chance(0.3)
    writer = _Writer(chooser, has_n, has_w)
    n_lines = chooser.integer(*steps)
    if need is not None:
        writer.kinds.add(need)
        getattr(writer, "_" + need)(1)
        n_lines -= 1
    for _ in range(n_lines):
        writer.line()
    writer.ending()
    params = ("x", "y", "m", "n") if has_n else ("x", "y", "m")
    return CFProgram(writer.lines, params, frozenset(writer.kinds), parameter=has_w)


@st.composite
def cf_programs(draw, steps=(1, 4)):
    """Hypothesis strategy: ``(program, seed)``, the seed for :meth:`CFProgram.arguments`."""
    program = generate(DataChooser(_Data(draw)), steps)
    return program, draw(st.integers(0, 2 ** 16))


class _Data:
    """``st.composite``'s ``draw`` with the ``data.draw`` spelling :class:`DataChooser` uses."""

    def __init__(self, draw):
        self.draw = draw
