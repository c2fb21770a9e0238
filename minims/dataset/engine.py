"""The data pipeline (MindSpore's ``mindspore.dataset`` engine), eager and in Python.

A :class:`Dataset` describes a pipeline: a source (``sources.py``) and the steps chained on it —
``map``, ``batch``, ``shuffle``, ``repeat``, ``take``, ``skip``, ``project``, ``rename``.  Nothing
runs until an iterator starts (``create_tuple_iterator``, ``create_dict_iterator``, or ``for row in
dataset``).  Starting one *launches* the pipeline: each step makes a runner whose ``epoch()`` yields
the rows of one epoch, a row being a list of NumPy arrays, one per column.  Calling ``epoch()``
again starts the next epoch; runners keep their state between epochs as MindSpore's operators do
when reset: a shuffle buffer's random engine goes on, a shuffled source reshuffles with its seed
plus one.  ``repeat(n)`` is n epochs of the step below it, which is why a repeated pipeline visits
rows in the same order as one iterated for n epochs.  Tensors are made only at the end, by the
iterator (``output_numpy=True`` keeps the arrays).

What MindSpore does in parallel C++ threads is one Python loop here: slow for big data sets, the
same rows in the same order.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import Tensor
from .config import pipeline_seed
from .stdrandom import mt19937_64

__all__ = ["Dataset", "BatchDataset", "MapDataset", "ShuffleDataset", "RepeatDataset", "TakeDataset",
           "SkipDataset", "ProjectDataset", "RenameDataset", "as_array"]

_INT32_MAX = 2 ** 31 - 1


def _check_count(where, name, value, low, high=_INT32_MAX, allow=()):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{where}: {name} must be an int, but got {value!r} of type {type(value).__name__}.")
    if value in allow:
        return int(value)
    if not low <= value <= high:
        also = f" (or {', '.join(map(str, allow))})" if allow else ""
        raise ValueError(f"{where}: {name} must be within [{low}, {high}]{also}, but got {value}.")
    return int(value)


def _column_list(where, name, value):
    """A column argument as a list of names: a str is one name."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value) and value:
        return list(value)
    raise TypeError(f"{where}: {name} must be a column name or a non-empty list of them, but got "
                    f"{value!r}. Fix: e.g. {name}=['image'] (see dataset.get_col_names()).")


def as_array(value, where):
    """One column value as a NumPy array (what flows through a pipeline)."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, Tensor):
        return value.asnumpy()
    if value is None:
        raise RuntimeError(f"{where}: got None where a column value was expected. Fix: return the "
                           "value (a NumPy array or a number) from the function.")
    array = np.asarray(value)
    if array.dtype == object:
        raise RuntimeError(f"{where}: cannot turn {type(value).__name__} {value!r:.60} into an array of "
                           "numbers or strings. Fix: return NumPy arrays of one shape per column.")
    return array


class Dataset:
    """A pipeline step (MindSpore's ``mindspore.dataset.Dataset``): the base of every source and step.

    Subclasses define ``get_col_names``, ``get_dataset_size`` and ``_launch`` (a runner with
    ``epoch()``).
    """

    def __init__(self, children=()):
        self.children = tuple(children)

    # ----- what the pipeline gives ---------------------------------------------------------------
    def get_col_names(self):
        """The names of the columns, in order."""
        return self.children[0].get_col_names()

    def get_dataset_size(self):
        """The number of rows (batches, after ``batch``) in one epoch."""
        return self.children[0].get_dataset_size()

    def __len__(self):
        return self.get_dataset_size()

    def get_batch_size(self):
        return self.children[0].get_batch_size() if self.children else 1

    def get_repeat_count(self):
        return self.children[0].get_repeat_count() if self.children else 1

    def output_shapes(self):
        """The shape of each column in the first row."""
        return [list(a.shape) for a in self._first_row()]

    def output_types(self):
        """The NumPy dtype of each column in the first row."""
        return [a.dtype for a in self._first_row()]

    def _first_row(self):
        for row in self._launch().epoch():
            return row
        raise RuntimeError(f"{type(self).__name__}: the pipeline gives no rows.")

    def _launch(self):
        raise NotImplementedError(f"{type(self).__name__} must define _launch().")

    # ----- steps -----------------------------------------------------------------------------------
    def map(self, operations=None, input_columns=None, output_columns=None, num_parallel_workers=None,
            python_multiprocessing=False, cache=None, callbacks=None, max_rowsize=None, offload=None):
        """Apply ``operations`` (a callable or a list of them, run in turn) to ``input_columns``
        (default: the first column); the results become ``output_columns`` (default: the inputs)."""
        return MapDataset(self, operations, input_columns, output_columns)

    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None, **kwargs):
        """Stack ``batch_size`` consecutive rows into one (a new leading axis on every column); the
        last, smaller batch is dropped with ``drop_remainder=True``."""
        return BatchDataset(self, batch_size, drop_remainder, kwargs)

    def shuffle(self, buffer_size):
        """Shuffle through a buffer of ``buffer_size`` rows (a full shuffle when it is at least the
        size of the data set), in MindSpore's order for the data set seed."""
        return ShuffleDataset(self, buffer_size)

    def repeat(self, count=None):
        """``count`` epochs of the pipeline as one (``None`` or -1: without end)."""
        return RepeatDataset(self, count)

    def take(self, count=-1):
        """The first ``count`` rows (-1: all)."""
        return TakeDataset(self, count)

    def skip(self, count):
        """All rows but the first ``count``."""
        return SkipDataset(self, count)

    def project(self, columns):
        """Keep only ``columns``, in that order."""
        return ProjectDataset(self, columns)

    def rename(self, input_columns, output_columns):
        """Rename columns."""
        return RenameDataset(self, input_columns, output_columns)

    # ----- iterators -------------------------------------------------------------------------------
    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False, do_copy=True):
        """Rows as lists of Tensors (NumPy arrays with ``output_numpy=True``); ``num_epochs`` epochs
        (-1: as many as asked for)."""
        return _Iterator(self, columns, num_epochs, output_numpy, as_dict=False)

    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        """Rows as dicts ``{column name: Tensor}``."""
        return _Iterator(self, None, num_epochs, output_numpy, as_dict=True)

    def __iter__(self):
        return iter(self.create_tuple_iterator(num_epochs=1))


