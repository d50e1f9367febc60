"""book/_ext/lean_pages.py: what it leaves out of a page changes nothing on it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import ClassVar

import tinycss2
from pygments import highlight
from pygments.lexers import PythonLexer
from pygments.style import Style
from pygments.token import Keyword, Name, Number, Punctuation, Text

from tests.book_ext import lean_pages as L

WORDS = {"used", "also-used", "fa-bars"}


def kept_selectors(css: str) -> list[str]:
    """Every selector list of ``css``, nested ones (inside @media) included, in order."""
    out = []
    for rule in tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True):
        if rule.type == "qualified-rule":
            out.append(tinycss2.serialize(rule.prelude).strip())
        elif rule.type == "at-rule" and rule.content:
            out.append("@" + rule.lower_at_keyword)
            out += kept_selectors(tinycss2.serialize(rule.content))
    return out


def test_purge_drops_exactly_the_rules_no_selector_of_which_can_match() -> None:
    css = (
        ".used{a:1}.unused{a:2}.used .unused{a:3}.unused,.also-used{a:4}"
        "div.used:not(.unused){a:5}[class*=col-]{a:6}.x:is(.used,.unused){a:7}"
        ".bs-tooltip-auto{a:8}:root{--v:1}@font-face{font-family:f;src:url(f.woff2)}"
        "@media (min-width:1px){.unused{a:9}.used{a:10}}@media print{.unused{a:11}}"
    )
    out, dropped = L.purge_css(css, WORDS | {"x"}, ("bs-",))
    assert kept_selectors(out) == [
        ".used",
        ".unused,.also-used",
        "div.used:not(.unused)",
        "[class*=col-]",
        ".x:is(.used,.unused)",
        ".bs-tooltip-auto",
        ":root",
        "@font-face",
        "@media",
        ".used",
    ]
    assert dropped == 4  # .unused, .used .unused, and the two .unused inside @media
    assert "@media print" not in out  # an at-rule left with no rule goes too


def test_purge_without_the_prefix_drops_the_rule_built_from_it() -> None:
    out, dropped = L.purge_css(".bs-tooltip-auto{a:1}", WORDS)
    assert (out, dropped) == ("", 1)


def test_purged_css_keeps_escapes_as_the_theme_writes_them() -> None:
    css = '.fa-bars:before{content:"\\f0c9"}.used:after{content:"\\2014 1"}'
    out, _ = L.purge_css(css, WORDS)
    assert 'content:"\\f0c9"' in out  # theme_icons.py finds the icons it must keep this way
    assert out.isascii()
    values = [
        t.value
        for r in tinycss2.parse_stylesheet(out)
        for t in tinycss2.parse_blocks_contents(r.content)
        if t.type == "declaration"
        for t in t.value
        if t.type == "string"
    ]
    assert values == ["\uf0c9", "\u20141"]  # the same characters as the input's


class Bold(Style):
    styles: ClassVar[dict] = {Text: "#111111", Name: "bold #111111", Keyword: "#222222"}


class Same(Style):
    styles: ClassVar[dict] = {Text: "#111111", Name: "#111111", Keyword: "#222222"}


def test_plain_tokens_are_the_ones_drawn_like_text_in_every_style() -> None:
    site = L.plain_token_types(["a11y-high-contrast-light", "a11y-high-contrast-dark"])
    assert {Name, Punctuation} <= site and not {Keyword, Number.Integer} & site
    original = L.get_style_by_name
    try:
        L.get_style_by_name = {"same": Same, "bold": Bold}.get
        assert Name in L.plain_token_types(["same"])
        assert Name not in L.plain_token_types(["same", "bold"])  # one style draws it bold
    finally:
        L.get_style_by_name = original


def test_the_formatter_writes_plain_tokens_as_bare_text_and_keeps_the_rest() -> None:
    code = "import math\nx = math.sqrt(4)  # two\n"
    plain = L.plain_token_types(["a11y-high-contrast-light", "a11y-high-contrast-dark"])
    fmt = type("F", (L.PlainTokensFormatter,), {"plain": plain})
    html = highlight(code, PythonLexer(), fmt())
    classes = set(re.findall(r'<span class="([^"]*)"', html))
    assert classes and not classes & {"n", "p", "w", "nn", ""}
    assert {"kn", "mi", "c1"} <= classes
    text = re.sub(r"<[^>]+>", "", html).replace("&#39;", "'")
    assert code in text


HEAD = (
    '\n<meta name="docsearch:language" content="en"/>\n'
    '    <script src="../_static/searchtools.js"></script>\n'
    '    <script src="../_static/language_data.js"></script>\n'
    '    <script src="../searchindex.js"></script>\n'
)


def test_search_scripts_go_only_when_search_as_you_type_is_off() -> None:
    assert (
        str(L.drop_search_scripts(HEAD, "False", "intro"))
        == '\n<meta name="docsearch:language" content="en"/>\n'
    )
    assert str(L.drop_search_scripts(HEAD, True, "intro")) == HEAD
    assert str(L.drop_search_scripts(HEAD, False, "search")) == HEAD


def test_a_style_sheet_that_styles_a_plain_class_is_found(tmp_path: Path) -> None:
    static = tmp_path / "_static"
    static.mkdir()
    (static / "pygments.css").write_text(".highlight .n { color: #080808 }")
    (static / "theme.css").write_text(".highlight span.gp{user-select:none}")
    assert L.plain_classes_styled(tmp_path, ["n", "p"]) == []
    (static / "extra.css").write_text(".highlight .p,.x{font-weight:bold}")
    assert L.plain_classes_styled(tmp_path, ["n", "p"]) == ["extra.css"]
