"""Where a pipeline's rows come from: ``NumpySlicesDataset``, ``GeneratorDataset``, ``MnistDataset``.

A source that can read any row by its index (arrays, a list, an object with ``__getitem__`` and
``__len__``, the MNIST files) goes through a *sampler*: in order, or — with ``shuffle=True``, the
default — in a random permutation drawn as MindSpore's ``RandomSampler`` draws it (``std::shuffle``
with ``std::mt19937(seed)``; each new epoch shuffles the previous permutation again with
``seed + 1``).  A source that can only be iterated (an iterator, a generator function) gives its
rows in its own order.
"""
from __future__ import annotations

import os

import numpy as np

from .. import Tensor
from .. import dtype as mstype
from .config import pipeline_seed
from .engine import Dataset, _check_count, as_array
from .idx import read_idx, read_idx_header
from .stdrandom import mt19937, shuffle as std_shuffle

__all__ = ["NumpySlicesDataset", "GeneratorDataset", "MnistDataset"]


class _Sampler:
    """The row indices of each epoch: ``range(n)``, or MindSpore's ``RandomSampler`` order."""

    def __init__(self, num_rows, shuffle, num_samples):
        self.num_rows = num_rows
        self.count = num_rows if num_samples is None else min(num_samples, num_rows)
        self.ids = list(range(num_rows))
        self.seed = pipeline_seed() if shuffle else None
        self.started = False

    def epoch_ids(self):
        if self.seed is not None:
            if self.started:                      # a reset: the next seed, and shuffle the last order
                self.seed = (self.seed + 1) & 0xFFFFFFFF
            std_shuffle(self.ids, mt19937(self.seed))
        self.started = True
        return self.ids[:self.count]


class _IndexedRunner:
    def __init__(self, num_rows, read_row, shuffle, num_samples):
        self.sampler = _Sampler(num_rows, shuffle, num_samples)
        self.read_row = read_row

    def epoch(self):
        for i in self.sampler.epoch_ids():
            yield self.read_row(i)


def _check_options(where, num_samples, sampler, num_shards, shard_id):
    if sampler is not None or num_shards is not None or shard_id is not None:
        raise NotImplementedError(f"{where}: sampler, num_shards and shard_id are not implemented in "
                                  "minims. Fix: use shuffle=True/False and num_samples.")
    if num_samples is not None:
        _check_count(where, "num_samples", num_samples, 0)
        return num_samples or None                # 0 means all rows, as in MindSpore
    return None


def _check_shuffle(where, shuffle):
    if shuffle is not None and not isinstance(shuffle, bool):
        raise TypeError(f"{where}: shuffle must be a bool or None, but got {shuffle!r}.")
    return True if shuffle is None else shuffle


def _names(where, column_names, count):
    if column_names is None:
        return [f"column_{i}" for i in range(count)]
    names = [column_names] if isinstance(column_names, str) else list(column_names)
    if not all(isinstance(n, str) for n in names):
        raise TypeError(f"{where}: column_names must be strings, but got {column_names!r}.")
    if len(names) != count:
        raise ValueError(f"{where}: {len(names)} column name(s) {names} for {count} column(s) of data "
                         f"(num of input column names is {len(names)}, but required is {count}). Fix: "
                         f"give one name per column.")
    if len(set(names)) != len(names):
        raise ValueError(f"{where}: the column names {names} repeat a name.")
    return names


