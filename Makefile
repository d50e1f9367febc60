# The README's commands. Each one creates .venv and installs requirements.txt when needed.
#   make book   build the static site into _build/html (the main job)
#   make test   lint, unit tests, notebook execution (and browser tests)
#   make lab    open the notebooks in JupyterLab with live widgets

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: book test lab clean

$(STAMP): requirements.txt pyproject.toml
	@test -n "$(PYTHON)" || { echo "Python 3.11 is needed: apt-get install python3 python3-venv"; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	@touch $@

book: $(STAMP)
	$(BIN)/jupyter-book build . -W --keep-going
	@echo "The book is at file://$(CURDIR)/_build/html/index.html"

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check src tests
	$(BIN)/python -m pytest

lab: $(STAMP)
	$(BIN)/jupyter lab notebooks/

clean:
	rm -rf _build
