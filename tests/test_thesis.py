"""The book's thesis is one statement, used word for word wherever the book states it.

The statement is read from one place, the introduction (``book/intro.md``), where it is
the bold block quote that begins "One softmax row". Every other file that states the
thesis must contain exactly the same words; line breaks, block-quote markers (``>``) and
bold markers (``**``) may differ, nothing else may.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "book" / "intro.md"
# Each file that states the thesis, and how many times it must state it.
PLACES: dict[str, int] = {
    "book/intro.md": 1,
    "notebooks/01_one_budget.md": 2,  # near its opening and in its Summary
    "notebooks/02_run_it_again.md": 1,
    "notebooks/05_what_heads_learn.md": 1,
    "README.md": 1,
}
OPENING = "One softmax row"


def flatten(text: str) -> str:
    """Text with block-quote markers and bold markers removed and all whitespace single."""
    unquoted = re.sub(r"^[ \t]*>[ \t]?", "", text, flags=re.MULTILINE)
    return " ".join(unquoted.replace("**", " ").split())


def thesis() -> str:
    """The statement as the introduction gives it: its bold block quote on the thesis."""
    bold = re.findall(
        r"\*\*(.+?)\*\*", re.sub(r"^[ \t]*>[ \t]?", "", SOURCE.read_text(), flags=re.M), re.S
    )
    found = [" ".join(b.split()) for b in bold if b.strip().startswith(OPENING)]
    assert len(found) == 1, f"{SOURCE.name} must state the thesis once, in bold; found {len(found)}"
    return found[0]


def test_the_introduction_states_a_whole_thesis() -> None:
    statement = thesis()
    assert statement.endswith(".") and len(statement.split()) > 60, statement
    for part in ("$d_v$", "Several heads", "One head can still solve", "after 400 steps"):
        assert part in statement, f"the thesis lost {part!r}: {statement}"


@pytest.mark.parametrize("rel", sorted(PLACES))
def test_each_place_states_the_thesis_word_for_word(rel: str) -> None:
    text = flatten((ROOT / rel).read_text(encoding="utf-8"))
    found = text.count(thesis())
    assert found == PLACES[rel], (
        f"{rel} states the introduction's thesis {found} time(s), expected {PLACES[rel]}; "
        "copy it from book/intro.md word for word"
    )


def test_flatten_keeps_words_and_drops_only_layout() -> None:
    # A reworded copy must not match; a re-wrapped, quoted, bold copy must.
    statement = "One softmax row cannot give two words most of its weight at once."
    wrapped = "> **One softmax row cannot give\n> two words most of its weight at once.**"
    assert statement in flatten(wrapped)
    assert statement not in flatten(wrapped.replace("cannot", "can not"))


def test_the_thesis_quotes_the_runs_it_summarises() -> None:
    """The counts the thesis states in words are those of the stored runs: the step at which
    solutions are counted, and the seeds each tied-values setting was trained from."""
    from mha.training import variants
    from mha.training.loop import RunConfig

    statement = thesis()
    steps = RunConfig(h=1, d_k=12, seed=0).steps
    assert f"after {steps} steps" in statement, statement
    from mha.training import results
    from mha.training.data import D_MODEL
    from mha.training.store import SEEDS, SETTINGS

    words = {4: "four", 5: "five", 10: "ten", 20: "twenty"}
    n = len(variants.TIED_SEEDS)
    assert f"with {words[n]} seeds a setting" in statement, statement
    # "a benefit of up to about four runs in ten is not ruled out": the largest upper end of
    # Newcombe's interval for (ordinary share solved - tied share solved), in runs of ten
    assert variants.TIED_SEEDS == SEEDS  # tied and ordinary layers compared on the same seeds
    gain = max(
        results.compare(results.setting(h, d_k, SEEDS), variants.tied_setting(h, d_k)).high
        for h, d_k in variants.TIED_SETTINGS
    )
    assert f"up to about {words[round(gain * n)]} runs in {words[n]}" in statement, statement
    # "only one head's runs that lost one were still without it after 400 steps": the one
    # setting with runs that met the mark at some evaluation step and were below it at the last
    from mha.training.more import seeds_of

    lost = []
    for h, d_k in SETTINGS:
        counts = results.setting(h, d_k, seeds_of(h, d_k))
        if counts.reached > counts.solved:
            lost.append((h, d_k))
    assert lost == [(1, 12)], lost
    assert "only one head's runs that lost one were still without it after" in statement, statement
    # "once the four comparisons are corrected for": one per narrow setting with several heads
    several = [(h, d_k) for h, d_k in SETTINGS if h > 1 and h * d_k == D_MODEL]
    assert f"the {words[len(several)]} comparisons" in statement, statement
