#!/usr/bin/env bash
# Run every test of the project: pytest over tests/ and chapters/ (the chapters under nbval, options in
# pyproject.toml), then check that chapters/*.ipynb are stored normalised (nbstripout --verify).
# Called by `make test` after the install step; extra arguments go to pytest.
# Usage: tools/run_tests.sh [PYTEST_ARGS...]    (VENV=.venv by default; TEST_JOBS=1 for one process)
#
# Two pytest processes at once, one per core (CI has two; one process left the other idle):
#   part 1: chapters/ and the test folders in PART1 below (its output is shown as it runs)
#   part 2: the rest of tests/, so a new folder or file lands there by itself (its output is shown when
#           it ends, after part 1's)
# then one closing line in pytest's own format adding up both parts' counts (.ci/run's last grep finds
# it), with the wall-clock time. Each part is its own process, so tests that change global state (the
# context mode, seeds, environment variables) keep doing so within one process, as before; the parts
# share no file they write (chapters run only in part 1). PART1 is chosen so that the parts take about
# as long: measured 2026-11-26, tests/mindspore (MindSpore's tests and pages, in subprocesses) is ~40% of
# all the time; part 1 adds the chapters (~10%), robustness/ (fuzzing, memory soak), testing/ (accuracy
# bounds), project/ (the benchmark smoke run), nn/ (LeNet training) and graph/ (mode equivalence,
# fusion). Rebalance when a folder grows a lot (the two parts' times are in their closing lines).
# One process, as before, when TEST_JOBS=1, on a one-core machine, or when PYTEST_ARGS name a path
# (pytest then gets tests/, chapters/ and that path, as it always did).
#
# pytest exits 5 when it collects no tests. That is accepted only while the project has none:
# no .ipynb under chapters/ and no test_*.py / *_test.py under tests/. Otherwise exit 5 is a failure
# (tests exist but none ran, e.g. a broken collection or a -k that matches nothing in either part).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
NBSTRIPOUT_FLAGS=(--keep-output --keep-count --keep-id --extra-keys metadata.language_info.version)
PART1=(tests/robustness tests/testing tests/project tests/nn tests/graph)

count() { [ -d "$1" ] || { echo 0; return; }; find "$@" -not -path '*/.*' | wc -l; }   # count DIR FIND-TESTS
n_notebooks=$(count chapters -name '*.ipynb')
n_testfiles=$(count tests \( -name 'test_*.py' -o -name '*_test.py' \))

# Only folders that exist: with none, pytest would fall back to collecting the whole repository.
paths=()
for d in tests chapters; do [ -d "$d" ] && paths+=("$d"); done
if [ ${#paths[@]} -eq 0 ]; then
    empty=$(mktemp -d); trap 'rm -rf "$empty"' EXIT
    paths=("$empty")   # lets pytest report "no tests ran" itself
fi

jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
for arg in "$@"; do
    if [ -e "${arg%%::*}" ]; then jobs=1; fi   # a path of the caller's: run just that
done
[ -d tests ] || jobs=1

# the counts of a pytest log's closing line "=== 3 failed, 5460 passed in 420.31s (0:07:00) ===" (-q: no ===)
counts_of() { { grep -E '^(=+ )?[0-9]+ [a-z]+.* in [0-9.]+s' "$1" || true; } | tail -n 1 | sed -E 's/^=+ //; s/ in [0-9.]+s.*//'; }

status=0
if [ "$jobs" -lt 2 ]; then
    "$VENV/bin/pytest" "${paths[@]}" "$@" || status=$?
else
    part1=() ignore=()
    if [ -d chapters ]; then part1+=(chapters); fi
    for d in "${PART1[@]}"; do
        if [ -d "$d" ]; then part1+=("$d"); ignore+=("--ignore=$d"); fi
    done
    logs=$(mktemp -d)
    pid2=""
    trap '[ -z "$pid2" ] || kill "$pid2" 2>/dev/null || true; rm -rf "$logs"' EXIT
    t0=$SECONDS
    echo "run_tests.sh: two pytest processes at once; part 2's output follows part 1's"
    echo "== part 1 of 2: ${part1[*]}"
    "$VENV/bin/pytest" tests "${ignore[@]}" "$@" > "$logs/2" 2>&1 &
    pid2=$!
    s1=0 s2=0
    "$VENV/bin/pytest" "${part1[@]}" "$@" 2>&1 | tee "$logs/1" || s1=$?
    wait "$pid2" || s2=$?
    pid2=""
    echo "== part 2 of 2: tests/ without ${PART1[*]} (ran at the same time as part 1)"
    cat "$logs/2"
    # Exit 5 in one part only means that part had nothing to run (e.g. a -k matching in the other only).
    for s in "$s1" "$s2"; do [ "$s" -eq 0 ] || [ "$s" -eq 5 ] || [ "$status" -ne 0 ] || status=$s; done
    if [ "$s1" -eq 5 ] && [ "$s2" -eq 5 ]; then status=5; fi
    exits=("$s1" "$s2")
    for i in 1 2; do
        if [ -z "$(counts_of "$logs/$i")" ] && [ "${exits[i - 1]}" -ne 5 ]; then
            echo "run_tests.sh: part $i ended without pytest's closing line: its counts are missing below" >&2
            [ "$status" -ne 0 ] || status=1
        fi
    done
    # Both parts' counts added up, in pytest's words and order, with the wall-clock time of the two.
    line=$({ counts_of "$logs/1"; echo; counts_of "$logs/2"; } | "$VENV/bin/python" -c '
import re, sys
total = dict.fromkeys(["failed", "passed", "skipped", "deselected", "xfailed", "xpassed", "warnings", "errors"], 0)
for n, word in re.findall(r"(\d+) (\w+)", sys.stdin.read()):
    word = {"warning": "warnings", "error": "errors"}.get(word, word)
    total[word] = total.get(word, 0) + int(n)
singular = {"warnings": "warning", "errors": "error"}
print(", ".join(f"{n} {singular.get(w, w) if n == 1 else w}" for w, n in total.items() if n) or "no tests ran")')
    secs=$((SECONDS - t0))
    echo "run_tests.sh: parts 1 and 2 together (pytest exit $s1 and $s2):"
    printf '======================== %s in %d.00s (%d:%02d:%02d) ========================\n' \
        "$line" "$secs" $((secs / 3600)) $((secs % 3600 / 60)) $((secs % 60))
fi
if [ "$status" -eq 5 ]; then
    if [ "$n_notebooks" -eq 0 ] && [ "$n_testfiles" -eq 0 ]; then
        echo "run_tests.sh: no tests yet (no chapters/*.ipynb, no tests/test_*.py): pytest's exit 5 accepted"
        status=0
    else
        echo "run_tests.sh: pytest collected no tests, but there are $n_notebooks notebook(s) and" \
             "$n_testfiles test file(s): failing" >&2
    fi
fi
[ "$status" -eq 0 ] || exit "$status"

shopt -s nullglob
notebooks=(chapters/*.ipynb)
if [ ${#notebooks[@]} -gt 0 ]; then
    if ! "$VENV/bin/nbstripout" "${NBSTRIPOUT_FLAGS[@]}" --verify "${notebooks[@]}"; then
        echo "run_tests.sh: notebook metadata not normalised; run 'make notebooks' or" \
             "'$VENV/bin/nbstripout ${NBSTRIPOUT_FLAGS[*]} chapters/*.ipynb'" >&2
        exit 1
    fi
    echo "nbstripout --verify: ${#notebooks[@]} notebook(s) normalised"
fi
