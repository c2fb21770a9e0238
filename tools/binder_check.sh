#!/usr/bin/env bash
# Binder check without Docker: does an environment built from exactly the binder/ files run every chapter?
#
#   1. repo2docker dry run (`repo2docker --no-build --no-run .`, no Docker needed): the generated Dockerfile
#      must build Python from binder/runtime.txt and pip-install binder/requirements.txt from the repo root
#      after the repo is copied (catches an environment.yml that would silently win, a .binder/ clash, ...).
#   2. A fresh venv standing in for repo2docker's base environment (its Python 3.11 lock: JupyterLab,
#      notebook, ipykernel, ... at the versions below), then, as repo2docker does, from the repo root:
#      `pip install -r binder/requirements.txt`, then binder/postBuild if present. Checks: `pip check`,
#      every package pinned in constraints.txt that got installed has its pinned version, numba is absent
#      (Binder runs the pure-NumPy path), and `import minims` in a kernel loads this checkout.
#   3. Executes every chapters/*.ipynb in that venv (in memory, in a temp copy of chapters/: a chapter that
#      writes a file in its folder, as 08 does, never touches chapters/, where CI's nbval runs at the same
#      time) and requires each to finish (cells tagged `raises-exception` may raise) with a last code cell
#      printing `CHAPTER OK`.
# Exits non-zero if anything fails; all chapters are run and the failures listed.
#
# Usage: tools/binder_check.sh [--venv DIR]
#   default: a new venv in a temp dir, deleted afterwards (~1 min of pip installs on a 2-core machine;
#   pip uses its usual configuration and cache).
#   --venv DIR: keep the venv in DIR and reuse it on later runs while binder/*, constraints.txt,
#   pyproject.toml and this script are unchanged (a content hash is stored in DIR); otherwise it is rebuilt
#   from scratch (DIR must be empty, missing or such a venv). minims is installed editable, so changes
#   to its code never need a rebuild.
# Differences from a real mybinder build: this machine's CPython (not conda-forge's), root instead of
# jovyan, Debian instead of Ubuntu (binder/apt.txt would not be exercised; there is none).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

# repo2docker 2026.4.0, conda/environment.py-3.11-linux-64.lock (the base env binder/requirements.txt lands in)
BASE_ENV=(pip==25.2 jupyterlab==4.4.9 notebook==7.4.7 jupyter_server==2.17.0 ipykernel==7.0.1
          ipywidgets==8.1.7 nbclient==0.10.2)
REPO2DOCKER=jupyter-repo2docker==2026.4.0
MARKER="CHAPTER OK"

VENV="" KEEP=0
while [ $# -gt 0 ]; do
    case "$1" in
        --venv) VENV=$(realpath -m "$2"); KEEP=1; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "binder_check.sh: unknown argument $1 (usage: tools/binder_check.sh [--venv DIR])" >&2; exit 2 ;;
    esac
done

# Nothing from the caller's environment may leak into the build or the kernels.
unset PYTHONPATH PYTHONHOME PIP_CONSTRAINT PIP_REQUIREMENT VIRTUAL_ENV
export PIP_DISABLE_PIP_VERSION_CHECK=1 OPENBLAS_NUM_THREADS="${OPENBLAS_NUM_THREADS:-1}"
WORK=$(mktemp -d -t binder-check.XXXXXX)
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT
[ -n "$VENV" ] || VENV=$WORK/binder-venv
t0=$SECONDS
step() { echo "== binder-check: $* [$((SECONDS - t0)) s]"; }
fail() { echo "binder-check: FAIL: $*" >&2; exit 1; }

