"""``minims.dataset``: a small real data set shipped inside the package (no download needed).

* :func:`load_digits` — the UCI 8x8 handwritten digits, as 1x32x32 float32 images for LeNet-5;
* :func:`batches` — a mini-batch iterator over NumPy arrays, yielding Tensors.

See ``README.md`` in this folder for the source and licence of the data.
"""
from .digits import NUM_CLASSES, batches, load_digits

__all__ = ["load_digits", "batches", "NUM_CLASSES"]
