"""``python -m minims.testing.accuracy``: measure every elementwise rule and print (or write) the table.

    python -m minims.testing.accuracy                 # measure, print the Markdown table
    python -m minims.testing.accuracy --write         # ... and rewrite accuracy.json and docs/accuracy.md's table
    python -m minims.testing.accuracy --points 200 --only Tanh Sigmoid --paths numpy

Run it from anywhere: the files written are the ones of the checkout minims is imported from.  The
exit status is 1 when a row exceeds its documented bound.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .measure import DEFAULT_POINTS, PATHS, measure
from .report import json_text, markdown, replace_section, to_json

ROOT = Path(__file__).resolve().parents[3]          # the checkout: minims/testing/accuracy/ -> .


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minims.testing.accuracy", description=__doc__.split("\n")[0])
    parser.add_argument("--points", type=int, default=DEFAULT_POINTS, help="points per domain and format")
    parser.add_argument("--only", nargs="+", metavar="PRIMITIVE", help="measure only these primitives")
    parser.add_argument("--paths", nargs="+", choices=PATHS, default=list(PATHS),
                        help="ways of running the rules (default: all; the documented table has all)")
    parser.add_argument("--write", action="store_true", help="rewrite accuracy.json and docs/accuracy.md's table")
    parser.add_argument("--json", type=Path, default=ROOT / "accuracy.json")
    parser.add_argument("--doc", type=Path, default=ROOT / "docs" / "accuracy.md",
                        help="the Markdown file holding the table between its markers")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    rows = measure(args.only, points=args.points, paths=tuple(args.paths),
                   progress=lambda name: print(f"measuring {name}", file=sys.stderr, flush=True))
    data = to_json(rows, args.points)
    table = markdown(data)
    print(table)
    if args.write:
        args.json.write_text(json_text(data), encoding="utf-8")
        args.doc.write_text(replace_section(args.doc.read_text(encoding="utf-8"), table), encoding="utf-8")
        print(f"wrote {args.json.name} and the table in {args.doc}", file=sys.stderr)
    over = [r for r in rows if not r.ok]
    for r in over:
        print(f"over its bound: {r.primitive} {r.domain} {r.format} {r.rule} {r.wrt}: {r.max_ulp:.3g} ULP "
              f"> {r.bound:g} at {r.worst_at}", file=sys.stderr)
    print(f"{len(rows)} rows, {len(over)} over their bound, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
