# The README's commands. Each one creates .venv and installs requirements.txt when needed.
#   make book   build the static site into _build/html (the main job)
#   make unit   the fast tests: the package, its JavaScript in Node, the sources (no built book,
#               no chromium, no TeX; pytest -m unit, under a minute)
#   make test   make unit first, then lint (ruff; Biome for the JavaScript), the build, notebook
#               execution, browser tests, the PDF
#   make lab    open the notebooks in JupyterLab with live widgets
#   make pdf    the whole book as one PDF, _build/latex/multi-head-attention.pdf
#   make browser-loop N=5  the browser tests N times in a row; names every test that failed
#   make format  format the Python (ruff) and the JavaScript (Biome) in place
#   make lock   write constraints.txt again (every package's version) after changing requirements.txt
#   make weights  train the stored models again (src/mha/training/, two to four minutes on two cores)
#   make mutation  mutation testing of the maths modules (not part of make test; long, see benchmarks/mutation.md)

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: book unit test lab bench clean weights pdf mutation browser-loop lock format

$(STAMP): requirements.txt constraints.txt pyproject.toml
	@test -n "$(PYTHON)" || { echo "Python 3.11 is needed: apt-get install python3 python3-venv"; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt -c constraints.txt
	@touch $@

# constraints.txt again, after a change to requirements.txt: a new venv gets requirements.txt
# alone (pip picks the newest versions its pins allow), and its pip freeze, less pip, the editable
# mha and torch's +cpu label, is the new lock. tests/test_ci.py fails when a package that the
# requirements pull in is missing from it.
LOCK_VENV := _build/lock-venv

lock:
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LOCK_VENV)/bin/python -m pip install --quiet -r requirements.txt
	{ sed -n '/^#/p' constraints.txt; $(LOCK_VENV)/bin/python -m pip freeze --all --exclude-editable --exclude pip \
	  | sed -E 's/\+[A-Za-z0-9.]+$$//'; } > constraints.txt.new
	mv constraints.txt.new constraints.txt
	rm -rf $(LOCK_VENV)

# JupyterLab's settings for make lab and its tests, installed into the venv by lab/install
# (binder/postBuild installs them on Binder): .md chapters open as notebooks, no news; the
# server's contents manager, mha.lab.ContentsManager (opening a chapter does not mark it
# modified).
LAB_STAMP := $(VENV)/.lab-installed
LAB_FILES := lab/install lab/overrides.json lab/jupyter_server_config.json

$(LAB_STAMP): $(STAMP) $(LAB_FILES)
	lab/install $(VENV)
	@touch $@

# The npm packages that the build and the tests use (esbuild, MathJax's Node API, Biome,
# axe-core): npm ci installs exactly what package-lock.json pins, again when it changes.
NPM_STAMP := node_modules/.package-lock.json

$(NPM_STAMP): package.json package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo "Node.js and npm are needed to build the book: apt-get install nodejs npm"; exit 1; }
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	@touch $@

# The views' ES modules (src/mha/views/static), bundled by esbuild (src/mha/views/build.mjs):
# dist/<view>.js, each widget's module in the kernel (JupyterLab, the book's execution), and
# book/_ext/static/mha-views.js, every view once, which the site's pages load.
VIEWS := src/mha/views/dist/.built

