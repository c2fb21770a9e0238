# minims: set-up and checks. The two everyday commands are `make lab` and `make test`;
# each creates .venv (python3 -m venv) and installs what it needs on first use.
#   make lab        JupyterLab on chapters/ (LAB_ARGS="--no-browser --port=8889" to pass options)
#   make test       unit tests + every chapter under nbval + notebook-metadata check (PYTEST_ARGS="-x -k grad")
#                   (two pytest processes at once; TEST_JOBS=1 for one: tools/run_tests.sh)
#   make test-fast  the fast tier: tests/ without the tests marked slow, no chapters (under a minute)
#   make notebooks  re-execute chapters in place, refreshing the outputs nbval compares (NOTEBOOKS=chapters/x.ipynb)
#   make binder-check   build a fresh env from binder/ alone (as mybinder would) and execute every chapter in it
#                       (BINDER_VENV=dir keeps that env and reuses it while binder/ and the pins are unchanged)
#   make browser-check  every chapter in JupyterLab in headless Chromium: Run All, `CHAPTER OK`, a screenshot each
#                       (installs Debian's chromium with apt-get when missing, as root: tools/install_chromium.sh;
#                       SHOTS=dir for the screenshots)
#   make clean      remove .venv and caches

VENV ?= .venv
# One BLAS thread: results of matrix products then do not depend on the thread count (byte-stable
# notebook outputs), and tests do not oversubscribe a 2-core machine.
export OPENBLAS_NUM_THREADS ?= 1
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
BROWSER_STAMP := $(VENV)/.installed-browser
# jupyter refuses to run as root without --allow-root (root is the user on CI and these machines)
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

.PHONY: install lab test test-fast notebooks binder-check browser-check clean

install: $(STAMP)

# The install step: redone only when pyproject.toml or constraints.txt change.
$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q -e ".[dev]" -c constraints.txt
	touch $@

# mkdir: empty folders are not in a git clone, and jupyter exits if its root folder is missing
lab: $(STAMP)
	mkdir -p chapters
	$(VENV)/bin/jupyter lab chapters/ $(ROOT_FLAG) $(LAB_ARGS)

test: $(STAMP)
	VENV=$(VENV) bash tools/run_tests.sh $(PYTEST_ARGS)

test-fast: $(STAMP)
	$(VENV)/bin/pytest tests -m "not slow" $(PYTEST_ARGS)

notebooks: $(STAMP)
	$(PY) tools/execute_notebooks.py $(NOTEBOOKS)

binder-check:
	bash tools/binder_check.sh $(if $(BINDER_VENV),--venv $(BINDER_VENV))

# the `browser` extra (playwright) on top of the dev install; redone whenever that is
$(BROWSER_STAMP): $(STAMP)
	$(PY) -m pip install -q -e ".[dev,browser]" -c constraints.txt
	touch $@

browser-check: $(BROWSER_STAMP)
	bash tools/install_chromium.sh
	$(PY) tools/browser_check.py $(if $(SHOTS),--out $(SHOTS)) $(BROWSER_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
	find . -name __pycache__ -type d -not -path './.git/*' -prune -exec rm -rf {} +
