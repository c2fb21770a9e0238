"""Containers: ``nn.SequentialCell`` (runs its cells in order) and ``nn.CellList`` (holds cells).

Children are registered as attributes named ``'0'``, ``'1'``, ... (or by the keys of an OrderedDict),
so their parameters are named ``0.weight``, ``seq.1.bias`` ... exactly as attribute children are.
"""
from __future__ import annotations

import inspect
from collections import OrderedDict

from ... import ops
from ...tensors.convert import _describe
from ..cell import Cell
from ..cell_tree import check_no_cycle

__all__ = ["SequentialCell", "CellList"]


def _check_cell(owner, value, name="?"):
    """A Cell that may join ``owner`` as child ``name`` — checked before the container changes, since
    an insertion renumbers every child and must not be left half done."""
    if not isinstance(value, Cell):
        raise TypeError(f"{type(owner).__name__}: every element must be a Cell, but got {_describe(value)}.")
    check_no_cycle(owner, name, value)
    return value


class _IndexedCells(Cell):
    """Shared list behaviour: integer indexing (negative too), slicing, len, iteration."""

    def _index(self, index: int) -> int:
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"{type(self).__name__}: indices must be ints or slices, but got "
                            f"{_describe(index)}.")
        n = len(self._cells)
        if not -n <= index < n:
            raise IndexError(f"{type(self).__name__}: index {index} is out of range for {n} cells.")
        return index % n

    def _renumber(self, cells):
        """Rebuild the children as '0', '1', ... (after an insertion or a deletion).

        A cell added here is registered (and its parameters prefixed) like any child; cells that
        only moved keep the parameter names they were given when first added, since a parameter's
        name is its identity (in checkpoints, in optimizers).
        """
        self.__dict__["_cells"] = OrderedDict()
        for i, cell in enumerate(cells):
            setattr(self, str(i), cell)
            parent = cell.__dict__.get("_parent")
            if parent is not None and parent() is self:
                cell.__dict__["_attr_name"] = str(i)

    def _add(self, name: str, cell: Cell):
        setattr(self, name, _check_cell(self, cell, name))

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells.values())

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(list(self._cells.values())[index])
        return list(self._cells.values())[self._index(index)]

    def __setitem__(self, index, cell):
        key = list(self._cells.keys())[self._index(index)]
        self._add(key, cell)

    def __delitem__(self, index):
        cells = list(self._cells.values())
        if isinstance(index, slice):
            del cells[index]
        else:
            del cells[self._index(index)]
        self._renumber(cells)

    def append(self, cell):
        self._add(str(len(self._cells)), cell)
        return self


class SequentialCell(_IndexedCells):
    """``nn.SequentialCell(*args)``: ``SequentialCell([c0, c1])``, ``SequentialCell(c0, c1)`` or
    ``SequentialCell(OrderedDict([('conv', c0), ('relu', c1)]))``; ``construct(x)`` feeds ``x``
    through the cells in order."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, cell in args[0].items():
                self._add(name, cell)
        elif len(args) == 1 and isinstance(args[0], list):
            for i, cell in enumerate(args[0]):
                self._add(str(i), cell)
        else:
            for i, cell in enumerate(args):
                if not isinstance(cell, Cell):
                    raise TypeError(f"SequentialCell: expected Cells, a list of Cells or an OrderedDict, "
                                    f"but got {_describe(cell)}.")
                self._add(str(i), cell)

    def insert(self, index, cell):
        cells = list(self._cells.values())
        cells.insert(index, _check_cell(self, cell, str(index)))
        self._renumber(cells)

    def construct(self, input_data):
        for cell in self._cells.values():
            input_data = cell(input_data)
        return input_data


class CellList(_IndexedCells):
    """``nn.CellList(args=None, auto_prefix=True)``: a list of cells whose parameters belong to the
    owner.  It has no ``construct``: iterate over it in the owner's."""

    def __init__(self, args=None, auto_prefix=True):
        super().__init__(auto_prefix=auto_prefix)
        if args is not None:
            self.extend(args)

    def extend(self, cells):
        cells = list(cells)
        for i, cell in enumerate(cells):       # all checked first: a refusal leaves the list as it was
            _check_cell(self, cell, str(len(self._cells) + i))
        for cell in cells:
            self.append(cell)
        return self

    def insert(self, index, cell):
        cells = list(self._cells.values())
        cells.insert(index, _check_cell(self, cell, str(index)))
        self._renumber(cells)

    def construct(self, *inputs):
        raise NotImplementedError("CellList has no construct: iterate over it in the owner's construct.")

    def _check_ensemble(self):
        """MindSpore's conditions on a CellList given to vmap: two Cells or more, taking the same inputs."""
        if len(self) <= 1:
            raise RuntimeError("In the model ensembling parallel training scenario ('VmapOperation' arg0 is a "
                               f"'CellList'), the size of 'CellList' must be greater than 1, but got {len(self)}. "
                               "Fix: vmap the Cell itself, or put two Cells or more in the CellList.")
        arities = {len(inspect.signature(cell.construct).parameters) for cell in self}
        if len(arities) > 1:
            raise RuntimeError("'VmapOperation' arg0 is a CellList, whose elements's inputs should be consistent. "
                               f"(vmap: the Cells' construct methods take {sorted(arities)} inputs.) Fix: Cells "
                               "of one kind, taking the same inputs.")

    def vmap_ensemble(self, in_axes=0, out_axes=0):
        """What ``vmap(cell_list, in_axes, out_axes)`` returns (MindSpore's model ensembling): Cell
        ``i`` gets example ``i`` of every mapped argument (an argument with in_axes None: all of it),
        and the outputs are stacked along ``out_axes``."""
        def run(*args):
            self._check_ensemble()
            axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
            if len(axes) != len(args):
                raise RuntimeError(f"vmap: in_axes has {len(axes)} entries, but the CellList was called with "
                                   f"{len(args)} arguments.")
            sizes = [a.shape[ax] for a, ax in zip(args, axes) if ax is not None]
            if sizes and sizes[0] != len(self):     # one example per Cell: none left out, none missing
                raise ValueError(
                    "If you want to execute the model ensembling parallel training, please make sure the "
                    "'axis_size' in the scope of vmap consistent with the cell size of the input 'CellList', "
                    "otherwise, please do not enter 'CellList' as the first argument, but we get axis_size: "
                    f"{sizes[0]} and the cell size: {len(self)}. Fix: one example per Cell along the mapped axis.")
            outs = []
            for i, cell in enumerate(self):
                example = [a if ax is None else ops.getitem(a, (slice(None),) * (ax % a.ndim) + (i,))
                           for a, ax in zip(args, axes)]
                outs.append(cell(*example))
            if isinstance(outs[0], (tuple, list)):
                axes_out = out_axes if isinstance(out_axes, (tuple, list)) else (out_axes,) * len(outs[0])
                return tuple(ops.stack([o[k] for o in outs], axes_out[k]) for k in range(len(outs[0])))
            return ops.stack(outs, out_axes)
        return run
