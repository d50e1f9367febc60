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

from mha.training import (
    D_MODEL,
    PAD,
    SHOW,
    VOCAB,
)

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
