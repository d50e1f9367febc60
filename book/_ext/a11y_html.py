"""Accessibility errors in the HTML that myst-nb and docutils write into every page body.

Stands in for: no upstream option; each fix can go when its writer writes accessible HTML.
The browser tests' axe-core run (``tests/browser/a11y.py``) finds these errors:

* myst-nb's folded code cells: ``<summary aria-label="Toggle hidden content">`` hides the
  summary's visible text (axe: label-content-name-mismatch); the label goes.
* docutils' bibliography entries are ``role="doc-biblioentry"``, deprecated by ARIA 1.2, so
  the ``role="list"`` has no ``listitem`` (axe: aria-required-children); they become listitems.
* a page with interactive views starts with a skip link to the first of them, past dozens of
  code blocks (WCAG 2.4.1 Bypass Blocks), in the look of the theme's own skip link.

A page that holds what a fix is for (its trigger) but nothing to rewrite warns (``-W`` fails):
the writer changed.
"""

from __future__ import annotations

import re

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

# (trigger, pattern, replacement)
FIXES = (
    (
        '<details class="admonition hide',
        '<summary aria-label="Toggle hidden content">',
        "<summary>",
    ),
    (
        'class="citation-list"',
        r'(<div class="citation" id="[^"]*") role="doc-biblioentry">',
        r'\1 role="listitem">',
    ),
)
VIEW_SCRIPT = '<script type="application/vnd.jupyter.widget-view+json">'
CELL_OUTPUT = '<div class="cell_output docutils container">'
SKIP_LINK = (
    '<div class="skip-link d-print-none"><a href="#mha-first-view">Skip to the first interactive'
    " view</a></div>\n"
)


def fix_body(body: str, pagename: str = "") -> str:
    """``body`` with every fix of :data:`FIXES` applied, and the skip link to its first view."""
    for trigger, pattern, replacement in FIXES:
        if trigger in body:
            body, n = re.subn(pattern, replacement, body)
            if n == 0:
                logger.warning(f"a11y_html: {pagename} has {trigger!r} but nothing to fix")
    at = body.find(VIEW_SCRIPT)
    cell = body.rfind(CELL_OUTPUT, 0, at) if at >= 0 else -1
    if cell < 0:
        return body
    tagged = CELL_OUTPUT[:-1] + ' id="mha-first-view">'
    return SKIP_LINK + body[:cell] + tagged + body[cell + len(CELL_OUTPUT) :]


def on_page_context(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree: object
) -> None:
    if isinstance(context.get("body"), str):
        context["body"] = fix_body(context["body"], pagename)


def setup(app: Sphinx) -> dict:
    app.connect("html-page-context", on_page_context)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
