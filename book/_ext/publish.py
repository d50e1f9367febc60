"""Every notebook page as a plain notebook, for the download menu and for Colab.

Why it exists: the theme's download menu offers the page's MyST ``.md`` (which Colab cannot
read) and, as ``_sources/<page>.ipynb``, myst-nb's executed MyST notebook; its Colab button
(``launch_buttons.colab_url``) opens ``<page>.md`` on ``repository.branch``, as Binder does
(right for Binder, whose JupyterLab reads MyST). Stands in for those two: at the end of the
build each notebook page (one with a ``kernelspec``) is written over ``_sources/<page>.ipynb``
as a plain notebook (``plain_notebooks.py``; first a Colab set-up cell), the Colab button
opens that file from the branch ``mha_notebooks_branch`` (CI pushes ``_sources/**/*.ipynb``
there) and the menu's ``.md`` is labelled as the MyST source.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jupytext
import nbformat
import plain_notebooks
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

NOTEBOOKS_DIR = "_sources"  # the theme's folder of the pages' sources and .ipynb files
COLAB_CELL_ID = "colab-setup"
COLAB_CELL = """\
# On Google Colab only: install this book's package, mha, when it is missing, and turn on
# Colab's manager for custom widgets (the book's views are anywidget widgets).
# Anywhere else (Binder, your own machine) this cell does nothing.
import importlib.util
import subprocess
import sys

if "google.colab" in sys.modules and importlib.util.find_spec("mha") is None:
    package = {requirement}
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package], check=True)
    importlib.invalidate_caches()
if "google.colab" in sys.modules:
    try:
        from google.colab import output
        output.enable_custom_widget_manager()
    except (ImportError, AttributeError):
        print("This Colab cannot show the book's interactive views; every other cell runs.")"""


def is_notebook(app: Sphinx, docname: str) -> bool:
    """A page that declares a kernel, as myst-nb (which executes it) and the theme decide."""
    return docname in app.env.found_docs and "kernelspec" in app.env.metadata[docname]


def retarget_buttons(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """On a notebook page: the Colab button opens the plain notebook; the ``.md`` is MyST."""
    if not is_notebook(app, pagename):
        return
    for group in context["header_buttons"]:
        for button in group.get("buttons", []):
            if button.get("label") == "download-source-button":
                button["text"] = ".md (MyST source)"
                button["tooltip"] = "Download the MyST source (JupyterLab with jupyterlab-myst)"
            elif button.get("text") == "Colab":  # the theme's, so launch_buttons.colab_url is set
                colab = app.config.html_theme_options["launch_buttons"]["colab_url"].rstrip("/")
                repo = f"{context['github_user']}/{context['github_repo']}"
                branch = app.config.mha_notebooks_branch
                button["url"] = f"{colab}/github/{repo}/blob/{branch}/{pagename}.ipynb"
                button["label"] = "launch-colab-button"


def write_notebooks(app: Sphinx, exception: Exception | None) -> None:
    """Write ``_sources/<page>.ipynb`` for every notebook page: the plain notebook, headed by
    the Colab cell (pip installs ``mha`` from the repository's branch), in place of the
    executed notebook that the theme copied there."""
    if exception is not None or app.builder.format != "html":
        return
    opts = app.config.html_theme_options
    requirement = f"mha @ git+{opts['repository_url']}@{opts.get('repository_branch') or 'main'}"
    first = [
        nbformat.v4.new_code_cell(
            COLAB_CELL.format(requirement=json.dumps(requirement)), id=COLAB_CELL_ID
        )
    ]
    bib = Path(app.srcdir) / app.config.bibtex_bibfiles[0]
    references = plain_notebooks.bibliography(str(bib))
    for docname in sorted(d for d in app.env.found_docs if is_notebook(app, d)):
        nb = jupytext.read(app.env.doc2path(docname), fmt="md:myst")
        facts = plain_notebooks.page_facts(app, docname, references)
        try:
            plain = plain_notebooks.plain_notebook(nb, facts, first)
        except plain_notebooks.PlainTextError as err:
            logger.warning(f"publish: {err}")
            continue
        path = Path(app.outdir) / NOTEBOOKS_DIR / f"{docname}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(plain, path)


def setup(app: Sphinx) -> dict:
    app.add_config_value("mha_notebooks_branch", "", "html", types=[str])
    # After the theme's own buttons (its handlers have priority 501).
    app.connect("html-page-context", retarget_buttons, priority=502)
    app.connect("build-finished", write_notebooks)
    return {"version": "2.0", "parallel_read_safe": True, "parallel_write_safe": True}
