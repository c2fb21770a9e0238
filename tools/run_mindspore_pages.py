"""How much of MindSpore's documentation runs on minims as written: run its tutorial pages, compare (issue 25).

Usage:
    python tools/run_mindspore_pages.py [--pages a,b] [--json OUT] [--write-baseline] [--jobs N]
    python tools/run_mindspore_pages.py --record-oracle [--pages a,b]     (needs /tmp/oracle/bin/python)
    ... --probe: a diagnostic run with MindSpore's module layout faked over minims
              (tools/mindspore_probe.py): what fails once the imports resolve; never recorded

Each page of tools/mindspore_pages/*.json (MindSpore's code blocks, extracted by
tools/extract_mindspore_sources.py) runs in a fresh subprocess, all its blocks in one namespace, in a
scratch folder (tools/mindspore_page_driver.py). On minims, ``import mindspore`` imports minims
(tools/mindspore_alias.py); nothing else in the blocks changes except the recorded substitutions of
tools/mindspore_substitutions.py (downloads), applied on both sides.

``--record-oracle`` runs every page twice on real MindSpore and stores both in
tools/mindspore_pages/oracle_results.json, so later runs (and CI) compare without MindSpore:
* a block *runs on MindSpore* when it raised in neither run;
* what it printed is compared line by line after ``normalise`` (trailing blanks, object addresses,
  the scratch folder's path, and the package name in a printed class, ``<class 'minims.common.tensor.Tensor'>``
  read as ``<class 'mindspore.common.tensor.Tensor'>``: the one name the user changed, the import's;
  the module path after it must be MindSpore's). A block whose two MindSpore runs differ only in numbers and spacing
  (random numbers, timings) is compared by ``skeleton`` (numbers replaced by ``#``, spacing removed):
  same text, same count of numbers; one whose runs differ in more needs only to run without an
  exception.

The default run executes the pages on minims, compares, prints a markdown summary (per page: blocks,
run on MindSpore, same on minims; the missing names, ranked by the blocks each one stops, cascades
included; each failing block with its first differing line or its exception) and with
``--write-baseline`` stores the per-block verdicts in tools/mindspore_pages/minims_baseline.json,
which tests/mindspore/test_mindspore_pages.py holds minims to (a block recorded as "same" must stay "same").
"""
import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / "tools"
PAGES_DIR = TOOLS / "mindspore_pages"
ORACLE_FILE = PAGES_DIR / "oracle_results.json"
BASELINE_FILE = PAGES_DIR / "minims_baseline.json"
ORACLE_PYTHON = "/tmp/oracle/bin/python"
BLOCK_TIMEOUT = 120             # seconds; a tutorial block that trains runs ~10 s on minims

sys.path.insert(0, str(TOOLS))
from mindspore_alias import mindspore_name  # noqa: E402 - after the path


# ---------------------------------------------------------------- running

def page_names():
    return sorted(p.stem for p in PAGES_DIR.glob("*.json") if p.stem not in (ORACLE_FILE.stem, BASELINE_FILE.stem))


def load_page(name):
    return json.loads((PAGES_DIR / f"{name}.json").read_text())


def run_page(name, backend, timeout=BLOCK_TIMEOUT, upto=None):
    """Per-block results of one page on ``backend`` ("mindspore", "minims" or "probe"), in a subprocess.

    ``upto``: run only the first ``upto`` blocks (the ratchet test stops after the last one it checks).

    Blocks the process never reached (it crashed or was killed) get an error of type ``Crash``.
    """
    python = ORACLE_PYTHON if backend == "mindspore" else sys.executable
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", GLOG_v="3",
               PYTHONPATH=os.pathsep.join([str(ROOT), str(TOOLS)]), PYTHONHASHSEED="0")
    if backend == "mindspore":
        env["PYTHONPATH"] = str(TOOLS)     # the oracle must not see minims
    page = load_page(name)
    blocks = page["blocks"][:upto]
    with tempfile.TemporaryDirectory(prefix=f"mspage-{name}-") as scratch:
        out = Path(scratch) / "results.jsonl"
        work = Path(scratch) / "work"
        work.mkdir()
        budget = timeout * len(blocks) + 60
        try:
            command = [python, str(TOOLS / "mindspore_page_driver.py"), str(PAGES_DIR / f"{name}.json"),
                       str(out), backend, str(timeout), str(len(blocks))]
            proc = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=budget)
            tail = proc.stderr[-1500:] if proc.returncode else ""
        except subprocess.TimeoutExpired:
            tail = f"page stopped after {budget} s"
        results = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
        for result in results:
            result["stdout"] = result["stdout"].replace(str(work), "<cwd>").replace(scratch, "<scratch>")
            for key in ("message", "where"):
                if result["error"] and result["error"][key]:
                    result["error"][key] = result["error"][key].replace(scratch, "<scratch>")
    for block in blocks[len(results):]:
        results.append({"block": block["block"], "changed": [], "stdout": "", "seconds": None,
                        "error": {"type": "Crash", "message": tail.strip().splitlines()[-1] if tail.strip() else
                                  "the page's process ended early", "block_line": None, "where": None}})
    return results


