"""``minims.dataset``: MindSpore's ``mindspore.dataset`` data pipeline, and a small real data set
shipped inside the package (no download needed).

The pipeline (eager, in Python; MindSpore's row order for a seeded shuffle):

* sources — :class:`NumpySlicesDataset`, :class:`GeneratorDataset`, :class:`MnistDataset`
  (``sources.py``; the idx file format in ``idx.py``);
* steps and iterators — ``map``, ``batch``, ``shuffle``, ``repeat``, ``take``, ``skip``,
  ``create_tuple_iterator``, ``create_dict_iterator`` (``engine.py``);
* ``config.set_seed`` (``config.py``); the C++ random engines behind shuffling (``stdrandom.py``);
* ``vision`` (``Rescale``, ``Normalize``, ``HWC2CHW``, ``Resize``) and ``transforms``
  (``TypeCast``, ``Compose``).

The shipped digits:

* :func:`load_digits` — the UCI 8x8 handwritten digits, as 1x32x32 float32 images for LeNet-5;
* :func:`batches` — a mini-batch iterator over NumPy arrays, yielding Tensors;
* :func:`write_digits_as_mnist` — the digits as MNIST idx files, for ``MnistDataset``.

See ``README.md`` in this folder for the source and licence of the data.
"""
from . import config, transforms, vision
from .digits import NUM_CLASSES, batches, load_digits
from .engine import Dataset
from .idx import write_digits_as_mnist
from .sources import GeneratorDataset, MnistDataset, NumpySlicesDataset

__all__ = ["load_digits", "batches", "NUM_CLASSES", "write_digits_as_mnist", "Dataset",
           "NumpySlicesDataset", "GeneratorDataset", "MnistDataset", "config", "vision", "transforms"]
