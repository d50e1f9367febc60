"""The site's math typeset at build time, so that no page loads a math runtime.

Stands in for: Sphinx's ``sphinx.ext.mathjax`` (Jupyter Book's default), which typesets in
the browser with a runtime from a CDN. Not KaTeX's prerender: its HTML needs its CSS and web
fonts on every page, and it reads less TeX; not MathJax's CHTML: it needs MathJax's fonts.

At ``env-updated`` the pages whose formulas no earlier build typeset go to ONE Node process,
``typeset_math.cjs`` (MathJax 3's Node API, npm ``mathjax-full``): SVG, ``aria-hidden``, with
assistive MathML for screen readers, and per page one hidden ``<svg>`` of the glyph paths its
formulas use. The results are kept in ``_build/.doctrees``. The HTML math renderer ``mha_svg``
writes each formula where ``sphinx.ext.mathjax`` wrote ``\\(...\\)``, in the same
``span.math`` / ``div.math`` with Sphinx's equation numbers; MathJax's CSS for SVG goes to
``_static/mha-math.css``. A formula MathJax cannot read is a build warning. The LaTeX builder
and the notebooks keep their TeX.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

logger = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "typeset_math.cjs"
PACKAGE = HERE.parents[1] / "node_modules" / "mathjax-full" / "package.json"
CSS = "mha-math.css"
CACHE = "mha_math.json"  # in the doctree folder

# docname -> {"keys": [key(tex, display) of each formula, in order], "defs": the page's
# hidden <svg> of glyph paths, "html": {key: <mjx-container>}}
_pages: dict[str, dict] = {}


def block_tex(node: nodes.math_block) -> str:
    """The TeX that ``sphinx.ext.mathjax`` (Sphinx 7.4) hands MathJax for a display block:
    as written when ``nowrap``; else paragraphs aligned one per line, lines split."""
    if node["nowrap"]:
        return node.astext()
    parts = [p for p in node.astext().split("\n\n") if p.strip()]
    body = r"\\".join(r"\begin{split}" + p + r"\end{split}" if r"\\" in p else p for p in parts)
    if len(parts) > 1:
        return r"\begin{align}\begin{aligned}" + body + r"\end{aligned}\end{align}"
    return body


def key(tex: str, display: bool) -> str:
    """The cache's key of a formula."""
    return ("D" if display else "I") + tex


def _formulas(doctree: nodes.Node) -> dict[str, nodes.Node]:
    """key -> first node, for every formula of ``doctree`` (inline, then display)."""
    found = [(key(n.astext(), False), n) for n in doctree.findall(nodes.math)]
    found += [(key(block_tex(n), True), n) for n in doctree.findall(nodes.math_block)]
    first: dict[str, nodes.Node] = {}
    for k, n in found:
        first.setdefault(k, n)
    return first


def _version() -> str:
    """What the cache depends on: mathjax-full's version and this extension's script."""
    if not PACKAGE.is_file():
        raise ExtensionError(f"{PACKAGE.parent} is missing: run `npm ci` (make book does)")
    digest = hashlib.sha256(SCRIPT.read_bytes()).hexdigest()[:16]
    return json.loads(PACKAGE.read_text())["version"] + "/" + digest


def run_mathjax(pages: dict[str, list[str]]) -> dict:
    """Typeset each page's formulas (keys) in one Node process: {css, pages: {page: {defs,
    html: [...]}}}, each html entry an ``<mjx-container>`` string or ``{"error": message}``."""
    node = shutil.which("node")
    if node is None:
        raise ExtensionError("Node.js is needed to typeset the math: apt-get install nodejs")
    items = {page: [(k[1:], k[0] == "D") for k in keys] for page, keys in pages.items()}
    done = subprocess.run(
        [node, str(SCRIPT)],
        input=json.dumps(items),
        capture_output=True,
        text=True,
        cwd=PACKAGE.parents[2],
        check=False,
    )
    if done.returncode != 0:
        raise ExtensionError(f"typeset_math.cjs failed ({done.returncode}):\n{done.stderr}")
    return json.loads(done.stdout)


