"""``mindspore.dataset`` on minims (issue 25, item 4): sources, steps, iterators, the seeded
shuffle orders, MNIST idx files and the vision/transforms of the beginner pages.

Expected values are what MindSpore 2.10 (CPU, the oracle) printed for the same code, quoted in each
test's docstring, or the C++ standard's check values for the random engines.
"""
import numpy as np
import pytest

import minims as ms
import minims.dataset as ds
from minims import Tensor
from minims.dataset import transforms, vision
from minims.dataset.idx import read_idx, write_idx
from minims.dataset.stdrandom import mt19937, mt19937_64


def order(dataset, epochs=1, column=0):
    """The first value of one column of every row, per epoch, from one iterator."""
    it = dataset.create_tuple_iterator(num_epochs=epochs, output_numpy=True)
    return [[int(np.ravel(row[column])[0]) for row in it] for _ in range(epochs)]


def write_mnist(folder, prefix, images, labels):
    write_idx(folder / f"{prefix}-images-idx3-ubyte", images.astype(np.uint8))
    write_idx(folder / f"{prefix}-labels-idx1-ubyte", labels.astype(np.uint8))


def test_the_random_engines_are_cpp_mt19937_and_mt19937_64():
    """Item 4, shuffle.  C++ standard [rand.predef]: the 10000th output of a default-constructed
    (seed 5489) mt19937 is 4123659995, of mt19937_64 9981545732273789042."""
    for make, expected in ((mt19937, 4123659995), (mt19937_64, 9981545732273789042)):
        engine = make(5489)
        for _ in range(9999):
            engine()
        assert engine() == expected


def test_a_seeded_shuffled_source_visits_rows_in_mindspores_order():
    """Item 4, shuffle.  MindSpore 2.10: after ds.config.set_seed(0),
    [int(x[0]) for x in NumpySlicesDataset(list(range(10)), shuffle=True)] is
    [0, 2, 1, 5, 9, 8, 4, 7, 6, 3], and the same iterator's second epoch (num_epochs=2)
    [3, 0, 1, 8, 7, 9, 4, 5, 2, 6]; seed 1 gives [9, 0, 2, 5, 7, 4, 6, 3, 1, 8]; with 100000 rows
    and seed 7 the order starts [68737, 37819, 55518, 77757, 46481, 88424, 97910, 55475] and ends
    [61357, 29156, 18230, 29274, 39487]."""
    ds.config.set_seed(0)
    data = ds.NumpySlicesDataset(list(range(10)), shuffle=True)
    assert order(data, 2) == [[0, 2, 1, 5, 9, 8, 4, 7, 6, 3], [3, 0, 1, 8, 7, 9, 4, 5, 2, 6]]
    assert order(data) == [[0, 2, 1, 5, 9, 8, 4, 7, 6, 3]]          # a new iterator starts again
    ds.config.set_seed(1)
    assert order(ds.NumpySlicesDataset(list(range(10)))) == [[9, 0, 2, 5, 7, 4, 6, 3, 1, 8]]
    ds.config.set_seed(7)
    big = order(ds.NumpySlicesDataset(list(range(100000)), shuffle=True))[0]
    assert big[:8] == [68737, 37819, 55518, 77757, 46481, 88424, 97910, 55475]
    assert big[-5:] == [61357, 29156, 18230, 29274, 39487]


def test_the_shuffle_buffer_gives_mindspores_order():
    """Item 4, shuffle.  MindSpore 2.10 with ds.config.set_seed(0) over NumpySlicesDataset(
    list(range(10)), shuffle=False): .shuffle(4) gives [2, 4, 1, 3, 0, 6, 9, 7, 8, 5] and, in the
    iterator's second epoch, [3, 0, 2, 5, 4, 1, 9, 6, 8, 7]; .shuffle(3).shuffle(3) gives
    [0, 2, 3, 1, 4, 5, 6, 7, 8, 9]; a shuffled source then .shuffle(3) gives
    [0, 5, 2, 1, 9, 7, 4, 8, 3, 6]; seed 1, .shuffle(10): [8, 6, 2, 5, 0, 4, 9, 3, 7, 1]."""
    ds.config.set_seed(0)
    plain = lambda: ds.NumpySlicesDataset(list(range(10)), shuffle=False)          # noqa: E731
    assert order(plain().shuffle(4), 2) == [[2, 4, 1, 3, 0, 6, 9, 7, 8, 5], [3, 0, 2, 5, 4, 1, 9, 6, 8, 7]]
    assert order(plain().shuffle(3).shuffle(3)) == [[0, 2, 3, 1, 4, 5, 6, 7, 8, 9]]
    assert order(ds.NumpySlicesDataset(list(range(10)), shuffle=True).shuffle(3)) == [[0, 5, 2, 1, 9, 7, 4, 8, 3, 6]]
    ds.config.set_seed(1)
    assert order(plain().shuffle(10)) == [[8, 6, 2, 5, 0, 4, 9, 3, 7, 1]]