# ----- the steps --------------------------------------------------------------------------------------
class MapDataset(Dataset):
    """``dataset.map(operations, input_columns, output_columns)``.

    Where the results go, as in MindSpore 2.10: when there are as many output columns as input
    columns, each result takes its input's place; otherwise the results come first, followed by
    the columns that were not inputs, in their order.
    """

    def __init__(self, child, operations, input_columns, output_columns):
        super().__init__([child])
        ops = operations if isinstance(operations, (list, tuple)) else [operations]
        for op in ops:
            if not callable(op):
                raise ValueError(f"map: each operation must be callable (a function or a transform "
                                 f"object), but got {op!r}. Fix: pass the function itself, without "
                                 "parentheses: map(operations=fn, ...).")
        self.operations = list(ops)
        names = child.get_col_names()
        inputs = names[:1] if input_columns is None else _column_list("map", "input_columns", input_columns)
        missing = [c for c in inputs if c not in names]
        if missing:
            raise RuntimeError(f"map: input column {missing[0]!r} doesn't exist in the dataset columns "
                               f"{names}. Fix: use one of those names (dataset.get_col_names()).")
        outputs = inputs if output_columns is None else _column_list("map", "output_columns", output_columns)
        self.in_index = [names.index(c) for c in inputs]
        self.inputs, self.outputs = inputs, outputs
        if len(outputs) == len(inputs):
            new = list(names)
            for i, name in zip(self.in_index, outputs):
                new[i] = name
        else:
            new = outputs + [n for i, n in enumerate(names) if i not in self.in_index]
        if len(set(new)) != len(new):
            raise ValueError(f"map: the columns after this map would be {new}, with a name twice. Fix: "
                             "choose output_columns that are not already names of other columns.")
        self.col_names = new

    def get_col_names(self):
        return list(self.col_names)

    def _launch(self):
        return _MapRunner(self, self.children[0]._launch())

    def apply(self, row):
        """The row after the operations."""
        values = [row[i] for i in self.in_index]
        for op in self.operations:
            try:
                out = op(*values)
            except Exception as exc:      # noqa: BLE001 - re-raised with the step named, as MindSpore
                name = getattr(op, "__name__", type(op).__name__)
                raise RuntimeError(
                    f"map: the operation {name} raised {type(exc).__name__}: {exc} (on input columns "
                    f"{self.inputs}). Fix: try it on one row: it receives one NumPy array per input "
                    "column and returns one per output column.") from exc
            values = list(out) if isinstance(out, tuple) else [out]
        results = [as_array(v, "map") for v in values]
        if len(results) != len(self.outputs):
            raise RuntimeError(
                f"map: the operations returned {len(results)} column(s), but output_columns names "
                f"{len(self.outputs)}: {self.outputs}. Fix: return one value per output column, or "
                "set output_columns to as many names as the function returns.")
        if len(self.outputs) == len(self.inputs):
            new = list(row)
            for i, value in zip(self.in_index, results):
                new[i] = value
            return new
        return results + [v for i, v in enumerate(row) if i not in self.in_index]


