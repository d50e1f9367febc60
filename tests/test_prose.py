"""A lint of the built site's prose, like ruff for the code: sentences a student can read.

Every page must keep its mean sentence under :data:`~tests.prose.MAX_MEAN` words, at most
:data:`~tests.prose.MAX_SHARE_OVER_40` of its sentences over 40 words, and no sentence over
:data:`~tests.prose.MAX_WORDS`. ``tests/prose.py`` states the counting rule;
``python -m tests.prose 40`` lists the long sentences.
"""

from __future__ import annotations

import pytest

from tests import prose

PAGES = prose.pages()


@pytest.mark.build
def test_the_built_site_has_its_pages() -> None:
    assert len(PAGES) >= 7, f"build the book first (make book): found {PAGES}"


@pytest.mark.build
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_sentences_are_short(page) -> None:
    r = prose.measure(page)
    assert r.mean <= prose.MAX_MEAN, f"{r.page}: mean {r.mean:.1f} words a sentence"
    assert r.share_over_40 <= prose.MAX_SHARE_OVER_40, (
        f"{r.page}: {100 * r.share_over_40:.1f} % of sentences over 40 words"
    )
    assert len(r.longest) <= prose.MAX_WORDS, (
        f"{r.page}: {len(r.longest)} words: {' '.join(r.longest)}"
    )


def test_the_counting_rule() -> None:
    html = """<article><p>One two. Three four five! Fig. 5 shows six
    <mjx-container><svg>a b c</svg></mjx-container> words? e.g. this stays.</p>
    <div class="cell"><p>Code output is not prose.</p></div>
    <table><tr><td>Nor a table.</td></tr></table>
    <ul><li>An item <ul><li>and a nested one.</li></ul></li></ul>
    <figure><figcaption><p><span class="caption-number">Fig. 1 </span>A caption.</p>
    </figcaption></figure>
    <div class="solution"><p>Nor a worked solution.</p></div></article>"""
    texts = prose.block_texts(html)
    assert texts == [
        "One two. Three four five! Fig. 5 shows six ⟨formula⟩ words? e.g. this stays.",
        "An item",
        "and a nested one.",
        "A caption.",
    ]
    found = [len(s) for t in texts for s in prose.sentences_of(t)]
    assert found == [2, 3, 1, 8, 2, 4, 2]  # "Fig." before a digit ends a sentence
