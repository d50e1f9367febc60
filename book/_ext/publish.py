"""The book's links to its repository, its launch buttons, and its pages as ``.ipynb`` files.

Stands in for: Jupyter Book's ``launch_buttons`` and ``repository:`` settings, which cannot
open Colab on the ``ipynb`` branch (issue 37, section 5, is to use them where they can).

Loaded by jupyter-book through ``sphinx: local_extensions`` in ``_config.yml``.

Every address outside the site derives from one setting, ``repository.url`` (with
``repository.branch``) in ``_config.yml`` (``notebook_files.Repository``):

* With a URL, every page has the repository and "open an issue" buttons, and every notebook page
  a launch menu: Binder builds the branch (``binder/``, whose ``postBuild`` writes each page's
  ``.ipynb`` next to its source) and opens that ``.ipynb``; Colab opens the same file from the
  branch ``mha_notebooks_branch``, to which CI pushes ``_build/html/_notebooks``. The site's
  address (``html_baseurl``, for canonical links) is the repository's GitHub Pages address.
* Without one (``url`` empty, or the line deleted, which leaves Jupyter Book's default: its own
  repository), no repository, issue or launch button renders.

Every notebook page (a page with a ``kernelspec``) is written as ``_notebooks/<page>.ipynb``
by every build (``notebook_files.export``: no outputs, and the Colab set-up cell when there is a
repository; unchanged files are left alone) and offered first in the page's download menu.
These files need only what the pages' reading found (their ``{eval}`` values, figure and
exercise numbers), not the HTML, so in a parallel build they are written in a process of their
own, forked when Sphinx starts writing the pages, and the build waits for it when it finishes
(its log lines and warnings are Sphinx's, as a parallel writer's are): about a second less at
the end of every build. A serial build writes them at the end.

sphinx-book-theme's own launch buttons are switched off (``launch_buttons`` leaves its options
and becomes ``mha_launch_buttons``): they open the ``.md`` source, which Colab cannot read, and
copy the executed notebook, with every output, into ``_sources``. Its repository buttons stay,
switched on and off here: Jupyter Book refuses ``html.use_repository_button`` without a URL.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Any

import notebook_files
import plain_notebooks
import yaml
from jupyter_book.config import PATH_YAML_DEFAULT
from myst_nb.ext.eval import EvalRoleAny
from notebook_files import NOTEBOOKS_DIR, Repository
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError
from sphinx.util import logging
from sphinx.util.parallel import ParallelTasks, parallel_available

logger = logging.getLogger(__name__)

# The theme's buttons that link the repository: on exactly when the book has one.
REPOSITORY_BUTTONS = {
    "use_repository_button": True,
    "use_issues_button": True,
    "use_edit_page_button": False,
    "use_source_button": False,
}
# launch_buttons keys of launchers that this extension does not make buttons of (it makes
# Binder's and Colab's): reported when set.
UNSUPPORTED = ("jupyterhub_url", "deepnote_url", "jupyterlite_url", "thebe")


def jupyter_book_default_url() -> str:
    """The repository URL Jupyter Book fills in when ``_config.yml`` gives none."""
    default = yaml.safe_load(PATH_YAML_DEFAULT.read_text(encoding="utf-8"))
    return default["repository"]["url"]


def repository(config: Config) -> Repository | None:
    """The book's repository, from the theme options Jupyter Book made of ``repository:``."""
    opts = config.html_theme_options
    url = str(opts.get("repository_url") or "").strip()
    if not url or url == jupyter_book_default_url():
        return None
    try:
        return Repository.from_url(url, opts.get("repository_branch"))
    except ValueError as e:
        raise ExtensionError(f"publish: {e}") from e


def configure(app: Sphinx, config: Config) -> None:
    """Turn the repository buttons on or off, and take the launch settings from the theme."""
    repo = repository(config)
    opts = dict(config.html_theme_options)
    launch = dict(opts.pop("launch_buttons", None) or {})
    opts.update({key: repo is not None and on for key, on in REPOSITORY_BUTTONS.items()})
    if repo is None:
        opts["repository_url"] = ""  # no html_context of a repository (the theme's, thebe's)
        launch = {}
    config.html_theme_options = opts
    config.mha_launch_buttons = launch
    unsupported = [key for key in UNSUPPORTED if launch.get(key)]
    if unsupported:
        logger.warning(f"publish: launch_buttons {unsupported} unsupported (Binder, Colab only)")
    interface = launch.get("notebook_interface", "classic")
    if interface not in notebook_files.INTERFACES:
        raise ExtensionError(f"publish: launch_buttons.notebook_interface {interface!r} is unknown")
    if launch.get("colab_url") and not config.mha_notebooks_branch:
        raise ExtensionError("publish: Colab buttons need sphinx.config.mha_notebooks_branch")
    if repo is not None and not config.html_baseurl:
        config.html_baseurl = repo.pages_url