def test_repeat_is_epochs_and_the_seed_is_read_when_iteration_starts():
    """Item 4, shuffle/repeat.  MindSpore 2.10, seed 0: .shuffle(4).repeat(2) gives
    [2, 4, 1, 3, 0, 6, 9, 7, 8, 5, 3, 0, 2, 5, 4, 1, 9, 6, 8, 7] (the two epochs above); a shuffled
    source .repeat(2) gives [0, 2, 1, 5, 9, 8, 4, 7, 6, 3, 3, 0, 1, 8, 7, 9, 4, 5, 2, 6]; a pipeline
    built under seed 0 and iterated after set_seed(1) gives seed 1's order; mindspore.set_seed(4)
    makes ds.config.get_seed() 4; set_seed(-1) raises ValueError, set_seed(1.5) TypeError."""
    ds.config.set_seed(0)
    shuffled = ds.NumpySlicesDataset(list(range(10)), shuffle=False).shuffle(4).repeat(2)
    assert shuffled.get_dataset_size() == 20
    assert order(shuffled) == [[2, 4, 1, 3, 0, 6, 9, 7, 8, 5, 3, 0, 2, 5, 4, 1, 9, 6, 8, 7]]
    assert order(ds.NumpySlicesDataset(list(range(10))).repeat(2)) == [
        [0, 2, 1, 5, 9, 8, 4, 7, 6, 3, 3, 0, 1, 8, 7, 9, 4, 5, 2, 6]]
    built = ds.NumpySlicesDataset(list(range(10)))
    ds.config.set_seed(1)
    assert order(built) == [[9, 0, 2, 5, 7, 4, 6, 3, 1, 8]]
    ms.set_seed(4)
    assert ds.config.get_seed() == 4
    with pytest.raises(ValueError, match="UINT32_MAX"):
        ds.config.set_seed(-1)
    with pytest.raises(TypeError, match="int"):
        ds.config.set_seed(1.5)


def test_one_iterator_gives_one_epoch_per_loop_and_stops_after_num_epochs():
    """Item 4, iterators.  MindSpore 2.10: a second loop over create_tuple_iterator(num_epochs=1)
    raises RuntimeError; with the default num_epochs=-1, next() raises StopIteration at the end of
    an epoch and the next call starts the next epoch; `for row in dataset` gives lists of Tensors;
    len(dataset) is get_dataset_size()."""
    data = ds.NumpySlicesDataset(([1, 2, 3], [4, 5, 6]), column_names=["a", "b"], shuffle=False)
    it = data.create_tuple_iterator(num_epochs=1, output_numpy=True)
    assert [int(r[0]) for r in it] == [1, 2, 3]
    with pytest.raises(RuntimeError, match="num_epochs=1"):
        next(it)
    it = data.create_tuple_iterator(output_numpy=True)
    assert [int(next(it)[0]) for _ in range(3)] == [1, 2, 3]
    with pytest.raises(StopIteration):
        next(it)
    assert int(next(it)[0]) == 1
    rows = list(data)
    assert len(rows) == len(data) == 3
    assert isinstance(rows[0], list) and all(isinstance(v, Tensor) for v in rows[0])
    assert [list(d) for d in data.create_dict_iterator()] == [["a", "b"]] * 3
    assert [[int(c) for c in r] for r in data.create_tuple_iterator(columns=["b"], output_numpy=True)] == [[4], [5], [6]]


