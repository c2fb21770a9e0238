"""Random straight-line programs drawn from the primitive table, for differential testing.

A :class:`Program` is a function of a few Tensors whose body is a list of lines
``v5 = ops.tanh(ops.mul(v1, v3))``, each a primitive (or a small composite: a layer, a Cell with a
custom ``bprop``, a backward hook, a gradient taken inside the program) applied to earlier values.
``repr(program)`` is its Python source, and :meth:`Program.reproducer` adds the arguments, so a
failing example can be pasted into a test as it is.

:func:`programs` is a Hypothesis strategy drawing ``(program, args)`` pairs from a :class:`Space`,
which says which kinds of line may appear, which dtypes and shapes the inputs have and how values
are drawn.  The presets are the spaces the differential tests (``tests/robustness/test_fuzz.py``,
``tests/graph/test_mode_equivalence.py``) search:

=================  =================================================================================
``BASIC``          elementwise ops with broadcasting, reductions, matmul, shapes, select, softmax
``MODES``          ``BASIC`` plus integer inputs, nested ``grad`` lines, custom ``bprop`` Cells (both
                   correct rules and a deliberately different one), dense and NN layers, indexing by
                   Tensors (an int index Tensor input, a constant index or mask, a mask computed from
                   values), in-place writes ``y[k] = v`` into intermediates, values coming back from
                   a compiled function in a dict/tuple/list, and outputs returned in such structures
``GRADS``          ``MODES`` without the deliberately different rule, in float64 with inputs kept
                   further from singular points (finite differences need that), outputs flat
``SPECIAL``        programs with custom rules and backward hooks, checked against what the rule says
``HOOKED``         ``GRADS`` with backward hooks (``HookBackward`` and a Cell's) in every program, for
                   forward mode: a backward hook acts on cotangents only, so tangents ignore it
``FAST``           NCHW inputs through conv / pooling / batch norm / dense / softmax cross-entropy,
                   float32 or float64 (the primitives that have Numba kernels)
``SYMBOLIC``       only primitives with a SymPy rule, small shapes (the symbolic interpreter is slow);
                   no nested ``grad`` lines (``grad`` inside ``symbolic_call`` fails, see the xfail
                   in ``tests/robustness/test_fuzz.py``)
=================  =================================================================================

Safe input domains: every value carries a bound on its magnitude and, when it is known to be
positive, a lower bound, so logarithms, square roots, reciprocals, divisions and powers only see
arguments at least ``Space.min_lo`` above zero, and no value grows beyond ``Space.max_bound``.
Kinks (relu, abs, maximum, select, max-reductions, max pooling, a step function) cannot be ruled
out that way; :func:`near_a_kink` tells whether a point sits so close to one that a finite
difference would straddle it.

A program runs four ways, which treat its custom rules and hooks differently (see :class:`Special`):
``program`` itself (what the user wrote), ``program.variant("plain")`` (hooks removed, as Graph mode
removes them), ``program.variant("reference")`` (each custom rule or hook re-expressed with
``stop_gradient``: same values, same derivative, no hook or custom bprop involved) and
``program.frozen_at(args)`` (a function whose *true* derivative at ``args`` is what the rules say,
for finite differences).

Test support (it needs Hypothesis), kept beside the tests that use it, as minitorch keeps its
strategies in ``tests/strategies.py``.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from minims import Parameter, Tensor, jit, nn, ops
from minims import dtype as mstype
from minims.core.stack import bind
from minims.primitives import nn as P

__all__ = ["Space", "Meta", "Step", "Special", "Program", "ProgramCell", "programs", "with_weights",
           "near_a_kink", "special_values", "BASIC", "PARAMS", "MODES", "GRADS", "SPECIAL", "HOOKED", "FAST",
           "SYMBOLIC",
           "SquareWithBprop", "SigmoidWithBprop", "MulWithBprop", "SpikeWithSurrogate",
           "SinWithTripledRule", "TanhWithScaledHook", "scaling_hook", "scaled_identity", "split_parts"]


# ===== what the generator knows about a value ========================================================
class Meta:
    """A value's shape, a bound on ``|value|``, a lower bound ``lo`` when it is known to be positive,
    and its kind: ``"f"`` (float) or ``"i"`` (integer)."""

    __slots__ = ("shape", "bound", "lo", "kind")

    def __init__(self, shape, bound, lo=None, kind="f"):
        self.shape, self.bound, self.lo, self.kind = tuple(shape), float(bound), lo, kind

    def __repr__(self):
        return f"Meta({self.shape}, bound={self.bound:g}, lo={self.lo}, kind={self.kind!r})"


@dataclass(frozen=True)
class Space:
    """Where :func:`programs` draws from.

    ``kinds``: the kinds of line, repeated to weight them (``BASIC_KINDS``, ``NN_KINDS``, ``"int"``,
    ``"inner_grad"``, ``"special"``, ``"dense"``); ``dtypes``: the float dtypes of the inputs (one per
    program); ``shapes``: the shapes of the first inputs; ``ints``: integer inputs too; ``nchw``: the
    probability that the first input is an image batch ``(N, C, H, W)``;
    ``values``: ``"drawn"`` (Hypothesis picks every element: simple numbers, repeats, ties),
    ``"random"`` (a seeded generator: continuous values, no ties) or ``"special"`` (``"random"``, with
    about one float entry in four replaced by an IEEE special value, :func:`special_values`: the
    safe domain no longer holds, so only for comparing two ways of computing the same program);
    ``min_lo``/``max_bound``: the
    safe domain; ``steps``/``inputs``: how many lines and first inputs; ``specials``: which custom
    rules and hooks a ``special`` line may use; ``need``: kinds of line every program must contain;
    ``structured``: the outputs may come back in a dict or a tuple holding a list (``Program.form``).
    """

    kinds: tuple
    dtypes: tuple = ("float64",)
    shapes: tuple = ((3,), (2, 3), (2, 1), ())
    ints: bool = False
    nchw: float = 0.0
    values: str = "drawn"
    min_lo: float = 1e-2
    max_bound: float = 1e4
    steps: tuple = (1, 6)
    inputs: tuple = (1, 3)
    specials: tuple = ()
    need: tuple = ()
    structured: bool = False


BASIC_KINDS = ("unary", "unary", "binary", "binary", "scalar", "reduce", "matmul", "reshape",
               "transpose", "select", "softmax")
NN_KINDS = ("conv", "conv", "pool", "pool", "batchnorm", "flatten", "dense", "xent")
ALL_SPECIALS = ("square_bprop", "sigmoid_bprop", "mul_bprop", "spike_surrogate", "tripled_rule",
                "hook_backward", "cell_hook")
CORRECT_BPROPS = ("square_bprop", "sigmoid_bprop", "mul_bprop")

BASIC = Space(kinds=BASIC_KINDS)
INDEX_KINDS = ("index", "index", "write", "write", "escape")
_PURE_KINDS = BASIC_KINDS + ("int", "inner_grad", "special", "dense") + NN_KINDS + INDEX_KINDS
#: Parameters written and read inside the program (ops.assign): for the mode checks only — an
#: assignment is not differentiable, so central differences (GRADS) and vmap (a batched write) do not apply
MODES = Space(kinds=_PURE_KINDS + ("param",), dtypes=("float32", "float64"), ints=True, nchw=0.3,
              steps=(1, 7), specials=CORRECT_BPROPS + ("spike_surrogate", "tripled_rule"), structured=True)
GRADS = replace(MODES, kinds=_PURE_KINDS, dtypes=("float64",), values="random", min_lo=0.2, max_bound=1e3,
                specials=CORRECT_BPROPS, structured=False)
SPECIAL = replace(MODES, kinds=_PURE_KINDS, dtypes=("float64",), values="random", min_lo=0.2, max_bound=1e3,
                  specials=ALL_SPECIALS, need=("special",), steps=(2, 6), structured=False)
HOOKED = replace(GRADS, specials=CORRECT_BPROPS + ("hook_backward", "cell_hook"), need=("special",))
#: BASIC programs with at least one Parameter written and read back (``tests/graph/test_mode_equivalence.py``)
PARAMS = replace(BASIC, kinds=BASIC_KINDS + ("param", "param"), need=("param",))
FAST = Space(kinds=("unary", "binary", "scalar", "reduce") + NN_KINDS * 2, nchw=1.0,
             dtypes=("float32", "float64"), values="random", shapes=((3,), ()), inputs=(1, 2),
             steps=(2, 7), need=("fast",), min_lo=0.1, max_bound=1e3)
SYMBOLIC = Space(kinds=BASIC_KINDS + ("int", "dense"), shapes=((2,), (2, 2), (2, 1), ()),
                 ints=True, values="random", steps=(1, 5), min_lo=0.2, max_bound=1e3, inputs=(1, 2))


# ===== one line of a program ===========================================================================
@dataclass
class Special:
    """A line whose derivative is *not* the automatic derivative of its forward computation, or one
    that Graph mode treats differently.

    ``kind``: ``"bprop"`` (a Cell with a correct custom ``bprop``: its derivative is that of
    ``forward``), ``"rule"`` (a Cell whose ``bprop`` is deliberately the derivative of ``surrogate``
    instead) or ``"hook"`` (a backward hook that scales the gradient: its derivative is that of
    ``surrogate = scale * forward``; Graph mode skips hooks, so there the derivative is ``forward``'s).
    ``forward`` and ``surrogate`` take and return Tensors.  ``reference``, when given, is the line
    written without hooks or custom rules, for the derivatives of every order (by default
    ``stop_gradient(F(a)) + (S(a) - stop_gradient(S(a)))``: the value of ``F``, the derivatives of
    ``S``).  A Cell's backward hook needs its own: it scales the gradient at the Cell's *input* at
    every gradient level, so a second derivative sees the scale on the way into the Cell too.
    """

    kind: str
    forward: object
    surrogate: object = None
    reference: object = None


class Step:
    """One line ``v{k} = text``, computed by ``fn(*operands)``.

    ``decision(*arrays)``: for a line with a kink, the discrete choice it makes at its operands'
    values (which side of relu's kink, which maximum, which branch), as an array; ``None`` for a
    smooth line.  ``tags``: ``"fast"`` (a primitive with a Numba kernel), ``"nosym"`` (no SymPy rule),
    ``"param"`` (writes and reads ``parameters``).
    ``before``/``after``: statements printed before and after the line (``{v}`` in them and in
    ``text`` is the line's own name): a write ``v5[i] = ...`` after ``v5 = ops.mul(v2, 1)``.
    """

    def __init__(self, text, fn, operands, decision=None, tags=(), special=None, before=(), after=(),
                 parameters=()):
        self.text, self.fn, self.operands = text, fn, list(operands)
        self.decision, self.tags, self.special = decision, frozenset(tags), special
        self.before, self.after = tuple(before), tuple(after)
        self.parameters = tuple(parameters)     # Parameters the line writes and reads (``param``)

    def lines(self, name: str) -> list:
        """The source lines of the step, its value named ``name``."""
        if not (self.before or self.after):
            return [f"{name} = {self.text}"]
        return ([b.format(v=name) for b in self.before] + [f"{name} = {self.text.format(v=name)}"]
                + [a.format(v=name) for a in self.after])


class Input:
    """A program argument (``position`` in the argument list) with the domain its values come from."""

    def __init__(self, position, meta, low, high):
        self.position, self.meta, self.low, self.high = position, meta, low, high


def _sg(x):
    return ops.stop_gradient(x)


# ===== custom bprops and hooks (module level, so a reproducer can name them) =========================
class SquareWithBprop(nn.Cell):
    """``x * x`` with its correct derivative written as a custom bprop."""

    def construct(self, x):
        return x * x

    def bprop(self, x, out, dout):
        return (dout * x * 2.0,)


class SigmoidWithBprop(nn.Cell):
    """``sigmoid(x)`` whose (correct) bprop reads the forward output ``out``."""

    def construct(self, x):
        return ops.sigmoid(x)

    def bprop(self, x, out, dout):
        return (dout * out * (1.0 - out),)


class MulWithBprop(nn.Cell):
    """``x * y`` (same shapes) with the correct two-input bprop (the documentation's example)."""

    def construct(self, x, y):
        return x * y

    def bprop(self, x, y, out, dout):
        return dout * y, dout * x


class SpikeWithSurrogate(nn.Cell):
    """A deliberately different rule: the step ``x > 0`` forward, ``sigmoid'(x)`` backward (the
    surrogate gradient of spiking networks, seed 000)."""

    def construct(self, x):
        return ops.cast(ops.gt(x, 0.0), x.dtype)

    def bprop(self, x, out, dout):
        s = ops.sigmoid(x)
        return (dout * s * (1.0 - s),)


class SinWithTripledRule(nn.Cell):
    """A deliberately different rule: ``sin(x)`` forward, ``3 cos(x)`` backward."""

    def construct(self, x):
        return ops.sin(x)

    def bprop(self, x, out, dout):
        return (dout * ops.cos(x) * 3.0,)


def scaling_hook(scale):
    """A backward hook for ``ops.HookBackward`` that multiplies the gradient passing by ``scale``."""
    def hook(grads):
        return tuple(g * scale for g in grads)
    hook.__name__ = f"times_{scale:g}".replace("-", "minus_").replace(".", "_")
    return hook


class TanhWithScaledHook(nn.Cell):
    """``tanh(x)`` with a Cell backward hook that multiplies the gradient with respect to ``x`` by
    ``scale`` (``grad_output`` in the documentation's names)."""

    def __init__(self, scale):
        super().__init__()
        self.scale = scale
        self.register_backward_hook(self.hook)

    def hook(self, cell_id, grad_input, grad_output):
        return tuple(g * self.scale for g in grad_output)

    def construct(self, x):
        return ops.tanh(x)


def scaled_identity(x, scale):
    """``x`` itself, whose derivative is ``scale`` at every order: ``sg(x) + (scale x - sg(scale x))``."""
    y = x * scale
    return ops.add(_sg(x), ops.sub(y, _sg(y)))


def _sigmoid_surrogate(x):
    return ops.sigmoid(x)


def _tripled_sin(x):
    return ops.sin(x) * 3.0


# ===== the program ==================================================================================
class Program:
    """A random straight-line program; ``repr`` is its Python source."""

    def __init__(self, nodes, outputs, dtype, form="flat"):
        self.nodes, self.outputs, self.dtype = nodes, tuple(outputs), dtype
        self.form = form            # "flat": a value or a tuple; "dict" / "nested": see _packed
        self.inputs = [n for n in nodes if isinstance(n, Input)]
        self.input_metas = [n.meta for n in self.inputs]
        self.steps = [n for n in nodes if isinstance(n, Step)]
        self.__name__ = "program"

    # ----- what it contains --------------------------------------------------------------------
    def has(self, tag) -> bool:
        """Does a line carry ``tag`` (``"fast"``, ``"nosym"``), or a special of that kind?"""
        return any(tag in s.tags or (s.special is not None and s.special.kind == tag) for s in self.steps)

    @property
    def parameters(self) -> list:
        """The Parameters its lines write and read (``param`` lines), in order."""
        return [p for s in self.steps for p in s.parameters]

    @property
    def has_hooks(self) -> bool:
        return self.has("hook")

    @property
    def has_custom_rules(self) -> bool:
        """Lines whose derivative differs from the automatic derivative of their forward computation."""
        return self.has("hook") or self.has("rule")

    # ----- running it ---------------------------------------------------------------------------
    def __call__(self, *args):
        return self._run(args, "real")

    def _run(self, args, variant, base=None, record=None):
        env = []
        for k, node in enumerate(self.nodes):
            if isinstance(node, Input):
                env.append(args[node.position])
                continue
            operands = [env[i] for i in node.operands]
            if record is not None:
                record[k] = operands
            sp = node.special
            if sp is None or variant == "real" or (variant == "plain" and sp.kind != "hook"):
                env.append(node.fn(*operands))
            elif variant == "plain" or sp.kind == "bprop":
                env.append(sp.forward(*operands))
            elif variant == "reference" and sp.reference is not None:
                env.append(sp.reference(*operands))
            elif variant == "reference":
                # the forward value exactly (F + 0), the derivative of the surrogate S
                s = sp.surrogate(*operands)
                env.append(ops.add(_sg(sp.forward(*operands)), ops.sub(s, _sg(s))))
            else:               # frozen: F(a0) + S(a) - S(a0), whose derivative at a = a0 is S'(a0)
                a0 = base[k]
                env.append(ops.add(sp.forward(*a0), ops.sub(sp.surrogate(*operands), sp.surrogate(*a0))))
        return self._packed(tuple(env[i] for i in self.outputs))

    def _packed(self, outs):
        """The outputs in the program's form: ``{"y": first, "rest": [others]}`` ("dict"), ``(first,
        [others])`` ("nested"), else the value or a flat tuple."""
        if self.form == "dict":
            return {"y": outs[0], "rest": list(outs[1:])}
        if self.form == "nested":
            return (outs[0], list(outs[1:]))
        return outs[0] if len(outs) == 1 else outs

    def variant(self, name):
        """``"plain"``: hooks removed (what Graph mode runs); ``"reference"``: custom rules and
        hooks re-expressed with ``stop_gradient`` (same values, same derivatives, at any order)."""
        if name not in ("plain", "reference", "real"):
            raise ValueError(f"Program.variant: unknown variant {name!r}")

        def run(*args):
            return self._run(args, name)
        run.__name__ = f"{name}_program"
        return run

    def frozen_at(self, args):
        """A function whose true derivative at ``args`` is the derivative the program's rules and
        hooks say it has: every special line computes ``F(a0) + S(a) - S(a0)`` with its operands
        ``a0`` at ``args`` held fixed (``F`` its forward, ``S`` the function whose derivative the
        rule is).  At ``args`` it has the program's value; finite differences of it check the rules."""
        base = {}
        self._run(args, "plain", record=base)

        def frozen(*xs):
            return self._run(xs, "frozen", base=base)
        frozen.__name__ = "frozen_program"
        return frozen

    def decisions(self, args, base=None) -> list:
        """The discrete choices of every line with a kink, at ``args`` (a list of arrays); with
        ``base`` (operands recorded at a point), those of the frozen variant at that point."""
        record = {}
        self._run(args, "plain" if base is None else "frozen", base=base, record=record)
        out = []
        for k, node in enumerate(self.nodes):
            if isinstance(node, Step) and node.decision is not None:
                arrays = [np.asarray(v._data) if isinstance(v, Tensor) else v for v in record[k]]
                out.append(np.asarray(node.decision(*arrays)))
        return out

    # ----- printing ----------------------------------------------------------------------------
    def __repr__(self):
        names = [f"v{k}" for k, n in enumerate(self.nodes) if isinstance(n, Input)]
        lines = [f"{p.name} = Parameter(Tensor(np.zeros({tuple(p.shape)!r}), ms.{p.dtype.name.lower()}), "
                 f"name={p.name!r})" for p in self.parameters]
        lines += [f"def program({', '.join(names)}):   # {self.dtype}"]
        lines += [f"    {line}" for k, n in enumerate(self.nodes) if isinstance(n, Step) for line in n.lines(f"v{k}")]
        first, rest = f"v{self.outputs[0]}", ", ".join(f"v{i}" for i in self.outputs[1:])
        returned = {"dict": f'{{"y": {first}, "rest": [{rest}]}}', "nested": f"({first}, [{rest}])"}
        lines.append(f"    return {returned.get(self.form, ', '.join(f'v{i}' for i in self.outputs))}")
        return "\n".join(lines)

    def reproducer(self, args) -> str:
        """The program's source and its arguments, ready to paste."""
        parts = [f"Tensor(np.array({np.asarray(a._data).tolist()!r}, dtype=np.{np.asarray(a._data).dtype}))"
                 if isinstance(a, Tensor) else repr(a) for a in args]
        return f"{self!r}\nargs = ({', '.join(parts)}{',' if len(parts) == 1 else ''})"


class ProgramCell(nn.Cell):
    """A program as a Cell, so that ``set_context(mode=GRAPH_MODE)`` compiles it too.

    ``weights``: {input position: Parameter} — those inputs are read from the Cell's Parameters
    (differentiated with ``weights=``) instead of being passed in.
    """

    def __init__(self, program, weights=None):
        super().__init__()
        self.program = program
        self.positions = sorted(weights or {})
        for k in self.positions:
            setattr(self, f"w{k}", weights[k])

    def construct(self, *inputs):
        given = iter(inputs)
        full = [getattr(self, f"w{k}") if k in self.positions else next(given)
                for k in range(len(self.program.inputs))]
        return self.program(*full)


def with_weights(program, args, chosen):
    """The program as a Cell reading the (float) inputs at ``chosen`` from Parameters; the other
    args; the Parameters."""
    chosen = [k for k in chosen if k < len(args) and args[k].dtype.is_float]
    weights = {k: Parameter(args[k], name=f"w{k}") for k in chosen}
    rest = tuple(a for k, a in enumerate(args) if k not in weights)
    return ProgramCell(program, weights), rest, [weights[k] for k in sorted(weights)]


# ===== kinks ======================================================================================
def near_a_kink(program, args, step=3e-3, directions=3, seed=0) -> bool:
    """True when a kink (relu's 0, a tie of maximum, a select's boundary, a window's maximum ...)
    lies within ``step`` of ``args`` in one of a few random directions: the discrete choices of the
    program change there, so a central difference with a step about ten times smaller could straddle
    the kink.  (Finite differences are then no reference; a test discards such a point.)

    The moved points run the frozen variant (:meth:`Program.frozen_at`), the function the finite
    differences evaluate: it may cross a kink where the program itself does not (``abs`` of a
    surrogate's step output, exactly 0 in the program, is ``0 + S(a) - S(a0)`` in the frozen one)."""
    base = {}
    program._run(args, "plain", record=base)
    at = program.decisions(args, base)
    if not at:
        return False
    rng = np.random.default_rng(seed)
    floats = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.dtype.is_float]
    with np.errstate(all="ignore"):
        for _ in range(directions):
            for sign in (1.0, -1.0):
                moved = list(args)
                for i in floats:
                    x = np.asarray(args[i]._data)
                    moved[i] = Tensor((x + sign * step * rng.standard_normal(x.shape)).astype(x.dtype))
                for a, b in zip(at, program.decisions(tuple(moved), base)):
                    if a.shape != b.shape or not np.array_equal(a, b):
                        return True
    return False


def _positive(x):
    return np.asarray(x) > 0


def _greater(x, y):
    return np.asarray(x) > np.asarray(y)


def _argmax_over(axes):
    """Which entry a max-reduction over ``axes`` picks."""
    def decision(x):
        x = np.asarray(x)
        if x.ndim == 0:
            return np.zeros((), int)
        ax = tuple(range(x.ndim)) if axes == () else ((axes % x.ndim,) if isinstance(axes, int) else
                                                        tuple(a % x.ndim for a in axes))
        rest = [a for a in range(x.ndim) if a not in ax]
        moved = np.transpose(x, rest + list(ax)).reshape([x.shape[a] for a in rest] + [-1])
        return np.argmax(moved, axis=-1)
    return decision


# ===== drawing lines =================================================================================
UNARY_OPS = {
    # name: (function, needs a positive input, (bound, lo) of the result from the operand's)
    "neg": (ops.neg, False, lambda b, lo: (b, None)),
    "exp": (ops.exp, False, lambda b, lo: (np.exp(b), np.exp(-b)) if b <= 4 else None),
    "log": (ops.log, True, lambda b, lo: (max(abs(np.log(lo)), abs(np.log(b))), None)),
    "sqrt": (ops.sqrt, True, lambda b, lo: (np.sqrt(b), np.sqrt(lo))),
    "square": (ops.square, False, lambda b, lo: (b * b, lo * lo if lo else None)),
    "sin": (ops.sin, False, lambda b, lo: (1.0, None)),
    "cos": (ops.cos, False, lambda b, lo: (1.0, None)),
    "tanh": (ops.tanh, False, lambda b, lo: (1.0, None)),
    "sigmoid": (ops.sigmoid, False, lambda b, lo: (1.0, 1 / (1 + np.exp(b)))),
    "relu": (ops.relu, False, lambda b, lo: (b, lo)),
    "abs": (ops.abs, False, lambda b, lo: (b, lo)),
    "reciprocal": (ops.reciprocal, True, lambda b, lo: (1 / lo, 1 / b)),
}
UNARY_KINKS = {"relu": _positive, "abs": _positive}

BINARY_OPS = {
    # name: (function, needs a positive 2nd operand, needs a positive 1st operand, bound/lo rule)
    "add": (ops.add, False, False, lambda a, b: (a.bound + b.bound, a.lo + b.lo if a.lo and b.lo else None)),
    "sub": (ops.sub, False, False, lambda a, b: (a.bound + b.bound, None)),
    "mul": (ops.mul, False, False, lambda a, b: (a.bound * b.bound, a.lo * b.lo if a.lo and b.lo else None)),
    "div": (ops.div, True, False, lambda a, b: (a.bound / b.lo, a.lo / b.bound if a.lo else None)),
    "maximum": (ops.maximum, False, False,
                lambda a, b: (max(a.bound, b.bound), max(a.lo or 0, b.lo or 0) or None)),
    "minimum": (ops.minimum, False, False,
                lambda a, b: (max(a.bound, b.bound), min(a.lo, b.lo) if a.lo and b.lo else None)),
    "pow": (ops.pow, False, True,
            lambda a, b: (max(a.bound, 1 / a.lo) ** b.bound, max(a.bound, 1 / a.lo) ** -b.bound)
            if b.bound <= 2 else None),
}
BINARY_KINKS = {"maximum": _greater, "minimum": _greater}
INT_BINARY = ("add", "sub", "mul", "maximum", "minimum")        # ops that keep integers integers

COMPARISONS = {"gt": ops.gt, "lt": ops.lt, "ge": ops.ge}
REDUCTIONS = {"sum": ops.ReduceSum, "mean": ops.ReduceMean, "max": ops.ReduceMax}
SCALARS = [0.5, -1.5, 2.0, 3.0]
INNER = {      # inner functions of a nested grad: name -> (g, bound of g' given |argument| bound)
    "sin": (ops.sin, lambda b: 1.0),
    "tanh": (ops.tanh, lambda b: 1.0),
    "sigmoid": (ops.sigmoid, lambda b: 0.25),
    "square": (ops.square, lambda b: 2 * b),
    "exp": (ops.exp, lambda b: np.exp(b) if b <= 4 else None),
}
HOOK_SCALES = [2.0, -0.5, 3.0]


class _Draw:
    """The state of one program being drawn: its nodes, their Metas, and the Hypothesis ``draw``."""

    def __init__(self, draw, space, dtype):
        self.draw, self.space, self.dtype = draw, space, dtype
        self.nodes, self.metas = [], []
        self.n_inputs = 0

    # ----- values ---------------------------------------------------------------------------
    def add_input(self, meta, low, high):
        self.nodes.append(Input(self.n_inputs, meta, low, high))
        self.metas.append(meta)
        self.n_inputs += 1
        return len(self.nodes) - 1

    def operand(self, positive=False, kind="f", ndim=None, pred=None):
        """Index of an earlier value (shrinking towards the latest one, so programs are chains)."""
        lo = self.space.min_lo
        cands = [i for i, m in enumerate(self.metas)
                 if (not positive or (m.lo is not None and m.lo >= lo))
                 and (kind is None or m.kind == kind)
                 and (ndim is None or len(m.shape) in ndim)
                 and (pred is None or pred(m))]
        if not cands:
            return None
        return cands[len(cands) - 1 - self.draw(st.integers(0, len(cands) - 1))]

    @staticmethod
    def broadcast_of(*shapes):
        """The shape ``shapes`` broadcast to, or None."""
        try:
            return tuple(np.broadcast_shapes(*shapes))
        except ValueError:
            return None

    def broadcast(self, *indices):
        """The shape the values at ``indices`` broadcast to; None when one is missing (None) or
        their shapes do not broadcast."""
        if any(i is None for i in indices):
            return None
        try:
            return tuple(np.broadcast_shapes(*(self.metas[i].shape for i in indices)))
        except ValueError:
            return None

    def image_operand(self):
        """``(index, Meta)`` of an earlier 4-D (NCHW) value, or ``(None, None)``."""
        i = self.operand(ndim=(4,))
        return (None, None) if i is None else (i, self.metas[i])

    def shape_of(self, fn, operands):
        """The shape of a line's result, by running it once on ones (exact, whatever the op)."""
        probes = []
        for i in operands:
            m = self.metas[i]
            dt = np.int32 if m.kind == "i" else np.dtype(self.dtype)
            probes.append(Tensor(np.ones(m.shape, dtype=dt)))
        with np.errstate(all="ignore"):
            out = fn(*probes)
        return tuple(out.shape)


def _draw_unary(d: _Draw):
    """An elementwise function of one earlier value (its domain respected)."""
    draw, metas = d.draw, d.metas
    name = draw(st.sampled_from(sorted(UNARY_OPS)))
    fn, positive, rule = UNARY_OPS[name]
    i = d.operand(positive)
    if i is None:
        return None
    out = rule(metas[i].bound, metas[i].lo)
    return out and (Step(f"ops.{name}(v{i})", fn, [i], UNARY_KINKS.get(name)),
                    Meta(metas[i].shape, *out))


def _draw_binary(d: _Draw):
    """An elementwise function of two earlier values, with broadcasting (and int/float mixing)."""
    draw, metas, space = d.draw, d.metas, d.space
    name = draw(st.sampled_from(sorted(BINARY_OPS)))
    fn, second_pos, first_pos, rule = BINARY_OPS[name]
    mixed = space.ints and name in INT_BINARY and draw(st.booleans())
    i = d.operand(first_pos, kind=None if mixed else "f")
    j = d.operand(second_pos, kind=None if mixed else "f")
    shape = d.broadcast(i, j)
    if shape is None:
        return None
    out = rule(metas[i], metas[j])
    kind_out = "i" if metas[i].kind == metas[j].kind == "i" else "f"
    return out and (Step(f"ops.{name}(v{i}, v{j})", fn, [i, j], BINARY_KINKS.get(name)),
                    Meta(shape, *out, kind=kind_out))


def _draw_int(d: _Draw):
    """Integer arithmetic, then (sometimes) into the float world."""
    draw, metas = d.draw, d.metas
    i = d.operand(kind="i")
    if i is None:
        return None
    m = metas[i]
    choice = draw(st.sampled_from(["neg", "abs", "square", "sum", "cast", "cast", "mix"]))
    if choice in ("neg", "abs", "square"):
        fn = getattr(ops, choice)
        lo = m.lo if choice != "neg" else None
        return Step(f"ops.{choice}(v{i})", fn, [i]), Meta(m.shape, m.bound ** (2 if choice == "square" else 1),
                                                         lo and lo ** (2 if choice == "square" else 1), "i")
    if choice == "sum":
        n = int(np.prod(m.shape))
        return Step(f"ops.ReduceSum()(v{i}, ())", lambda a: ops.ReduceSum()(a, ()), [i]), \
            Meta((), m.bound * n, m.lo and m.lo * n, "i")
    if choice == "cast":
        dt = d.dtype      # a name such as "float64"; ops.cast takes only a minims dtype
        return Step(f"ops.cast(v{i}, ms.{dt})", lambda a, dt=getattr(mstype, dt): ops.cast(a, dt), [i]), \
            Meta(m.shape, m.bound, m.lo, "f")
    j = d.operand(kind="f")         # mix: an integer times a float value (promotion)
    if j is None:
        return None
    try:
        shape = tuple(np.broadcast_shapes(m.shape, metas[j].shape))
    except ValueError:
        return None
    return Step(f"ops.mul(v{i}, v{j})", ops.mul, [i, j]), Meta(shape, m.bound * metas[j].bound)


def _draw_scalar(d: _Draw):
    """An earlier value combined with a Python number (a weak constant)."""
    draw, metas = d.draw, d.metas
    name = draw(st.sampled_from(["add", "mul", "sub"]))
    c, first = draw(st.sampled_from(SCALARS)), draw(st.booleans())
    i = d.operand()
    if i is None:
        return None
    m = metas[i]
    fn = BINARY_OPS[name][0]
    if name == "mul":
        bound, lo = m.bound * abs(c), (m.lo * c if m.lo and c > 0 else None)
    else:
        bound, lo = m.bound + abs(c), (m.lo + c if name == "add" and m.lo and c > 0 else None)
    text = f"ops.{name}({c}, v{i})" if first else f"ops.{name}(v{i}, {c})"
    call = (lambda a, fn=fn, c=c: fn(c, a)) if first else (lambda a, fn=fn, c=c: fn(a, c))
    return Step(text, call, [i]), Meta(m.shape, bound, None if first and name == "sub" else lo)


def _draw_reduce(d: _Draw):
    """A sum, mean or max over some axes, keeping them or not."""
    draw, metas = d.draw, d.metas
    name = draw(st.sampled_from(sorted(REDUCTIONS)))
    i = d.operand()
    if i is None:
        return None
    m = metas[i]
    nd = len(m.shape)
    axis = draw(st.one_of(st.just(()), st.integers(-nd, nd - 1) if nd else st.just(()),
                          st.lists(st.integers(0, max(nd - 1, 0)), unique=True, max_size=nd).map(tuple)))
    keep = draw(st.booleans())
    axes = range(nd) if axis == () else ([axis % nd] if isinstance(axis, int) else axis)
    count = int(np.prod([m.shape[a] for a in axes])) if nd else 1
    shape = tuple(1 if k in axes else s for k, s in enumerate(m.shape)) if keep else \
        tuple(s for k, s in enumerate(m.shape) if k not in axes)
    bound = m.bound * count if name == "sum" else m.bound
    lo = (m.lo * (count if name == "sum" else 1)) if m.lo else None
    cls = REDUCTIONS[name]
    step = Step(f"ops.{cls.__name__}(keep_dims={keep})(v{i}, {axis!r})",
                lambda a, cls=cls, keep=keep, axis=axis: cls(keep)(a, axis), [i],
                _argmax_over(axis) if name == "max" else None)
    return step, Meta(shape, bound, lo)


def _draw_matmul(d: _Draw):
    """A matrix (or vector) product of two earlier values whose shapes fit."""
    draw, metas = d.draw, d.metas
    pairs = [(i, j) for i in range(len(metas)) for j in range(len(metas))
             if metas[i].kind == metas[j].kind == "f"
             and len(metas[i].shape) in (1, 2) and len(metas[j].shape) in (1, 2)
             and metas[i].shape[-1] == metas[j].shape[0]]
    if not pairs:
        return None
    i, j = draw(st.sampled_from(pairs))
    a, b = metas[i].shape, metas[j].shape
    return (Step(f"ops.matmul(v{i}, v{j})", ops.matmul, [i, j]),
            Meta(a[:-1] + b[1:], a[-1] * metas[i].bound * metas[j].bound))


def _draw_reshape(d: _Draw):
    """An earlier value reshaped."""
    draw, metas = d.draw, d.metas
    i = d.operand()
    if i is None:
        return None
    m = metas[i]
    size = int(np.prod(m.shape))
    target = draw(st.sampled_from([(size,), (1, size), (size, 1), m.shape[::-1], (-1,)]))
    shape = (size,) if target == (-1,) else target
    return (Step(f"ops.reshape(v{i}, {target!r})", lambda a, t=target: ops.reshape(a, t), [i]),
            Meta(shape, m.bound, m.lo))


def _draw_transpose(d: _Draw):
    """An earlier value with its axes permuted."""
    draw, metas = d.draw, d.metas
    i = d.operand()
    if i is None:
        return None
    m = metas[i]
    perm = tuple(draw(st.permutations(range(len(m.shape)))))
    return (Step(f"ops.transpose(v{i}, {perm!r})", lambda a, p=perm: ops.transpose(a, p), [i]),
            Meta(tuple(m.shape[p] for p in perm), m.bound, m.lo))


def _draw_select(d: _Draw):
    """``select(cmp(a, b), x, y)`` on earlier values."""
    draw, metas = d.draw, d.metas
    cmp = draw(st.sampled_from(sorted(COMPARISONS)))
    i, j = d.operand(kind=None), d.operand(kind=None)       # the comparison may be on integers
    k, l = d.operand(), d.operand()
    if None in (i, j, k, l):
        return None
    try:
        shape = tuple(np.broadcast_shapes(*(metas[q].shape for q in (i, j, k, l))))
    except ValueError:
        return None
    x, y = metas[k], metas[l]
    lo = min(x.lo, y.lo) if x.lo and y.lo else None
    return (Step(f"ops.select(ops.{cmp}(v{i}, v{j}), v{k}, v{l})",
                 lambda a, b, c, e, cmp=COMPARISONS[cmp]: ops.select(cmp(a, b), c, e), [i, j, k, l],
                 lambda a, b, c, e, cmp=cmp: getattr(np, {"gt": "greater", "lt": "less",
                                                           "ge": "greater_equal"}[cmp])(a, b)),
            Meta(shape, max(x.bound, y.bound), lo))


def _draw_softmax(d: _Draw):
    """``softmax`` or ``log_softmax`` along one axis."""
    draw, metas = d.draw, d.metas
    i = d.operand(ndim=(1, 2, 3, 4))
    if i is None:
        return None
    m = metas[i]
    axis = draw(st.integers(-len(m.shape), len(m.shape) - 1))
    count = m.shape[axis]
    if draw(st.booleans()):
        return (Step(f"ops.softmax(v{i}, {axis})", lambda a, ax=axis: ops.softmax(a, ax), [i]),
                Meta(m.shape, 1.0, np.exp(-2 * m.bound) / count))
    return (Step(f"ops.log_softmax(v{i}, {axis})", lambda a, ax=axis: ops.log_softmax(a, ax), [i]),
            Meta(m.shape, 2 * m.bound + np.log(count)))


def _draw_inner_grad(d: _Draw):
    """A gradient inside the program, closing over another value."""
    draw, metas = d.draw, d.metas
    name = draw(st.sampled_from(sorted(INNER)))
    g, gprime = INNER[name]
    i, j = d.operand(), d.operand()
    if i is None or j is None:
        return None
    try:
        np.broadcast_shapes(metas[i].shape, metas[j].shape)
    except ValueError:
        return None
    deriv = gprime(metas[i].bound * metas[j].bound)
    if deriv is None:
        return None

    def inner(t, c, g=g):
        return ops.grad(lambda s: ops.sum(g(ops.mul(s, c))))(t)
    return (Step(f"ops.grad(lambda t: ops.sum(ops.{name}(ops.mul(t, v{j}))))(v{i})", inner, [i, j]),
            Meta(metas[i].shape, deriv * metas[j].bound * int(np.prod(metas[j].shape) or 1)))


def _draw_special(d: _Draw):
    draw, metas = d.draw, d.metas
    which = draw(st.sampled_from(d.space.specials)) if d.space.specials else None
    if which is None:
        return None
    i = d.operand()
    if i is None:
        return None
    m = metas[i]
    if which == "square_bprop":
        cell = SquareWithBprop()
        return (Step(f"SquareWithBprop()(v{i})", cell, [i], special=Special("bprop", ops.square), tags=("nosym",)),
                Meta(m.shape, m.bound ** 2, m.lo and m.lo ** 2))
    if which == "sigmoid_bprop":
        cell = SigmoidWithBprop()
        return (Step(f"SigmoidWithBprop()(v{i})", cell, [i], special=Special("bprop", ops.sigmoid),
                     tags=("nosym",)),
                Meta(m.shape, 1.0, 1 / (1 + np.exp(m.bound))))
    if which == "mul_bprop":
        j = d.operand(pred=lambda mj: mj.shape == m.shape)
        if j is None:
            return None
        cell = MulWithBprop()
        return (Step(f"MulWithBprop()(v{i}, v{j})", cell, [i, j], special=Special("bprop", ops.mul),
                     tags=("nosym",)),
                Meta(m.shape, m.bound * metas[j].bound))
    if which == "spike_surrogate":
        cell = SpikeWithSurrogate()
        return (Step(f"SpikeWithSurrogate()(v{i})", cell, [i], _positive,
                     special=Special("rule", lambda a: ops.cast(ops.gt(a, 0.0), a.dtype), _sigmoid_surrogate),
                     tags=("nosym",)),
                Meta(m.shape, 1.0))
    if which == "tripled_rule":
        cell = SinWithTripledRule()
        return (Step(f"SinWithTripledRule()(v{i})", cell, [i], special=Special("rule", ops.sin, _tripled_sin),
                     tags=("nosym",)),
                Meta(m.shape, 1.0))
    scale = draw(st.sampled_from(HOOK_SCALES))
    if which == "hook_backward":
        hook = ops.HookBackward(scaling_hook(scale))
        return (Step(f"ops.HookBackward(scaling_hook({scale}))(v{i})", hook, [i],
                     special=Special("hook", lambda a: a, lambda a, c=scale: a * c), tags=("nosym",)),
                Meta(m.shape, m.bound, m.lo))
    cell = TanhWithScaledHook(scale)
    return (Step(f"TanhWithScaledHook({scale})(v{i})", cell, [i],
                 special=Special("hook", ops.tanh, lambda a, c=scale: ops.tanh(a) * c,
                                 lambda a, c=scale: ops.tanh(scaled_identity(a, c))), tags=("nosym",)),
            Meta(m.shape, 1.0))


def _weight(d: _Draw, shape, bound, low=None, lo=None):
    """A new float input (a layer's weight) with values in [low, bound]."""
    return d.add_input(Meta(shape, bound, lo), -bound if low is None else low, bound)


def _draw_dense(d: _Draw):
    """A dense layer (new weight inputs) on a 2-D value."""
    draw, metas = d.draw, d.metas
    i = d.operand(ndim=(2,))
    if i is None:
        return None
    n, k = metas[i].shape
    out = draw(st.integers(1, 4))
    w = _weight(d, (out, k), 1.0)
    has_bias = draw(st.booleans())
    b = _weight(d, (out,), 1.0) if has_bias else None
    matmul = ops.MatMul(transpose_b=True)
    if has_bias:
        fn, text, operands = (lambda x, w_, b_: ops.add(matmul(x, w_), b_),
                              f"ops.add(ops.MatMul(transpose_b=True)(v{i}, v{w}), v{b})", [i, w, b])
    else:
        fn, text, operands = matmul, f"ops.MatMul(transpose_b=True)(v{i}, v{w})", [i, w]
    return Step(text, fn, operands), Meta((n, out), k * metas[i].bound + (1.0 if has_bias else 0.0))


def _draw_flatten(d: _Draw):
    """A 3-D or 4-D value flattened to 2-D."""
    metas = d.metas
    i = d.operand(ndim=(3, 4))
    if i is None:
        return None
    m = metas[i]
    return Step(f"ops.flatten(v{i})", ops.flatten, [i]), Meta((m.shape[0], int(np.prod(m.shape[1:]))),
                                                              m.bound, m.lo)


def _draw_xent(d: _Draw):
    """A softmax cross-entropy (sparse labels, or distributions) on 2-D logits."""
    draw, metas = d.draw, d.metas
    i = d.operand(ndim=(2,), pred=lambda m: m.shape[1] >= 2)
    if i is None:
        return None
    n, c = metas[i].shape
    if draw(st.booleans()):
        labels = d.add_input(Meta((n,), c - 1, None, "i"), 0, c - 1)
        prim = P.SparseSoftmaxCrossEntropyWithLogits()
        return (Step(f"P.SparseSoftmaxCrossEntropyWithLogits()(v{i}, v{labels})", prim, [i, labels],
                     tags=("fast", "nosym")),
                Meta((), metas[i].bound * 2 + np.log(c)))
    rows = np.asarray(draw(st.lists(st.lists(st.integers(1, 4), min_size=c, max_size=c),
                                    min_size=n, max_size=n)), dtype=np.float64)
    labels = rows / rows.sum(axis=1, keepdims=True)           # each row a distribution
    which = draw(st.sampled_from([0, 0, 1]))                   # the loss, or the logits' gradient
    prim = P.SoftmaxCrossEntropyWithLogits()

    def xent(x, labels=labels, which=which):
        return prim(x, ops.cast(Tensor(labels), x.dtype))[which]
    text = (f"P.SoftmaxCrossEntropyWithLogits()(v{i}, ops.cast(Tensor(np.array({labels.tolist()!r})), "
            f"v{i}.dtype))[{which}]")
    return (Step(text, xent, [i], tags=("fast", "nosym")),
            Meta((n,) if which == 0 else (n, c), metas[i].bound * 2 + np.log(c) if which == 0 else 1.0))


def _draw_conv(d: _Draw):
    """A convolution (new weight inputs) on an NCHW value."""
    draw = d.draw
    i, m = d.image_operand()
    if i is None:
        return None
    n, c, h, w = m.shape
    group = draw(st.sampled_from([1, 2])) if c % 2 == 0 else 1
    o = group * draw(st.integers(1, 2))
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    stride = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    mode = draw(st.sampled_from(["valid", "same", "pad"]))
    pad = tuple(draw(st.integers(0, 2)) for _ in range(4)) if mode == "pad" else 0
    if any((kk - 1) * dd + 1 > size + (sum(pad[2 * a:2 * a + 2]) if mode == "pad" else 0)
           for a, (kk, dd, size) in enumerate(zip(k, dilation, (h, w)))) and mode != "same":
        return None
    wt = _weight(d, (o, c // group) + k, 1.0)
    has_bias = draw(st.booleans())
    b = _weight(d, (o,), 1.0) if has_bias else None

    def conv(x, wt_, *bias, stride=stride, mode=mode, pad=pad, dilation=dilation, group=group):
        return ops.conv2d(x, wt_, bias[0] if bias else None, stride, mode, pad, dilation, group)
    args_text = f"{stride}, {mode!r}, {pad!r}, {dilation}, {group}"
    text = f"ops.conv2d(v{i}, v{wt}, {f'v{b}' if has_bias else None}, {args_text})"
    operands = [i, wt] + ([b] if has_bias else [])
    try:
        shape = d.shape_of(conv, operands)
    except ValueError:
        return None
    if 0 in shape:
        return None
    fan = (c // group) * k[0] * k[1]
    return Step(text, conv, operands, tags=("fast", "nosym")), Meta(shape, fan * m.bound + 1.0)


def _draw_pool(d: _Draw):
    """Max or average pooling on an NCHW value."""
    draw = d.draw
    i, m = d.image_operand()
    if i is None:
        return None
    n, c, h, w = m.shape
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    stride = (draw(st.integers(1, 3)), draw(st.integers(1, 2)))
    is_max = draw(st.booleans())
    if draw(st.integers(0, 3)) == 0:           # MindSpore's constructor: pad_mode valid / same
        mode = draw(st.sampled_from(["valid", "same"]))
        pool = (P.MaxPool if is_max else P.AvgPool)(k, stride, mode)
        text = f"P.{'MaxPool' if is_max else 'AvgPool'}({k}, {stride}, {mode!r})(v{i})"
    else:
        pads = tuple(draw(st.integers(0, kk // 2)) for kk in (k[0], k[0], k[1], k[1]))
        ceil = draw(st.booleans())
        if is_max:
            dil = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
            pool = P.MaxPool._configured(k, stride, pads, dil, ceil)
            text = f"P.MaxPool._configured({k}, {stride}, {pads}, {dil}, {ceil})(v{i})"
        else:
            include, divisor = draw(st.booleans()), draw(st.sampled_from([0, 0, 3]))
            pool = P.AvgPool._configured(k, stride, pads, (1, 1), ceil, include, divisor)
            text = f"P.AvgPool._configured({k}, {stride}, {pads}, (1, 1), {ceil}, {include}, {divisor})(v{i})"
    try:
        shape = d.shape_of(pool, [i])
    except ValueError:
        return None
    decision = (lambda x, pool=pool: pool._argmax(np.asarray(x))[0]) if is_max else None
    bound = m.bound * (k[0] * k[1] / 3 if not is_max else 1)         # divisor_override=3 may enlarge
    return Step(text, pool, [i], decision, tags=("fast", "nosym")), Meta(shape, bound, m.lo if is_max else None)


def _draw_batchnorm(d: _Draw):
    """Batch normalisation (new scale and bias inputs) on an NCHW value."""
    draw = d.draw
    i, m = d.image_operand()
    if i is None:
        return None
    n, c, h, w = m.shape
    training = draw(st.booleans()) and n * h * w >= 2
    eps = draw(st.sampled_from([1e-5, 1e-3, 0.1]))
    scale = _weight(d, (c,), 1.5, low=0.5, lo=0.5)
    bias = _weight(d, (c,), 1.0)
    mean = np.asarray(draw(st.lists(st.sampled_from([-0.5, 0.0, 0.25, 1.0]), min_size=c, max_size=c)))
    var = np.asarray(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=c, max_size=c)))
    prim = P.BatchNorm(training, eps)

    # bound directly: a training *call* also writes the moving statistics into mean/variance, which
    # these constants cannot take inside a compiled graph or vmap (BatchNorm's docstring)
    def bn(x, s, b, mean=mean, var=var):
        return bind(prim, x, s, b, ops.cast(Tensor(mean), x.dtype), ops.cast(Tensor(var), x.dtype))[0]
    text = (f"bind(P.BatchNorm({training}, {eps}), v{i}, v{scale}, v{bias}, "
            f"ops.cast(Tensor(np.array({mean.tolist()!r})), v{i}.dtype), "
            f"ops.cast(Tensor(np.array({var.tolist()!r})), v{i}.dtype))[0]")
    bound = (1.5 * np.sqrt(n * h * w) if training else 1.5 * (m.bound + 1) / np.sqrt(0.5)) + 1.0
    return Step(text, bn, [i, scale, bias], tags=("fast", "nosym")), Meta(m.shape, bound)


# ----- indexing by Tensors, in-place writes, values escaping a compiled function ---------------------------
def _index_text(index) -> str:
    """Python source for a constant index: an int, a slice ``a:b``, or a constant Tensor."""
    if isinstance(index, slice):
        return f"{index.start}:{index.stop}"
    if isinstance(index, np.ndarray):
        return f"Tensor(np.array({index.tolist()!r}))"
    return repr(index)


def _index_value(index):
    return Tensor(index) if isinstance(index, np.ndarray) else index


def _draw_axis0_index(d: _Draw, n, allow_input=True):
    """An index along an axis of size ``n``: ``("input", position)`` — an int index Tensor passed as
    a new program input, negative and repeated positions allowed —, or ``("constant", index)``: an
    int, a slice, a constant int Tensor, or a constant Bool mask with at least one True."""
    draw = d.draw
    how = draw(st.sampled_from(["input", "input", "int", "slice", "tensor", "mask"] if allow_input else
                               ["int", "slice", "tensor", "mask"]))
    if how == "input":
        shape = draw(st.sampled_from([(), (1,), (2,), (3,)]))
        return "input", d.add_input(Meta(shape, n, None, "i"), -n, n - 1)
    if how == "int":
        return "constant", draw(st.integers(-n, n - 1))
    if how == "slice":
        start = draw(st.integers(0, n - 1))
        return "constant", slice(start, draw(st.integers(start + 1, n)))
    if how == "tensor":
        return "constant", np.asarray(draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=3)))
    mask = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    mask[draw(st.integers(0, n - 1))] = True
    return "constant", np.asarray(mask)


def _draw_index(d: _Draw):
    """Indexing by a Tensor along axis 0 (``v[i]``: an int index Tensor input, or a constant index
    or mask), ``ops.gather`` along some axis with an index input, or the sum of the entries a mask
    computed from values selects (a shape that depends on values, summed)."""
    draw, metas = d.draw, d.metas
    i = d.operand(ndim=(1, 2, 3, 4))
    if i is None:
        return None
    m = metas[i]
    how = draw(st.sampled_from(["getitem", "getitem", "gather", "data_mask"]))
    if how == "gather":
        axis = draw(st.integers(0, len(m.shape) - 1))
        n = m.shape[axis]
        shape = draw(st.sampled_from([(), (1,), (2,), (3,)]))
        k = d.add_input(Meta(shape, n - 1, None, "i"), 0, n - 1)        # MindSpore's range: [0, n)
        out = m.shape[:axis] + shape + m.shape[axis + 1:]
        return (Step(f"ops.gather(v{i}, v{k}, {axis})", lambda x, idx, axis=axis: ops.gather(x, idx, axis), [i, k]),
                Meta(out, m.bound, m.lo))
    if how == "data_mask":
        j = d.operand(pred=lambda mj: mj.shape == m.shape)
        if j is None:
            return None
        text = f"ops.ReduceSum()(v{i}[ops.gt(v{j}, 0.0)], ())"
        return (Step(text, lambda x, y: ops.ReduceSum()(x[ops.gt(y, 0.0)], ()), [i, j],
                     lambda x, y: np.asarray(y) > 0),
                Meta((), m.bound * int(np.prod(m.shape))))
    kind, index = _draw_axis0_index(d, m.shape[0])
    if kind == "input":
        out = metas[index].shape + m.shape[1:]
        return Step(f"v{i}[v{index}]", lambda x, idx: x[idx], [i, index]), Meta(out, m.bound, m.lo)
    value = _index_value(index)
    out = np.empty(m.shape, np.int8)[index].shape
    return (Step(f"v{i}[{_index_text(index)}]", lambda x, value=value: x[value], [i]), Meta(out, m.bound, m.lo))


def _draw_write(d: _Draw):
    """An in-place write into an intermediate: ``y = x * 1`` then ``y[index] = ...`` along axis 0
    (SetItem, differentiated), with a number or entries of ``y`` itself scaled; the index constant
    or an int index Tensor input (a repeated position: the last write wins)."""
    draw, metas = d.draw, d.metas
    i = d.operand(ndim=(1, 2, 3, 4))
    if i is None:
        return None
    m = metas[i]
    n = m.shape[0]
    kind, index = _draw_axis0_index(d, n)
    index_text = f"v{index}" if kind == "input" else _index_text(index)
    c = draw(st.sampled_from(SCALARS))
    if draw(st.booleans()):                                 # a number written
        source, value_text = None, repr(c)
        bound, lo = max(m.bound, abs(c)), (min(m.lo, c) if m.lo and c > 0 else None)
    else:                                                   # a row of y itself, scaled
        source = draw(st.integers(0, n - 1))
        value_text = f"{{v}}[{source}] * {c}"
        bound, lo = m.bound * max(1.0, abs(c)), (min(m.lo, m.lo * c) if m.lo and c > 0 else None)

    def write(x, *given, index=_index_value(index), source=source, c=c):
        y = ops.mul(x, 1)
        y[given[0] if given else index] = c if source is None else y[source] * c
        return y
    operands = [i, index] if kind == "input" else [i]
    return (Step("ops.mul(v%d, 1)" % i, write, operands, after=(f"{{v}}[{index_text}] = {value_text}",)),
            Meta(m.shape, bound, lo))


@jit
def split_parts(a, b):
    """A compiled function whose results come back in a structure: a dict holding a Tensor and a tuple
    that holds a list (with ``b`` itself: an input returned as it is)."""
    return {"scaled": a * 2.0, "parts": (ops.tanh(b), [a - b, b])}


#: What a line does with the structure ``split_parts`` returned: (source, function, bound rule).
ESCAPE_USES = {
    "sum": ('ops.add({v}_parts["scaled"], {v}_parts["parts"][1][0])',
            lambda r: ops.add(r["scaled"], r["parts"][1][0]), lambda a, b: 3 * a.bound + b.bound),
    "product": ('ops.mul({v}_parts["parts"][0], {v}_parts["parts"][1][1])',
                lambda r: ops.mul(r["parts"][0], r["parts"][1][1]), lambda a, b: b.bound),
    "difference": ('{v}_parts["parts"][1][0]', lambda r: r["parts"][1][0], lambda a, b: a.bound + b.bound),
}


def _draw_escape(d: _Draw):
    """Values that escape a compiled function inside a dict/tuple/list and are used after the call."""
    draw, metas = d.draw, d.metas
    i, j = d.operand(), d.operand()
    shape = d.broadcast(i, j)
    if shape is None:
        return None
    use = draw(st.sampled_from(sorted(ESCAPE_USES)))
    text, pick, bound = ESCAPE_USES[use]
    out = metas[j].shape if use == "product" else shape
    return (Step(text, lambda a, b, pick=pick: pick(split_parts(a, b)), [i, j],
                 before=(f"{{v}}_parts = split_parts(v{i}, v{j})",), tags=("nosym",)),
            Meta(out, bound(metas[i], metas[j])))


def _draw_param(d: _Draw):
    """A Parameter written and read back inside the program: ``ops.assign(p, x * c)``, a read
    ``first = p * y``, a second write from a read, ``ops.assign(p, p + first)``, and the line's
    value ``first + p`` (the second value read).  A read sees the value last written, and its gradient
    goes to the Parameter (differentiated when it is among the weights), none through the assignment.
    The line writes before it reads, so its value never depends on what an earlier call left in p."""
    draw, metas = d.draw, d.metas
    i = d.operand()
    if i is None:
        return None
    shape = metas[i].shape
    j = d.operand(pred=lambda m: d.broadcast_of(m.shape, shape) == shape)
    if j is None:
        return None
    c = draw(st.sampled_from(SCALARS))
    name = f"p{len(d.nodes)}"
    param = Parameter(Tensor(np.zeros(shape), getattr(mstype, d.dtype)), name=name)

    def write_and_read(x, y, p=param, c=c):
        ops.assign(p, ops.mul(x, c))
        first = ops.mul(p, y)
        ops.assign(p, ops.add(p, first))
        return ops.add(first, p)
    before = (f"ops.assign({name}, ops.mul(v{i}, {c!r}))", f"{{v}}_first = ops.mul({name}, v{j})",
              f"ops.assign({name}, ops.add({name}, {{v}}_first))")
    bound = metas[i].bound * abs(c) * (1.0 + 2.0 * metas[j].bound)
    return (Step(f"ops.add({{v}}_first, {name})", write_and_read, [i, j], tags=("param", "nosym"),
                 before=before, parameters=(param,)),
            Meta(shape, bound))


#: How each kind of line is drawn: ``kind -> drawer(d)`` returning ``(Step, Meta)``, or None when no
#: earlier value fits.
_DRAWERS = {
    "unary": _draw_unary, "binary": _draw_binary, "int": _draw_int, "scalar": _draw_scalar,
    "reduce": _draw_reduce, "matmul": _draw_matmul, "reshape": _draw_reshape,
    "transpose": _draw_transpose, "select": _draw_select, "softmax": _draw_softmax,
    "inner_grad": _draw_inner_grad, "special": _draw_special,
    "dense": _draw_dense, "flatten": _draw_flatten, "xent": _draw_xent, "conv": _draw_conv,
    "pool": _draw_pool, "batchnorm": _draw_batchnorm,
    "index": _draw_index, "write": _draw_write, "escape": _draw_escape, "param": _draw_param,
}


def _draw_step(d: _Draw, kind):
    """A line of ``kind`` on earlier values: ``(Step, Meta)``, or None when none fits."""
    return _DRAWERS[kind](d)


# ===== the strategy ===================================================================================
def special_values(dtype) -> np.ndarray:
    """The IEEE special values of a float format: both zeros, the smallest subnormals and a larger
    one, both infinities, NaN."""
    fi = np.finfo(dtype)
    tiny, sub = fi.smallest_subnormal, fi.smallest_normal / 3
    return np.array([0.0, -0.0, tiny, -tiny, sub, -sub, np.inf, -np.inf, np.nan], dtype)


def _input_values(draw, space, node, dtype, rng):
    """The values of one argument: drawn element by element, or from the seeded generator (with
    special values in some places for ``values="special"``)."""
    m = node.meta
    if m.kind == "i":
        if space.values != "drawn":
            data = rng.integers(int(node.low), int(node.high) + 1, size=m.shape)
        else:
            data = draw(hnp.arrays(np.int64, m.shape, elements=st.integers(int(node.low), int(node.high))))
        return Tensor(np.asarray(data, dtype=np.int32))
    if space.values != "drawn":
        data = np.array(rng.uniform(node.low, node.high, size=m.shape), dtype=dtype)
        if space.values == "special":
            special = rng.random(m.shape) < 0.25
            data[special] = rng.choice(special_values(dtype), size=m.shape)[special]
    else:
        data = draw(hnp.arrays(np.float64, m.shape, elements=st.floats(
            node.low, node.high, allow_subnormal=False, allow_nan=False)))
    return Tensor(np.asarray(data, dtype=dtype))


@st.composite
def programs(draw, space=BASIC):
    """``(program, args)``: a random program from ``space`` and arguments in its safe domain."""
    dtype = draw(st.sampled_from(space.dtypes))
    d = _Draw(draw, space, dtype)
    image = space.nchw > 0 and draw(st.floats(0, 1)) < space.nchw
    if image:
        shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(3, 7)), draw(st.integers(3, 7)))
        d.add_input(Meta(shape, 2.0), -2.0, 2.0)
    lo_in, hi_in = space.inputs
    for _ in range(draw(st.integers(lo_in, hi_in)) - (1 if image else 0)):
        shape = draw(st.sampled_from(space.shapes))
        if space.ints and draw(st.integers(0, 3)) == 0:
            positive = draw(st.booleans())
            d.add_input(Meta(shape, 3.0, 1 if positive else None, "i"), 1 if positive else -3, 3)
        elif draw(st.booleans()):
            d.add_input(Meta(shape, 2.0, 0.5), 0.5, 2.0)
        else:
            d.add_input(Meta(shape, 2.0), -2.0, 2.0)
    if not any(m.kind == "f" for m in d.metas):
        d.add_input(Meta(draw(st.sampled_from(space.shapes)), 2.0), -2.0, 2.0)
    lo_s, hi_s = space.steps
    n_steps = draw(st.integers(lo_s, hi_s))
    needed = list(space.need)
    for k in range(n_steps):
        # the last lines make sure a required kind appears ("fast": any layer with a Numba kernel)
        if needed and n_steps - k <= len(needed):
            want = needed.pop(0)
            kinds = ("conv", "pool", "xent", "batchnorm") if want == "fast" else (want,)
            made = _draw_step(d, draw(st.sampled_from(kinds)))
        else:
            for _ in range(3):                     # a kind that fits no earlier value: another one
                made = _draw_step(d, draw(st.sampled_from(space.kinds)))
                if made and made[1].bound <= space.max_bound:
                    break
        if not made or made[1].bound > space.max_bound:
            i = d.operand()                        # the line that always fits
            made = Step(f"ops.tanh(v{i})", ops.tanh, [i]), Meta(d.metas[i].shape, 1.0)
        else:
            for want in list(needed):
                if want in made[0].tags or want == "special" and made[0].special is not None:
                    needed.remove(want)
        d.nodes.append(made[0])
        d.metas.append(made[1])
    last = len(d.nodes) - 1
    floats = [i for i in range(last) if d.metas[i].kind == "f" and isinstance(d.nodes[i], Step)]
    extra = draw(st.sampled_from([None] + floats)) if floats else None     # a second output sometimes
    outputs = (last,) if extra is None else (last, extra)
    if d.metas[last].kind == "i":                  # something to differentiate
        d.nodes.append(Step(f"ops.cast(v{last}, ms.{dtype})", lambda a, dt=getattr(mstype, dtype): ops.cast(a, dt), [last]))
        d.metas.append(Meta(d.metas[last].shape, d.metas[last].bound))
        outputs = (len(d.nodes) - 1,) + outputs[1:]
    # a line that writes and reads Parameters is always an output: its values and gradients are the point
    outputs += tuple(k for k, n in enumerate(d.nodes) if isinstance(n, Step) and "param" in n.tags
                     and k not in outputs)
    form = draw(st.sampled_from(["flat", "flat", "dict", "nested"])) if space.structured else "flat"
    program = Program(d.nodes, outputs, dtype, form)
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1))) if space.values != "drawn" else None
    args = tuple(_input_values(draw, space, node, dtype, rng) for node in program.inputs)
    return program, args


class RecomputedBlock(nn.Cell):
    """``sin(x) * y + exp(y)`` in a Cell marked ``recompute()`` (issue 26): a gradient keeps its
    inputs and computes its inside again; other transforms run its construct as it is."""

    def __init__(self):
        super().__init__()
        self.recompute()

    def construct(self, x, y):
        return ops.sin(x) * y + ops.exp(y)
