"""The idx file format of MNIST (LeCun et al.), and the shipped digits written in it.

An idx file is a 4-byte magic number — two zero bytes, a type code (0x08 for unsigned bytes) and
the number of dimensions — then each dimension as a big-endian int32, then the data in C order.
``write_digits_as_mnist(folder)`` writes the 8x8 digits shipped with minims as the four MNIST files
(``train-images-idx3-ubyte`` ...), enlarged to MNIST's 28x28 pixels, so that
``MnistDataset(folder)`` reads them as it reads MNIST, with no download.
"""
from __future__ import annotations

import os
import struct

import numpy as np

__all__ = ["read_idx", "read_idx_header", "write_idx", "write_digits_as_mnist"]

# type code -> big-endian NumPy dtype
_TYPES = {0x08: np.dtype(">u1"), 0x09: np.dtype(">i1"), 0x0B: np.dtype(">i2"), 0x0C: np.dtype(">i4"),
          0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}
_CODES = {dt.newbyteorder("="): code for code, dt in _TYPES.items()}


def read_idx_header(path):
    """``(dtype, shape, header bytes)`` of an idx file."""
    with open(path, "rb") as f:
        magic = f.read(4)
        if len(magic) < 4 or magic[:2] != b"\0\0" or magic[2] not in _TYPES:
            raise RuntimeError(f"{path} is not an idx file (its magic number is {magic.hex() or 'missing'}; "
                               "an idx file starts with 00 00, a type code and the number of dimensions).")
        ndim = magic[3]
        dims = f.read(4 * ndim)
        if len(dims) < 4 * ndim:
            raise RuntimeError(f"{path}: the idx header is cut short.")
        shape = struct.unpack(f">{ndim}i", dims)
    return _TYPES[magic[2]], shape, 4 + 4 * ndim


def read_idx(path):
    """The array in an idx file, in native byte order."""
    dtype, shape, offset = read_idx_header(path)
    count = int(np.prod(shape))
    data = np.fromfile(path, dtype=dtype, offset=offset)
    if data.size != count:
        raise RuntimeError(f"{path}: the header promises {count} values of shape {list(shape)}, but the "
                           f"file holds {data.size}.")
    return data.reshape(shape).astype(dtype.newbyteorder("="))


def write_idx(path, array):
    """Write ``array`` (uint8, int8, int16, int32, float32 or float64) as an idx file."""
    array = np.asarray(array)
    code = _CODES.get(array.dtype)
    if code is None:
        raise TypeError(f"write_idx: idx files hold uint8, int8, int16, int32, float32 or float64, but "
                        f"the array is {array.dtype}. Fix: convert it first, e.g. array.astype(np.uint8).")
    with open(path, "wb") as f:
        f.write(bytes([0, 0, code, array.ndim]))
        f.write(struct.pack(f">{array.ndim}i", *array.shape))
        f.write(array.astype(_TYPES[code]).tobytes())


def _as_mnist_images(images):
    """(N, 8, 8) values 0..16 -> (N, 28, 28) uint8 0..255: each pixel 3x3, two pixels of margin."""
    big = images.repeat(3, axis=1).repeat(3, axis=2)
    big = np.pad(big, ((0, 0), (2, 2), (2, 2)))
    return np.round(big.astype(np.float64) * 255 / 16).astype(np.uint8)


def write_digits_as_mnist(folder, seed=0, test_fraction=0.2):
    """Write the shipped digits as MNIST files in ``folder`` (made if missing) and return its path.

    The split is ``load_digits``'s (1438 training, 359 test images with the defaults): the
    training images go to ``train-images-idx3-ubyte``/``train-labels-idx1-ubyte``, the test
    images to ``t10k-...``, both in the data set's order.
    """
    from .digits import _raw, _split_indices          # the one split of the digits

    images, labels = _raw()
    os.makedirs(folder, exist_ok=True)
    for usage, prefix in (("train", "train"), ("test", "t10k")):
        keep = _split_indices(labels, usage, seed, test_fraction)
        write_idx(os.path.join(folder, f"{prefix}-images-idx3-ubyte"), _as_mnist_images(images[keep]))
        write_idx(os.path.join(folder, f"{prefix}-labels-idx1-ubyte"), labels[keep].astype(np.uint8))
    return str(folder)
