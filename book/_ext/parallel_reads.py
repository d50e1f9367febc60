"""Pages read, and their notebooks executed, in parallel processes.

Why: ``jupyter-book build`` has no ``-j`` option (its ``build_sphinx`` takes ``jobs`` but the
command line never passes it), so a book built with it reads, and executes, one page at a
time. This extension stands in for ``sphinx-build -j``: it sets Sphinx's ``parallel`` (the
number ``-j`` sets) to one more than the CPU cores, so that a core is not idle while a
kernel starts. Sphinx itself splits the pages into batches and reads each batch in a
process of its own, with its own kernel.

* Sphinx reads in parallel only when every extension says it may. Two that Jupyter Book
  loads say nothing (``sphinx_multitoc_numbering``, ``sphinx_jupyterbook_latex``), and
  Sphinx would then warn (an error under ``-W``) and read serially. Neither keeps state
  while reading: the first changes how section numbers are assigned, which Sphinx does in
  the main process after reading; the second only adds doctree transforms. They are
  declared safe here, through their ``Extension`` records (``app.extensions``).
* Several kernels share the cores, so each runs PyTorch on one thread
  (``OMP_NUM_THREADS=1``, unless the environment already sets it; kernels inherit the
  build's environment): more threads per kernel would only wait for each other.

Delete this file, and its line in ``_config.yml``, to read serially (the book is the same).
"""

from __future__ import annotations

import os

from sphinx.application import Sphinx
from sphinx.config import Config

# Extensions that Jupyter Book loads and that do not declare whether they are safe to read in
# parallel (see above).
UNDECLARED_BUT_SAFE = ("sphinx_multitoc_numbering", "sphinx_jupyterbook_latex")


def set_jobs(app: Sphinx, config: Config) -> None:
    """Read in one more process than the CPU cores (``sphinx-build -j``), unless told more."""
    jobs = (os.cpu_count() or 1) + 1
    if app.parallel < jobs:
        app.parallel = jobs
    os.environ.setdefault("OMP_NUM_THREADS", "1")


def declare_parallel_safe(app: Sphinx) -> None:
    """Declare :data:`UNDECLARED_BUT_SAFE` parallel-safe (see the module's docstring)."""
    for name in UNDECLARED_BUT_SAFE:
        ext = app.extensions.get(name)
        if ext is not None and ext.parallel_read_safe is None:
            ext.parallel_read_safe = True


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", set_jobs)
    app.connect("builder-inited", declare_parallel_safe)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
