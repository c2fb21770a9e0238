"""Record what MindSpore 2.10 returns for the beginner-path cases of ``tests/beginner_cases.py`` (issue 25, item 2).

Run with the oracle's interpreter, from the repository root:

    GLOG_v=3 /path/to/oracle-venv/bin/python tests/data/oracle_beginner_facts.py

It writes ``tests/data/oracle_beginner_facts.json``: for each case the result (dtype, shape, values; or a
tuple/list of those; or a Python value) or the exception type and the first line of its message, and
for each gradient case the gradients ``mindspore.grad`` returns with respect to every input, and the
cases of ``RANDOM`` (dtype and shape matter there).

MindSpore's CPU backend can carry an error over into the next operator call of the same process (a
failed ``Log`` kernel makes the following ``Sqrt`` report the ``Log`` failure), so the cases run in a
worker process that stops at the first exception; the driver starts a new worker at the next case.
"""
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "oracle_beginner_facts.json"


def describe(value):
    """A JSON-able record of a result (the same shape the beginner-path tests build)."""
    import mindspore as ms
    if isinstance(value, ms.Tensor):
        arr = value.asnumpy()
        return {"dtype": str(value.dtype), "shape": list(arr.shape), "values": arr.tolist()}
    if isinstance(value, (tuple, list)):
        return {"seq": type(value).__name__, "items": [describe(v) for v in value]}
    if isinstance(value, (bool, int, float, str)):
        return {"python": type(value).__name__, "value": value}
    return {"printed": str(value)}              # a dtype (promote_types): as it prints, 'Float32'


def evaluate(kind, name):
    """The outcome of one case: ``{"result": ...}`` or ``{"error": type, "message": first line}``."""
    import mindspore as ms
    from mindspore import nn, ops
    import beginner_cases
    env = beginner_cases.namespace(ms, ops, nn)
    try:
        if kind in ("case", "random"):
            table = beginner_cases.CASES if kind == "case" else beginner_cases.RANDOM
            return {"result": describe(eval(table[name], env))}
        fn_text, args_text = beginner_cases.GRADS[name]
        fn, args = eval(fn_text, env), eval(args_text, env)
        grads = ms.grad(fn, grad_position=tuple(range(len(args))))(*args)
        return {"result": describe(grads if isinstance(grads, tuple) else (grads,))}
    except Exception as exc:                    # recorded, whatever it is
        return {"error": type(exc).__name__, "message": str(exc).strip().split("\n")[0]}


def _jobs(cases):
    return ([("case", n) for n in cases.CASES] + [("random", n) for n in cases.RANDOM]
            + [("grad", n) for n in cases.GRADS])


def work(start):
    """Worker: evaluate cases from ``start`` on, one JSON line each; stop after the first error."""
    import beginner_cases
    jobs = _jobs(beginner_cases)
    for kind, name in jobs[start:]:
        outcome = evaluate(kind, name)
        print(json.dumps({"kind": kind, "name": name, **outcome}), flush=True)
        if "error" in outcome:
            return


def drive():
    sys.path.insert(0, str(HERE.parent))
    import beginner_cases
    total = len(_jobs(beginner_cases))
    records = []
    while len(records) < total:
        out = subprocess.run([sys.executable, __file__, "--from", str(len(records))],
                             capture_output=True, text=True, check=True).stdout
        lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        if not lines:
            raise RuntimeError(f"the worker recorded nothing from case {len(records)}")
        records.extend(lines)
    facts = {table: {r["name"]: {k: v for k, v in r.items() if k not in ("kind", "name")}
                     for r in records if r["kind"] == kind}
             for table, kind in (("cases", "case"), ("random", "random"), ("grads", "grad"))}
    import mindspore
    facts["mindspore_version"] = mindspore.__version__
    OUT.write_text(json.dumps(facts, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(facts['cases'])} cases, {len(facts['random'])} draws, "
          f"{len(facts['grads'])} gradients)")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--from":
        sys.path.insert(0, str(HERE.parent))
        work(int(sys.argv[2]))
    else:
        drive()