shopt -s nullglob
chapters=(chapters/*.ipynb)
[ -f binder/requirements.txt ] || fail "binder/requirements.txt is missing"
for f in binder/Dockerfile binder/environment.yml binder/Pipfile binder/Pipfile.lock binder/Project.toml \
         binder/install.R binder/DESCRIPTION; do
    [ ! -e "$f" ] || fail "$f exists: repo2docker would use it instead of (or besides) binder/requirements.txt"
done
[ ! -e .binder ] || fail ".binder/ exists next to binder/ (repo2docker refuses both)"
want=$(sed -n 's/^python-\([0-9][0-9.]*\).*/\1/p' binder/runtime.txt 2>/dev/null || true)
[ -n "$want" ] || fail "binder/runtime.txt must say python-3.X (without it repo2docker uses Python 3.10)"

# ---- 1. repo2docker dry run -------------------------------------------------------------------------
step "repo2docker dry run ($REPO2DOCKER)"
python3 -m venv "$WORK/r2d"
"$WORK/r2d/bin/pip" install -q "$REPO2DOCKER" 2>&1 | { grep -v "^WARNING: Location" || true; }
"$WORK/r2d/bin/repo2docker" --no-build --no-run . > "$WORK/Dockerfile" 2> "$WORK/r2d.log" \
    || { cat "$WORK/r2d.log" >&2; fail "repo2docker --no-build --no-run . failed"; }
grep -q "Building conda environment for python=$want" "$WORK/r2d.log" \
    || { cat "$WORK/r2d.log" >&2; fail "repo2docker does not build Python $want"; }
copy_line=$(grep -n 'COPY --chown=0:0 src/ ${REPO_DIR}/' "$WORK/Dockerfile" | head -1 | cut -d: -f1)
pip_line=$(grep -n 'pip install --no-cache-dir -r "binder/requirements.txt"' "$WORK/Dockerfile" | head -1 | cut -d: -f1)
[ -n "$pip_line" ] || fail "the Dockerfile does not pip-install binder/requirements.txt"
[ -n "$copy_line" ] && [ "$copy_line" -lt "$pip_line" ] \
    || fail "binder/requirements.txt is installed before the repo is copied (no local '-e .' line?)"
if [ -f binder/postBuild ]; then
    grep -q 'RUN ./binder/postBuild' "$WORK/Dockerfile" || fail "binder/postBuild is not run"
fi
echo "repo2docker: Python $want, then the repo copied, then: pip install --no-cache-dir -r binder/requirements.txt"

# ---- 2. the environment -------------------------------------------------------------------------------
stamp=$({ cat binder/* constraints.txt pyproject.toml "$0"; echo "${BASE_ENV[*]}"; python3 -VV; } 2>/dev/null \
        | sha256sum | cut -c1-16)
if [ "$KEEP" = 1 ] && [ -x "$VENV/bin/python" ] && [ "$(cat "$VENV/.binder-stamp" 2>/dev/null)" = "$stamp" ]; then
    step "reusing $VENV (binder/, constraints.txt, pyproject.toml unchanged)"
else
    step "fresh venv $VENV: repo2docker's base env (${BASE_ENV[*]})"
    if [ -e "$VENV" ] && [ -n "$(ls -A "$VENV")" ] && [ ! -f "$VENV/pyvenv.cfg" ]; then
        fail "--venv $VENV is neither empty nor a venv: refusing to replace it"
    fi
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q "${BASE_ENV[@]}" 2>&1 | { grep -v "^WARNING: Location" || true; }
    step "pip install -r binder/requirements.txt (from the repo root, as repo2docker does)"
    "$VENV/bin/pip" install -q -r binder/requirements.txt 2>&1 | { grep -v "^WARNING: Location" || true; }
    if [ -f binder/postBuild ]; then
        step "binder/postBuild"
        PATH="$VENV/bin:$PATH" bash binder/postBuild
    fi
    echo "$stamp" > "$VENV/.binder-stamp"
fi
"$VENV/bin/pip" check | { grep -v "^WARNING: Location" || true; }
# Every pin in constraints.txt that binder/requirements.txt brings in must have its pinned version (the
# outputs nbval compares were made with them); packages of repo2docker's base env that binder/requirements.txt
# does not ask for (JupyterLab, nbclient, ...) stay at the base env's versions, as on mybinder. No numba.
"$VENV/bin/python" - constraints.txt "${BASE_ENV[@]}" <<'EOF'
import re, sys
from importlib import metadata
norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
base = {norm(b.split("==")[0]): b.split("==")[1] for b in sys.argv[2:]}
bad, used, kept = [], [], []
for line in open(sys.argv[1]):
    m = re.match(r"\s*([A-Za-z0-9_.-]+)\s*==\s*([^\s;#]+)", line)
    if not m:
        continue
    name, pin = m.groups()
    try:
        got = metadata.version(name)
    except metadata.PackageNotFoundError:
        continue
    if got == pin:
        used.append(f"{name}=={got}")
    elif base.get(norm(name)) == got:
        kept.append(f"{name}=={got}")
    else:
        bad.append(f"{name}=={got} (constraints.txt: {pin})")
try:
    bad.append(f"numba=={metadata.version('numba')} is installed (Binder should stay on the pure-NumPy path)")
except metadata.PackageNotFoundError:
    pass
print("pinned as in constraints.txt:", ", ".join(used))
print("left at repo2docker's base-env version:", ", ".join(kept) or "none")
if bad:
    sys.exit("binder-check: FAIL: " + "; ".join(bad))
EOF

# ---- 3. the chapters ------------------------------------------------------------------------------------
if [ ${#chapters[@]} -eq 0 ]; then
    step "no chapters/*.ipynb yet: nothing to execute"
    echo "binder-check: OK (environment only) in $((SECONDS - t0)) s"
    exit 0
fi
step "executing ${#chapters[@]} chapter(s) in the Binder env"
# ipykernel 7.4 warns on every start that it runs over TCP without encryption (on loopback): filtered out.
# Private Jupyter dirs: the kernel `python3` is then the venv's own ipykernel (jupyter_client runs it with
# the venv's python), never a kernelspec that happens to be installed on this machine.
mkdir -p "$WORK/jupyter/config" "$WORK/jupyter/data" "$WORK/jupyter/runtime"
# the kernels' working folder: chapters/ with what the chapters may read (solutions/, data), without notebooks
mkdir "$WORK/chapters"
tar -C chapters --exclude='./.*' --exclude='*.ipynb' --exclude=__pycache__ -cf - . | tar -C "$WORK/chapters" -xf -
JUPYTER_CONFIG_DIR="$WORK/jupyter/config" JUPYTER_DATA_DIR="$WORK/jupyter/data" \
JUPYTER_RUNTIME_DIR="$WORK/jupyter/runtime" JUPYTER_PATH="" IPYTHONDIR="$WORK/ipython" \
"$VENV/bin/python" - "$ROOT" "$VENV" "$MARKER" "$WORK/chapters" "${chapters[@]}" \
    2> >(grep -v --line-buffered "Kernel is running over TCP without encryption" >&2) <<'EOF'
import os, re, sys, time
from pathlib import Path
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

root, venv, marker, cwd, paths = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], Path(sys.argv[4]), sys.argv[5:]

def run(nb, cwd, timeout=600):
    NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(cwd)}}).execute()
    return nb

def text(cell):
    out = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream":
            out.append(o.get("text", ""))
        elif "data" in o:
            out.append(o["data"].get("text/plain", ""))
    return "".join(out)

probe = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
    "import sys, minims, numpy; print(sys.executable); print(minims.__file__); print(numpy.__version__)")])
exe, mod, npv = text(run(probe, root, 120).cells[0]).splitlines()
print(f"kernel: {exe} | minims from {mod} | numpy {npv}")
if not Path(exe).absolute().is_relative_to(venv) or not Path(mod).resolve().is_relative_to(root / "minims"):
    sys.exit("binder-check: FAIL: the kernel is not the Binder venv's python running this checkout's minims")

failed = []
for p in map(Path, paths):
    nb = nbformat.read(p, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    t = time.perf_counter()
    try:
        run(nb, cwd)
    except (CellExecutionError, CellTimeoutError, DeadKernelError) as e:
        msg = re.sub(r"\x1b\[[0-9;]*m", "", str(e)).strip().splitlines()   # no terminal colours
        failed.append(p.name)
        print(f"FAIL {p} ({time.perf_counter() - t:.1f} s):\n    " + "\n    ".join(msg[-25:]), flush=True)
        continue
    code = [c for c in nb.cells if c.cell_type == "code"]
    last = [l for l in text(code[-1]).splitlines() if l.startswith(marker)] if code else []
    if not last:
        failed.append(p.name)
        print(f"FAIL {p}: the last code cell printed no line starting with {marker!r}", flush=True)
        continue
    print(f"ok   {p} ({len(code)} code cells, {time.perf_counter() - t:.1f} s): {last[-1]}", flush=True)

n = len(paths)
print(f"binder-check: {n - len(failed)} passed, {len(failed)} failed")
if failed:
    sys.exit("binder-check: FAIL: " + ", ".join(failed))
EOF
echo "binder-check: OK in $((SECONDS - t0)) s"