def typeset_all(app: Sphinx, env) -> list[str]:
    """Typeset the formulas of every page whose formulas no earlier build typeset."""
    if app.builder.format != "html":
        return []
    cache_file = Path(app.doctreedir) / CACHE
    version = _version()
    cache = json.loads(cache_file.read_text()) if cache_file.is_file() else {}
    if cache.get("version") != version:
        cache = {"version": version, "css": "", "pages": {}}
    found = {doc: _formulas(env.get_doctree(doc)) for doc in sorted(env.found_docs)}
    todo = {
        doc: list(formulas)
        for doc, formulas in found.items()
        if formulas and cache["pages"].get(doc, {}).get("keys") != list(formulas)
    }
    if todo or not cache["css"]:
        out = run_mathjax(todo)
        for doc, keys in todo.items():
            page = out["pages"][doc]
            for k, html in zip(keys, page["html"], strict=True):
                if isinstance(html, dict):
                    message = f"MathJax cannot typeset {k[1:]!r}: {html['error']}"
                    logger.warning(message, location=found[doc][k])
            html = dict(zip(keys, page["html"], strict=True))
            cache["pages"][doc] = {"keys": keys, "defs": page["defs"], "html": html}
        cache["css"] = out["css"]
        cache_file.write_text(json.dumps(cache))
    _pages.clear()
    _pages.update(cache["pages"])
    css = Path(app.outdir) / "_static" / CSS
    if not css.is_file() or css.read_text() != cache["css"]:  # a build with no change writes none
        css.parent.mkdir(parents=True, exist_ok=True)
        css.write_text(cache["css"])
    logger.info(f"build_math: typeset the formulas of pages {sorted(todo)}")
    return []


def _svg(self, tex: str, display: bool, node: nodes.Node) -> str:
    """The formula's typeset HTML (its glyphs: :func:`add_glyphs`)."""
    docname = self.builder.current_docname
    page = _pages.get(docname, {"html": {}, "defs": ""})
    html = page["html"].get(key(tex, display))
    if not isinstance(html, str):  # not found at env-updated (made while writing?), or failed
        logger.warning(f"build_math: {tex!r} was not typeset", location=node)
        return f"<code>{self.encode(tex)}</code>"
    return html


def add_glyphs(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    """The page's hidden <svg> of glyph paths, once, before its body (not in the renderings
    of its titles for the tables of contents)."""
    page = _pages.get(pagename)
    if page and page["defs"] and "body" in context:
        context["body"] = page["defs"] + context["body"]


def html_visit_math(self, node: nodes.math) -> None:
    self.body.append(self.starttag(node, "span", "", CLASS="math notranslate nohighlight"))
    self.body.append(_svg(self, node.astext(), False, node) + "</span>")
    raise nodes.SkipNode


def html_visit_displaymath(self, node: nodes.math_block) -> None:
    self.body.append(self.starttag(node, "div", CLASS="math notranslate nohighlight"))
    # Numbered as sphinx.ext.mathjax does, and as myst-parser's override of it does for an
    # amsmath environment (written as is, "nowrap", but numbered).
    if node["number"] and (not node["nowrap"] or "amsmath" in node["classes"]):
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    self.body.append(_svg(self, block_tex(node), True, node) + "</div>\n")
    raise nodes.SkipNode


def select_renderer(app: Sphinx, config) -> None:
    config.html_math_renderer = "mha_svg"


def setup(app: Sphinx) -> dict:
    app.add_html_math_renderer("mha_svg", (html_visit_math, None), (html_visit_displaymath, None))
    app.connect("config-inited", select_renderer)
    app.connect("env-updated", typeset_all)
    app.connect("html-page-context", add_glyphs)
    app.add_css_file(CSS)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
