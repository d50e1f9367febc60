"""How long the sentences of the built site are: the counting rule of the prose lint.

The rule, applied to every page of ``_build/html``:

- **What counts as prose.** The text of paragraphs, list items and figure captions in the
  page's article. Left out: code cells and their outputs (which include the widgets and
  the tables code prints), tables, worked solutions, the figure-number label of a caption
  ("Fig. 5"), and the page's navigation.
- **Words.** A typeset formula counts as one word, whatever its length. Any other word is
  a run of characters between spaces that holds at least one letter or digit.
- **Sentences.** A sentence ends at ``.``, ``!`` or ``?`` followed by a space and then a
  capital letter or a digit, and at the end of every paragraph, list item and caption.

``python -m tests.prose`` prints each page's figures.
"""

from __future__ import annotations

import re
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"

# The limits every page must meet.
MAX_MEAN = 20.0
MAX_SHARE_OVER_40 = 0.03
MAX_WORDS = 60

BLOCKS = ("p", "li", "figcaption", "dt", "dd")
# Removed before counting: code cells with their outputs, tables, solutions, caption labels.
SKIP = ("div.cell", "table", "div.solution", "span.caption-number", "div.highlight", "pre")
NESTED = (*BLOCKS, "ul", "ol")
FORMULA = "mjx-container"
SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)]*\s+(?=[A-Z0-9])")


@dataclass(frozen=True)
class PageProse:
    """The sentences of one page, each as its list of words."""

    page: str
    sentences: list[list[str]]

    @property
    def words(self) -> int:
        return sum(len(s) for s in self.sentences)

    @property
    def mean(self) -> float:
        return self.words / len(self.sentences) if self.sentences else 0.0

    @property
    def share_over_40(self) -> float:
        return (
            sum(len(s) > 40 for s in self.sentences) / len(self.sentences)
            if self.sentences
            else 0.0
        )

    @property
    def longest(self) -> list[str]:
        return max(self.sentences, key=len, default=[])


def block_texts(html: str) -> list[str]:
    """The text of each prose block of a page's article, formulas replaced by one word."""
    soup = BeautifulSoup(html, "html.parser")
    article = soup.find("article") or soup
    for selector in SKIP:
        for node in article.select(selector):
            node.decompose()
    for node in article.find_all(FORMULA):
        node.replace_with(" ⟨formula⟩ ")
    texts = []
    for block in article.find_all(BLOCKS):
        # Only the block's own text: a list item that holds paragraphs or a nested list
        # leaves that text to them.
        own = [str(s) for s in block.find_all(string=True) if s.find_parent(NESTED) is block]
        text = " ".join("".join(own).split())
        if text:
            texts.append(text)
    return texts


def sentences_of(text: str) -> list[list[str]]:
    """The sentences of one block of text, each as its list of words."""
    found = []
    for part in SENTENCE_END.split(text):
        words = [w for w in part.split() if w == "⟨formula⟩" or re.search(r"\w", w)]
        if words:
            found.append(words)
    return found


def measure(page: Path) -> PageProse:
    """The prose of one built page."""
    sentences = [s for t in block_texts(page.read_text(encoding="utf-8")) for s in sentences_of(t)]
    return PageProse(str(page.relative_to(HTML)), sentences)


def pages() -> list[Path]:
    """The book's pages: the intro, the chapters and the appendix (not search or the index)."""
    found = sorted(HTML.glob("book/*.html")) + sorted(HTML.glob("notebooks/*.html"))
    return [p for p in found if p.name not in {"genindex.html", "search.html"}]


def report() -> str:
    """One line per page: words, sentences, mean, share over 40 words, longest."""
    rows = [measure(p) for p in pages()]
    lines = [f"{'page':45} {'words':>6} {'sent.':>5} {'mean':>5} {'>40':>6} {'max':>4}"]
    for r in rows:
        lines.append(
            f"{r.page:45} {r.words:6d} {len(r.sentences):5d} {r.mean:5.1f} "
            f"{100 * r.share_over_40:5.1f}% {len(r.longest):4d}"
        )
    every = [s for r in rows for s in r.sentences]
    lines.append(
        f"{'all pages':45} {sum(map(len, every)):6d} {len(every):5d} "
        f"{statistics.fmean(map(len, every)):5.1f} "
        f"{100 * sum(len(s) > 40 for s in every) / len(every):5.1f}% {max(map(len, every)):4d}"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) > 1:  # python -m tests.prose N: also print the sentences over N words
        limit = int(sys.argv[1])
        for p in pages():
            for s in measure(p).sentences:
                if len(s) > limit:
                    print(f"{p.name} ({len(s)}): {' '.join(s)}\n")
    print(report())
