"""The benchmark table of ``docs/benchmarks.md``, rendered from one run's JSON (``benchmarks/run.py --json``).

    .venv/bin/python -m benchmarks.readme_table benchmarks/results/run-<time>.json           # print it
    .venv/bin/python -m benchmarks.readme_table benchmarks/results/run-<time>.json --write   # into docs/benchmarks.md
                                                                           # (and issue 28's table into README.md)

Every figure in the section comes from that one file — medians, min-max, first calls, the targets'
ratios, the machine noise and the BLAS kernel and threads each library ran with — so the table cannot
mix runs.  The first table has issue 28's rows and its ratios to PyTorch eager and JAX jit; the full
table of every column and the targets follow.  The lead's command, on a quiet machine (nothing else
running; ``pip install torch==2.13.0 jax`` in the environment first)::

    python -m benchmarks.run --threads 1 --memory --compile --json run.json && \
        python -m benchmarks.readme_table run.json --write

and once more with ``OPENBLAS_CORETYPE`` set to the other kernel (e.g. ``Haswell``), to measure both
(issue 28: W3 and W5 are GEMM-bound).  ``--write`` replaces what lies between
the markers ``<!-- benchmark-table: start -->`` and ``<!-- benchmark-table: end -->``; the prose
around them (what the misses come from) is written by hand.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"          # the page whose table this writes, between START and END
START, END = "<!-- benchmark-table: start -->", "<!-- benchmark-table: end -->"
README = ROOT / "README.md"                     # gets issue 28's table alone, between its own markers
README_START, README_END = "<!-- speed-table: start -->", "<!-- speed-table: end -->"
COLUMNS = ("minims PyNative", "minims Graph", "minims + Numba", "minims + Numba, Graph", "NumPy by hand",
           "PyTorch eager")
HEADS = ("minims PyNative", "minims Graph", "+ Numba", "+ Numba, Graph", "NumPy by hand", "PyTorch eager")
UNITS = {"us/op": "µs/op", "us/call": "µs", "ms/step": "ms", "ms/call": "ms"}
# issue 28's rows: (variant, title, the PyNative column to compare with PyTorch eager)
ISSUE_ROWS = (("W1.grad", "W1 fwd+grad", "minims PyNative"), ("W2", "W2 LeNet step", "minims + Numba"),
              ("W3", "W3 MLP step", "minims PyNative"), ("W4", "W4 third derivative", "minims PyNative"),
              ("W5", "W5 matmul grad (custom bprop)", "minims PyNative"))
JIT_COLUMNS = ("minims + Numba, Graph", "minims Graph")     # minims `jit`: with Numba where it runs
FIRST_CALL = "W2: first Graph-mode step"


def _num(v: float) -> str:
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}" if v >= 1 else f"{v:.3f}"


def _cell(result: dict | None, spread: bool) -> str:
    if result is None:
        return "n/a"
    text = _num(result["median"])
    return f"{text} ({_num(result['min'])}–{_num(result['max'])})" if spread else text


SHORT = {"W1.forward": "W1 of record (Tensor constants) forward", "W1.grad": "W1 of record forward + gradient",
         "W1.scalar-forward": "W1 scalar variant forward", "W1.scalar-grad": "W1 scalar variant forward + gradient",
         "W2": "W2 LeNet-5 step", "W3": "W3 MLP step", "W4": "W4 third derivative", "W5": "W5 custom bprop"}


def _row_title(key: str, variant: dict) -> str:
    return f"{SHORT.get(key, variant['title'])}, {UNITS.get(variant['unit'], variant['unit'])}"


def _ratio(a: dict | None, b: dict | None) -> str:
    return "n/a" if a is None or b is None else f"{a['median'] / b['median']:.2f}×"


def issue_table(report: dict) -> list:
    """Issue 28's table: PyNative vs PyTorch eager, minims ``jit`` vs JAX ``jit``, ``torch.compile``."""
    lines = ["| workload | minims PyNative | PyTorch eager | ratio | minims `jit` | JAX `jit` | ratio | "
             "`torch.compile` |", "| --- |" + " --- |" * 7]
    for key, title, pyn in ISSUE_ROWS:
        variant = report["workloads"].get(key)
        if variant is None:
            continue
        res = variant["results"]
        pyn = pyn if pyn in res else "minims PyNative"
        jit_col = next((c for c in JIT_COLUMNS if c in res), None)
        pyn_res, jit_res = res.get(pyn), res.get(jit_col) if jit_col else None
        how = [f"PyNative: {pyn}" if pyn != "minims PyNative" else "", f"jit: {jit_col}" if jit_col else ""]
        title = f"{title} ({', '.join(h for h in how if h)})" if any(how) else title
        torch_res, jax_res = res.get("PyTorch eager"), res.get("JAX jit")
        lines.append(f"| {title}, {UNITS.get(variant['unit'], variant['unit'])} | {_cell(pyn_res, False)} | "
                     f"{_cell(torch_res, False)} | {_ratio(pyn_res, torch_res)} | {_cell(jit_res, False)} | "
                     f"{_cell(jax_res, False)} | {_ratio(jit_res, jax_res)} | {_cell(res.get('torch.compile'), False)} |")
    first = next((t for t in report["targets"] if t["target"].startswith(FIRST_CALL)), None)
    if first is not None:
        value = "n/a" if first["ratio"] is None else f"{first['ratio']:.2f} s"
        lines.append(f"| first call of a jitted W2 step (fresh process, warm Numba cache) | | | | {value} | | | |")
    return lines


