"""Pages read, and their notebooks executed, in parallel: as many at once as pays, the
longest first, each in a kernel that keeps to one CPU thread.

Loaded by jupyter-book through ``sphinx: local_extensions`` in ``_config.yml``.

* **How many at once.** Sphinx reads pages in parallel processes when asked to;
  ``jupyter-book build`` does not ask, so this extension sets the number of processes
  from ``mha_read_jobs`` (``0``: one more than the CPU cores, so that a core is never idle
  while a kernel starts up or a page is handed back). Each process runs its own kernel.
* **One page per process, longest first.** Sphinx hands each process a batch of
  consecutive pages (with eight pages and four processes: intro and references, chapters
  1 and 2, 3 and 4, 5 and 6), so the longest page (chapter 5) waited for the next one in
  its batch and the build lasted as long as the slowest batch. Here every page is a batch
  of its own, started in the order of their CPU seconds in the last build's
  ``_build/execution.json``; pages it does not know (a cold build) follow
  ``mha_read_first``, then the table of contents. A process that finishes a page takes
  the next one, so the short pages fill in around the long one.
* **Kernels for a shared machine.** The build's kernels run PyTorch on one thread
  (``mha_kernel_threads``): with several kernels on a few cores, more threads per kernel
  only wait for each other and spin (the OpenMP threads busy-wait), which costs CPU
  time and makes nothing faster. The page that times code says how many threads it used.
  They talk to the build over Unix sockets, each kernel under its own name, not over
  TCP ports: the ports a kernel is offered are free when they are chosen, not when the
  kernel binds them, and kernels started side by side (or by other programs on the
  machine) sometimes took the same one, so that a kernel died at start-up and its page
  failed after a minute ("Kernel didn't respond in 60 seconds").
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config


def set_jobs(app: Sphinx, config: Config) -> None:
    """Read pages in ``mha_read_jobs`` processes (0: one more than the CPU cores)."""
    jobs = int(config.mha_read_jobs) or (os.cpu_count() or 1) + 1
    if app.parallel < jobs:
        app.parallel = jobs


# Extensions that Jupyter Book loads and that do not declare whether they are safe to run in
# parallel processes, so that Sphinx would read serially. Each keeps no state of its own:
# sphinx-multitoc-numbering only changes how section numbers are assigned, which Sphinx does
# in the main process after reading; sphinx-jupyterbook-latex only adds doctree transforms.
UNDECLARED_BUT_SAFE = ("sphinx_multitoc_numbering", "sphinx_jupyterbook_latex")


def declare_parallel_safe(app: Sphinx) -> None:
    """Declare :data:`UNDECLARED_BUT_SAFE` parallel-safe (see the comment above it)."""
    for name in UNDECLARED_BUT_SAFE:
        ext = app.extensions.get(name)
        if ext is not None:
            ext.parallel_read_safe = True
            ext.parallel_write_safe = True


def last_cpu_seconds(report: Path) -> dict[str, float]:
    """Each page's CPU seconds in the build that last executed it (empty if unknown)."""
    try:
        entries = json.loads(report.read_text())
        return {doc: float(e["cpu_seconds"]) for doc, e in entries.items() if "cpu_seconds" in e}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def reading_order(docnames: list[str], known: dict[str, float], first: list[str]) -> list[str]:
    """``docnames``, longest first: pages with a known cost by that cost (largest first),
    then the pages of ``first`` in its order, then the rest in their given order."""

    def key(doc: str) -> tuple[int, float, int]:
        if doc in known:
            return (0, -known[doc], 0)
        if doc in first:
            return (1, 0.0, first.index(doc))
        return (2, 0.0, 0)

    return sorted(docnames, key=key)  # stable: the rest keep their order


def one_page_per_process(app: Sphinx) -> None:
    """Make the builder read every page in a process of its own, longest first."""
    import sphinx.builders

    builder = app.builder
    read_parallel: Callable[[list[str], int], None] = builder._read_parallel
    report = Path(app.outdir).parent / "execution.json"
    first = list(app.config.mha_read_first)

    def read_longest_first(docnames: list[str], nproc: int) -> None:
        order = reading_order(docnames, last_cpu_seconds(report), first)
        make_chunks = sphinx.builders.make_chunks  # used for these reads only
        sphinx.builders.make_chunks = lambda docs, nproc, maxbatch=10: [[d] for d in order]
        try:
            read_parallel(docnames, nproc)
        finally:
            sphinx.builders.make_chunks = make_chunks

    builder._read_parallel = read_longest_first


def build_kernels(threads: int) -> None:
    """The kernels myst-nb starts: ``threads`` torch threads, Unix sockets (see above)."""
    from jupyter_core.paths import jupyter_runtime_dir
    from myst_nb.core.execute.inline import ModifiedNotebookClient

    create = ModifiedNotebookClient.create_kernel_manager
    if getattr(create, "for_the_book", False):
        return

    def create_kernel_manager(self):  # same signature as nbclient's
        km = create(self)
        km.transport = "ipc"
        runtime = Path(jupyter_runtime_dir())
        runtime.mkdir(parents=True, exist_ok=True)
        km.ip = str(runtime / f"mha-{uuid.uuid4().hex[:12]}")  # sockets <ip>-1 ... <ip>-5
        if threads:
            spec = km.kernel_spec
            spec.env = {**spec.env, "OMP_NUM_THREADS": str(threads)}
        return km

    create_kernel_manager.for_the_book = True
    ModifiedNotebookClient.create_kernel_manager = create_kernel_manager


def setup(app: Sphinx) -> dict:
    app.add_config_value("mha_read_jobs", 0, "", [int])
    app.add_config_value("mha_read_first", [], "", [list])
    app.add_config_value("mha_kernel_threads", 1, "env", [int])
    app.connect("config-inited", set_jobs)
    app.connect("config-inited", lambda app, config: build_kernels(config.mha_kernel_threads))
    app.connect("builder-inited", declare_parallel_safe)
    app.connect("builder-inited", one_page_per_process)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
