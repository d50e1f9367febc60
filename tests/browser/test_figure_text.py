"""Numbers in figure captions and alt text are the page's own numbers.

A caption or an alt text is typed, not computed, so each decimal number in it (such as
``0.83``) must also appear in the rest of the built page: in the prose (computed with
``{eval}``) or in an output the code printed. When the code's result changes, the
prose and outputs change with it, and this test catches a caption or alt text left
behind. Whole numbers (``5 by 5``, ``h = 1, 2, 4``) describe a figure's layout and are
not checked.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from tests.browser import harness

DECIMAL = re.compile(r"(?<![\d.])\d+\.\d+(?![\d.])")
CONTENT = harness.or_missing(
    [p for p in harness.book_pages() if p.startswith(("notebooks/", "book/intro"))], "chapter"
)


class _Split(HTMLParser):
    """The page's figure texts (captions, alt) apart from the rest of its text."""

    def __init__(self) -> None:
        super().__init__()
        self.figure_text: list[str] = []
        self.page_text: list[str] = []
        self._caption = 0
        self._script = 0  # widget state and code: not text a reader sees

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "style"):
            self._script += 1
        if tag == "img" and attrs.get("alt"):
            self.figure_text.append(attrs["alt"])
        if tag == "figcaption":
            self._caption += 1

    def handle_endtag(self, tag):
        if tag == "figcaption":
            self._caption -= 1
        if tag in ("script", "style"):
            self._script -= 1

    def handle_data(self, data):
        if self._script:
            return
        (self.figure_text if self._caption else self.page_text).append(data)


@pytest.mark.parametrize("rel", CONTENT)
def test_caption_and_alt_numbers_appear_in_the_page(rel: str) -> None:
    parser = _Split()
    parser.feed((harness.SITE / rel).read_text(encoding="utf-8"))
    text = " ".join(parser.page_text)
    shown = set(DECIMAL.findall(text))
    typed = {n for t in parser.figure_text for n in DECIMAL.findall(t)}
    assert typed - shown == set(), f"{rel}: figure texts quote numbers the page does not show"
