"""The book's answer to "why several heads?" is one short statement, quoted word for word.

The statement is printed in full once in the book, in the introduction (``book/intro.md``),
as the bold block quote that begins "A softmax row"; the README prints it in full too. A
chapter that needs part of it quotes whole sentences of it, word for word, in a bold block
quote. Line breaks, block-quote markers (``>``) and bold markers (``**``) may differ.

The statement makes three claims about the stored training runs; the last test checks them
against those runs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "book" / "intro.md"
OPENING = "A softmax row"
# Files that quote part of the statement (at least once each); two more print it whole.
QUOTED_IN = (
    "notebooks/01_one_budget.md",
    "notebooks/02_run_it_again.md",
    "notebooks/05_what_heads_learn.md",
)
WHOLE_IN = ("book/intro.md", "README.md")
# Words a learner's first page should not need.
STATISTICAL = (
    "p-value",
    "p =",
    "test",
    "Fisher",
    "Bonferroni",
    "correct",
    "seed",
    "interval",
    "significan",
    "confidence",
    "%",
)


def unquote(text: str) -> str:
    """Text with block-quote markers removed."""
    return re.sub(r"^[ \t]*>[ \t]?", "", text, flags=re.MULTILINE)


def flatten(text: str) -> str:
    """Text with block-quote and bold markers removed and all whitespace single."""
    return " ".join(unquote(text).replace("**", " ").split())


def bold_quotes(text: str) -> list[str]:
    """The bold passages of the block quotes in ``text``, whitespace made single."""
    quotes = re.findall(r"(?:^[ \t]*>.*\n?)+", text, flags=re.MULTILINE)
    return [
        " ".join(b.split()) for q in quotes for b in re.findall(r"\*\*(.+?)\*\*", unquote(q), re.S)
    ]


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=\.)\s+(?=[A-Z])", text) if s]


def thesis() -> str:
    """The statement as the introduction gives it."""
    found = [b for b in bold_quotes(SOURCE.read_text()) if b.startswith(OPENING)]
    assert len(found) == 1, f"{SOURCE.name} must state the answer once, in bold; found {len(found)}"
    return found[0]


def test_the_statement_is_short_and_plain() -> None:
    statement = thesis()
    assert len(statement.split()) <= 60, f"{len(statement.split())} words: {statement}"
    assert 2 <= len(sentences(statement)) <= 3, sentences(statement)
    for term in STATISTICAL:
        assert term.lower() not in statement.lower(), f"the statement uses {term!r}: {statement}"
    for part in ("sums to one", "several rows", "parameters and multiply-adds", "value columns"):
        assert part in statement, f"the statement lost {part!r}: {statement}"


@pytest.mark.parametrize("rel", WHOLE_IN)
def test_the_statement_is_printed_whole(rel: str) -> None:
    found = flatten((ROOT / rel).read_text(encoding="utf-8")).count(thesis())
    assert found == 1, f"{rel} prints the statement {found} time(s), expected 1"


@pytest.mark.parametrize("rel", QUOTED_IN)
def test_a_chapter_quotes_whole_sentences_word_for_word(rel: str) -> None:
    whole = sentences(thesis())
    quotes = [q for q in bold_quotes((ROOT / rel).read_text(encoding="utf-8")) if q in thesis()]
    assert quotes, f"{rel} quotes no sentence of the statement; copy one from {SOURCE.name}"
    for q in quotes:
        assert all(s in whole for s in sentences(q)), f"{rel} quotes part of a sentence: {q!r}"
    # No near-copy: a bold quote that opens like a sentence of the statement must be one.
    for q in bold_quotes((ROOT / rel).read_text(encoding="utf-8")):
        for s in whole:
            if q[:25] == s[:25]:
                assert q in thesis(), f"{rel} rewords the statement: {q!r}"


def test_bold_quotes_are_read_from_block_quotes_only() -> None:
    text = "Some **bold** prose.\n\n> **A softmax row sums to one.**\n> More.\n"
    assert bold_quotes(text) == ["A softmax row sums to one."]
    assert sentences("One. Two words. Three") == ["One.", "Two words.", "Three"]


def test_the_statement_matches_the_runs() -> None:
    """ "several heads solved it more often": every narrow setting with several heads solved
    the task on more of the same seeds than one head; "the extra rows, not separate value
    columns, made the difference": layers whose heads share one set of value columns (several
    rows, one set of columns) also solved it more often than one head, and within one run of
    the ordinary layer with the same heads."""
    from mha.training import results, variants
    from mha.training.data import D_MODEL
    from mha.training.more import seeds_of
    from mha.training.store import SETTINGS

    for h, d_k in SETTINGS:
        if h > 1 and h * d_k == D_MODEL:
            seeds = seeds_of(h, d_k)  # one head was trained on every seed of every setting
            one = results.setting(1, D_MODEL, seeds).solved
            assert results.setting(h, d_k, seeds).solved > one, (h, d_k, one)
    one_tied_seeds = results.setting(1, D_MODEL, variants.TIED_SEEDS).solved
    for h, d_k in variants.TIED_SETTINGS:
        tied = variants.tied_setting(h, d_k).solved
        ordinary = results.setting(h, d_k, variants.TIED_SEEDS).solved
        assert tied > one_tied_seeds, (h, d_k, tied, one_tied_seeds)
        assert abs(tied - ordinary) <= 1, (h, d_k, tied, ordinary)
