"""Executing the book's notebooks again exactly when their code or what it imports changes,
several at once.

Why it exists: the notebooks execute inline (``execute_notebooks: inline``) so that ``{eval}``
shows what the code computed; inline execution has no cache but Sphinx's environment (a page
whose dependencies did not change is not read, so not executed, again). Stands in for:
myst-nb's ``execute_notebooks: cache``, which misses a change to an imported module and cannot
fill ``{eval}``, and ``sphinx-build -j``, which ``jupyter-book build`` does not offer.

* The ``src/mha`` modules a notebook imports (through the package too), the data files beside
  them, ``requirements.txt`` and the kernels' IPython extension are the page's dependencies
  (``tests/test_build.py``).
* The kernels draw each figure twice: a palette PNG for the site (the IPython extension
  ``mha.figures.png``) and a vector PDF for the PDF. An IPython profile in ``_build`` says so
  (:func:`kernel_profile`).
* A change to ``book/_ext``, ``package-lock.json`` or ``_toc.yml`` writes every page again,
  executing nothing (:func:`hash_build_code`). One exception: after a change to ``_toc.yml``,
  sphinx-external-toc has Sphinx read the intro again (the root, whose table of contents
  changed), which executes it.
* Pages are read in one more process than the cores, and each kernel runs PyTorch on one
  thread. Sphinx reads in parallel only if every extension says it may. Two that Jupyter Book
  loads say nothing, ``sphinx_multitoc_numbering`` and ``sphinx_jupyterbook_latex``; both keep
  no state while reading, so :func:`declare_parallel_safe` says it for them. This is a patch
  of theirs (``tests/patches.py`` counts it); without it, a cold build took 65 s, not 38 s.
* ``_build/execution.json``: each page's execution seconds, as myst-nb recorded them.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from modulefinder import ModuleFinder
from pathlib import Path

from myst_nb.core.read import read_myst_markdown_notebook
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.util import logging

logger = logging.getLogger(__name__)

# The kernels' IPython profile (:func:`kernel_profile`) and the extension it loads in each.
IPYTHON_DIR = Path("_build") / "ipython"
KERNEL_EXTENSION = "mha.figures.png"


def dependencies(code: str, src: Path) -> set[Path]:
    """Every module under ``src`` that running ``code`` imports, transitively (the standard
    library's modulefinder reads them without running them), and the files in non-package
    folders beside each (``mha/training/weights/*.npz``)."""
    with tempfile.NamedTemporaryFile("w", suffix=".py") as script:
        script.write(code)
        script.flush()
        finder = ModuleFinder(path=[str(src)])  # src only: no other module is read
        try:
            finder.run_script(script.name)
        except SyntaxError:  # IPython syntax: nothing
            return set()
    files = {Path(m.__file__) for n, m in finder.modules.items() if n != "__main__" and m.__file__}
    for module in list(files):
        for sub in module.parent.iterdir():
            if sub.is_dir() and sub.name != "__pycache__" and not (sub / "__init__.py").exists():
                files.update(p for p in sub.rglob("*") if p.is_file())
    return files


def note_dependencies(app: Sphinx, docname: str, source: list[str]) -> None:
    """Record the package files a notebook's code (magics removed) uses, the requirements and
    the kernels' IPython extension."""
    nb = read_myst_markdown_notebook(source[0])
    lines = [x for c in nb.cells if c.cell_type == "code" for x in c.source.splitlines()]
    code = "\n".join(line for line in lines if not line.startswith("%"))
    deps = sorted(dependencies(code, Path(app.srcdir) / "src"))
    extension = Path(app.srcdir, "src", *KERNEL_EXTENSION.split(".")).with_suffix(".py")
    for dep in [*deps, Path(app.srcdir) / "requirements.txt", extension]:
        app.env.note_dependency(str(dep))


def kernel_profile(app: Sphinx) -> None:
    """Point the build's kernels at an IPython profile that draws figures as PDF and as palette
    PNG (the IPython extension ``mha.figures.png``)."""
    profile = Path(app.srcdir) / IPYTHON_DIR / "profile_default"
    profile.mkdir(parents=True, exist_ok=True)
    config = profile / "ipython_kernel_config.py"
    text = (
        "c.InlineBackend.figure_formats = {'png', 'pdf'}\n"
        f"c.InteractiveShellApp.extensions = ['{KERNEL_EXTENSION}']\n"
    )
    if not config.is_file() or config.read_text() != text:
        config.write_text(text)
    # Kernels started by this process and its parallel readers inherit the variable.
    os.environ["IPYTHONDIR"] = str(profile.parent)


def write_execution_report(app: Sphinx, exception: Exception | None) -> None:
    """``_build/execution.json``: each page's last execution (seconds, success); pages not
    read in this build keep the record of the build that last executed them."""
    if exception is not None or app.builder.format != "html":
        return
    from myst_nb.sphinx_ import NbMetadataCollector  # 0.5 s to import: only when it is used

    report = {}
    for docname in sorted(app.env.found_docs):
        if data := NbMetadataCollector.get_exec_data(app.env, docname):
            report[docname] = {"seconds": round(data["runtime"], 2), "ok": data["succeeded"]}
    (Path(app.outdir).parent / "execution.json").write_text(json.dumps(report, indent=1) + "\n")


def hash_build_code(app: Sphinx, config: Config) -> None:
    """book/_ext, package-lock.json (the npm assets) and _toc.yml (every page's sidebar) as an
    "html" setting: when they change, Sphinx writes every page again and re-reads none for it
    (sphinx-external-toc re-reads the intro when the table of contents changes: above)."""
    digest = hashlib.sha256()
    ext = Path(__file__).parent
    files = sorted(p for p in ext.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    named = [(p.relative_to(ext).as_posix(), p) for p in files]
    extra = [Path(app.srcdir) / name for name in ("package-lock.json", "_toc.yml")]
    for name, path in named + [(p.name, p) for p in extra if p.is_file()]:
        digest.update(name.encode() + b"\0" + path.read_bytes())
    config.mha_build_code = digest.hexdigest()


def set_jobs(app: Sphinx, config: Config) -> None:
    """Read in one more process than the CPU cores (``sphinx-build -j``), unless told more."""
    app.parallel = max(app.parallel, (os.cpu_count() or 1) + 1)
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # the kernels inherit it


def declare_parallel_safe(app: Sphinx) -> None:
    """Declare the two extensions that keep no reading state parallel-safe (see above); warn
    (``-W`` fails the build) once one declares itself, so that this goes."""
    for name in ("sphinx_multitoc_numbering", "sphinx_jupyterbook_latex"):
        ext = app.extensions.get(name)
        if ext is None:
            continue
        if ext.parallel_read_safe is None:
            ext.parallel_read_safe = True
        else:
            logger.warning(f"execution: {name} now declares parallel_read_safe: stop declaring it")


def setup(app: Sphinx) -> dict:
    kernel_profile(app)
    app.add_config_value("mha_build_code", "", "html", [str])
    app.connect("config-inited", hash_build_code)
    app.connect("config-inited", set_jobs)
    app.connect("builder-inited", declare_parallel_safe)
    app.connect("source-read", note_dependencies)
    app.connect("build-finished", write_execution_report)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
