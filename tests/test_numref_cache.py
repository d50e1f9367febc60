"""A ``{numref}`` reads the page it points to once per process (book/_ext/numref_cache.py),
and resolves to what Sphinx's own resolution gives."""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from docutils.utils import new_document

from tests.book_ext import numref_cache

ROOT = Path(__file__).resolve().parents[1]


class _Env:
    def __init__(self) -> None:
        self.reads: list[str] = []
        self.config = "the environment's own"

    def get_doctree(self, docname: str) -> nodes.document:
        self.reads.append(docname)
        return new_document(docname)


def test_each_page_is_read_once_until_the_environment_changes() -> None:
    env = _Env()
    seen = numref_cache._CachedDoctrees(env)  # type: ignore[arg-type]
    first = seen.get_doctree("notebooks/05")
    assert seen.get_doctree("notebooks/05") is first
    seen.get_doctree("notebooks/01")
    assert env.reads == ["notebooks/05", "notebooks/01"]
    assert seen.config == "the environment's own"  # everything else is the environment's
    numref_cache.forget()  # env-updated: the doctrees may have been read again
    assert seen.get_doctree("notebooks/05") is not first
    assert env.reads == ["notebooks/05", "notebooks/01", "notebooks/05"]


def test_every_figure_link_of_the_built_book_names_the_figure_s_own_number() -> None:
    """Each numref link to a figure reads as the number the figure's own caption shows
    (numbered by Sphinx's HTML writer, not by the link's resolution)."""
    site = ROOT / "_build" / "html"
    link = re.compile(
        r'<a class="reference internal" href="([^"#]*)#([^"]+)">'
        r'<span class="std std-numref">(Fig\. [\d.]+)</span>'
    )
    checked = 0
    for page in sorted(site.glob("*/*.html")):
        for target, anchor, text in link.findall(page.read_text()):
            html = (page.parent / target).read_text() if target else page.read_text()
            after = html[html.index(f'id="{anchor}"') :]
            number = re.search(r'<span class="caption-number">([^<]*?) </span>', after)
            assert number is not None and number.group(1) == text, (page.name, anchor, text)
            checked += 1
    assert checked >= 20
