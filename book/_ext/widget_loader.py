"""How the site loads anywidget widgets, offline: by its own small host, or through the
ipywidgets HTML manager.

A page whose every widget is an anywidget view (``can_host``) needs no widget manager: it
loads ``static/mha-anywidget-host.js`` (a few KB, ours) in place of ``embed.js``, which
gives each view the little an anywidget module asks of its model (get, set, on, off; no
kernel to save to) and imports its module from the saved state. Checked by the browser tests
of the views (``tests/browser/test_heads_view.py``, ``test_mask_view.py``) over http and from
``file://``. The rest of this docstring is the route for a page that mixes anywidget views
with the core widgets of ``@jupyter-widgets/controls``.

Upstream documents no way to do this; this is the route, checked by
``tests/browser/test_mask_view.py`` over http and from ``file://``.

Why a second loader. The HTML manager's standalone ``embed.js`` (1.9 MB), which the book's
pages of core widgets load, bundles ``@jupyter-widgets/base`` and ``controls`` and creates its
``HTMLManager`` with no module loader: a model of any other module (anywidget's
``AnyModel``) fails with "Could not load module anywidget@~0.11.*" (its ``loadClass``).
Its AMD build
(``dist/libembed-amd.js``, 3.6 MB; ``embed-amd.js`` is the same plus a renderer run at the
window's "load") defines ``@jupyter-widgets/base``, ``controls`` and ``html-manager`` as
require.js modules and renders with ``requireLoader``, which asks require.js for any other
module by name. anywidget's npm ``dist/index.js`` is an AMD module
(``define(["@jupyter-widgets/base"], ...)``), so require.js can load it from the site.

The route, on a page whose saved widget state holds a model of a module other than
``@jupyter-widgets/*`` (``needs_amd``):

1. ``on_page`` replaces the page's ``embed.js`` script by require.js (npm ``requirejs``) and
   ``libembed-amd.js`` less ipywidgets 7's modules (``amd_bundle``: 2.8 MB), all from
   ``_vendor/`` (``offline_assets.py`` copies require.js and anywidget), deferred like the
   rest. Pages of core widgets only keep ``embed.js`` (1.9 MB): with the AMD bundle, chapter
   5 would pass its page budget (tests/browser/test_pages.py).
2. ``static/mha-offline-widgets.js`` (our glue), at ``DOMContentLoaded``, when require.js is
   there: ``requirejs.config({paths: {anywidget: "<site>/_vendor/anywidget/dist/index"}})``
   (a full URL, so it works from ``file://`` and from any page's folder), then
   ``require(["@jupyter-widgets/html-manager/dist/libembed-amd"], m => m.renderWidgets())``.
3. No script of the page has the attribute ``data-jupyter-widgets-cdn-only``:
   ``libembed-amd``'s ``requireLoader`` checks only its presence, and then sends every
   module to the CDN. ``data-jupyter-widgets-cdn`` (where a module that require.js could not
   load is fetched from next) points at ``_vendor/npm/`` of the site, which holds nothing:
   such a module fails on the page, with no request leaving it.
4. The widget's ES module travels in the saved state (anywidget's ``_esm`` trait, a string:
   ``mha.views.mask_view`` inlines the maths into it); anywidget imports it from a
   ``blob:`` URL, which works from ``file://`` too. The saved state keeps every trait:
   myst-nb saves what the kernel sent (``_view_name``, ``_view_module``...); a state
   written with defaults dropped fails with "Class null not found in module
   @jupyter-widgets/base" (anywidget issue #339), so ``on_page`` checks them.
5. anywidget's version: ``requirements.txt`` and ``package.json`` pin the same one
   (``check_versions``), as the saved state names ``_model_module_version`` "~0.11.*"
   which require.js ignores (it loads what ``paths`` names).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[2]
STANDALONE = "@jupyter-widgets/html-manager/dist/embed.js"
# In place of STANDALONE, in the same folder of the site (_vendor/): require.js (copied by
# offline_assets.py) and the AMD bundle without its ipywidgets 7 modules (AMD_BUNDLE).
AMD_BUNDLE = "mha-libembed-amd.js"
AMD = ["requirejs/require.js", AMD_BUNDLE]
AMD_SOURCE = ROOT / "node_modules/@jupyter-widgets/html-manager/dist/libembed-amd.js"
# libembed-amd.js is webpack bundles one after the other, each a define("name", ...) after
# a license comment line (the last, libembed-amd itself, has none: it stays with the
# html-manager bundle before it). Two are ipywidgets 7's base and controls (0.9 MB), AMD
# modules named "@jupyter-widgets/base7" and "controls7" that nothing on the book's pages
# asks require.js for: no other bundle of the file depends on them (amd_bundle checks), and
# anywidget's module asks for "@jupyter-widgets/base" only. So the site's copy leaves them
# out, and a page stays within its budget (tests/browser/test_pages.py); a widget module
# that asked for them would fail to load.
DROPPED = ("@jupyter-widgets/base7", "@jupyter-widgets/controls7")
BUNDLE_START = re.compile(
    r'^/\*! For license information please see [^\n]*\*/\ndefine\("([^"]+)",', re.M
)
CORE_PREFIX = "@jupyter-widgets/"
STATE_KEY = "ipywidgets_state"  # myst-nb's key for the page's widget state script
# Traits a saved model must keep, or the HTML manager cannot find its class (step 4).
KEPT_TRAITS = ("_model_name", "_model_module", "_view_name", "_view_module")
HOST = "mha-anywidget-host.js"  # in _static/ (static/ of this folder)
MODEL_REF = "IPY_MODEL_"


def _blank_layout(model: dict) -> bool:
    """A LayoutModel that sets no style (every public trait None): nothing for a host to do."""
    s = model["state"]
    return model["model_name"] == "LayoutModel" and all(
        v is None for k, v in s.items() if not k.startswith("_")
    )


def can_host(state: dict) -> bool:
    """Whether our host (static/mha-anywidget-host.js) can draw every widget of a page's saved
    ``state``: each model an anywidget one with its module inline (an ``_esm`` string, not a
    URL) that refers to no model but a blank layout, or such a layout."""
    models = state["state"]
    for m in models.values():
        if _blank_layout(m):
            continue
        if m["model_module"] != "anywidget":
            return False
        esm = m["state"].get("_esm")
        if not isinstance(esm, str) or re.match(r"\s*https?://", esm):
            return False
        for name, value in m["state"].items():
            if isinstance(value, str) and value.startswith(MODEL_REF):
                ref = models.get(value.removeprefix(MODEL_REF))
                if name != "layout" or ref is None or not _blank_layout(ref):
                    return False
    return any(m["model_module"] == "anywidget" for m in models.values())


def needs_amd(state: dict) -> bool:
    """Whether a page's saved widget state holds a model of a non-core module (anywidget)."""
    return any(not m["model_module"].startswith(CORE_PREFIX) for m in state["state"].values())