def launch_group(app: Sphinx, repo: Repository, docname: str) -> dict[str, Any] | None:
    """The theme's dropdown of launch links for the notebook of ``docname``, if any launcher."""
    launch = app.config.mha_launch_buttons
    path_in_book = f"{docname}.ipynb"
    path_in_repo = posixpath.normpath(
        posixpath.join(app.config.html_theme_options.get("path_to_docs") or ".", path_in_book)
    )
    links = []
    if launch.get("binderhub_url"):
        interface = launch.get("notebook_interface", "classic")
        url = repo.binder_url(launch["binderhub_url"], interface, path_in_repo)
        links.append(("Binder", "_static/images/logo_binder.svg", url))
    if launch.get("colab_url"):
        url = repo.colab_url(launch["colab_url"], app.config.mha_notebooks_branch, path_in_book)
        links.append(("Colab", "_static/images/logo_colab.png", url))
    if not links:
        return None
    buttons = [
        {
            "type": "link",
            "text": text,
            "tooltip": f"Launch on {text}",
            "icon": icon,
            "url": url,
            "label": f"launch-{text.lower()}-button",
        }
        for text, icon, url in links
    ]
    return {
        "type": "group",
        "tooltip": "Launch interactive content",
        "icon": "fas fa-rocket",
        "buttons": buttons,
        "label": "launch-buttons",
    }


def offer_download(context: dict[str, Any], url: str) -> bool:
    """Put the notebook first in the theme's download menu; False when there is no menu."""
    for group in context["header_buttons"]:
        if group.get("label") == "download-buttons":
            notebook = {
                "type": "link",
                "url": url,
                "text": ".ipynb",
                "tooltip": "Download notebook file",
                "icon": "fas fa-code",
                "label": "download-notebook-button",
            }
            group["buttons"].insert(0, notebook)
            return True
    return False


def is_notebook(app: Sphinx, docname: str) -> bool:
    """A page that declares a kernel, as myst-nb (which executes it) and the theme decide."""
    return "kernelspec" in app.env.metadata.get(docname, {})


def add_buttons(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """On a notebook page, offer its notebook for download and add its launch buttons."""
    if pagename not in app.env.found_docs or not is_notebook(app, pagename):
        return  # genindex, search, pages without code
    rel = f"{NOTEBOOKS_DIR}/{pagename}.ipynb"  # written by write_notebooks
    if not offer_download(context, context["pathto"](rel, 1)):
        logger.warning(
            f"publish: {pagename}: no download menu for its notebook (sphinx-book-theme changed?)"
        )
    repo = repository(app.config)
    group = launch_group(app, repo, pagename) if repo is not None else None
    if group is not None:
        context["header_buttons"].insert(0, group)


def write_notebooks(app: Sphinx, exception: Exception | None) -> None:
    """Write ``_notebooks/<page>.ipynb`` for every notebook page, those whose HTML this build
    did not rewrite too: plain notebooks (``plain_notebooks``) that quote what this build
    computed, headed by the Colab cell when the book has a repository."""
    if exception is not None or app.builder.format != "html":
        return
    repo = repository(app.config)
    first = [notebook_files.colab_cell(repo)] if repo is not None else []
    references = plain_notebooks.bibliography(str(Path(app.srcdir) / app.config.bibtex_bibfiles[0]))
    changed = 0
    for docname in sorted(app.env.found_docs):
        if not is_notebook(app, docname):
            continue
        nb = notebook_files.export(Path(app.env.doc2path(docname)), None)
        if nb is None:
            logger.warning(f"publish: {docname} is a notebook that jupytext cannot export")
            continue
        facts = plain_notebooks.page_facts(app, docname, references)
        try:
            plain = plain_notebooks.plain_notebook(nb, facts, first)
        except plain_notebooks.PlainTextError as err:
            logger.warning(f"publish: {err}")
            continue
        changed += notebook_files.write(
            plain, Path(app.outdir) / NOTEBOOKS_DIR / f"{docname}.ipynb"
        )
    logger.info(f"publish: {changed} notebook(s) updated in {app.outdir}/{NOTEBOOKS_DIR}")


_writing: dict[int, ParallelTasks] = {}  # id(app) -> the process writing its notebooks


def start_notebooks(app: Sphinx, builder: Any) -> None:
    """When the pages start being written: write the notebooks alongside, in a forked process."""
    if builder.format != "html" or not (parallel_available and app.parallel > 1):
        return  # written at the end, by finish_notebooks
    tasks = ParallelTasks(1)
    tasks.add_task(lambda: write_notebooks(app, None))
    _writing[id(app)] = tasks


def finish_notebooks(app: Sphinx, exception: Exception | None) -> None:
    """At the end of the build: wait for the notebooks' process (or write them now)."""
    tasks = _writing.pop(id(app), None)
    if tasks is None:
        write_notebooks(app, exception)
    elif exception is not None:
        tasks.terminate()  # the build failed: as a serial build, write nothing
    else:
        tasks.join()  # replays its log; raises SphinxParallelError if it failed


def setup(app: Sphinx) -> dict:
    app.add_config_value("mha_notebooks_branch", "", "html", types=[str])
    app.add_config_value("mha_launch_buttons", {}, "html", types=[dict])
    app.connect("config-inited", configure)
    # After the theme's own buttons (priority 501), so that its download menu exists.
    app.connect("html-page-context", add_buttons, priority=502)
    app.connect("write-started", start_notebooks)
    app.connect("build-finished", finish_notebooks)
    # Each page's doctree keeps what its {eval} roles computed, for the plain notebooks.
    EvalRoleAny.run = plain_notebooks.record_evals(EvalRoleAny.run)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
