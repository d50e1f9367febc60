"""Executing the book's notebooks: again exactly when their code or what it imports changes,
several at once.

Why it exists: the notebooks execute inline (``execute_notebooks: inline``), so that the
``{eval}`` roles in the prose show the values the code computed, as JupyterLab (with
jupyterlab-myst) shows them. Inline execution has no cache of its own; Sphinx's environment
is the cache (a page whose dependencies have not changed is not read, so not executed,
again). What it stands in for: myst-nb's ``execute_notebooks: cache`` (jupyter-cache), which
executes a notebook again when its code changes but not when a module it imports does, and
cannot fill ``{eval}``; and ``sphinx-build -j``, which ``jupyter-book build`` does not offer.

* **Never stale.** When Sphinx reads a notebook, every module of ``src/mha`` that it imports
  (directly or through the package), the data files beside those modules (the stored
  trained weights) and ``requirements.txt`` become the page's dependencies
  (``env.note_dependency``): editing ``src/mha/figures/mask.py`` re-executes exactly the
  chapters that draw masks (``tests/test_build.py``).
* **The build's own code.** A change to ``book/_ext``, ``package-lock.json`` or ``_toc.yml``
  writes every page again, executing nothing (:func:`hash_build_code`).
* **Several at once.** Sphinx reads (and so executes) pages in ``app.parallel`` processes,
  the number ``sphinx-build -j`` sets: one more than the cores. Sphinx reads in parallel only
  when every extension declares it may; two that Jupyter Book loads declare nothing
  (``sphinx_multitoc_numbering``, which ``sphinx_external_toc`` loads whatever
  ``use_multitoc_numbering`` says, and ``sphinx_jupyterbook_latex``): neither keeps state
  while reading, so :func:`declare_parallel_safe` declares them safe. Each kernel runs PyTorch on
  one thread (``OMP_NUM_THREADS=1``). Delete that part to read serially (same book).
* **Reported.** ``_build/execution.json``: per page, the seconds its notebook took
  (myst-nb's own record; ``make bench`` reports it).

Loaded by jupyter-book through ``sphinx: local_extensions`` in ``_config.yml``.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config

PACKAGE = "mha"


def module_file(src: Path, dotted: str) -> Path | None:
    """The file of module ``dotted`` (e.g. ``mha.figures.mask``) under ``src``, if any."""
    base = src.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imported_modules(code: str, current: str = "") -> set[str]:
    """Dotted names of the ``mha`` modules that ``code`` imports (not following them).

    ``from mha import toy`` names ``mha`` and ``mha.toy`` (``toy`` may be a module
    or a name defined in ``mha/__init__.py``: both are kept, and names that are
    not modules are dropped later). Relative imports are resolved against
    ``current``, the importing module.
    """
    try:
        tree = ast.parse(code)
    except SyntaxError:  # IPython magics and the like: fall back to nothing
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = current.split(".")[: -node.level]
                base = ".".join([*parts, node.module] if node.module else parts)
            else:
                base = node.module or ""
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return {m for m in found if m == PACKAGE or m.startswith(PACKAGE + ".")}


def data_files(module: Path) -> set[Path]:
    """Files the package keeps beside a module, in folders that are not packages
    (``mha/training/weights/*.npz``): a notebook that imports the module may read them."""
    found: set[Path] = set()
    for sub in module.parent.iterdir():
        if sub.is_dir() and sub.name != "__pycache__" and not (sub / "__init__.py").exists():
            found.update(p for p in sub.rglob("*") if p.is_file())
    return found


def dependencies(code: str, src: Path) -> set[Path]:
    """Every file of the package that running ``code`` imports, followed transitively.

    Importing ``mha.a.b`` also runs ``mha/__init__.py`` and ``mha/a/__init__.py``.
    """
    todo, seen, files = list(imported_modules(code)), set(), set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        parts = name.split(".")
        todo.extend(".".join(parts[:i]) for i in range(1, len(parts)))  # parent packages
        path = module_file(src, name)
        if path is None:
            continue
        files.add(path)
        files |= data_files(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        todo.extend(imported_modules(path.read_text(), current=package + ".x"))
    return files


def note_dependencies(app: Sphinx, docname: str, source: list[str]) -> None:
    """Record the package files and requirements a notebook's code depends on."""
    path = Path(app.env.doc2path(docname))
    if path.suffix not in {".md", ".ipynb"}:
        return
    src = Path(app.srcdir) / "src"
    deps = dependencies(_code_of(path, source[0]), src)
    requirements = Path(app.srcdir) / "requirements.txt"
    for dep in sorted(deps) + ([requirements] if requirements.is_file() else []):
        app.env.note_dependency(str(dep))


def _code_of(path: Path, text: str) -> str:
    """The code cells of a notebook, as one Python source (magics removed)."""
    from myst_nb.core.read import read_myst_markdown_notebook

    if path.suffix == ".ipynb":
        import nbformat

        nb = nbformat.reads(text, as_version=4)
    else:
        nb = read_myst_markdown_notebook(text)
    cells = [c.source for c in nb.cells if c.cell_type == "code"]
    return "\n".join(line for c in cells for line in c.splitlines() if not line.startswith("%"))


def write_execution_report(app: Sphinx, exception: Exception | None) -> None:
    """Write ``_build/execution.json``: each page's last execution (wall seconds, success),
    as myst-nb recorded it (``make bench`` reports it).

    Pages not read in this build keep the record of the build that last executed them.
    """
    if exception is not None or app.builder.format != "html":
        return
    from myst_nb.sphinx_ import NbMetadataCollector

    report = {}
    for docname in sorted(app.env.found_docs):
        data = NbMetadataCollector.get_exec_data(app.env, docname)
        if data:
            report[docname] = {"seconds": round(data["runtime"], 2), "ok": data["succeeded"]}
    out = Path(app.outdir).parent / "execution.json"
    out.write_text(json.dumps(report, indent=1) + "\n")


def hash_build_code(app: Sphinx, config: Config) -> None:
    """The build's own code as an "html" setting: book/_ext (extensions, static files,
    templates), package-lock.json (the npm assets the pages load) and _toc.yml (the sidebar
    of every page). When it changes,
    Sphinx writes every page again (it re-reads and re-executes none), so that no page keeps
    what an older extension or asset wrote into it.
    """
    digest = hashlib.sha256()
    ext = Path(__file__).parent
    files = sorted(p for p in ext.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    # package-lock.json: the npm assets; _toc.yml: every page's sidebar lists every page, and
    # Sphinx writes again only the pages whose own source changed.
    extra = [Path(app.srcdir) / name for name in ("package-lock.json", "_toc.yml")]
    named = [(p.relative_to(ext).as_posix(), p) for p in files]
    for name, path in named + [(p.name, p) for p in extra if p.is_file()]:
        digest.update(name.encode() + b"\0" + path.read_bytes())
    config.mha_build_code = digest.hexdigest()


# Extensions that Jupyter Book loads and that do not declare whether they are safe to read in
# parallel (see above).
UNDECLARED_BUT_SAFE = ("sphinx_multitoc_numbering", "sphinx_jupyterbook_latex")


def set_jobs(app: Sphinx, config: Config) -> None:
    """Read in one more process than the CPU cores (``sphinx-build -j``), unless told more."""
    app.parallel = max(app.parallel, (os.cpu_count() or 1) + 1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # the kernels inherit it


def declare_parallel_safe(app: Sphinx) -> None:
    """Declare :data:`UNDECLARED_BUT_SAFE` parallel-safe (see the module's docstring)."""
    for name in UNDECLARED_BUT_SAFE:
        ext = app.extensions.get(name)
        if ext is not None and ext.parallel_read_safe is None:
            ext.parallel_read_safe = True


def setup(app: Sphinx) -> dict:
    app.add_config_value("mha_build_code", "", "html", [str])
    app.connect("config-inited", hash_build_code)
    app.connect("config-inited", set_jobs)
    app.connect("builder-inited", declare_parallel_safe)
    app.connect("source-read", note_dependencies)
    app.connect("build-finished", write_execution_report)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