def test_numpy_slices_columns_names_and_dtypes():
    """Item 4, NumpySlicesDataset.  MindSpore 2.10: a tuple of lists gives one column per element, a
    list or array one column named 'column_0' (rows of a 2-D list are 1-D Tensors), a dict one
    column per key; Python ints are Int64 and floats Float64 (output_numpy: array(1.), a 0-d array);
    float32 and bool arrays keep their dtype; strings stay NumPy arrays ('<U1'); a Tensor is refused
    with TypeError; 1 name for 2 columns and columns of unequal length raise ValueError."""
    data = ds.NumpySlicesDataset(([1, 2], [0.5, 1.5]), column_names=["i", "f"], shuffle=False)
    first = next(iter(data))
    assert data.get_col_names() == ["i", "f"] and [v.dtype for v in first] == [ms.int64, ms.float64]
    rows = list(ds.NumpySlicesDataset([1.0, 2.0, 3.0], shuffle=False).create_tuple_iterator(output_numpy=True))
    assert isinstance(rows[0][0], np.ndarray) and rows[0][0].shape == () and rows[0][0].dtype == np.float64
    nested = ds.NumpySlicesDataset([[1, 2], [3, 4]], shuffle=False)
    assert nested.get_col_names() == ["column_0"] and [r[0].shape for r in nested] == [(2,), (2,)]
    assert ds.NumpySlicesDataset({"a": [1, 2], "b": [3, 4]}).get_col_names() == ["a", "b"]
    assert next(iter(ds.NumpySlicesDataset(np.array([1.5], np.float32))))[0].dtype == ms.float32
    assert next(iter(ds.NumpySlicesDataset([True, False])))[0].dtype == ms.bool_
    text = next(iter(ds.NumpySlicesDataset(["a", "bc"], shuffle=False)))[0]
    assert isinstance(text, np.ndarray) and text.dtype == np.dtype("<U1")
    with pytest.raises(TypeError, match="asnumpy"):
        ds.NumpySlicesDataset(Tensor(np.array([1.0, 2.0], np.float32)))
    with pytest.raises(ValueError, match="required is 2"):
        ds.NumpySlicesDataset(([1, 2], [3, 4]), column_names=["a"])
    with pytest.raises(ValueError, match="not equal"):
        ds.NumpySlicesDataset(([1, 2], [3, 4, 5]), column_names=["a", "b"])


def test_generator_dataset_sources():
    """Item 4, GeneratorDataset.  MindSpore 2.10: a random-accessible source is shuffled by default
    (seed 0, 4 rows: [0, 2, 1, 3]) and read in order with shuffle=False; an iterable and a
    generator function are read in their order (shuffle=True is ignored for them) and counted by
    running them (size 3); num_samples=2 keeps 2 rows; no column_names raises ValueError; a source
    giving 2 values for 1 column raises RuntimeError when iterated."""
    class RandomAccess:
        def __getitem__(self, i):
            return np.ones(2) * i, np.zeros(1)

        def __len__(self):
            return 4

    ds.config.set_seed(0)
    assert order(ds.GeneratorDataset(RandomAccess(), ["a", "b"])) == [[0, 2, 1, 3]]
    assert order(ds.GeneratorDataset(RandomAccess(), ["a", "b"], shuffle=False)) == [[0, 1, 2, 3]]
    assert ds.GeneratorDataset(RandomAccess(), ["a", "b"], num_samples=2, shuffle=False).get_dataset_size() == 2

    class Iterable:
        def __iter__(self):
            self.items = iter(range(1, 4))
            return self

        def __next__(self):
            return next(self.items)

    def gen():
        yield from range(3)

    assert order(ds.GeneratorDataset(Iterable(), ["x"])) == [[1, 2, 3]]
    assert order(ds.GeneratorDataset(gen, ["x"], shuffle=True), 2) == [[0, 1, 2], [0, 1, 2]]
    assert ds.GeneratorDataset(gen, ["x"]).get_dataset_size() == 3
    pairs = list(ds.GeneratorDataset(lambda: ((np.array([i, i]), np.float32(i)) for i in range(2)), ["x", "y"]))
    assert [v.dtype for v in pairs[0]] == [ms.int64, ms.float32]
    with pytest.raises(ValueError, match="column_names"):
        ds.GeneratorDataset(gen)
    with pytest.raises(RuntimeError, match="2 value"):
        list(ds.GeneratorDataset(lambda: iter([(1, 2)]), ["x"]))