class _MapRunner:
    def __init__(self, step, child):
        self.step, self.child = step, child

    def epoch(self):
        for row in self.child.epoch():
            yield self.step.apply(row)


class BatchDataset(Dataset):
    """``dataset.batch(batch_size, drop_remainder=False)``."""

    def __init__(self, child, batch_size, drop_remainder, extra):
        super().__init__([child])
        if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral):
            raise TypeError(f"batch: batch_size must be an int, but got {batch_size!r} of type "
                            f"{type(batch_size).__name__}. Fix: e.g. batch(32).")
        self.batch_size = _check_count("batch", "batch_size", batch_size, 1)
        if not isinstance(drop_remainder, bool):
            raise TypeError(f"batch: drop_remainder must be a bool, but got {drop_remainder!r}.")
        self.drop_remainder = drop_remainder
        unsupported = sorted(k for k, v in extra.items() if v not in (None, False))
        if unsupported:
            raise NotImplementedError(f"batch: {unsupported} are not implemented in minims. Fix: apply "
                                      "the function with map before batch, or after it.")

    def get_dataset_size(self):
        n = self.children[0].get_dataset_size()
        return n // self.batch_size if self.drop_remainder else -(-n // self.batch_size)

    def get_batch_size(self):
        return self.batch_size

    def _launch(self):
        return _BatchRunner(self, self.children[0]._launch())


def _stack(rows, names):
    columns = []
    for c, name in enumerate(names):
        first = rows[0][c].shape
        for row in rows[1:]:
            if row[c].shape != first:
                raise RuntimeError(
                    f"batch: cannot batch tensors with different shapes in column {c} ({name!r}): the "
                    f"first element had shape {list(first)} and this element had shape "
                    f"{list(row[c].shape)}. Fix: give every row of a column one shape (resize or pad "
                    "in a map before batch), or use batch_size=1.")
        columns.append(np.stack([row[c] for row in rows]))
    return columns


class _BatchRunner:
    def __init__(self, step, child):
        self.step, self.child = step, child
        self.names = step.children[0].get_col_names()

    def epoch(self):
        rows = []
        for row in self.child.epoch():
            rows.append(row)
            if len(rows) == self.step.batch_size:
                yield _stack(rows, self.names)
                rows = []
        if rows and not self.step.drop_remainder:
            yield _stack(rows, self.names)


class ShuffleDataset(Dataset):
    """``dataset.shuffle(buffer_size)``: MindSpore's buffer shuffle.

    The buffer fills with the first ``buffer_size`` rows; then, row after row, a random slot
    (``std::mt19937_64() % rows in the buffer``) is given out, the last row of the buffer moves into
    it and the next input row takes the last place.  The engine is seeded once, with the data set
    seed, and goes on from epoch to epoch.
    """

    def __init__(self, child, buffer_size):
        super().__init__([child])
        self.buffer_size = _check_count("shuffle", "buffer_size", buffer_size, 2)

    def _launch(self):
        return _ShuffleRunner(self.buffer_size, self.children[0]._launch())


class _ShuffleRunner:
    def __init__(self, size, child):
        self.size, self.child = size, child
        self.engine = mt19937_64(pipeline_seed())

    def epoch(self):
        rows = self.child.epoch()
        buffer = []
        for row in rows:
            buffer.append(row)
            if len(buffer) == self.size:
                break
        filling = len(buffer) == self.size          # more input may follow
        last = len(buffer) - 1
        while last >= 0:
            slot = self.engine() % (last + 1)
            out = buffer[slot]
            buffer[slot] = buffer[last]
            if filling:
                nxt = next(rows, None)
                if nxt is None:
                    filling = False
                else:
                    buffer[last] = nxt
            if not filling:
                last -= 1
            yield out


class RepeatDataset(Dataset):
    """``dataset.repeat(count)``: ``count`` epochs of the step below as one."""

    def __init__(self, child, count):
        super().__init__([child])
        self.count = -1 if count is None else _check_count("repeat", "count", count, 1, allow=(-1,))

    def get_dataset_size(self):
        n = self.children[0].get_dataset_size()
        return n if self.count == -1 else n * self.count      # MindSpore: an endless repeat counts one

    def get_repeat_count(self):
        return self.count

    def _launch(self):
        return _RepeatRunner(self.count, self.children[0]._launch())


class _RepeatRunner:
    def __init__(self, count, child):
        self.count, self.child = count, child

    def epoch(self):
        done = 0
        while self.count == -1 or done < self.count:
            yield from self.child.epoch()
            done += 1


class TakeDataset(Dataset):
    """``dataset.take(count)``."""

    def __init__(self, child, count):
        super().__init__([child])
        self.count = _check_count("take", "count", count, 1, allow=(-1,))

    def get_dataset_size(self):
        n = self.children[0].get_dataset_size()
        return n if self.count == -1 else min(n, self.count)

    def _launch(self):
        return _SliceRunner(self.children[0]._launch(), 0, None if self.count == -1 else self.count)


