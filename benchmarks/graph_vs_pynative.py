"""Graph mode against PyNative on a chain of 200 small elementwise ops, forward plus backward.

Both run in one process, interleaved, on the same [4] float32 tensor; the script first checks that
both modes give the same loss and gradient, then prints medians, the ratio, and the compiled
graph's equation counts before and after the optimisation passes.
Usage: python benchmarks/graph_vs_pynative.py [--json out.json]
"""
import argparse
import json
import statistics
import time

import numpy as np

import minims as ms
from minims import Tensor, ops

CHAIN = 200


def chain(x):
    for i in range(CHAIN // 2):
        x = x * 1.0001 + 0.5 if i % 2 == 0 else ops.sin(x) * 0.5 + x
    return x.sum()


def median_seconds(fn, repeat=15, number=5):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return statistics.median(times), min(times), max(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json")
    args = parser.parse_args()
    x = Tensor(np.linspace(0.1, 0.4, 4).astype(np.float32))
    pynative = ms.value_and_grad(chain)
    compiled = ms.jit(chain)
    graph_mode = ms.value_and_grad(compiled)
    (v1, g1), (v2, g2) = pynative(x), graph_mode(x)
    np.testing.assert_allclose(v1.asnumpy(), v2.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(g1.asnumpy(), g2.asnumpy(), rtol=1e-6)
    raw, opt = compiled.graph(x, optimized=False), compiled.graph(x)
    bwd = compiled.grad_graph(x)
    rows = {}
    for _ in range(2):                        # interleave the two modes
        rows["pynative forward+backward"] = median_seconds(lambda: pynative(x))
        rows["graph forward+backward"] = median_seconds(lambda: graph_mode(x))
    for name, (med, lo, hi) in rows.items():
        print(f"{name:28s} median {med * 1e3:7.3f} ms  (min {lo * 1e3:.3f}, max {hi * 1e3:.3f})")
    ratio = rows["graph forward+backward"][0] / rows["pynative forward+backward"][0]
    print(f"graph / pynative: {ratio:.3f}")
    print(f"forward graph equations: {raw.num_equations} traced, {opt.num_equations} after passes "
          f"({'; '.join(opt.reports)})")
    print(f"backward graph equations after passes: {bwd.num_equations}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows_ms": {k: [t * 1e3 for t in v] for k, v in rows.items()}, "ratio": ratio,
                       "forward_equations": [raw.num_equations, opt.num_equations],
                       "backward_equations": bwd.num_equations}, fh, indent=2)


if __name__ == "__main__":
    main()