class NumpySlicesDataset(Dataset):
    """``NumpySlicesDataset(data, column_names=None, num_samples=None, num_parallel_workers=1,
    shuffle=None, sampler=None, num_shards=None, shard_id=None)``.

    ``data``: a list or an array (one column, sliced along its first axis), a tuple (one column per
    element) or a dict (one column per key).  Python ints become int64 and floats float64, as NumPy
    makes them.  ``shuffle`` defaults to True.
    """

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None):
        super().__init__()
        where = "NumpySlicesDataset"
        if isinstance(data, dict):
            columns = [np.asarray(v) for v in data.values()]
            if column_names is None:
                column_names = list(data.keys())
        elif isinstance(data, tuple):
            columns = [np.asarray(v) for v in data]
        elif isinstance(data, (list, np.ndarray)):
            columns = [np.asarray(data)]
        else:
            fix = " Fix: pass tensor.asnumpy()." if isinstance(data, Tensor) else ""
            raise TypeError(f"{where}: data must be a list, tuple, dict or numpy.ndarray, but got "
                            f"{type(data).__name__}.{fix}")
        if any(c.ndim == 0 for c in columns):
            raise ValueError(f"{where}: each column must have a first axis to slice along, but got a "
                             "0-d value. Fix: wrap single values in a list.")
        if len({len(c) for c in columns}) > 1:
            raise ValueError(f"{where}: data length in each column is not equal: "
                             f"{[len(c) for c in columns]}. Fix: give every column the same number of rows.")
        self.columns = columns
        self.col_names = _names(where, column_names, len(columns))
        self.num_samples = _check_options(where, num_samples, sampler, num_shards, shard_id)
        self.shuffle_rows = _check_shuffle(where, shuffle)

    def get_col_names(self):
        return list(self.col_names)

    def get_dataset_size(self):
        n = len(self.columns[0])
        return n if self.num_samples is None else min(n, self.num_samples)

    def _launch(self):
        return _IndexedRunner(len(self.columns[0]), lambda i: [np.array(c[i]) for c in self.columns],
                              self.shuffle_rows, self.num_samples)


class GeneratorDataset(Dataset):
    """``GeneratorDataset(source, column_names=None, column_types=None, schema=None,
    num_samples=None, num_parallel_workers=1, shuffle=None, sampler=None, ...)``.

    ``source``: an object with ``__getitem__`` and ``__len__`` (also a list; read through the
    sampler, shuffled by default), an iterable, or a function returning an iterator (called again
    for every epoch).  Each item is a tuple or list with one value per column, or one value.
    """

    def __init__(self, source, column_names=None, column_types=None, schema=None, num_samples=None,
                 num_parallel_workers=1, shuffle=None, sampler=None, num_shards=None, shard_id=None,
                 python_multiprocessing=True, max_rowsize=None):
        super().__init__()
        where = "GeneratorDataset"
        if schema is not None:
            raise NotImplementedError(f"{where}: schema is not implemented in minims. Fix: column_names=[...].")
        if column_names is None:
            raise ValueError(f"{where}: neither column_names nor schema are provided. Fix: name the "
                             "columns the source gives, e.g. column_names=['data', 'label'].")
        names = [column_names] if isinstance(column_names, str) else list(column_names)
        self.col_names = _names(where, names, len(names))
        self.types = None
        if column_types is not None:
            self.types = [mstype.to_dtype(t, f"{where}(column_types=...)").np_dtype for t in column_types]
        self.num_samples = _check_options(where, num_samples, sampler, num_shards, shard_id)
        self.shuffle_rows = _check_shuffle(where, shuffle)
        self.random_access = hasattr(source, "__getitem__") and hasattr(source, "__len__")
        if not (self.random_access or hasattr(source, "__iter__") or callable(source)):
            raise TypeError(f"{where}: source must be random-accessible (__getitem__ and __len__), "
                            f"iterable, or a function returning an iterator, but got {type(source).__name__}.")
        self.source = source

    def get_col_names(self):
        return list(self.col_names)

    def get_dataset_size(self):
        if self.random_access:
            n = len(self.source)
        else:
            n = sum(1 for _ in self._items())          # as MindSpore: run the source once to count
        return n if self.num_samples is None else min(n, self.num_samples)

    def _items(self):
        source = self.source() if callable(self.source) and not hasattr(self.source, "__iter__") else self.source
        try:
            yield from source
        except Exception as exc:      # noqa: BLE001 - named, as MindSpore names a failing source
            raise _source_error(exc) from exc

    def _row(self, item):
        values = list(item) if isinstance(item, (tuple, list)) else [item]
        if len(values) != len(self.col_names):
            raise RuntimeError(
                f"GeneratorDataset: the source gave {len(values)} value(s) for a row, but column_names "
                f"has {len(self.col_names)}: {self.col_names}. Fix: return a tuple with one value per "
                "column (a list counts as one value per element), or name every column.")
        row = [as_array(v, "GeneratorDataset") for v in values]
        if self.types is not None:
            row = [a.astype(t) for a, t in zip(row, self.types)]
        return row

    def _read(self, i):
        try:
            item = self.source[i]
        except Exception as exc:      # noqa: BLE001
            raise _source_error(exc, i) from exc
        return self._row(item)

    def _launch(self):
        if self.random_access:
            return _IndexedRunner(len(self.source), self._read, self.shuffle_rows, self.num_samples)
        return _IterableRunner(self)


