"""Make the built book work with no network: every script, style and font it loads is its own.

Why it exists: the site must work offline, opened from ``file://``. What it stands in for:
there is no upstream option that keeps Jupyter Book's pages off CDNs; it sets myst-nb's
``nb_ipywidgets_js`` checks, Sphinx's ``html_static_path`` copying (done early, see below),
and undoes sphinx-thebe's inline CDN script (Jupyter Book has no switch to leave thebe out).
Loaded by jupyter-book through ``sphinx: local_extensions`` in ``_config.yml``.

* No third-party browser asset is loaded from npm any more: the widgets are anywidget views
  drawn by our own host (``widget_loader.py``) and the math is typeset at build time
  (``build_math.py``). Our own static files (``static/``) are copied into ``_build/html/_static``
  at ``builder-inited``, changed ones only, so that a build that rewrites no page still ships
  them (Sphinx copies static files only when it writes some page).
* ``_config.yml`` points myst-nb's
  ``nb_ipywidgets_js`` (the scripts of pages that hold widget state; by default require.js
  and the 3.6 MB ``embed-amd.js`` from a CDN) at our own script in ``static/``, the anywidget
  host (``mha-anywidget-host.js``; ``widget_loader.py`` says why the site needs no widget
  manager). This extension checks at ``config-inited`` that those settings name our files.
* sphinx-thebe's inline config script (``const THEBE_JS_URL = "https://unpkg..."``) is not
  added. sphinx-thebe adds it with ``app.add_js_file(None, body=...)`` at
  ``env-before-read-docs``, i.e. after ``Builder.init()``; Sphinx 7.4's
  ``StandaloneHTMLBuilder.prepare_writing`` re-adds every registry script as
  ``add_js_file(filename or '', ...)``, and ``''`` does not dedupe against ``None``, so every
  page got the script twice ("Identifier 'THEBE_JS_URL' has already been declared"). It also
  names a CDN. Thebe is not used (launch buttons for Binder and Colab do not need it), so its
  handler is disconnected with ``app.disconnect``; when it cannot be found (sphinx-thebe
  changed), the extension warns, and the ``-W`` build fails instead of shipping the error.
  (sphinx-togglebutton's ``var togglebuttonSelector`` is duplicated
  the same way; ``var`` may be redeclared, so it is harmless.)
* ``static/scripts/fontawesome.js`` (ours, a comment only) takes the place of the theme's
  1.5 MB file of that name (Sphinx copies ``html_static_path`` after the theme's static
  files): the theme's CSS and webfonts draw its icons as glyphs without it.
* ``static/mha-book.css`` (ours) keeps figures readable in dark mode and the theme's icons
  in Font Awesome 6 on widget pages, gives links WCAG AA contrast in tinted boxes and lets
  long inline code wrap on narrow screens.
* ``a11y_html.py`` (set up from here, so ``_config.yml`` names one local extension) fixes
  accessibility errors in HTML that myst-nb and docutils write into page bodies.
* The theme's ``default_mode`` is set to "auto", so its script logs no console error.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def copy_static_files(app: Sphinx) -> None:
    """Copy our static files into the output, changed ones only.

    Runs at ``builder-inited``, before any page is written, so that Sphinx finds the files
    when it adds their ``?v=<checksum>`` to script tags; and on every build, also one that
    rewrites no page (Sphinx itself copies static files only when it writes some page).
    """
    if app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    copied = 0
    static = HERE / "static"
    ours = [(p, Path("_static") / p.relative_to(static)) for p in sorted(static.rglob("*"))]
    ours = [(p, rel) for p, rel in ours if p.is_file()]
    for src, rel in ours:
        dst = outdir / rel
        st = src.stat()
        if dst.exists() and dst.stat().st_size == st.st_size and dst.stat().st_mtime >= st.st_mtime:
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
        copied += 1
    logger.info(f"offline_assets: {copied} file(s) updated in {outdir}/_static")


def check_config(app: Sphinx, config) -> None:
    """Fail early when _config.yml's widget scripts are not our static files."""
    ours = {p.name for p in (HERE / "static").iterdir()}
    for path in config.nb_ipywidgets_js:
        if path not in ours:
            raise ExtensionError(f"_config.yml names {path!r}, which offline_assets does not copy")
    # pydata-sphinx-theme reads html_context["default_mode"]; unset, its JS logs the console
    # error "Got invalid theme mode: . Resetting to auto." on every first visit.
    config.html_context = {"default_mode": "auto", **config.html_context}
    # repository.path_to_book "." becomes launch/source links with "/./" in their paths
    # (.../blob/main/./notebooks/x.md): the book is at the repository's root, so use "".
    if str(config.html_theme_options.get("path_to_docs", "")).strip("/") == ".":
        config.html_theme_options = {**config.html_theme_options, "path_to_docs": ""}


def drop_thebe_config_script(app: Sphinx) -> None:
    """Disconnect sphinx-thebe's handler that adds the THEBE_JS_URL inline script."""
    found = [
        listener
        for listener in app.events.listeners.get("env-before-read-docs", [])
        if getattr(listener.handler, "__module__", "") == "sphinx_thebe"
        and getattr(listener.handler, "__name__", "") == "init_thebe_core"
    ]
    if not found:
        logger.warning(
            "offline_assets: sphinx_thebe.init_thebe_core is not connected to "
            "env-before-read-docs (sphinx-thebe changed?): its inline script would ship"
        )
    for listener in found:
        app.disconnect(listener.id)


def setup(app: Sphinx) -> dict:
    app.setup_extension("a11y_html")  # book/_ext/ is on sys.path, as jupyter-book put us there
    app.connect("config-inited", check_config)
    app.connect("builder-inited", drop_thebe_config_script)
    app.connect("builder-inited", copy_static_files)
    app.add_css_file("mha-book.css")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
