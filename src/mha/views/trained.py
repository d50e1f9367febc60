"""Trained heads: what the trained explorer (:mod:`mha.views.trained_view`) shows, and its
numbers recomputed by another route.

The heads are the stored runs of :mod:`mha.training.store` (every setting of ``h`` heads
of width ``d_k`` it holds, all its seeds). The explorer is computed in the reader's browser
(``static/trained_view.mjs``); this module keeps what it shares with Python (the setting's
label, the positions' labels, the vocabulary message, where it opens) and the expected
values of its two view types:

* ``trained-rows``: every head's row of weights for the chosen word over the seven
  positions the model reads, every head's full table, and, for a sentence of the task's
  shape, the subject and object that the read-out at the verb names (with heads off);
* ``trained-metrics``: the run's loss and accuracy on the held-out sentences, and how
  every stored seed of that setting did.

Expected values are recomputed from the stored weights by another route than the model's
forward pass: PyTorch's ``scaled_dot_product_attention``, head by head.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from mha.training import (
    D_MODEL,
    NOUNS,
    PAD,
    SEEDS,
    SHOW,
    VOCAB,
    encode,
    reference,
    split,
    word_ids,
)
from mha.training.probe import SOLVED_AT
from mha.training.store import load_state
from mha.views.expected import register_expected

# Where the trained explorer opens: three heads of width 4, the first seed.
START_SETTING: tuple[int, int] = (3, 4)
START_SEED: int = 0


def setting_label(h: int, d_k: int) -> str:
    """``"3 × 4"``, with ``"(each head full width)"`` when the heads do not split ``d_model``."""
    return f"{h} × {d_k}" + (" (each head full width)" if h * d_k != D_MODEL else "")


PAD_LABEL = "pad"  # how the views label the positions that padding fills


def position_labels(words: Sequence[str]) -> list[str]:
    """The seven positions the model reads: the words, a repeated word numbered by its
    occurrence (``"the (1st)"``, ``"the (2nd)"``, as :data:`mha.toy.WORD_LABELS`), then
    :data:`PAD_LABEL` for each position that padding fills."""
    seen: dict[str, int] = {}
    labels = []
    for w in words:
        seen[w] = seen.get(w, 0) + 1
        k = seen[w]
        nth = f"{k}{({1: 'st', 2: 'nd', 3: 'rd'}).get(k, 'th')}"
        labels.append(f"{w} ({nth})" if words.count(w) > 1 else w)
    return labels + [PAD_LABEL] * (len(SHOW) - len(words))


def words_of(text: str) -> list[str]:
    """A typed sentence as words: lower case, a full stop as a word of its own."""
    return text.lower().replace(".", f" {PAD} ").split()


def vocabulary_list() -> str:
    """The task's vocabulary in words: its words, then the full stop (:data:`PAD`) named, so
    that no "." ends a line on a "."."""
    return ", ".join(w for w in VOCAB if w != PAD) + f" and the full stop “{PAD}”"


def vocabulary_message(words: Sequence[str]) -> str | None:
    """One line saying why ``words`` cannot be read, or ``None`` if they can."""
    vocab = vocabulary_list()
    unknown = [w for w in words if w not in VOCAB]
    if unknown:
        listed = ", ".join(f"“{w}”" for w in dict.fromkeys(unknown))
        return f"Not in the task's vocabulary: {listed}. The vocabulary is: {vocab}."
    if not 1 <= len(words) <= len(SHOW):
        return f"Type 1 to {len(SHOW)} words of the vocabulary ({len(words)} typed): {vocab}."
    return None


# --------------------------------------------------------- expected values, another route


@register_expected("trained-rows")
def expected_rows(
    h: str, dk: str, seed: str, sentence: str, word: str, off: str = ""
) -> dict[str, object]:
    """Numbers a ``trained-rows`` view shows, from the stored weights via SDPA: every head's
    row for ``word`` (``r{i}-{j}``) and full table (``w{i}-{r}-{c}``, rows the sentence's
    words), and the read-out's answer with the heads ``off`` (space-separated, from 0)
    switched off by zeroing their rows of ``W_o``, as :mod:`mha.training.ablation` does."""
    state = load_state(int(h), int(dk), int(seed))
    W_o = state["W_o"].clone()  # (h*d_k, d_model)
    for i in (int(x) for x in off.split()):
        W_o[i * int(dk) : (i + 1) * int(dk)] = 0.0  # (d_k, d_model): head i's block
    state = {**state, "W_o": W_o}
    words = sentence.split()
    tokens = torch.tensor([word_ids(words)])  # (1, n)
    weights = reference.layer(state, tokens)[0][0]  # (h, n, n)
    out: dict[str, object] = {
        f"r{i}-{j}": float(weights[i, int(word), j])
        for i in range(weights.shape[0])
        for j in range(weights.shape[2])
    }
    out |= {
        f"w{i}-{r}-{c}": float(weights[i, r, c])
        for i in range(weights.shape[0])
        for r in range(len(words))
        for c in range(weights.shape[2])
    }
    try:
        _, v, _, _ = encode(words)
    except ValueError:
        return out
    guess = reference.logits(state, tokens, torch.tensor([v]))[0].argmax(-1)  # (2,)
    return out | {"subject": NOUNS[int(guess[0])], "object": NOUNS[int(guess[1])]}


@register_expected("trained-metrics")
def expected_metrics(h: str, dk: str, seed: str) -> dict[str, float]:
    """Numbers a ``trained-metrics`` view shows, from the stored weights via SDPA."""
    runs = [reference.held_out(int(h), int(dk), s) for s in SEEDS]
    both = [r["both"] for r in runs]
    return reference.held_out(int(h), int(dk), int(seed)) | {
        "n_test": len(split()[1]),  # (not cached: counted afresh)
        "solved": sum(b >= SOLVED_AT for b in both),
        "runs": len(runs),
        "mean_both": sum(both) / len(both),
        "min_both": min(both),
    }
