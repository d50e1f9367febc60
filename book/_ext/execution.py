"""Notebook execution for the book: never stale.

Why it exists: the notebooks execute inline (``execute_notebooks: inline``): myst-nb runs
each one in a kernel while Sphinx reads it, so the ``{eval}`` roles in the prose are filled
in with the values the code computed, as JupyterLab (with jupyterlab-myst) fills them in for
a learner. Inline execution has no cache of its own; Sphinx's environment is the cache (a
page whose sources have not changed is not read, so not executed, again). What it stands in
for: myst-nb's ``execute_notebooks: cache`` (jupyter-cache), which executes a notebook again
when its code changes but not when a module it imports does, and cannot fill ``{eval}``.
Loaded by jupyter-book through ``sphinx: local_extensions`` in ``_config.yml``.

* **Never stale.** When Sphinx reads a notebook, this extension records as its
  dependencies every module of ``src/mha`` that the notebook imports, directly
  or through other modules of the package, the data files kept beside those
  modules (the stored trained weights), and ``requirements.txt``. Sphinx
  reads a page again when one of its dependencies changes, so editing
  ``src/mha/figures/mask.py`` re-executes exactly the chapters that draw masks
  (``tests/test_build.py``).
* **The build's own code.** A change to ``book/_ext`` or ``package-lock.json`` writes every
  page again (nothing is executed again): :func:`hash_build_code`.
* **Prints in one box.** myst-nb's ``nb_merge_streams`` merges in place and cuts prints;
  :func:`_merge_streams_without_mutating` wraps its merge function (a patch of myst-nb).
* **Reported.** ``_build/execution.json`` records, per page, the seconds its notebook took
  (myst-nb's own record; ``make bench`` reports it).
"""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.util import logging

logger = logging.getLogger(__name__)

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


def join_stream_chunks(outputs: list[dict]) -> list[dict]:
    """Copies of ``outputs`` with each stream's chunks joined verbatim into its first chunk.

    The kernel sends a cell's prints in as many messages as its flush timer happens to cut
    them into, sometimes in the middle of a line. myst-nb's merge strips each chunk's end and
    adds a line break, so a print cut in two came out on two lines, by chance (chapter 2 showed
    ``head i returns`` / `` (5, 3) = n x d_k``). Joined first, the text is what was printed."""
    import copy

    joined: list[dict] = []
    first: dict[str, dict] = {}
    for output in outputs:
        output = copy.deepcopy(output)
        name = output.get("name") if output.get("output_type") == "stream" else None
        if name is not None and name in first:
            first[name]["text"] += output["text"]
            continue
        if name is not None:
            first[name] = output
        joined.append(output)
    return joined


def _merge_streams_without_mutating() -> None:
    """myst-nb merges a cell's prints into one output box (``nb_merge_streams``) by appending
    to the first stream output *in place*, so the executed notebook it saves in
    ``_build/jupyter_execute`` keeps the merged text and the later chunks too: a print
    appears twice there whenever the kernel sent it in two messages (not on the page).
    Merging copies instead keeps the saved notebook equal to what the page shows, and joining
    the chunks first (:func:`join_stream_chunks`) keeps a cut print on one line."""
    from myst_nb.core import render

    merge = render.coalesce_streams
    if getattr(merge, "copies_first", False):
        return

    def merge_copies(outputs):  # same signature as myst_nb.core.utils.coalesce_streams
        return merge(join_stream_chunks(outputs))

    merge_copies.copies_first = True
    render.coalesce_streams = merge_copies


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


def setup(app: Sphinx) -> dict:
    _merge_streams_without_mutating()
    app.add_config_value("mha_build_code", "", "html", [str])
    app.connect("config-inited", hash_build_code)
    app.connect("source-read", note_dependencies)
    app.connect("build-finished", write_execution_report)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