def readme_section(report: dict) -> str:
    """The README's copy: issue 28's table, with the run it comes from (the rest is in docs/benchmarks.md)."""
    machine = report["machine"]
    commit = ((machine.get("git") or {}).get("commit") or "unknown")[:7]
    return "\n".join([f"One run on one thread per library (commit `{commit}`, {machine['cpu']}); every column, the "
                      "targets and what the misses come from: [docs/benchmarks.md](docs/benchmarks.md).", "",
                      *issue_table(report)]) + "\n"


def render(report: dict) -> str:
    machine, threads = report["machine"], report["threads"]
    workloads = report["workloads"]
    noise = [w["other_processes"].get("other_cores") or 0.0 for w in workloads.values() if w.get("other_processes")]
    steal = [w["other_processes"].get("steal_cores") or 0.0 for w in workloads.values() if w.get("other_processes")]
    commit = (machine.get("git") or {}).get("commit") or "unknown"
    options, skip = [], False
    for a in report["command"][1:]:     # no paths of the machine: the script, and --json's file
        if skip or a.endswith("run.py") or a.startswith("--json"):
            skip = a == "--json"
            continue
        options.append(a)
    n_threads = threads.get("requested")
    lines = [
        f"One run of `{' '.join(['python -m benchmarks.run', *options])}` "
        f"(commit `{commit[:7]}`{', with local changes' if (machine.get('git') or {}).get('modified_files') else ''}; "
        f"{machine['cpu']}, {machine['cpu_count']} cores; Python {machine['python']}, NumPy {machine['numpy']}, "
        f"PyTorch {machine['torch'] or 'absent'}, JAX {machine.get('jax') or 'absent'}, Numba {machine['numba'] or 'absent'}; "
        f"{'default threads' if not n_threads else f'every library on {n_threads} thread' + ('s' if n_threads > 1 else '')}; "
        f"medians of {report['settings']['rounds']} interleaved samples, min–max in brackets for the "
        f"compared columns; other processes kept at most {max(noise, default=0):.2f} cores busy during a "
        f"table, hypervisor steal at most {max(steal, default=0):.2f}):",
        "",
        "Kernels and threads of every figure: "
        + "; ".join(sorted({w.get("kernels") or "not recorded" for w in workloads.values()})) + ".",
        "",
        *issue_table(report),
        "",
        "Every column of the same run:",
        "",
        "| workload | " + " | ".join(HEADS) + " |",
        "| --- |" + " --- |" * len(HEADS),
    ]
    for key, variant in workloads.items():
        res = variant["results"]
        cells = []
        for col in COLUMNS:
            cell = _cell(res.get(col), spread=col in ("minims PyNative", "PyTorch eager", "minims + Numba, Graph"))
            # a variant of the column (W5's "minims Graph, no bprop") goes into the same cell
            related = [f"{name[len(col) + 2:]}: {_num(r['median'])}" for name, r in res.items()
                       if name not in COLUMNS and name.startswith(col + ", ")]
            cells.append(cell + (f"; {'; '.join(related)}" if related else ""))
        lines.append(f"| {_row_title(key, variant)} | " + " | ".join(cells) + " |")
    lines += ["", "| target | measured | limit | |", "| --- | --- | --- | --- |"]
    for t in report["targets"]:
        unit = " s" if t.get("unit") == "s" else ""
        value = "n/a" if t["ratio"] is None else f"{t['ratio']:.2f}{unit}"
        lines.append(f"| {t['target']} | {value} | {t['limit']:g}{unit} | {t['status']} |")
    return "\n".join(lines) + "\n"


def write_readme(text: str, readme: pathlib.Path, start: str = START, end: str = END) -> None:
    content = readme.read_text()
    if start not in content or end not in content:
        raise SystemExit(f"{readme}: the markers {start} and {end} are missing; add them where the table goes")
    head, rest = content.split(start, 1)
    _, tail = rest.split(end, 1)
    readme.write_text(f"{head}{start}\n{text}{end}{tail}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="benchmarks/readme_table.py", description=__doc__.splitlines()[0])
    p.add_argument("json", help="a results file written by benchmarks/run.py")
    p.add_argument("--write", action="store_true", help="replace the table in docs/benchmarks.md")
    args = p.parse_args(argv)
    report = json.loads(pathlib.Path(args.json).read_text())
    if report.get("quick"):
        print("note: this is a --quick run; its figures mean little", file=sys.stderr)
    text = render(report)
    if args.write:
        write_readme(text, DOC)
        write_readme(readme_section(report), README, README_START, README_END)
        print(f"wrote the benchmark table into {DOC.relative_to(ROOT)} and {README.relative_to(ROOT)}")
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
