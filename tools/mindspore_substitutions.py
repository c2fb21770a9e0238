"""What the page runner changes in MindSpore's tutorial blocks before running them (issue 25).

The blocks are stored verbatim (tools/mindspore_pages/*.json); the runner changes them only here,
the same way for MindSpore and for minims, and records every change it made in each block's result
(``"changed"``). Two kinds of change:

* ``NOTEBOOK_LINES``: IPython-only lines (``!pip install ...``, ``%matplotlib inline``) become ``pass``,
  since the runner executes plain Python;
* ``SUBSTITUTIONS``: text replacements in named blocks, each with its reason. Today only downloads:
  the tutorials fetch MNIST with the ``download`` package; the runner gives them ``synthetic_download``
  instead, which writes MNIST-shaped data (28x28 uint8 images, labels 0-9, in the standard idx files)
  where the tutorial expects it. Fewer images than MNIST's 60000/10000 (``TRAIN``/``TEST``) keep a
  page's three training epochs short; shapes, dtypes and file layout are MNIST's.
"""
import re
import struct
from pathlib import Path

import numpy as np

TRAIN, TEST = 1920, 640       # images: 30 and 10 batches of 64
NOTEBOOK_LINES = re.compile(r"^([ \t]*)[!%].*$", re.M)

_DOWNLOAD = {"find": "from download import download",
             "replace": "from mindspore_substitutions import synthetic_download as download",
             "why": "no network: MNIST-shaped synthetic idx files instead of the MNIST download"}

# (page, block) -> list of {"find", "replace", "why"}; "find" must occur in the block
SUBSTITUTIONS = {
    ("beginner_quick_start", 1): [_DOWNLOAD],
    ("beginner_train", 0): [_DOWNLOAD],
}


def prepare(page, block, code):
    """The code to run for a block, and the list of changes made to it (empty when run as written)."""
    changed = []
    for sub in SUBSTITUTIONS.get((page, block), []):
        if sub["find"] not in code:
            raise ValueError(f"substitution for {page} block {block} no longer matches: {sub['find']!r}")
        code = code.replace(sub["find"], sub["replace"])
        changed.append(sub)
    if NOTEBOOK_LINES.search(code):
        lines = NOTEBOOK_LINES.findall(code)
        code = NOTEBOOK_LINES.sub(lambda m: m.group(1) + "pass", code)
        changed.append({"find": "IPython line (! or %)", "replace": "pass",
                        "why": f"plain Python has no IPython magics ({len(lines)} line(s))"})
    return code, changed


def _write_idx(path, array):
    """An idx file as MNIST ships them: magic (0, 0, dtype 0x08 = uint8, ndim), big-endian sizes, data."""
    header = struct.pack(">BBBB", 0, 0, 0x08, array.ndim) + struct.pack(f">{array.ndim}I", *array.shape)
    path.write_bytes(header + array.astype(np.uint8).tobytes())


def synthetic_download(url, path, kind=None, replace=False):
    """Stand-in for ``download.download`` of MNIST_Data.zip: writes ``MNIST_Data/{train,test}`` idx files."""
    rng = np.random.default_rng(25)
    root = Path(path) / "MNIST_Data"
    for split, count, prefix in (("train", TRAIN, "train"), ("test", TEST, "t10k")):
        folder = root / split
        folder.mkdir(parents=True, exist_ok=True)
        _write_idx(folder / f"{prefix}-images-idx3-ubyte", rng.integers(0, 256, (count, 28, 28)))
        _write_idx(folder / f"{prefix}-labels-idx1-ubyte", rng.integers(0, 10, (count,)))
    return str(Path(path))