def test_map_puts_results_where_mindspore_puts_them():
    """Item 4, map.  MindSpore 2.10 over columns a, b, c: mapping ['c', 'a'] to ['x', 'y'] (as many
    outputs as inputs) gives columns ['y', 'b', 'x'] (each result in its input's place); ['b'] to
    ['b1', 'b2'] gives ['b1', 'b2', 'a', 'c'] (results first); ['a', 'b'] to ['s'] gives ['s', 'c'];
    the functions receive 0-d NumPy int64 arrays; a list of operations runs in turn; a missing
    column, 1 result for 2 output columns, and an exception in the function raise RuntimeError;
    a non-callable operation ValueError, input_columns=3 TypeError."""
    def three():
        return ds.NumpySlicesDataset(([1, 2, 3], [10, 20, 30], [5, 6, 7]), column_names=["a", "b", "c"],
                                     shuffle=False)

    swapped = three().map(lambda c, a: (c + a, c - a), input_columns=["c", "a"], output_columns=["x", "y"])
    assert swapped.get_col_names() == ["y", "b", "x"]
    assert [[int(v) for v in r] for r in swapped.create_tuple_iterator(output_numpy=True)][0] == [4, 10, 6]
    split = three().map(lambda b: (b, b + 1), input_columns=["b"], output_columns=["b1", "b2"])
    assert split.get_col_names() == ["b1", "b2", "a", "c"]
    assert three().map(lambda a, b: a + b, ["a", "b"], ["s"]).get_col_names() == ["s", "c"]
    seen = []
    list(three().map(lambda x: seen.append((type(x), x.shape, x.dtype)) or x, "a"))
    assert seen[0] == (np.ndarray, (), np.int64)
    chained = three().map([lambda x: x * 2, lambda x: x + 1], "b")
    assert [int(r[1]) for r in chained.create_tuple_iterator(output_numpy=True)] == [21, 41, 61]
    with pytest.raises(RuntimeError, match="doesn't exist"):
        three().map(lambda x: x, input_columns="zz")
    with pytest.raises(RuntimeError, match="returned 1 column"):
        list(three().map(lambda x: x, ["b"], ["p", "q"]))

    def boom(x):
        raise ValueError("boom")

    with pytest.raises(RuntimeError, match="boom") as info:
        list(three().map(boom, "a"))
    assert isinstance(info.value.__cause__, ValueError)
    with pytest.raises(ValueError, match="callable"):
        three().map(3, "a")
    with pytest.raises(TypeError, match="input_columns"):
        three().map(lambda x: x, 3)


def test_batch_sizes_shapes_and_refusals():
    """Item 4, batch.  MindSpore 2.10 over 8 rows of (data, label): batch(3) has size 3 and shapes
    (3,), (3,), (2,); batch(3, drop_remainder=True) size 2; the dataset page's map(x * 2).batch(2)
    gives [2, 4], [6, 8], ... ; rows of different shapes raise RuntimeError ("Cannot batch tensors
    with different shapes in column 0"); batch(0) raises ValueError, batch(2.0) TypeError."""
    def eight():
        return ds.NumpySlicesDataset(([1, 2, 3, 4, 5, 6, 7, 8], [0, 1, 0, 1, 0, 1, 0, 1]),
                                     column_names=["data", "label"], shuffle=False)

    assert eight().batch(3).get_dataset_size() == 3
    assert [r[0].shape for r in eight().batch(3)] == [(3,), (3,), (2,)]
    kept = eight().batch(3, drop_remainder=True)
    assert kept.get_dataset_size() == 2 and [r[0].shape for r in kept] == [(3,), (3,)]
    doubled = eight().map(lambda x: x * 2, input_columns=["data"]).batch(2)
    assert [r[0].asnumpy().tolist() for r in doubled.create_tuple_iterator()] == [[2, 4], [6, 8], [10, 12], [14, 16]]
    assert next(iter(doubled))[0].dtype == ms.int64
    ragged = eight().map(lambda x: np.arange(int(x)), input_columns="data").batch(2)
    with pytest.raises(RuntimeError, match="different shapes in column 0"):
        list(ragged)
    with pytest.raises(ValueError, match="batch_size"):
        eight().batch(0)
    with pytest.raises(TypeError, match="batch_size"):
        eight().batch(2.0)


