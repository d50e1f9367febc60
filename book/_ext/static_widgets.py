"""Why this file: the site draws its widgets with its own small anywidget host and no widget
manager; this extension writes each widget's first view into the page's HTML (readable before,
and without, JavaScript), names each widget's module instead of carrying its text, and stops
the build on a page holding a widget that the host cannot draw.

Stands in for: myst-nb's default ``nb_ipywidgets_js`` (require.js and the ipywidgets HTML
manager, from a CDN), whose widget output draws nothing before JavaScript runs and saves each
widget's module (anywidget's ``_esm``) in the page's widget state.

A page with widget state loads the book's views once (``_static/mha-views.js``, esbuild's
bundle, a classic script setting ``mhaViews``: Chromium runs no module script from
``file://``) and our host (``static/mha-anywidget-host.js``), through ``_config.yml``'s
``nb_ipywidgets_js``. In the kernel a widget's ``_esm`` is ``src/mha/views/dist/<view>.js``;
:func:`on_read` replaces it in the page's saved state by the view's name, ``_mha_view``.

:func:`on_page` makes one pass over that state. :func:`problems` names each widget the host
cannot draw, and why (not an anywidget view, none of the book's views, a trait referring to a
model other than a blank layout): the build fails, rather than ship widgets that never draw
(the ipywidgets manager's route is in the git history, issue 22). Every other widget's first
view is its view's ``renderView(state, {inert: true})`` from the same ``mha-views.js``, run in
Node (``anywidget_static.mjs``), written before its view script in a
``div.mha-static-widget``; the live view takes its place once drawn, marked
``data-mha-takeover="exact"`` when identical (``tests/browser/test_static_views.py``).

A widget may have list traits whose elements load on demand. Its trait ``_mha_lazy`` maps
each such list to the trait that holds the index of the element its first view shows. The
trained explorer's is ``{"weights": "setting"}``. :func:`split_lazy` keeps that element
(``weights[setting]``) in the page; each other one is null there,
its file's name (a hash of it) in ``_mha_files[list][k]``, and the file,
``_static/mha-data/<name>.js``, is the classic script ``mhaData("<name>", element)``. A view
missing an element asks for it with anywidget's ``model.send({load: list, index: k})``
(``view_controller.mjs``); the host loads its file and sets the trait
(``mha-anywidget-host.js``). In JupyterLab the kernel sent every element: nothing is asked.
"""

from __future__ import annotations

import hashlib
import html
import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

ANYWIDGET_STATIC = Path(__file__).with_name("anywidget_static.mjs")
# esbuild's bundles of the views (src/mha/views/build.mjs), found without importing mha.
DIST = Path(importlib.util.find_spec("mha").submodule_search_locations[0]) / "views" / "dist"
SITE_VIEWS = Path(__file__).parent / "static" / "mha-views.js"  # every view: _static/mha-views.js
VIEW_RE = re.compile(
    r'<script type="application/vnd\.jupyter\.widget-view\+json">(.*?)</script>', re.S
)
STATE_KEY = "ipywidgets_state"  # myst-nb's key for the page's widget state script
MODEL_REF = "IPY_MODEL_"
DATA = "mha_data"  # the doctree's attribute holding split_lazy's files: _static/mha-data/


def view_names() -> dict[str, str]:
    """The name of each view bundled for the kernel (``dist/<name>.js``), by its text."""
    return {p.read_text(encoding="utf-8"): p.stem for p in sorted(DIST.glob("*.js"))}


def name_views(state: dict, names: dict[str, str]) -> dict:
    """A page's saved widget ``state`` with each anywidget model's ``_esm`` that is one of the
    book's view bundles (``names``: :func:`view_names`) replaced by that view's name,
    ``_mha_view``; any other model as it was."""
    models = {}
    for model_id, m in state["state"].items():
        s = m["state"]
        if m["model_module"] == "anywidget" and s.get("_esm") in names:
            s = {k: v for k, v in s.items() if k != "_esm"} | {"_mha_view": names[s["_esm"]]}
        models[model_id] = {**m, "state": s}
    return {**state, "state": models}


def split_lazy(state: dict) -> dict[str, str]:
    """Takes out of a page's saved widget ``state`` (in place) the elements that its widgets
    load on demand (``_mha_lazy``, above): the text of each one's file, by file name."""
    files = {}
    for m in state["state"].values():
        s = m["state"]
        for name, at in s.get("_mha_lazy", {}).items():
            s.setdefault("_mha_files", {})[name] = [None] * len(s[name])
            for k, value in enumerate(s[name]):
                if k != s[at]:
                    text = json.dumps(value)
                    file = hashlib.sha256(text.encode()).hexdigest()[:20]
                    files[file] = f'mhaData("{file}", {text});\n'
                    s[name][k], s["_mha_files"][name][k] = None, file
    return files