class SkipDataset(Dataset):
    """``dataset.skip(count)``."""

    def __init__(self, child, count):
        super().__init__([child])
        self.count = _check_count("skip", "count", count, 0)

    def get_dataset_size(self):
        return max(0, self.children[0].get_dataset_size() - self.count)

    def _launch(self):
        return _SliceRunner(self.children[0]._launch(), self.count, None)


class _SliceRunner:
    def __init__(self, child, start, stop):
        self.child, self.start, self.stop = child, start, stop

    def epoch(self):
        for i, row in enumerate(self.child.epoch()):
            if self.stop is not None and i >= self.stop:
                return
            if i >= self.start:
                yield row


class ProjectDataset(Dataset):
    """``dataset.project(columns)``."""

    def __init__(self, child, columns):
        super().__init__([child])
        names = child.get_col_names()
        self.columns = _column_list("project", "columns", columns)
        missing = [c for c in self.columns if c not in names]
        if missing:
            raise RuntimeError(f"project: column {missing[0]!r} doesn't exist in the dataset columns {names}.")
        self.index = [names.index(c) for c in self.columns]

    def get_col_names(self):
        return list(self.columns)

    def _launch(self):
        return _ProjectRunner(self.index, self.children[0]._launch())


class _ProjectRunner:
    def __init__(self, index, child):
        self.index, self.child = index, child

    def epoch(self):
        for row in self.child.epoch():
            yield [row[i] for i in self.index]


class RenameDataset(Dataset):
    """``dataset.rename(input_columns, output_columns)``."""

    def __init__(self, child, input_columns, output_columns):
        super().__init__([child])
        names = child.get_col_names()
        old = _column_list("rename", "input_columns", input_columns)
        new = _column_list("rename", "output_columns", output_columns)
        if len(old) != len(new):
            raise ValueError(f"rename: {len(old)} input columns but {len(new)} output columns.")
        missing = [c for c in old if c not in names]
        if missing:
            raise RuntimeError(f"rename: column {missing[0]!r} doesn't exist in the dataset columns {names}.")
        mapping = dict(zip(old, new))
        self.col_names = [mapping.get(n, n) for n in names]

    def get_col_names(self):
        return list(self.col_names)

    def _launch(self):
        return self.children[0]._launch()


# ----- iterators -----------------------------------------------------------------------------------------
class _Iterator:
    """What ``create_tuple_iterator``/``create_dict_iterator`` return.

    Each ``for`` loop over it runs one epoch (``next`` raises StopIteration at the end of an epoch,
    and the next call starts the next one); after ``num_epochs`` epochs it refuses to go on, as in
    MindSpore.  Every loop over the same iterator continues the same launched pipeline, so a
    shuffle gives a new order in each epoch, while a new iterator starts again from the seed.
    """

    def __init__(self, dataset, columns, num_epochs, output_numpy, as_dict):
        if not isinstance(dataset, Dataset):
            raise TypeError(f"expected a Dataset, but got {type(dataset).__name__}.")
        self.num_epochs = _check_count("create_iterator", "num_epochs", num_epochs, 1, allow=(-1,))
        names = dataset.get_col_names()
        self.names = names
        if columns is None:
            self.index = list(range(len(names)))
        else:
            wanted = _column_list("create_tuple_iterator", "columns", columns)
            missing = [c for c in wanted if c not in names]
            if missing:
                raise RuntimeError(f"create_tuple_iterator: column {missing[0]!r} doesn't exist in the "
                                   f"dataset columns {names}.")
            self.index = [names.index(c) for c in wanted]
        self.output_numpy, self.as_dict = bool(output_numpy), as_dict
        self._runner = dataset._launch()
        self._rows = None
        self._epochs = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self._rows is None:
            if self.num_epochs != -1 and self._epochs >= self.num_epochs:
                raise RuntimeError(
                    f"this iterator was created for num_epochs={self.num_epochs} and has given all of "
                    "them. Fix: create_tuple_iterator(num_epochs=N) for N epochs, or a new iterator.")
            self._rows = self._runner.epoch()
            self._epochs += 1
        try:
            row = next(self._rows)
        except StopIteration:
            self._rows = None
            raise
        values = [self._convert(row[i]) for i in self.index]
        if self.as_dict:
            return {self.names[i]: v for i, v in zip(self.index, values)}
        return values

    def _convert(self, array):
        if self.output_numpy or array.dtype.kind not in "biuf":
            return array                  # strings stay NumPy arrays, as in MindSpore
        return Tensor(array)
