#!/usr/bin/env bash
# Run every test of the project: pytest over tests/ and chapters/ (the chapters under nbval, options in
# pyproject.toml), then check that chapters/*.ipynb are stored normalised (nbstripout --verify).
# Called by `make test` after the install step; extra arguments go to pytest.
# Usage: tools/run_tests.sh [PYTEST_ARGS...]    (VENV=.venv by default)
#
# pytest exits 5 when it collects no tests. That is accepted only while the project has none:
# no .ipynb under chapters/ and no test_*.py / *_test.py under tests/. Otherwise exit 5 is a failure
# (tests exist but none ran, e.g. a broken collection or a -k that matches nothing).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
NBSTRIPOUT_FLAGS=(--keep-output --keep-count --keep-id --extra-keys metadata.language_info.version)

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

status=0
"$VENV/bin/pytest" "${paths[@]}" "$@" || status=$?
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