def test_take_skip_repeat_and_sizes():
    """Item 4, take/skip/repeat.  MindSpore 2.10 over [1..5]: take(2) gives [1, 2] (size 2),
    skip(2) [3, 4, 5] (size 3), skip(5) size 0, take(-1) all; batch(2).repeat(2) has size 6 and
    shapes (2,), (2,), (1,), (2,), (2,), (1,); repeat(2).batch(2) gives [1, 2], [3, 4], [5, 1],
    [2, 3], [4, 5]; repeat(0), take(0), skip(-1) and shuffle(1) raise ValueError."""
    def five():
        return ds.NumpySlicesDataset([1, 2, 3, 4, 5], shuffle=False)

    assert order(five().take(2)) == [[1, 2]] and five().take(2).get_dataset_size() == 2
    assert order(five().skip(2)) == [[3, 4, 5]] and five().skip(2).get_dataset_size() == 3
    assert five().skip(5).get_dataset_size() == 0 and five().take(-1).get_dataset_size() == 5
    assert [r[0].shape for r in five().batch(2).repeat(2)] == [(2,), (2,), (1,), (2,), (2,), (1,)]
    assert [r[0].asnumpy().tolist() for r in five().repeat(2).batch(2)] == [[1, 2], [3, 4], [5, 1], [2, 3], [4, 5]]
    for bad in (lambda d: d.repeat(0), lambda d: d.take(0), lambda d: d.skip(-1), lambda d: d.shuffle(1)):
        with pytest.raises(ValueError):
            bad(five())


def test_mnist_dataset_reads_idx_files(tmp_path):
    """Item 4, MnistDataset.  MindSpore 2.10 over idx files written with 5 train images (labels
    0..4) and 2 test images (0, 1): columns ['image', 'label'], image (28, 28, 1) UInt8, label ()
    UInt32, the pixels as written; usage 'all' (the default) gives the test rows first:
    [0, 1, 0, 1, 2, 3, 4]; shuffled under seed 0 the train labels come as [2, 4, 3, 0, 1]; 8x8
    images raise RuntimeError ("should be (28, 28), but got (8, 8)"); a missing folder ValueError."""
    images = np.random.default_rng(0).integers(0, 256, (5, 28, 28))
    write_mnist(tmp_path, "train", images, np.arange(5))
    write_mnist(tmp_path, "t10k", images[:2], np.arange(2))
    train = ds.MnistDataset(str(tmp_path), usage="train", shuffle=False)
    assert train.get_col_names() == ["image", "label"] and train.get_dataset_size() == 5
    image, label = next(iter(train))
    assert image.shape == (28, 28, 1) and image.dtype == ms.uint8
    assert label.shape == () and label.dtype == ms.uint32 and "dtype=UInt32" in repr(label)
    rows = list(train.create_tuple_iterator(output_numpy=True))
    np.testing.assert_array_equal(rows[2][0][..., 0], images[2])
    assert order(ds.MnistDataset(str(tmp_path), shuffle=False), column=1) == [[0, 1, 0, 1, 2, 3, 4]]
    ds.config.set_seed(0)
    labels = [int(r[1]) for r in ds.MnistDataset(str(tmp_path), usage="train").create_tuple_iterator(output_numpy=True)]
    assert labels == [2, 4, 3, 0, 1]
    small = tmp_path / "small"
    small.mkdir()
    write_mnist(small, "train", np.zeros((4, 8, 8)), np.arange(4))
    with pytest.raises(RuntimeError, match=r"should be \(28, 28\), but got \(8, 8\)"):
        list(ds.MnistDataset(str(small)))
    with pytest.raises(ValueError, match="does not exist"):
        ds.MnistDataset(str(tmp_path / "nowhere"))


