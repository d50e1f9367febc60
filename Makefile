# The README's commands. Each one creates .venv and installs requirements.txt when needed.
#   make book   build the static site into _build/html (the main job)
#   make test   lint, unit tests, notebook execution (and browser tests)
#   make lab    open the notebooks in JupyterLab with live widgets

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: book test lab bench clean

$(STAMP): requirements.txt pyproject.toml
	@test -n "$(PYTHON)" || { echo "Python 3.11 is needed: apt-get install python3 python3-venv"; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	@touch $@

# The site serves its own browser assets (book/_ext/offline_assets.py copies them from
# node_modules): npm ci installs exactly what package-lock.json pins, again when it changes.
NPM_STAMP := node_modules/.package-lock.json

$(NPM_STAMP): package.json package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo "Node.js and npm are needed to build the book: apt-get install nodejs npm"; exit 1; }
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $@

book: $(STAMP) $(NPM_STAMP)
	$(BIN)/jupyter-book build . -W --keep-going
	@echo "The book is at file://$(CURDIR)/_build/html/index.html"

# test depends on book: the build executes every notebook, and tests/browser/ checks the
# built site in Debian's chromium (installed by tests/browser/ensure-chromium when root).
test: $(STAMP) book
	@tests/browser/ensure-chromium
	$(BIN)/ruff check .
	$(BIN)/ruff format --check src tests
	$(BIN)/python -m pytest

# .md notebooks open as notebooks (jupytext) rather than as text.
LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.json

lab: $(STAMP)
	@mkdir -p $(dir $(LAB_OVERRIDES))
	@echo '{"@jupyterlab/docmanager-extension:plugin": {"defaultViewers": {"markdown": "Jupytext Notebook", "myst": "Jupytext Notebook"}}}' > $(LAB_OVERRIDES)
	$(BIN)/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) notebooks/

clean:
	rm -rf _build

# Benchmarks (not tests): writes benchmarks/results.json and benchmarks/results.md.
bench: $(STAMP) $(NPM_STAMP)
	@tests/browser/ensure-chromium
	$(BIN)/python -m benchmarks.run