def on_read(app: Sphinx, doctree: nodes.document) -> None:
    """Once a page is read: its saved widget state names each view instead of carrying its
    module (myst-nb writes this state into the page), and holds no element loaded on demand
    (kept in the doctree, which :func:`on_page` gets, for their files)."""
    from myst_nb.core.render import sanitize_script_content
    from myst_nb.sphinx_ import NbMetadataCollector

    docname = app.env.docname
    js = NbMetadataCollector.get_js_files(app.env, docname)
    if STATE_KEY not in js:
        return
    uri, kwargs = js[STATE_KEY]
    state = name_views(json.loads(kwargs["body"]), view_names())
    doctree[DATA] = split_lazy(state)
    body = sanitize_script_content(json.dumps(state))
    NbMetadataCollector.add_js_file(app.env, docname, STATE_KEY, uri, {**kwargs, "body": body})


def _blank_layout(model: dict) -> bool:
    """A LayoutModel that sets no style (every public trait None): nothing for a host to do."""
    s = model["state"]
    return model["model_name"] == "LayoutModel" and all(
        v is None for k, v in s.items() if not k.startswith("_")
    )


def _model_problem(models: dict, m: dict) -> str | None:
    """Why the host cannot draw model ``m`` of a page's saved ``models``; None if it can."""
    if m["model_module"] != "anywidget":
        return "not an anywidget view: the site has no ipywidgets widget manager"
    if not isinstance(m["state"].get("_mha_view"), str):
        return "its module is none of the book's views (src/mha/views)"
    for name, value in m["state"].items():
        if isinstance(value, str) and value.startswith(MODEL_REF):
            ref = models.get(value.removeprefix(MODEL_REF))
            if name != "layout" or ref is None or not _blank_layout(ref):
                return f"its trait {name} refers to a model the host does not draw"
    return None


def problems(state: dict, shown: list[str]) -> list[str]:
    """What our host cannot draw of a page's saved widget ``state``, whose view scripts show
    the models ``shown``: one line a widget; [] when it can draw them all. It draws anywidget
    models naming one of the book's views (``_mha_view``) that refer to no model but a blank
    layout; blank layouts need nothing."""
    models = state["state"]
    out = [f"widget {i}: not in the page's widget state" for i in shown if i not in models]
    for model_id, m in models.items():
        why = None if _blank_layout(m) else _model_problem(models, m)
        if why:
            out.append(f"widget {model_id} ({m['model_module']} {m['model_name']}): {why}")
    if not out and not any(m["model_module"] == "anywidget" for m in models.values()):
        out.append("no anywidget view in the page's widget state")
    return out


def render_anywidgets(states: list[dict]) -> list[str]:
    """The first views of the book's anywidget models (their saved states, each naming its
    view in ``_mha_view``), drawn by the site's ``mha-views.js`` in one Node process."""
    if shutil.which("node") is None:
        raise ExtensionError("static_widgets: Node.js is needed to draw the widgets' first views")
    jobs = [{"view": s["_mha_view"], "state": s} for s in states]
    run = subprocess.run(
        ["node", str(ANYWIDGET_STATIC), str(SITE_VIEWS)],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        raise ExtensionError(f"static_widgets: anywidget_static.mjs failed: {run.stderr[-400:]}")
    return json.loads(run.stdout)


def shown_models(body: str) -> list[str]:
    """The model id of each widget view script in a page's HTML ``body``, in order."""
    return [json.loads(html.unescape(m.group(1)))["model_id"] for m in VIEW_RE.finditer(body)]


def add_static_views(body: str, models: dict, shown: list[str]) -> str:
    """``body`` with each widget's first view before its view script, drawn from its saved
    state in ``models``; ``shown``: :func:`shown_models` of ``body``, every one a widget the
    host draws (:func:`problems`)."""
    if not shown:
        return body
    drawn = iter(zip(shown, render_anywidgets([models[i]["state"] for i in shown]), strict=True))

    def one(m: re.Match[str]) -> str:
        model_id, view = next(drawn)  # the view scripts in order, as shown_models read them
        copy = f'<div class="widget-subarea mha-static-widget" data-model-id="{model_id}">'
        return copy + view + "</div>" + m.group(0)

    return VIEW_RE.sub(one, body)


def on_page(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    """Fail the build on a page holding a widget the host cannot draw; else write every
    widget's first view into the page, and the files of the elements they load on demand."""
    if app.builder.format != "html" or "body" not in context:
        return
    from myst_nb.sphinx_ import NbMetadataCollector

    js = NbMetadataCollector.get_js_files(app.env, pagename)
    if STATE_KEY not in js:
        return
    state = json.loads(js[STATE_KEY][1]["body"])
    shown = shown_models(context["body"])
    found = problems(state, shown)
    if found:
        raise ExtensionError(
            f"static_widgets: page {pagename}: the site's anywidget host cannot draw "
            + "; ".join(found)
            + ". Write the widget as an anywidget view (mha.views.anywidgets): see "
            "book/_ext/static_widgets.py"
        )
    context["body"] = add_static_views(context["body"], state["state"], shown)
    for file, text in doctree.get(DATA, {}).items():
        path = Path(app.outdir, "_static", "mha-data", f"{file}.js")
        if not path.is_file():  # named by a hash of its text: another page wrote the same
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")


def setup(app: Sphinx) -> dict:
    app.connect("doctree-read", on_read)
    # After myst-nb's handler (priority 500), which registers the page's widget state.
    app.connect("html-page-context", on_page, priority=600)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
