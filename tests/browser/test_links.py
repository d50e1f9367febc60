"""Every local link of every page resolves: the file exists and so does the #anchor.

Static (no browser): ``<a href>``, ``<link href>``, ``<script src>`` and ``<img src>`` of
each page of the build. Links with a scheme (https:, mailto:, ...) are not followed; the
browser tests separately prove that pages *load* nothing from outside 127.0.0.1.
"""

from __future__ import annotations

from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.browser import harness

PAGES = harness.or_missing(harness.book_pages())


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str]] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name") if tag == "a" else ("id",):
            if a.get(key):
                self.ids.add(a[key])
        attr = {"a": "href", "link": "href", "script": "src", "img": "src"}.get(tag)
        if attr and a.get(attr):
            self.refs.append((tag, a[attr]))


@cache
def _parse(path: Path) -> _Refs:
    p = _Refs()
    p.feed(path.read_text(encoding="utf-8"))
    p.close()
    return p


def broken_links(site: Path, rel: str) -> list[str]:
    """The local links of page ``rel`` of ``site`` whose file or #anchor is not in ``site``."""
    page = site / rel
    broken = []
    for tag, ref in _parse(page).refs:
        parts = urlsplit(ref)
        if parts.scheme or parts.netloc:
            continue  # external: not followed (and never loaded: see test_pages)
        target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file() or site.resolve() not in target.resolve().parents:
            broken.append(f"<{tag}> {ref}: no such file in the site")
            continue
        anchored = parts.fragment and target.suffix == ".html"
        if anchored and unquote(parts.fragment) not in _parse(target).ids:
            broken.append(f"<{tag}> {ref}: no id {parts.fragment!r} in {target.name}")
    return broken


@pytest.mark.parametrize("rel", PAGES)
def test_internal_links_resolve(rel, site: Path):
    assert (site / rel).is_file(), f"{rel} is not in the build"
    broken = broken_links(site, rel)
    assert broken == [], f"{rel}:\n" + "\n".join(broken)


PDF_NAME = "multi-head-attention.pdf"  # (book/_ext/pdf.py's PDF_NAME)


def pdf_links(site: Path, rel: str) -> list[str]:
    """The links of page ``rel`` of ``site`` to the book's PDF (read now: not cached)."""
    parser = _Refs()
    parser.feed(_html(site, rel))
    return [ref for _, ref in parser.refs if urlsplit(ref).path.endswith(PDF_NAME)]


def test_the_pdf_is_offered_exactly_when_the_site_holds_it(site: Path):
    """A site built by ``make book`` alone links no PDF; after ``make pdf``, every page's
    download menu links the PDF (book/_ext/pdf.py). Either way every link resolves (above)."""
    held = (site / PDF_NAME).is_file()
    pages = [p for p in harness.book_pages(site) if "dropdown-download-buttons" in _html(site, p)]
    assert pages, "no page has a download menu"
    wrong = {p: links for p in pages if len(links := pdf_links(site, p)) != int(held)}
    assert wrong == {}, f"the site {'holds' if held else 'lacks'} {PDF_NAME}: {wrong}"


def _html(site: Path, rel: str) -> str:
    return (site / rel).read_text(encoding="utf-8")
