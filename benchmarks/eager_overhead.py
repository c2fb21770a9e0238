"""Per-op cost of an eager (PyNative) elementwise op on a small tensor, next to NumPy's own cost.

Runs NumPy and minims interleaved in one process and reports medians and the difference, the figure
the core issue asks for ("at most ~10 us more than NumPy's own work").  Also times the gradient of a
chain of ops.  Usage: python benchmarks/eager_overhead.py [--json out.json]
"""
import argparse
import json
import statistics
import timeit

import numpy as np

from minims import Tensor, ops

CHAIN = 200


def numpy_chain(a):
    for _ in range(CHAIN):
        a = a * 1.0001 + 0.5
    return a


def minims_chain(x):
    for _ in range(CHAIN):
        x = x * 1.0001 + 0.5
    return x


def median_time(fn, number, repeat=7):
    return statistics.median(t / number for t in timeit.repeat(fn, number=number, repeat=repeat))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", help="write the results to this file")
    args = parser.parse_args()
    a, b = np.ones(4, np.float32), np.full(4, 2.0, np.float32)
    x, y = Tensor(a), Tensor(b)
    rows = {}
    # interleave: each pair runs back to back so machine noise hits both alike
    rows["add, numpy"] = median_time(lambda: np.add(a, b), 20000)
    rows["add, minims"] = median_time(lambda: x + y, 20000)
    rows["chain of 200 (mul, add), numpy"] = median_time(lambda: numpy_chain(a), 50) / (2 * CHAIN)
    rows["chain of 200 (mul, add), minims"] = median_time(lambda: minims_chain(x), 50) / (2 * CHAIN)
    grad_chain = ops.grad(lambda x: minims_chain(x).sum())
    rows["chain forward+gradient, minims"] = median_time(lambda: grad_chain(x), 10) / (2 * CHAIN)
    for name, t in rows.items():
        print(f"{name:40s} {t * 1e6:8.2f} us/op")
    overhead = rows["add, minims"] - rows["add, numpy"]
    print(f"{'eager overhead per op (add)':40s} {overhead * 1e6:8.2f} us  "
          f"(ratio {rows['add, minims'] / rows['add, numpy']:.1f}x NumPy)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({k: v * 1e6 for k, v in rows.items()} | {"overhead_us": overhead * 1e6}, fh, indent=2)


if __name__ == "__main__":
    main()