def run_pages(names, backend, jobs=1):
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return dict(zip(names, pool.map(lambda n: run_page(n, backend), names)))


# ---------------------------------------------------------------- comparing

ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf")


PRINTED_CLASS = re.compile(r"<class 'minims\.")


def normalise(text):
    lines = [PRINTED_CLASS.sub("<class 'mindspore.", ADDRESS.sub("0x?", line.rstrip()))
             for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def skeleton(text):
    """``text`` with every number replaced by ``#`` and all whitespace removed.

    Whitespace goes too because NumPy pads and wraps printed arrays by the width of their numbers.
    """
    return re.sub(r"\s+", "", NUMBER.sub("#", text))


def oracle_block(first, second):
    """The record of one block from two MindSpore runs: does it run, what it prints, what varies.

    ``unstable``: "" (both runs print the same), "numbers" (they differ only in numbers and spacing),
    or "all" (they differ in more: only "runs without an exception" can be checked).
    """
    runs = first["error"] is None and second["error"] is None
    a, b = normalise(first["stdout"]), normalise(second["stdout"])
    record = {"block": first["block"], "runs": runs, "stdout": first["stdout"], "error": first["error"],
              "changed": first["changed"], "seconds": first["seconds"]}
    if (first["error"] is None) != (second["error"] is None):
        record["flaky"] = True
    if a != b:
        record["stdout_second_run"] = second["stdout"]     # kept so ``unstable`` can be re-derived
    record["unstable"] = ("" if a == b else "numbers" if skeleton("\n".join(a)) == skeleton("\n".join(b))
                          else "all")
    return record


def first_difference(oracle, got):
    """None when ``got`` (stdout on minims) prints what MindSpore prints, else (line number, expected, got).

    Compared exactly after ``normalise``; by ``skeleton`` where the MindSpore runs varied in numbers.
    """
    want, have = normalise(oracle["stdout"]), normalise(got)
    if oracle["unstable"] == "all":
        return None
    same = (lambda w, h: skeleton(w) == skeleton(h)) if oracle["unstable"] else (lambda w, h: w == h)
    if oracle["unstable"] and same("\n".join(want), "\n".join(have)):
        return None
    for i in range(max(len(want), len(have))):
        w = want[i] if i < len(want) else "<no more lines>"
        h = have[i] if i < len(have) else "<no more lines>"
        if not same(w, h):
            return i + 1, w, h
    return None


def missing_name(error):
    """The MindSpore name an AttributeError/ImportError says minims lacks, or None.

    An attribute missing on a Tensor, or on one of the stand-ins minims' Graph mode passes in its
    place, is reported as ``Tensor.<name>``.
    """
    kind, msg = error["type"], error["message"]
    if kind == "AttributeError" and error.get("name"):
        owner, module = error.get("owner"), error.get("owner_module") or ""
        if error.get("owner_kind") == "module" and module.split(".")[0] in ("minims", "mindspore"):
            return f"{mindspore_name(module + '.')}{error['name']}"
        if module.startswith("minims"):
            owner = "Tensor" if "Tensor" in error.get("owner_bases", ()) else owner
            return f"{owner}.{error['name']}"
    if kind == "ModuleNotFoundError":
        m = re.search(r"No module named '([\w.]+)'", msg)
        if m and m.group(1).split(".")[0] in ("mindspore", "minims"):
            return mindspore_name(m.group(1))
    if kind == "ImportError":
        m = re.search(r"cannot import name '(\w+)' from '([\w.]+)'", msg)
        if m and m.group(2).split(".")[0] in ("mindspore", "minims"):
            return f"{mindspore_name(m.group(2) + '.')}{m.group(1)}"
    return None


def _parse(code):
    try:
        return ast.parse(code)
    except SyntaxError:
        return None


def defined_names(code, from_line=1):
    """Names a block binds at top level (assignments, defs, classes, imports) in statements ending at
    or after ``from_line``: for a block that failed on that line, the bindings it never made."""
    tree = _parse(code)
    names = set()
    for node in tree.body if tree else ():
        if node.end_lineno < from_line:
            continue
        targets = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        elif isinstance(node, (ast.For, ast.With)):
            targets = [node.target] if isinstance(node, ast.For) else [i.optional_vars for i in node.items]
        for target in targets:
            for sub in ast.walk(target) if target is not None else ():
                if isinstance(sub, ast.Name):
                    names.add(sub.id)
    return names


def used_names(code, line=None, attribute=None):
    """Names a block reads (on ``line`` only, when given; only as ``name.attribute``, when that is found)."""
    tree = _parse(code)
    nodes = [n for n in ast.walk(tree) if line is None or getattr(n, "lineno", None) == line] if tree else []
    owners = {n.value.id for n in nodes if isinstance(n, ast.Attribute) and n.attr == attribute
              and isinstance(n.value, ast.Name)}
    return owners or {n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def failed_binder(names, code, verdicts):
    """The earlier block that failed before binding one of ``names`` this block reads, or None.

    The last earlier block that binds a name is the one whose binding a block reads; when that block
    failed on or before the binding statement, the name is missing or stale: a cascade.
    """
    for name in sorted(names):
        binder = next((v for v in reversed(verdicts) if name in defined_names(code[v["block"]])), None)
        if binder is not None and binder["verdict"] in ("error", "cascade") and \
                name in defined_names(code[binder["block"]], binder.get("failed_line") or 1):
            return binder
    return None


def compare_page(name, oracle_blocks, minims_results):
    """Per-block verdicts of one page: same / differs / error / cascade, with the evidence.

    ``cascade``: the block failed on a name whose last binding was in a block that failed on minims
    (NameError; or another error on a line that reads such a name); ``cause`` is the first failure of
    the chain. A ``differs`` block that reads such names carries ``after_failure``.
    """
    page = load_page(name)
    code = {b["block"]: b["code"] for b in page["blocks"]}
    verdicts = []
    for want, got in zip(oracle_blocks, minims_results):
        block = want["block"]
        v = {"block": block, "runs_on_mindspore": want["runs"]}
        err = got["error"]
        if err is not None:
            v["verdict"] = "error"
            v["error"] = f"{err['type']}: {err['message'].splitlines()[0][:300] if err['message'] else ''}"
            v["missing"] = missing_name(err)
            v["failed_line"] = err.get("block_line")
            # a name missing from a minims module is missing whatever ran before: never a cascade
            direct = (v["missing"] or "").startswith("mindspore")
            suspects = ({err["name"]} if err["type"] == "NameError" and err.get("name")
                        else set() if direct or not err.get("block_line")
                        else used_names(code[block], err["block_line"], err.get("name")))
            cause = failed_binder(suspects, code, verdicts)
            if cause is not None:
                v["verdict"] = "cascade"
                v["cause"] = cause.get("cause", cause["block"])
        elif not want["runs"]:
            v["verdict"] = "runs only on minims"
        else:
            diff = first_difference(want, got["stdout"])
            v["verdict"] = "same" if diff is None else "differs"
            if diff:
                v["line"], v["expected"], v["got"] = diff
                cause = failed_binder(used_names(code[block]), code, verdicts)
                if cause is not None:
                    v["after_failure"] = cause.get("cause", cause["block"])
        if not want["runs"]:
            oerr = want["error"]
            v["mindspore_error"] = f"{oerr['type']}: {oerr['message'].splitlines()[0][:200] if oerr['message'] else ''}"
            v["raises_like_mindspore"] = err is not None and err["type"] == oerr["type"]
        verdicts.append(v)
    return verdicts


def summarise(comparison):
    """Totals, per-page counts and the missing names ranked by the blocks each stops (cascades included)."""
    pages, names = {}, defaultdict(lambda: {"direct": [], "cascade": []})
    for name, verdicts in comparison.items():
        runs = [v for v in verdicts if v["runs_on_mindspore"]]
        pages[name] = {"blocks": len(verdicts), "run_on_mindspore": len(runs),
                       "same_on_minims": sum(v["verdict"] == "same" for v in runs)}
        by_block = {v["block"]: v for v in verdicts}
        for v in runs:
            if v["verdict"] == "error" and v.get("missing"):
                names[v["missing"]]["direct"].append(f"{name}:{v['block']}")
            elif v["verdict"] == "cascade" and by_block[v["cause"]].get("missing"):
                names[by_block[v["cause"]]["missing"]]["cascade"].append(f"{name}:{v['block']}")
    total_runs = sum(p["run_on_mindspore"] for p in pages.values())
    total_same = sum(p["same_on_minims"] for p in pages.values())
    ranked = sorted(names.items(), key=lambda kv: (-len(kv[1]["direct"]) - len(kv[1]["cascade"]), kv[0]))
    return {"blocks": sum(p["blocks"] for p in pages.values()), "run_on_mindspore": total_runs,
            "same_on_minims": total_same, "pages": pages,
            "missing_names": [{"name": n, "blocks": len(d["direct"]) + len(d["cascade"]), **d} for n, d in ranked]}


def markdown(comparison, summary):
    pct = lambda a, b: f"{100 * a / b:.0f}%" if b else "-"  # noqa: E731
    out = ["| page | blocks | run on MindSpore 2.10 | same on minims | |", "|---|---:|---:|---:|---:|"]
    for name, p in summary["pages"].items():
        out.append(f"| {name} | {p['blocks']} | {p['run_on_mindspore']} | {p['same_on_minims']} | "
                   f"{pct(p['same_on_minims'], p['run_on_mindspore'])} |")
    out.append(f"| **total** | {summary['blocks']} | {summary['run_on_mindspore']} | {summary['same_on_minims']} | "
               f"**{pct(summary['same_on_minims'], summary['run_on_mindspore'])}** |")
    out += ["", "Missing names (blocks stopped directly + by cascade):", "",
            "| name | blocks | direct | cascade |", "|---|---:|---|---|"]
    for m in summary["missing_names"]:
        out.append(f"| `{m['name']}` | {m['blocks']} | {', '.join(m['direct'])} | {', '.join(m['cascade'])} |")
    out += ["", "Blocks that run on MindSpore but not the same on minims:", ""]
    for name, verdicts in comparison.items():
        for v in verdicts:
            if not v["runs_on_mindspore"] or v["verdict"] == "same":
                continue
            if v["verdict"] == "differs":
                what = f"line {v['line']}: expected `{v['expected'][:120]}` got `{v['got'][:120]}`"
                if "after_failure" in v:
                    what += f" (reads names of failed block {v['after_failure']})"
            elif v["verdict"] == "cascade":
                what = f"cascade from block {v['cause']} ({v['error'][:100]})"
            else:
                what = v["error"][:200]
            out.append(f"- {name}:{v['block']} [{v['verdict']}] {what}")
    return "\n".join(out)


def compare_all(oracle, results):
    return {name: compare_page(name, oracle["pages"][name]["blocks"], results[name]) for name in results}


def split_by_budget(cost, budget):
    """(fast, slow): the cheapest names whose costs add up to at most ``budget``, and the rest.

    How tests/mindspore/test_mindspore_pages.py and tests/mindspore/test_mindspore_suite.py pick their default tier.
    """
    fast, spent = [], 0.0
    for name in sorted(cost, key=lambda n: (cost[n], n)):
        if spent + cost[name] > budget:
            break
        fast.append(name)
        spent += cost[name]
    return sorted(fast), sorted(set(cost) - set(fast))


# ---------------------------------------------------------------- recording

def record_oracle(names, jobs):
    first, second = run_pages(names, "mindspore", jobs), run_pages(names, "mindspore", jobs)
    version = subprocess.run([ORACLE_PYTHON, "-c", "import mindspore, sys; print(mindspore.__version__, "
                              "sys.version.split()[0])"], capture_output=True, text=True).stdout.split()
    old = json.loads(ORACLE_FILE.read_text()) if ORACLE_FILE.exists() else {"pages": {}}
    for name in names:
        old["pages"][name] = {"source": load_page(name)["source"],
                              "blocks": [oracle_block(a, b) for a, b in zip(first[name], second[name])]}
    old.update({"mindspore": version[0], "python": version[1],
                "how": "tools/run_mindspore_pages.py --record-oracle: two runs; see its docstring"})
    old["pages"] = dict(sorted(old["pages"].items()))
    ORACLE_FILE.write_text(json.dumps(old, indent=1, ensure_ascii=False) + "\n")


def write_baseline(comparison, results, allow_regression=False):
    """Store today's per-block verdicts on minims: what tests/mindspore/test_mindspore_pages.py holds minims to.

    A ratchet: a block recorded as "same" that is no longer "same" stops the update (SystemExit)
    unless ``allow_regression``. Per page, ``seconds`` is how long its blocks up to the last "same"
    one took, so the test can leave slow pages to its slow tier.
    """
    old = json.loads(BASELINE_FILE.read_text())["pages"] if BASELINE_FILE.exists() else {}
    lost = [f"{name}:{block}" for name, verdicts in comparison.items() for v in verdicts
            for block in [str(v["block"])]
            if old.get(name, {}).get("verdicts", {}).get(block) == "same" and v["verdict"] != "same"]
    if lost and not allow_regression:
        sys.exit(f"not writing the baseline: blocks recorded as 'same' no longer are: {', '.join(lost)}")
    for name, verdicts in comparison.items():
        same = [v["block"] for v in verdicts if v["verdict"] == "same"]
        upto = max(same) + 1 if same else 0
        old[name] = {"verdicts": {str(v["block"]): v["verdict"] for v in verdicts},
                     "seconds": round(sum(r["seconds"] or 0 for r in results[name][:upto]), 1)}
    oracle = json.loads(ORACLE_FILE.read_text())["pages"]
    totals = {"blocks": sum(len(p["blocks"]) for p in oracle.values()),
              "run_on_mindspore": sum(b["runs"] for p in oracle.values() for b in p["blocks"]),
              "same_on_minims": sum(v == "same" for p in old.values() for v in p["verdicts"].values())}
    record = {"how": "tools/run_mindspore_pages.py --write-baseline", "summary": totals,
              "pages": dict(sorted(old.items()))}
    BASELINE_FILE.write_text(json.dumps(record, indent=1) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", help="comma-separated page names (default: all)")
    parser.add_argument("--record-oracle", action="store_true", help="run MindSpore twice and store the results")
    parser.add_argument("--write-baseline", action="store_true", help="store today's verdicts on minims")
    parser.add_argument("--allow-regression", action="store_true",
                        help="with --write-baseline: accept blocks that were 'same' and are no longer")
    parser.add_argument("--probe", action="store_true",
                        help="diagnostic: minims behind MindSpore's module layout (tools/mindspore_probe.py); "
                             "never with --write-baseline")
    parser.add_argument("--json", help="write the per-block results and verdicts here")
    parser.add_argument("--jobs", type=int, default=1, help="pages run at the same time")
    args = parser.parse_args(argv)
    names = args.pages.split(",") if args.pages else page_names()
    if args.record_oracle:
        record_oracle(names, args.jobs)
        return
    if args.probe and args.write_baseline:
        parser.error("--probe results are a diagnostic: they are never recorded")
    oracle = json.loads(ORACLE_FILE.read_text())
    results = run_pages(names, "probe" if args.probe else "minims", args.jobs)
    comparison = compare_all(oracle, results)
    summary = summarise(comparison)
    print(markdown(comparison, summary))
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": summary, "comparison": comparison, "results": results},
                                              indent=1) + "\n")
    if args.write_baseline:
        write_baseline(comparison, results, args.allow_regression)


if __name__ == "__main__":
    main()
