"""``nn.Cell``: the building block of networks, and the order in which a Cell call runs.

A call ``cell(*inputs)`` runs, in this order (MindSpore's ``Cell.__call__``):

1. forward-pre hooks ``fn(cell_id, inputs)`` — a returned value replaces the inputs;
2. the backward-hook identity on the inputs (only if backward hooks are registered);
3. ``construct(*inputs)`` — or, if the class defines ``bprop``, one custom-bprop node;
4. the backward-hook identity on the outputs (backward pre-hooks ``fn(cell_id, grad_output)`` run
   there first, on the gradient arriving at the Cell);
5. forward hooks ``fn(cell_id, inputs, outputs)`` — a returned value replaces the outputs.

Sub-cells and Parameters assigned as attributes are registered in order; Parameter names get the
dotted attribute path (``fc1.weight``) when the cell is placed inside another one.  ``cell_id``
(given to hooks) and the path used in error messages are deterministic: class name and path.
A child that would make a cycle is refused, and the tree is walked without recursion
(``cell_tree.py``); two Parameters of one name are warned about, checked and renamed on the first
call as in MindSpore (``param_names.py``).
"""
from __future__ import annotations

import copy
import inspect
import itertools
import weakref
from collections import OrderedDict

from ..core.tensor import Tensor
from ..tensors.parameter import Parameter, ParameterTuple, is_generated_name
from ..tensors.convert import _describe
from ..graph.tracing import current_trace
from . import cell_slots, param_names, precision
from .cell_call import call_cell
from .cell_tree import check_no_cycle, subtree_parameters, tree_repr, walk

__all__ = ["Cell", "HookHandle"]

_handle_ids = itertools.count()


class HookHandle:
    """Returned by ``register_*_hook``; ``remove()`` unregisters the hook (idempotent)."""

    def __init__(self, hooks: dict, key: int):
        self._hooks = hooks
        self.handle_id = key

    def remove(self) -> None:
        self._hooks.pop(self.handle_id, None)

    def __repr__(self) -> str:
        return f"HookHandle(handle_id={self.handle_id})"


