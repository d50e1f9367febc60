"""Ship only what a page uses: no style rule, script or code span that changes nothing on it.

Why this file exists: issue 22 asks for pages of at most 1.5 MB, decoded, with all their
assets. Chapter 5 weighed 1.94 MB, and about 0.5 MB of it changed nothing the reader sees:

* **Code spans that draw plain text.** Pygments wraps every name and punctuation mark in
  ``<span class="n">`` / ``<span class="p">``; in both of the theme's highlighting styles
  (light and dark) those classes have exactly the colour of plain code text. The formatter
  set here (:class:`PlainTokensFormatter`, at ``builder-inited``) writes the tokens whose style
  equals plain text's in *every* style the site uses as bare text, so they take the
  ``.highlight`` colour, as the span did. The token types are computed from the styles, never
  listed by hand; ``plain_classes_styled`` fails the build if some other style sheet gives one
  of those classes a rule of its own.
* **Style rules that select nothing.** pydata-sphinx-theme's CSS holds all of Bootstrap 5
  (312 KB after ``theme_icons.py`` cuts its icons). :func:`purge_css` drops each rule none of
  whose selectors can match: a selector needs every class it names (outside ``:not()``,
  ``:is()``, ``:where()``, ``:has()`` and attribute selectors, which are kept) to be a word of
  some built page or of some script in ``_static``, or to start with a prefix that a script
  builds names from (``bs-${name}-auto``). Words of the prose count too, so the test is
  generous: a rule is kept when in doubt. ``theme_icons.py`` calls it on the theme's original
  CSS on every build, so a class a page starts to use brings its rules back.
* **sphinx-design's CSS and script** (62 KB) on pages that hold none of its components (the
  book has none; Jupyter Book loads the extension by default).
* **Sphinx's search index and search scripts** (88 KB) on every page: the theme loads them
  for search-as-you-type, which this book leaves off (the search page loads its own).
  ``templates/layout.html`` passes the theme's head through :func:`drop_search_scripts`.

``templates/layout.html`` also passes the theme's css block through
:func:`drop_fontawesome_js`, which ``offline_assets.py`` explains; both of its filters are
registered here.

Each step warns when what it removes is not where it expects (the ``-W`` build then fails),
so a theme or Sphinx update cannot silently turn it into a no-op or break a page.
``tests/browser/test_pages.py`` holds every page to its size budget, and the browser tests
check the pages' look and behaviour.
"""

from __future__ import annotations

import re
from itertools import chain
from pathlib import Path

import tinycss2
from markupsafe import Markup
from pygments.formatters import HtmlFormatter
from pygments.styles import get_style_by_name
from pygments.token import STANDARD_TYPES, Text, _TokenType
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

# ----------------------------------------------------------------------------- code spans


class PlainTokensFormatter(HtmlFormatter):
    """Pygments' HTML formatter, with the token types in ``plain`` written as bare text."""

    plain: frozenset[_TokenType] = frozenset()

    def _get_css_class(self, ttype: _TokenType) -> str:
        return "" if ttype in self.plain else super()._get_css_class(ttype)

    def _get_css_classes(self, ttype: _TokenType) -> str:
        return " ".join(super()._get_css_classes(ttype).split())


def plain_token_types(style_names: list[str]) -> frozenset[_TokenType]:
    """The standard token types drawn exactly like plain text (``Text``) in every style."""
    styles = [get_style_by_name(name) for name in style_names]
    return frozenset(
        t
        for t in STANDARD_TYPES
        if all(s.style_for_token(t) == s.style_for_token(Text) for s in styles)
    )


def site_styles(app: Sphinx) -> list[str]:
    """The highlighting styles of the site: pydata-sphinx-theme's light and dark styles, read as
    the theme reads them (its options, else its ``theme.conf``)."""
    from pydata_sphinx_theme.utils import get_theme_options_dict

    options, defaults = get_theme_options_dict(app), app.builder.theme.get_options()
    return [options.get(k) or defaults[k] for k in ("pygments_light_style", "pygments_dark_style")]


