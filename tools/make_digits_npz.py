"""Build ``minims/dataset/digits.npz``, the 8x8 handwritten digits shipped with minims (run once).

Provenance: the data are the test set of the UCI Machine Learning Repository's "Optical Recognition
of Handwritten Digits" (E. Alpaydin and C. Kaynak, 1998; https://doi.org/10.24432/C50P49), 1797
images of 8x8 pixels with values 0..16, ten classes.  The UCI repository distributes it under the
Creative Commons Attribution 4.0 International licence (CC BY 4.0), which allows redistribution
with attribution (see ``minims/dataset/README.md``).  scikit-learn ships the same file as
``sklearn/datasets/data/digits.csv.gz`` (one row per image: 64 pixels, then the label); this script
reads it from a scikit-learn wheel without installing scikit-learn::

    python -m pip download --no-deps scikit-learn -d /tmp/skl
    python tools/make_digits_npz.py /tmp/skl/scikit_learn-*.whl

The output holds ``images`` (uint8, (1797, 8, 8)) and ``labels`` (uint8, (1797,)) in the order of
the source file, compressed (about 45 KB).
"""
from __future__ import annotations

import argparse
import gzip
import io
import pathlib
import zipfile

import numpy as np

MEMBER = "sklearn/datasets/data/digits.csv.gz"
OUT = pathlib.Path(__file__).resolve().parent.parent / "minims" / "dataset" / "digits.npz"


def read_digits(wheel: pathlib.Path) -> tuple[np.ndarray, np.ndarray]:
    with zipfile.ZipFile(wheel) as z:
        raw = gzip.decompress(z.read(MEMBER))
    table = np.loadtxt(io.BytesIO(raw), delimiter=",", dtype=np.float64)
    if table.shape != (1797, 65):
        raise SystemExit(f"unexpected table shape {table.shape}; expected (1797, 65)")
    if not np.array_equal(table, np.round(table)) or table.min() < 0 or table[:, :64].max() > 16:
        raise SystemExit("unexpected values: pixels must be integers 0..16")
    images = table[:, :64].astype(np.uint8).reshape(-1, 8, 8)
    labels = table[:, 64].astype(np.uint8)
    return images, labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheel", type=pathlib.Path, help="a scikit-learn wheel (.whl)")
    parser.add_argument("--out", type=pathlib.Path, default=OUT)
    args = parser.parse_args()
    images, labels = read_digits(args.wheel)
    np.savez_compressed(args.out, images=images, labels=labels)
    counts = np.bincount(labels, minlength=10)
    print(f"wrote {args.out} ({args.out.stat().st_size} bytes): {len(labels)} images, per class {counts.tolist()}")


if __name__ == "__main__":
    main()
