"""Fix accessibility errors in HTML that Sphinx extensions write into every page body.

Stands in for: no upstream option; it mends what myst-nb, docutils and the theme write, and
each fix can go when they write accessible HTML themselves.

Listed in ``_config.yml`` (``local_extensions``). Each fix rewrites one
attribute in the page's ``body`` at ``html-page-context``; the browser tests' axe-core run
(``tests/browser/a11y.py``) is what finds these errors:

* myst-nb's folded code cells (``hide-input``) are ``<details>`` whose ``<summary>`` has
  ``aria-label="Toggle hidden content"`` while it shows "Show code cell source": the name
  hides the visible text (axe: label-content-name-mismatch, WCAG 2.5.3 Label in Name). The
  label is dropped, so the summary is named by the text it shows, and ``<details>``
  announces itself as expanded or collapsed.
* docutils writes a bibliography as ``<div role="list">`` of ``<div
  role="doc-biblioentry">``; ARIA 1.2 deprecated ``doc-biblioentry``, so the list has no
  ``listitem`` child (axe: aria-required-children, critical). The entries become
  ``role="listitem"``.
* a page with interactive views starts with a skip link to the first of them
  (:func:`skip_to_first_view`): the views sit far down a chapter, after dozens of code copy
  buttons and code blocks that scroll (WCAG 2.4.1 Bypass Blocks asks for a way past them).

When a page holds what a fix is for (``trigger``) but the fix finds nothing to rewrite,
the writer changed: the build warns (and the ``-W`` build fails) rather than ship it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class BodyFix:
    """One rewrite of page bodies: ``pattern`` becomes ``replacement`` where ``trigger`` is."""

    what: str
    trigger: str
    pattern: re.Pattern[str]
    replacement: str


FIXES = (
    BodyFix(
        what="myst-nb's hide-input <summary> aria-label",
        trigger='<details class="admonition hide',
        pattern=re.compile(r'<summary aria-label="Toggle hidden content">'),
        replacement="<summary>",
    ),
    BodyFix(
        what="docutils' citation role doc-biblioentry",
        trigger='class="citation-list"',
        pattern=re.compile(r'(<div class="citation" id="[^"]*") role="doc-biblioentry">'),
        replacement=r'\1 role="listitem">',
    ),
)


def fix_body(body: str, pagename: str = "") -> str:
    """``body`` with every fix of :data:`FIXES` applied; warns about a fix that found nothing."""
    for fix in FIXES:
        if fix.trigger not in body:
            continue
        body, n = fix.pattern.subn(fix.replacement, body)
        if n == 0:
            logger.warning(
                f"a11y_html: {pagename} has {fix.trigger!r} but no {fix.what} to fix "
                "(the writer changed?): check book/_ext/a11y_html.py"
            )
    return body


# A widget's view in myst-nb's HTML: a script in its cell's output.
VIEW_SCRIPT = '<script type="application/vnd.jupyter.widget-view+json">'
CELL_OUTPUT = '<div class="cell_output docutils container">'
FIRST_VIEW_ID = "mha-first-view"
# The theme's own skip link's classes: hidden above the window until it has the focus.
SKIP_LINK = (
    '<div class="skip-link d-print-none"><a href="#{id}">Skip to the first interactive view'
    "</a></div>\n"
)


def skip_to_first_view(body: str) -> str:
    """``body`` with an id on the cell output of its first widget view and, first in the
    body, a link to it (the theme's skip-link look: shown when it has the focus); a body
    without views is returned as it is."""
    at = body.find(VIEW_SCRIPT)
    cell = body.rfind(CELL_OUTPUT, 0, at) if at >= 0 else -1
    if cell < 0:
        return body
    tagged = CELL_OUTPUT[:-1] + f' id="{FIRST_VIEW_ID}">'
    body = body[:cell] + tagged + body[cell + len(CELL_OUTPUT) :]
    return SKIP_LINK.format(id=FIRST_VIEW_ID) + body


def on_page_context(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object
) -> None:
    """``html-page-context`` handler: rewrite the page's body in place."""
    if isinstance(context.get("body"), str):
        context["body"] = skip_to_first_view(fix_body(context["body"], pagename))


def setup(app: Sphinx) -> dict:
    app.connect("html-page-context", on_page_context)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