def test_the_shipped_digits_written_as_mnist(tmp_path):
    """Item 4, the shipped digits in MNIST's format.  Arithmetic on the documented layout: the split
    of load_digits (1438 train, 359 test images), each 8x8 pixel repeated 3x3 with 2 pixels of
    margin (28 = 2 + 24 + 2), values v * 255 / 16 rounded (16 -> 255); the idx files read back
    unchanged, and MnistDataset reads them."""
    folder = ds.write_digits_as_mnist(tmp_path)
    train, test = read_idx(tmp_path / "train-images-idx3-ubyte"), read_idx(tmp_path / "t10k-images-idx3-ubyte")
    assert train.shape == (1438, 28, 28) and test.shape == (359, 28, 28) and train.dtype == np.uint8
    assert train.max() == 255 and train[:, :2].max() == 0 and train[:, :, -2:].max() == 0
    from minims.dataset.digits import _raw, _split_indices
    raw, raw_labels = _raw()
    keep = _split_indices(raw_labels, "train", 0, 0.2)
    np.testing.assert_array_equal(train[0, 2:26:3, 2:26:3], np.round(raw[keep[0]].astype(float) * 255 / 16))
    np.testing.assert_array_equal(read_idx(tmp_path / "train-labels-idx1-ubyte"), raw_labels[keep])
    assert np.array_equal(np.sort(load_labels(folder, "test")), np.sort(ds.load_digits("test")[1]))


def load_labels(folder, usage):
    return np.array([int(r[1]) for r in ds.MnistDataset(folder, usage=usage, shuffle=False)
                     .create_tuple_iterator(output_numpy=True)])


def test_the_quick_start_pipeline_gives_the_pages_shapes_and_dtypes(tmp_path):
    """Item 4, the quick-start pipeline.  The quick-start page (MindSpore 2.10) prints
    'Shape of image [N, C, H, W]: (64, 1, 28, 28) Float32' and 'Shape of label: (64,) Int32', and
    the dataset page '(1, 28, 28) Float32' / '() Int32' for one row; the pixel values follow
    Rescale then Normalize: (v / 255 - 0.1307) / 0.3081."""
    ds.write_digits_as_mnist(tmp_path)

    def datapipe(dataset, batch_size):
        image_transforms = [vision.Rescale(1.0 / 255.0, 0), vision.Normalize(mean=(0.1307,), std=(0.3081,)),
                            vision.HWC2CHW()]
        dataset = dataset.map(image_transforms, "image")
        dataset = dataset.map(transforms.TypeCast(ms.int32), "label")
        return dataset.batch(batch_size)

    rows = datapipe(ds.MnistDataset(str(tmp_path), usage="test", shuffle=False), 64)
    image, label = next(iter(rows.create_tuple_iterator()))
    assert (image.shape, image.dtype, label.shape, label.dtype) == ((64, 1, 28, 28), ms.float32, (64,), ms.int32)
    data = next(iter(rows.create_dict_iterator()))
    assert set(data) == {"image", "label"} and data["image"].shape == (64, 1, 28, 28)
    raw = read_idx(tmp_path / "t10k-images-idx3-ubyte")[0]
    np.testing.assert_allclose(image.asnumpy()[0, 0], (raw / 255 - 0.1307) / 0.3081, rtol=1e-5, atol=1e-6)
    single = ds.MnistDataset(str(tmp_path), usage="test").map(
        [vision.Rescale(1.0 / 255.0, 0), vision.Normalize(mean=(0.1307,), std=(0.3081,)), vision.HWC2CHW()],
        input_columns=["image"]).map([transforms.TypeCast(ms.int32)], input_columns=["label"])
    image, label = next(iter(single))
    assert (image.shape, image.dtype, label.shape, label.dtype) == ((1, 28, 28), ms.float32, (), ms.int32)