def _source_error(exc, index=None):
    at = f" for index {index}" if index is not None else ""
    return RuntimeError(f"GeneratorDataset: the source raised {type(exc).__name__}: {exc}{at} "
                        "(exception thrown from user defined Python function in dataset). Fix: call "
                        "the source yourself to see where it fails.")


class _IterableRunner:
    def __init__(self, dataset):
        self.dataset = dataset

    def epoch(self):
        limit = self.dataset.num_samples
        for i, item in enumerate(self.dataset._items()):
            if limit is not None and i >= limit:
                return
            yield self.dataset._row(item)


# ----- MNIST ---------------------------------------------------------------------------------------------
_MNIST_FILES = {"test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
                "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte")}


class MnistDataset(Dataset):
    """``MnistDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None)``.

    Reads the MNIST files in their idx format from ``dataset_dir``: ``train-images-idx3-ubyte`` and
    ``train-labels-idx1-ubyte`` (``usage='train'``), ``t10k-...`` (``'test'``), or both, the test
    files first (``'all'``, the default).  Columns ``image`` (uint8, 28 x 28 x 1) and ``label``
    (uint32), shuffled by default.  ``minims.dataset.write_digits_as_mnist`` writes the digits
    shipped with minims in this format.
    """

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__()
        where = "MnistDataset"
        if not isinstance(dataset_dir, (str, os.PathLike)) or not os.path.isdir(dataset_dir):
            raise ValueError(f"{where}: the folder {dataset_dir} does not exist or is not a directory. "
                             "Fix: pass the folder that holds train-images-idx3-ubyte and the other "
                             "files (minims.dataset.write_digits_as_mnist(folder) writes such a folder).")
        usage = "all" if usage is None else usage
        if usage not in ("train", "test", "all"):
            raise ValueError(f"{where}: usage must be 'train', 'test' or 'all', but got {usage!r}.")
        self.dataset_dir, self.usage = str(dataset_dir), usage
        self.num_samples = _check_options(where, num_samples, sampler, num_shards, shard_id)
        self.shuffle_rows = _check_shuffle(where, shuffle)

    def get_col_names(self):
        return ["image", "label"]

    def _pairs(self):
        parts = ["test", "train"] if self.usage == "all" else [self.usage]
        pairs = [tuple(os.path.join(self.dataset_dir, f) for f in _MNIST_FILES[p]) for p in parts]
        found = [p for p in pairs if os.path.isfile(p[0]) and os.path.isfile(p[1])]
        if not found:
            wanted = " or ".join(_MNIST_FILES[p][0] for p in parts)
            raise RuntimeError(f"MnistDataset: no {wanted} (with its labels file) in {self.dataset_dir}. "
                               "Fix: check usage= and the folder (the files must be uncompressed).")
        return found

    def get_dataset_size(self):
        n = 0
        for images, _ in self._pairs():
            n += read_idx_header(images)[1][0]
        return n if self.num_samples is None else min(n, self.num_samples)

    def _load(self):
        all_images, all_labels = [], []
        for images_file, labels_file in self._pairs():
            images, labels = read_idx(images_file), read_idx(labels_file)
            if images.ndim != 3 or images.dtype != np.uint8 or labels.ndim != 1:
                raise RuntimeError(f"MnistDataset: {images_file} and {labels_file} are not MNIST files "
                                   f"(images {images.dtype} {list(images.shape)}, labels {list(labels.shape)}).")
            if images.shape[1:] != (28, 28):
                raise RuntimeError(f"MnistDataset: invalid mnist file, shape of image in {images_file} "
                                   f"should be (28, 28), but got {images.shape[1:]}. Fix: write 28 x 28 "
                                   "images (write_digits_as_mnist enlarges the 8 x 8 digits).")
            if len(images) != len(labels):
                raise RuntimeError(f"MnistDataset: {len(images)} images in {images_file} but "
                                   f"{len(labels)} labels in {labels_file}.")
            all_images.append(images)
            all_labels.append(labels)
        return np.concatenate(all_images)[..., None], np.concatenate(all_labels).astype(np.uint32)

    def _launch(self):
        images, labels = self._load()
        return _IndexedRunner(len(images), lambda i: [np.array(images[i]), np.array(labels[i])],
                              self.shuffle_rows, self.num_samples)