class Cell:
    """MindSpore's ``nn.Cell(auto_prefix=True, flags=None)``."""

    def __init__(self, auto_prefix=True, flags=None):
        d = self.__dict__
        d["_params"] = OrderedDict()
        d["_cells"] = OrderedDict()
        d["_auto_prefix"] = auto_prefix
        d["_parent"] = None
        d["_attr_name"] = None
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_hooks"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()
        d["_backward_pre_hooks"] = OrderedDict()
        d["training"] = False
        d["requires_grad"] = False
        d["bprop_debug"] = False
        d["_flags"] = dict(flags or {})

    def __deepcopy__(self, memo):
        """A deep copy with its own Parameters and sub-cells.  Compiled calls (Graph mode, ``@jit``
        methods) are not copied: they belong to the original (its weights, its lifetime); the copy
        compiles its own on its first call."""
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            if key == "_graph_call" or (isinstance(key, tuple) and key[:1] == ("_jit",)):
                continue
            if key == "_parent":            # the copy of the parent if it is being copied too, else none
                parent = value() if value is not None else None
                copied = memo.get(id(parent)) if parent is not None else None
                new.__dict__[key] = weakref.ref(copied) if copied is not None else None
                continue
            new.__dict__[key] = copy.deepcopy(value, memo)
        if new.__dict__.get("_parent") is None:
            new.__dict__["_attr_name"] = None
        return new

    # ----- attribute registration -------------------------------------------------------------
    def _check_init(self):
        if "_params" not in self.__dict__:
            # AttributeError, as MindSpore ("please call Cell.__init__() firstly")
            raise AttributeError(
                f"{type(self).__name__}.__init__ must call super().__init__() before assigning "
                "Parameters or sub-cells. Fix: add super().__init__() as its first line."
            )

    def __setattr__(self, name, value):
        d = self.__dict__
        if "_params" in d and current_trace() is None:     # in a compiled construct: an assignment
            cell_slots.check_assignment(self, name, value, lambda v: isinstance(v, Cell))
            (cell_slots.vacate if value is None else cell_slots.forget)(self, name)
        if isinstance(value, Parameter):
            self._check_init()
            d["_cells"].pop(name, None)
            if is_generated_name(value.name):
                value.name = name
            param_names.warn_if_name_taken(self, name, value)
            d["_params"][name] = value
            d.pop(name, None)
        elif isinstance(value, Cell):
            self._check_init()
            check_no_cycle(self, name, value)       # before any change: a refusal leaves self as it was
            d["_params"].pop(name, None)
            d["_cells"][name] = value
            d.pop(name, None)
            value.__dict__["_in_tree"] = True       # never unset: what the cycle check relies on
            if value.__dict__.get("_parent") is None:
                value.__dict__["_parent"] = weakref.ref(self)
                value.__dict__["_attr_name"] = name
                if self._auto_prefix:
                    for p in subtree_parameters(value):
                        p.name = f"{name}.{p.name}"
        elif isinstance(value, ParameterTuple):
            self._check_init()
            for p in value:     # each under its own name, as MindSpore: trainable, saved, named with the Cell's path
                if d["_params"].get(p.name) is not p:
                    param_names.warn_if_name_taken(self, p.name, p)
                    d["_params"][p.name] = p
            object.__setattr__(self, name, value)
        elif isinstance(value, Tensor) and name in d.get("_params", ()) and current_trace() is None:
            # a Tensor given to a Parameter attribute is the Parameter's new data, as in MindSpore 2.10
            # (replacing the Parameter would drop it from trainable_params and checkpoints, silently)
            d["_params"][name].set_data(value)
        else:
            if "_params" in d:                   # a plain value replaces a registered one
                d["_params"].pop(name, None)
                d["_cells"].pop(name, None)
            staging = current_trace()
            if staging is not None:             # compiling: a computed value is set after each run
                staging.record_attribute(self, name, value)
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        params = d.get("_params")
        if params is not None and name in params:
            return params[name]
        cells = d.get("_cells")
        if cells is not None and name in cells:
            return cells[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        d = self.__dict__
        cell_slots.forget(self, name)
        if name in d.get("_params", {}):
            del d["_params"][name]
        elif name in d.get("_cells", {}):
            del d["_cells"][name]
        else:
            object.__delattr__(self, name)

    def insert_child_to_cell(self, child_name: str, child_cell: "Cell") -> None:
        if not isinstance(child_name, str):     # TypeError, as MindSpore
            raise TypeError(f"insert_child_to_cell: child_name must be a str, got {_describe(child_name)}.")
        if not child_name or "." in child_name:
            raise KeyError(f"insert_child_to_cell: child_name must be a non-empty string without '.', "
                           f"got {child_name!r}.")
        if not isinstance(child_cell, Cell) and child_cell is not None:
            raise TypeError(f"insert_child_to_cell: child_cell must be a Cell, got {_describe(child_cell)}.")
        self._check_attribute_free(child_name, "_cells", "insert_child_to_cell", "child cell")
        setattr(self, child_name, child_cell)

    def insert_param_to_cell(self, param_name: str, param: Parameter, check_name_contain_dot=True):
        if not param_name:                      # KeyError, as MindSpore
            raise KeyError("For 'insert_param_to_cell', the argument 'param_name' should not be None. Fix: "
                           "insert_param_to_cell('weight', param).")
        if check_name_contain_dot and "." in param_name:
            raise KeyError(f"For 'insert_param_to_cell', the argument 'param_name' should not contain'.', but got "
                           f"{param_name!r}. Fix: insert it into the sub-cell the dotted path names.")
        if not isinstance(param, Parameter) and param is not None:
            raise TypeError(f"insert_param_to_cell: expected a Parameter, got {_describe(param)}.")
        self._check_attribute_free(param_name, "_params", "insert_param_to_cell", "parameter")
        setattr(self, param_name, param)

    def _check_attribute_free(self, name, table, where, what):
        """KeyError, as MindSpore, when ``name`` is a plain attribute (or a method) of the Cell."""
        if name not in self.__dict__[table] and hasattr(self, name):
            raise KeyError(f"For '{where}', the {name} {what} already exists in the network.Cannot insert "
                           f"another {what} with the same name. ({self.path}.{name} is an attribute.) Fix: "
                           "choose another name.")

    def add_flags(self, **flags):
        """MindSpore's ``add_flags(sink_mode=True)``: each flag becomes an attribute of the Cell (and is
        recorded in its flags); MindSpore's compiler reads some of them, minims' reads none."""
        self.__dict__["_flags"].update(flags)
        for name, value in flags.items():
            setattr(self, name, value)
        return self

    def add_flags_recursive(self, **flags):
        """``add_flags`` on this Cell and every sub-cell; returns this Cell."""
        self.add_flags(**flags)
        for cell in self.cells():
            cell.add_flags_recursive(**flags)
        return self

    def apply(self, fn):
        """MindSpore's ``Cell.apply(fn)``: ``fn(cell)`` for every sub-cell, children before their parent,
        then for this Cell; returns this Cell."""
        for cell in self.cells():
            cell.apply(fn)
        fn(self)
        return self

    # ----- identity and naming ----------------------------------------------------------------
    @property
    def cls_name(self) -> str:
        return type(self).__name__

    @property
    def path(self) -> str:
        """The dotted path from the outermost cell: ``Net.block.relu``."""
        parts = []
        cell = self
        while cell is not None:
            parent_ref = cell.__dict__.get("_parent")
            parent = parent_ref() if parent_ref is not None else None
            parts.append(cell.__dict__.get("_attr_name") if parent is not None else type(cell).__name__)
            cell = parent
        return ".".join(reversed(parts))

    @property
    def cell_id(self) -> str:
        """Deterministic identity given to hooks: class name and path, e.g. ``MatMul(Net.mul)``."""
        return f"{type(self).__name__}({self.path})"

    # ----- traversal --------------------------------------------------------------------------
    def name_cells(self) -> "OrderedDict[str, Cell]":
        return OrderedDict(self._cells)

    def cells(self):
        return list(self._cells.values())

    def cells_and_names(self, cells=None, name_prefix=""):
        """``(dotted name, cell)`` for this Cell and every one under it, each once; ``cells``: a set
        of ids to skip (and to fill).  Walked without recursion, so any depth of nesting works."""
        return walk(self, name_prefix, cells)

    def parameters_and_names(self, name_prefix="", expand=True):
        seen = set()
        for prefix, cell in self.cells_and_names(name_prefix=name_prefix):
            for name, p in cell._params.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{prefix}.{name}" if prefix else name), p
            if not expand:
                break

    def set_inputs(self, *inputs, **kwargs):
        """``cell.set_inputs(Tensor(shape=[None, 3], dtype=...), ...)``: MindSpore's declaration of the
        inputs (of unknown sizes) one Graph-mode graph should serve.  minims compiles a graph per shape,
        so the declaration is kept (``get_inputs``) and changes nothing, as in PyNative on MindSpore."""
        self.__dict__["_declared_inputs"] = inputs if inputs else None

    def get_inputs(self):
        """The inputs ``set_inputs`` declared (a tuple), or None."""
        return self.__dict__.get("_declared_inputs")

    def get_parameters(self, expand=True):
        """A generator over every Parameter (MindSpore returns a generator, too)."""
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    def trainable_params(self, recurse=True):
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse=True):
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse=True):
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def check_names(self) -> None:
        """MindSpore's ``check_names``: ValueError if two different Parameters share a name."""
        param_names.check_names(self)

    def init_parameters_data(self, auto_parallel_mode=False):
        """Parameters are created with their data; nothing is deferred in minims."""
        return {p: p for p in self.get_parameters()}

    # ----- modes ------------------------------------------------------------------------------
    def set_train(self, mode=True):
        for _, cell in self.cells_and_names():
            cell.__dict__["training"] = bool(mode)
        return self

    @property
    def phase(self) -> str:
        return "train" if self.training else "predict"

    def set_grad(self, requires_grad=True):
        self.__dict__["requires_grad"] = bool(requires_grad)
        return self

    # ----- hooks ------------------------------------------------------------------------------
    def _register(self, table: str, hook_fn, kind: str) -> HookHandle:
        if not callable(hook_fn):
            raise TypeError(
                f"{self.path}.{kind}: the hook must be callable, but got {_describe(hook_fn)}. "
                f"Fix: pass a function, e.g. def hook(cell_id, ...): ..."
            )
        hooks = self.__dict__[table]
        key = next(_handle_ids)
        hooks[key] = hook_fn
        return HookHandle(hooks, key)

    def register_forward_pre_hook(self, hook_fn) -> HookHandle:
        """``hook_fn(cell_id, inputs)``; may return new inputs."""
        return self._register("_forward_pre_hooks", hook_fn, "register_forward_pre_hook")

    def register_forward_hook(self, hook_fn) -> HookHandle:
        """``hook_fn(cell_id, inputs, outputs)``; may return new outputs."""
        return self._register("_forward_hooks", hook_fn, "register_forward_hook")

    def register_backward_hook(self, hook_fn) -> HookHandle:
        """``hook_fn(cell_id, grad_input, grad_output)``; may return new input gradients (a tuple)."""
        return self._register("_backward_hooks", hook_fn, "register_backward_hook")

    def register_backward_pre_hook(self, hook_fn) -> HookHandle:
        """``hook_fn(cell_id, grad_output)``: the gradient arriving at the Cell's outputs, before the
        Cell's backward; may return a new one (a tuple, or a Tensor for one output)."""
        return self._register("_backward_pre_hooks", hook_fn, "register_backward_pre_hook")

    # ----- recomputation ------------------------------------------------------------------------
    def recompute(self, *, use_reentrant=True, output_recompute=False, early_stop=True, context_fn=None, **kwargs):
        """MindSpore's ``Cell.recompute()``: a gradient keeps only this Cell's inputs and computes its
        inside again in the backward pass (``minims.autodiff.recompute``); the gradients are the same.
        The keywords choose among MindSpore's implementations and parallel options: minims accepts
        them and has one implementation.  Returns None."""
        for key in kwargs:
            if key not in ("mp_comm_recompute", "parallel_optimizer_comm_recompute", "recompute_slice_activation"):
                # ValueError, as MindSpore
                raise ValueError(f"For 'recompute', keyword '{key}' is not recognized! the key kwargs must be "
                                 "'mp_comm_recompute', 'parallel_optimizer_comm_recompute', "
                                 "'recompute_slice_activation'. Fix: call recompute() without it (minims has one "
                                 "implementation; the other keywords choose among MindSpore's).")
        self.__dict__["_recompute"] = True

    # ----- the call ---------------------------------------------------------------------------
    def construct(self, *inputs, **kwargs):
        # AttributeError, as MindSpore ("For 'Cell', the method 'construct' is not defined.")
        name = type(self).__name__
        habit = (f" {name} defines forward(), but a MindSpore Cell runs construct(): rename it."
                 if callable(getattr(type(self), "forward", None)) else "")
        raise AttributeError(
            f"{self.path}: the Cell {name} does not define construct(self, ...), the method a call "
            f"runs.{habit} Fix: add `def construct(self, x): ...` to class {name}."
        )

    # ``cell(*inputs)`` runs ``call_cell`` directly: one Python frame fewer per nesting level than a
    # method calling it, and every frame counts against the recursion limit in deeply nested networks
    __call__ = call_cell

    def __repr__(self) -> str:
        return tree_repr(self)

    def extend_repr(self) -> str:
        return ""

    def to_float(self, dst_type):
        """``to_float(dst_type)``: this Cell and those under it compute in ``dst_type`` (Float16 or
        Float32): each operation casts its float inputs first (``minims.nn.precision``).  Returns self."""
        return precision.to_float(self, dst_type)

    def has_bprop(self) -> bool:
        return "bprop" in _class_attrs(type(self))


def _class_attrs(cls):
    names = set()
    for klass in inspect.getmro(cls):
        if klass is Cell:
            break
        names.update(vars(klass))
    return names