def use_plain_tokens(app: Sphinx) -> None:
    highlighter = getattr(app.builder, "highlighter", None)
    if app.builder.format != "html" or highlighter is None:
        return
    plain = plain_token_types(site_styles(app))
    highlighter.formatter = type("SiteFormatter", (PlainTokensFormatter,), {"plain": plain})
    app.env.mha_plain_classes = sorted(filter(None, (STANDARD_TYPES[t] for t in plain)))


def plain_classes_styled(outdir: Path, classes: list[str]) -> list[str]:
    """The style sheets of ``_static`` (not pygments.css) whose rules name one of ``classes``
    next to ``highlight``: a rule the bare text would no longer get."""
    names = "|".join(map(re.escape, classes))
    pattern = re.compile(rf"highlight[^{{}},]*\.(?:{names})(?![\w-])")
    return [
        p.name
        for p in (outdir / "_static").rglob("*.css")
        if p.name != "pygments.css"
        and pattern.search(p.read_text(encoding="utf-8", errors="ignore"))
    ]


# ----------------------------------------------------------------------------- style rules

WORD = re.compile(r"[A-Za-z_][\w-]*")
CLASS = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
# What a selector may hold that does not have to match for the rule to apply: attribute
# selectors, and the classes inside functional pseudo-classes (not(), is(), where(), has()).
NOT_REQUIRED = re.compile(r"\[[^\]]*\]|:(?:not|is|where|has)\((?:[^()]|\([^()]*\))*\)")
GROUP_RULES = {"media", "supports", "container", "layer", "document"}


def words_in_use(outdir: Path) -> tuple[set[str], tuple[str, ...]]:
    """Every word of the built pages and of the scripts in ``_static`` (but ``fontawesome.js``,
    which is not loaded), and the prefixes scripts build class names from (words ending in
    ``-``, as ``bs-`` in ``bs-${name}-auto``)."""
    words: set[str] = set()
    prefixes: set[str] = set()
    for path in chain(outdir.rglob("*.html"), (outdir / "_static").rglob("*.js")):
        if path.name == "fontawesome.js":
            continue
        found = WORD.findall(path.read_text(encoding="utf-8", errors="ignore"))
        words.update(found)
        if path.suffix == ".js":
            prefixes.update(w for w in found if w.endswith("-") and len(w) > 2)
    return words, tuple(sorted(prefixes))


def selector_may_match(selector: str, words: set[str], prefixes: tuple[str, ...]) -> bool:
    """Whether every class the selector needs is in use (a word, or under a prefix)."""
    needed = CLASS.findall(NOT_REQUIRED.sub("", selector))
    return all(c in words or c.startswith(prefixes) for c in needed)


def purge_css(css: str, words: set[str], prefixes: tuple[str, ...] = ()) -> tuple[str, int]:
    """``css`` without the rules none of whose selectors may match; and how many were dropped."""

    def purge(rules: list) -> tuple[str, int]:
        out, dropped = [], 0
        for rule in rules:
            if rule.type == "qualified-rule":
                selectors = tinycss2.serialize(rule.prelude).split(",")
                if any(selector_may_match(s, words, prefixes) for s in selectors):
                    out.append(tinycss2.serialize([rule]))
                else:
                    dropped += 1
            elif rule.type == "at-rule" and rule.lower_at_keyword in GROUP_RULES and rule.content:
                inner, n = purge(
                    tinycss2.parse_blocks_contents(
                        rule.content, skip_comments=True, skip_whitespace=True
                    )
                )
                dropped += n
                if inner:
                    out.append(f"@{rule.at_keyword}{tinycss2.serialize(rule.prelude)}{{{inner}}}")
            elif rule.type != "comment":
                out.append(tinycss2.serialize([rule]))
        return "".join(out), dropped

    out, dropped = purge(tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True))
    return ascii_css(out), dropped


HEX_OR_SPACE = set("0123456789abcdefABCDEF \t\n")


def ascii_css(css: str) -> str:
    """``css`` with each non-ASCII character as a CSS escape, as the theme writes its icons
    (``content:"\\f0c9"``; tinycss2 writes the characters themselves): ``\\hex``, with the
    space that ends an escape only where a hex digit or a space follows."""
    out = []
    for i, ch in enumerate(css):
        if ord(ch) < 0x80:
            out.append(ch)
            continue
        ends = css[i + 1 : i + 2] in HEX_OR_SPACE  # this escape needs its closing space
        out.append(f"\\{ord(ch):x}" + (" " if ends else ""))
    return "".join(out)


