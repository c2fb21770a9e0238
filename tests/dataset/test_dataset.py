"""The shipped digits data set: the file, the loader's shapes, dtypes, labels, split and batching.

Expected values: the UCI data set's description (1797 images of 8x8 pixels, values 0..16, ten
classes with 178, 182, 177, 183, 181, 182, 181, 179, 174 and 180 images) and arithmetic.
"""
import numpy as np
import pytest

import minims as ms
from minims import Tensor
from minims.dataset import NUM_CLASSES, batches, load_digits
from minims.dataset import digits as digits_mod

COUNTS = [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]


def test_the_shipped_file():
    assert digits_mod._FILE.stat().st_size < 300_000
    images, labels = digits_mod._raw()
    assert images.shape == (1797, 8, 8) and labels.shape == (1797,)
    assert images.min() == 0 and images.max() == 16
    assert np.bincount(labels).tolist() == COUNTS
    # every image has ink, and the border columns are mostly empty (centred digits)
    assert (images.reshape(1797, -1).max(axis=1) > 0).all()
    assert images[:, :, 0].mean() < images[:, :, 3].mean()


@pytest.mark.parametrize("split, n", [("train", 1438), ("test", 359), ("all", 1797)])
def test_shapes_dtypes_and_labels(split, n):
    x, y = load_digits(split)
    assert x.shape == (n, 1, 32, 32) and x.dtype == np.float32
    assert y.shape == (n,) and y.dtype == np.int32
    assert y.min() == 0 and y.max() == NUM_CLASSES - 1
    assert np.isfinite(x).all()


def test_split_is_stratified_disjoint_and_complete():
    xtr, ytr = load_digits("train")
    xte, yte = load_digits("test")
    expected_test = [int(round(c * 0.2)) for c in COUNTS]
    assert np.bincount(yte).tolist() == expected_test
    assert (np.bincount(ytr) + np.bincount(yte)).tolist() == COUNTS
    # disjoint: the train and test images together are the whole set (as multisets of rows)
    both = np.concatenate([xtr, xte]).reshape(1797, -1)
    whole = load_digits("all")[0].reshape(1797, -1)
    key = lambda a: a[np.lexsort(a.T[::-1])]          # noqa: E731 - sort rows
    np.testing.assert_array_equal(key(both), key(whole))


def test_deterministic_and_seed_dependent():
    a = load_digits("test", seed=0)
    b = load_digits("test", seed=0)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    c = load_digits("test", seed=1)
    assert not np.array_equal(a[0], c[0])


def test_normalisation_and_enlargement():
    x, _ = load_digits("all")
    np.testing.assert_allclose(x.mean(), 0.0, atol=1e-5)
    np.testing.assert_allclose(x.std(), 1.0, atol=1e-5)
    # each 8x8 pixel became a 4x4 block
    first = x[0, 0]
    np.testing.assert_array_equal(first, np.kron(first[::4, ::4], np.ones((4, 4), np.float32)))
    # the background (pixel value 0) maps to one value everywhere, also in the padding of 28x28
    images, _ = digits_mod._raw()
    small, _ = load_digits("all", image_size=28)               # 8 * 3 = 24, padded by 2 on each side
    assert small.shape == (1797, 1, 28, 28)
    background = small[0, 0, 0, 0]
    assert (small[:, 0, :2, :] == background).all() and (small[:, 0, :, -2:] == background).all()
    np.testing.assert_array_equal(small[0, 0, 2:26:3, 2:26:3] == background, images[0] == 0)


def test_argument_errors():
    with pytest.raises(ValueError, match="split"):
        load_digits("validation")
    with pytest.raises(ValueError, match="image_size"):
        load_digits(image_size=4)


def test_batches():
    x, y = load_digits("test")
    got = list(batches(x, y, 32, shuffle=False))
    assert len(got) == 12 and got[-1][0].shape == (359 - 11 * 32, 1, 32, 32)   # 359 = 11 * 32 + 7
    assert isinstance(got[0][0], Tensor) and got[0][1].dtype == ms.int32
    np.testing.assert_array_equal(got[0][1].asnumpy(), y[:32])
    dropped = list(batches(x, y, 32, shuffle=False, drop_remainder=True))
    assert len(dropped) == 11 and all(b[0].shape[0] == 32 for b in dropped)
    # shuffled: a permutation, the same for the same seed
    s1 = np.concatenate([b[1].asnumpy() for b in batches(x, y, 50, shuffle=True, seed=3)])
    s2 = np.concatenate([b[1].asnumpy() for b in batches(x, y, 50, shuffle=True, seed=3)])
    np.testing.assert_array_equal(s1, s2)
    assert sorted(s1.tolist()) == sorted(y.tolist()) and not np.array_equal(s1, y)
    # seed=None draws from set_seed's stream
    ms.set_seed(7)
    t1 = next(batches(x, y, 10, shuffle=True))[1].asnumpy()
    ms.set_seed(7)
    np.testing.assert_array_equal(next(batches(x, y, 10, shuffle=True))[1].asnumpy(), t1)
    with pytest.raises(ValueError, match="labels"):
        next(batches(x, y[:5], 4))