def check_traits(state: dict, where: str) -> None:
    """Warn (the -W build fails) for a non-core model saved without its class's traits."""
    for model_id, m in state["state"].items():
        if m["model_module"].startswith(CORE_PREFIX):
            continue
        missing = [t for t in KEPT_TRAITS if not m["state"].get(t)]
        if missing:
            logger.warning(
                f"widget_loader: {where}: model {model_id} was saved without {missing}: "
                "the HTML manager cannot find its class (anywidget issue #339)"
            )


def _replace_standalone(context: dict, paths: list[str], folder: str) -> None:
    """Put ``paths`` (in ``folder``: "vendor" or "static") in place of the page's embed.js."""
    scripts = context.get("script_files", [])
    at = [i for i, s in enumerate(scripts) if str(s.filename or "").endswith(STANDALONE)]
    if len(at) != 1:
        raise ExtensionError(f"widget_loader: expected one {STANDALONE} script, found {len(at)}")
    old = scripts[at[0]]
    vendor = str(old.filename).removesuffix(STANDALONE)  # "_static/../_vendor/"
    base = vendor if folder == "vendor" else vendor.removesuffix("../_vendor/")  # "_static/"
    new = [type(old)(base + path, **old.attributes, priority=old.priority) for path in paths]
    context["script_files"] = [*scripts[: at[0]], *new, *scripts[at[0] + 1 :]]


def use_amd_scripts(context: dict) -> None:
    """Replace the page's embed.js script by require.js and libembed-amd.js (step 1)."""
    _replace_standalone(context, AMD, "vendor")


def use_host_script(context: dict) -> None:
    """Replace the page's embed.js script by our anywidget host (see the top)."""
    _replace_standalone(context, [HOST], "static")


def amd_bundle(text: str) -> str:
    """libembed-amd.js's ``text`` without the DROPPED bundles; fails if its layout changed
    (a dropped bundle missing, or another bundle naming one as a dependency)."""
    starts = list(BUNDLE_START.finditer(text))
    names = [m.group(1) for m in starts]
    if any(name not in names for name in DROPPED) or starts[0].start() != 0:
        raise ExtensionError(f"widget_loader: libembed-amd.js holds {names}: check DROPPED")
    parts = [
        (m.group(1), text[m.start() : nxt.start() if nxt else len(text)])
        for m, nxt in zip(starts, [*starts[1:], None], strict=True)
    ]
    kept = "".join(part for name, part in parts if name not in DROPPED)
    deps = re.findall(r'^define\("[^"]+",(\[[^\]]*\])', kept, re.M)
    if any(name in d for d in deps for name in DROPPED):
        raise ExtensionError(f"widget_loader: a kept bundle depends on one of {DROPPED}")
    return kept


def write_amd_bundle(app: Sphinx) -> None:
    """Write _vendor/AMD_BUNDLE (when it changed)."""
    if app.builder.format != "html":
        return
    text = amd_bundle(AMD_SOURCE.read_text(encoding="utf-8"))
    dst = Path(app.outdir) / "_vendor" / AMD_BUNDLE
    if not dst.is_file() or dst.read_text(encoding="utf-8") != text:
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_text(text, encoding="utf-8")


def check_versions(app: Sphinx, config) -> None:
    """requirements.txt and package-lock.json pin the same anywidget (step 5)."""
    lock = json.loads((ROOT / "package-lock.json").read_text())["packages"]
    npm = lock["node_modules/anywidget"]["version"]
    pins = [
        line.split("==", 1)[1].strip()
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line.startswith("anywidget==")
    ]
    if pins != [npm]:
        raise ExtensionError(
            f"requirements.txt pins anywidget {pins}, package-lock.json {npm}: pin the same one"
        )


def on_page(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if app.builder.format != "html":
        return
    from myst_nb.sphinx_ import NbMetadataCollector

    js = NbMetadataCollector.get_js_files(app.env, pagename)
    if STATE_KEY not in js:
        return
    state = json.loads(js[STATE_KEY][1]["body"])
    if needs_amd(state):
        check_traits(state, pagename)
        if can_host(state):
            use_host_script(context)
        else:
            use_amd_scripts(context)


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", check_versions)
    app.connect("builder-inited", write_amd_bundle)
    # After myst-nb's handler (priority 500), which registers the page's scripts.
    app.connect("html-page-context", on_page, priority=600)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