# ----------------------------------------------------------------------------- assets

SPHINX_DESIGN_FILES = ("sphinx-design.min.css", "design-tabs.js")
SPHINX_DESIGN_CLASS = re.compile(r'class="[^"]*\bsd-')
_reported: set[str] = set()


def warn_once(key: str, message: str) -> None:
    if key not in _reported:
        _reported.add(key)
        logger.warning(f"lean_pages: {message}")


def asset_name(entry: object) -> str:
    """The file name of a ``css_files`` / ``script_files`` entry (no folder, no ``?v=``)."""
    return Path(str(getattr(entry, "filename", entry) or "").split("?")[0]).name


def drop_unused_design(
    app: Sphinx, pagename: str, templatename: str, context: dict, doctree
) -> None:
    """``html-page-context``: a page without sphinx-design components loads none of its files."""
    if SPHINX_DESIGN_CLASS.search(context.get("body", "")):
        return
    dropped = 0
    for key in ("css_files", "script_files"):
        files = context.get(key, [])
        context[key] = [f for f in files if asset_name(f) not in SPHINX_DESIGN_FILES]
        dropped += len(files) - len(context[key])
    if dropped != len(SPHINX_DESIGN_FILES):
        warn_once(
            "design",
            f"{dropped} of sphinx-design's files {SPHINX_DESIGN_FILES} found on "
            f"page {pagename} (sphinx-design changed?)",
        )


SEARCH_SCRIPTS = re.compile(
    r'\s*<script src="[^"]*'
    r'(?:_static/searchtools\.js|_static/language_data\.js|searchindex\.js)"></script>'
)


def drop_search_scripts(
    head: str, search_as_you_type: object = False, pagename: str = ""
) -> Markup:
    """Jinja filter (``templates/layout.html``): the theme's extra head without Sphinx's search
    scripts, which only search-as-you-type uses (the search page loads its own)."""
    if pagename == "search" or str(search_as_you_type).lower() in ("true", "1", "yes"):
        return Markup(head)
    out, n = SEARCH_SCRIPTS.subn("", str(head))
    if n != 3:
        warn_once(
            "search",
            f"{n} of the theme's 3 search scripts found in the head of {pagename} (theme changed?)",
        )
    return Markup(out)


FONTAWESOME_JS = re.compile(
    r'\s*<script\b[^>]*\bsrc="[^"]*/scripts/fontawesome\.js[^"]*"[^>]*>\s*</script>'
)


def drop_fontawesome_js(html: str) -> Markup:
    """Jinja filter (``templates/layout.html``): the theme's css block without fontawesome.js
    (why: ``offline_assets.py``)."""
    out, n = FONTAWESOME_JS.subn("", str(html))
    if n == 0:
        warn_once(
            "fontawesome",
            "the theme's css block has no fontawesome.js script tag to drop "
            "(pydata-sphinx-theme changed?): check templates/layout.html",
        )
    return Markup(out)


# The filters that templates/layout.html applies, by the names it uses.
TEMPLATE_FILTERS = {
    "mha_drop_fontawesome_js": drop_fontawesome_js,
    "mha_drop_search_scripts": drop_search_scripts,
}


def add_template_filters(app: Sphinx) -> None:
    templates = getattr(app.builder, "templates", None)
    if templates is not None and hasattr(templates, "environment"):
        templates.environment.filters.update(TEMPLATE_FILTERS)


def check_plain_classes(app: Sphinx, exception: Exception | None) -> None:
    """``build-finished``: warn if some style sheet styles the code spans written as bare text."""
    if exception is not None or app.builder.format != "html":
        return
    classes = getattr(app.env, "mha_plain_classes", [])
    styled = plain_classes_styled(Path(app.outdir), classes) if classes else []
    if styled:
        warn_once(
            "plain",
            f"{', '.join(styled)} style code spans of classes {classes}, which "
            "the site's formatter writes as bare text",
        )


def setup(app: Sphinx) -> dict:
    app.connect("builder-inited", use_plain_tokens)
    app.connect("builder-inited", add_template_filters)
    app.connect("html-page-context", drop_unused_design)
    app.connect("build-finished", check_plain_classes)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