def test_vision_and_transforms_values():
    """Item 4, vision/transforms.  MindSpore 2.10: Rescale(1/255, 0) of uint8 [0, 1, 2] gives
    float32 [0, 0.00392157, 0.00784314]; Normalize((0.1307,), (0.3081,)) gives [-0.42421296,
    2.8214867, 6.0671864] (float32, also from uint8); Normalize(mean=(1, 2, 3), std=(1, 2, 4)) of
    arange(12).reshape(2, 2, 3) gives [-1, -0.5, -0.25, 2, 1, 0.5, 5, 2.5, 1.25, 8, 4, 2], and with
    is_hwc=False on the CHW transpose [-1, 2, 5, 8, -0.5, 1, 2.5, 4, -0.25, 0.5, 1.25, 2]; HWC2CHW
    maps (2, 3, 1) to (1, 2, 3) and leaves (4, 5) as it is; a Tensor input raises TypeError;
    TypeCast(int32) of [1.7, -1.7] gives [1, -1]; std 0 raises ValueError."""
    img = np.arange(6, dtype=np.uint8).reshape(2, 3, 1)
    rescaled = vision.Rescale(1 / 255.0, 0)(img)
    assert rescaled.dtype == np.float32
    np.testing.assert_allclose(rescaled.ravel()[:3], [0, 0.00392157, 0.00784314], rtol=1e-6)
    normal = vision.Normalize(mean=(0.1307,), std=(0.3081,))
    for x in (img, img.astype(np.float32)):
        out = normal(x)
        assert out.dtype == np.float32
        np.testing.assert_allclose(out.ravel()[:3], [-0.42421296, 2.8214867, 6.0671864], rtol=1e-6)
    c3 = np.arange(12, dtype=np.uint8).reshape(2, 2, 3)
    np.testing.assert_allclose(vision.Normalize(mean=(1, 2, 3), std=(1, 2, 4))(c3).ravel(),
                               [-1, -0.5, -0.25, 2, 1, 0.5, 5, 2.5, 1.25, 8, 4, 2])
    np.testing.assert_allclose(vision.Normalize(mean=(1, 2, 3), std=(1, 2, 4), is_hwc=False)(c3.transpose(2, 0, 1)).ravel(),
                               [-1, 2, 5, 8, -0.5, 1, 2.5, 4, -0.25, 0.5, 1.25, 2])
    assert vision.HWC2CHW()(img).shape == (1, 2, 3) and vision.HWC2CHW()(np.zeros((4, 5))).shape == (4, 5)
    with pytest.raises(TypeError, match="NumPy or PIL"):
        vision.Rescale(1.0, 0)(Tensor(np.ones((2, 2, 1), np.float32)))
    np.testing.assert_array_equal(transforms.TypeCast(ms.int32)(np.array([1.7, -1.7])), [1, -1])
    assert transforms.TypeCast(np.float32)(np.array([1, 2])).dtype == np.float32
    with pytest.raises(ValueError, match="std"):
        vision.Normalize(mean=(0.5,), std=(0.0,))
    assert vision.transforms.Rescale is vision.Rescale and transforms.transforms.TypeCast is transforms.TypeCast


def test_resize_bilinear_and_nearest():
    """Item 4, vision.Resize.  MindSpore 2.10: Resize((3, 3)) of the 2x2 image [[0, 100], [200, 50]]
    (HWC, one channel) gives uint8 [0, 50, 100, 100, 88, 75, 200, 125, 50] and float32 [0, 50, 100,
    100, 87.5, 75, 200, 125, 50]; with Inter.NEAREST [0, 0, 100, 0, 0, 100, 200, 200, 50];
    Resize((1, 1)) gives [88]; Resize((3, 5)) of arange(16).reshape(4, 4, 1) float32 gives
    [0.6666667, 1.3666666, 2.1666667, 2.9666667, 3.6666667, 6, 6.7, 7.5, 8.3, 9, 11.333333,
    12.033333, 12.833333, 13.633333, 14.333333]; Resize(4) of a (2, 3, 1) image gives (4, 6, 1)."""
    small = np.array([[0, 100], [200, 50]], np.uint8)[..., None]
    assert vision.Resize((3, 3))(small).ravel().tolist() == [0, 50, 100, 100, 88, 75, 200, 125, 50]
    np.testing.assert_allclose(vision.Resize((3, 3))(small.astype(np.float32)).ravel(),
                               [0, 50, 100, 100, 87.5, 75, 200, 125, 50])
    assert vision.Resize((3, 3), vision.Inter.NEAREST)(small).ravel().tolist() == [0, 0, 100, 0, 0, 100, 200, 200, 50]
    assert vision.Resize((1, 1))(small).ravel().tolist() == [88]
    np.testing.assert_allclose(
        vision.Resize((3, 5))(np.arange(16, dtype=np.float32).reshape(4, 4, 1)).ravel(),
        [0.6666667, 1.3666666, 2.1666667, 2.9666667, 3.6666667, 6, 6.7, 7.5, 8.3, 9, 11.333333, 12.033333,
         12.833333, 13.633333, 14.333333], rtol=1e-6)
    assert vision.Resize(4)(np.zeros((2, 3, 1), np.uint8)).shape == (4, 6, 1)