$(VIEWS): $(NPM_STAMP) src/mha/views/build.mjs $(wildcard src/mha/views/static/*.mjs)
	npm run build --silent
	@touch $@

# Everything the site is built from. When none of it is newer than the last build, make
# does not even start Sphinx; when something is, Sphinx re-reads (and re-executes) only the
# pages that depend on it (book/_ext/execution.py).
SOURCES := _config.yml _toc.yml requirements.txt package-lock.json \
	$(shell find book notebooks src -type f -not -name '*.pyc' -not -path '*/__pycache__/*' \
	        -not -path '*/.ipynb_checkpoints/*' -not -path 'src/mha/views/dist/*' 2>/dev/null)
BUILT := _build/.built

book: $(BUILT)
	@echo "The book is at file://$(CURDIR)/_build/html/index.html"

$(BUILT): $(STAMP) $(NPM_STAMP) $(VIEWS) $(SOURCES)
	$(BIN)/jupyter-book build . -W --keep-going
	@touch $@

# The PDF, from the same Sphinx environment as the site (nothing executes again): a picture
# of every widget's default view is taken from the built site in chromium
# (tests/browser/widget_stills.py), then Jupyter Book's LaTeX builder and TeX Live (installed
# by tests/browser/ensure-texlive when root) write it. The site links the copy in _build/html,
# and only when it is there (book/_ext/pdf.py): the last step writes the site's pages again
# with the link (nothing is read or executed again), so a site built by make book alone links
# no PDF.
PDF := _build/latex/multi-head-attention.pdf

pdf: $(PDF)
	@echo "The PDF is at $(CURDIR)/$(PDF)"

$(PDF): $(BUILT) tests/browser/widget_stills.py
	@tests/browser/ensure-chromium
	@tests/browser/ensure-texlive
	$(BIN)/python -m tests.browser.widget_stills
	rm -rf _build/latex
	$(BIN)/jupyter-book build . --builder pdflatex -W --keep-going
	cp $(PDF) _build/html/multi-head-attention.pdf
	$(BIN)/jupyter-book build . -W --keep-going

# The suite's tiers are pytest markers (pyproject.toml; tests/conftest.py gives each test its
# tier): unit, build (reads _build or builds a book or the wheel), browser (chromium on the
# built site), pdf (TeX, poppler), lab (JupyterLab) and slow (seconds each: every stored run,
# training reproduced). make unit runs the unit tier alone.
unit: $(STAMP) $(VIEWS)
	OMP_NUM_THREADS=1 $(BIN)/python -m pytest -m unit -q -n auto --durations=10

# test runs make unit first (it fails fast, before the build), then depends on book and pdf:
# the build executes every notebook, tests/browser/ checks the built site in Debian's chromium
# (installed by tests/browser/ensure-chromium when root), and tests/test_pdf.py reads the PDF
# back with poppler's pdftotext and pdfimages. The second pytest runs every tier but unit, in
# two processes (pytest-xdist), each test file whole in one of them (--dist loadfile: a
# module's JupyterLab server, or its browser contexts, serve all its tests): much of that tier
# waits on chromium, JupyterLab or a kernel rather than computing. Both pytest runs give
# PyTorch one thread in each process (OMP_NUM_THREADS=1, which the kernels they start inherit,
# as the build's do): with a thread per core in each of two processes, two chapters executed
# at once took 47 s here, against 19 s with one thread each.
test: $(STAMP) unit $(LAB_STAMP) book pdf
	@tests/browser/ensure-chromium
	$(BIN)/ruff check .
	$(BIN)/ruff format --check src tests book/_ext
	node_modules/.bin/biome ci --error-on-warnings
	OMP_NUM_THREADS=1 $(BIN)/python -m pytest -m "not unit" -n 2 --dist loadfile --durations=30

# Format the Python and the JavaScript in place, and fix what ruff's and Biome's linters can
# fix; make test fails on what is left.
format: $(STAMP) $(NPM_STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format src tests book/_ext
	node_modules/.bin/biome check --write

# The browser tests (tests/browser) N times in a row on the built site, each round a new
# pytest: prints every test that failed in any round (and in which rounds), then a summary
# line; fails if any round failed (tests/browser/loop.py). ARGS go to pytest, e.g.
# make browser-loop N=30 ARGS="-k 'pixel_for_pixel and phone'".
N ?= 5
ARGS ?=
browser-loop: $(STAMP) $(LAB_STAMP) book
	@tests/browser/ensure-chromium
	OMP_NUM_THREADS=1 $(BIN)/python -m tests.browser.loop $(N) $(ARGS)

# JupyterLab on the book's folder, opening the intro as a notebook (lab/workspace.json); the
# chapters' MyST renders with jupyterlab-myst, and their numbers appear after Run All.
LAB_WORKSPACES := $(VENV)/lab-workspaces

lab: $(STAMP) $(LAB_STAMP) $(VIEWS)
	JUPYTERLAB_WORKSPACES_DIR=$(LAB_WORKSPACES) $(BIN)/jupyter lab workspaces import lab/workspace.json
	JUPYTERLAB_WORKSPACES_DIR=$(LAB_WORKSPACES) $(BIN)/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root)

# The trained models that chapter 5 and the explorer read (mha.training.store): every
# setting and seed of mha.training.store.GRID, trained again and written byte for byte;
# chapter 5's grids of runs on why heads differ (mha.training.experiments); and chapter 5's
# tied-values runs (mha.training.variants), into their own folder.
weights: $(STAMP)
	$(BIN)/python -m mha.training
	$(BIN)/python -m mha.training.experiments
	$(BIN)/python -m mha.training.variants

clean:
	rm -rf _build

# Benchmarks (not tests): writes benchmarks/results.json and benchmarks/results.md.
bench: $(STAMP) $(NPM_STAMP) $(VIEWS)
	@tests/browser/ensure-chromium
	$(BIN)/python -m benchmarks.run

# Mutation testing (not part of make test): mutmut changes one operator, number or name at a
# time in attention, cost, budget, concat, stats and training/probe ([tool.mutmut] in
# pyproject.toml) and runs the fast unit tests that call the changed function; a mutant
# that no test notices "survives". Prints the kill rate and every survivor's name
# (`.venv/bin/mutmut show NAME` shows its diff); benchmarks/mutation.md judges them.
mutation: $(STAMP)
	rm -rf mutants
	$(BIN)/mutmut run --max-children 2
	$(BIN)/mutmut export-cicd-stats
	@cat mutants/mutmut-cicd-stats.json; echo
	$(BIN)/mutmut results
