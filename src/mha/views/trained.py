"""Trained heads: each head's row for a word of a sentence of the subject/object task.

The heads are the stored runs of :mod:`mha.training.store` (every setting of ``h`` heads
of width ``d_k`` it holds, several seeds each). Controls: the setting, the seed, one of a
few sentences and a word of it (the panel is :mod:`mha.views.trained_panel`). Two view
types:

* ``trained-rows``: every head's row of weights for the chosen word over the seven
  positions the model reads, and, for a sentence of the task's shape, the subject and
  object that the read-out at the verb names;
* ``trained-metrics``: the run's loss and accuracy on the held-out sentences, and how
  every stored seed of that setting did, so that setting and performance move together.

A ``trained-rows`` view can be drawn for any sentence of the task's vocabulary, which is
what the panel's live text box does.

Expected values are recomputed from the stored weights by another route than the model's
forward pass: PyTorch's ``scaled_dot_product_attention``, head by head.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import torch
from torch import Tensor

from mha.style import weight_colour
from mha.training import (
    D_MODEL,
    NOUNS,
    PAD,
    SEEDS,
    SHOW,
    VOCAB,
    encode,
    load_model,
    reference,
    split,
    word_ids,
)
from mha.training.probe import SOLVED_AT
from mha.training.store import load_state, metrics
from mha.views.html import cell, count, esc, note, number, view
from mha.views.switch import register_expected

# The sentences the static site offers; the first is the book's running sentence.
# Seeds and sentences offered without a kernel: every combination of setting, seed,
# sentence and word is a stored view, and the page that holds them must stay light.
SENTENCES: tuple[tuple[str, ...], ...] = (("the", "cat", "chased", "the", "mouse"), SHOW)
VIEW_SEEDS: tuple[int, ...] = (0, 1, 2)
# Where the trained panel opens: three heads of width 4, the first seed.
START_SETTING: tuple[int, int] = (3, 4)
START_SEED: int = 0


def setting_label(h: int, d_k: int) -> str:
    """``"3 × 4"``, with ``"(full width)"`` when the heads do not split ``d_model``."""
    return f"{h} × {d_k}" + (" (full width)" if h * d_k != D_MODEL else "")


def position_labels(words: Sequence[str]) -> list[str]:
    """The seven positions the model reads: the words, then ``PAD``; repeats numbered."""
    padded = [*words, *[PAD] * (len(SHOW) - len(words))]
    return [f"{w}\u00a0({p})" if padded.count(w) > 1 else w for p, w in enumerate(padded)]


def words_of(text: str) -> list[str]:
    """A typed sentence as words: lower case, a full stop as a word of its own."""
    return text.lower().replace(".", f" {PAD} ").split()


def vocabulary_message(words: Sequence[str]) -> str | None:
    """One line saying why ``words`` cannot be read, or ``None`` if they can."""
    vocab = ", ".join(VOCAB)
    unknown = [w for w in words if w not in VOCAB]
    if unknown:
        listed = ", ".join(f"“{w}”" for w in dict.fromkeys(unknown))
        return f"Not in the task's vocabulary: {listed}. The vocabulary is: {vocab}."
    if not 1 <= len(words) <= len(SHOW):
        return f"Type 1 to {len(SHOW)} words of the vocabulary ({len(words)} typed): {vocab}."
    return None


@functools.lru_cache(maxsize=256)
def _read(h: int, d_k: int, seed: int, words: tuple[str, ...]) -> tuple[Tensor, Tensor | None]:
    """A stored model on one sentence: its weights ``(h, n, n)`` and, for a sentence of the
    task's shape, the nouns its read-out names ``(2,)`` (subject, object), else ``None``."""
    model = load_model(h, d_k, seed)  # (read from a cache of the files)
    tokens = torch.tensor([word_ids(words)])  # (1, n)
    with torch.no_grad():
        out, weights = model.attend(tokens)  # (1, n, d_model), (1, h, n, n)
        try:
            v = encode(words)[1]
        except ValueError:
            return weights[0], None
        return weights[0], (out[0, v] @ model.read + model.bias).view(2, -1).argmax(-1)


def rows_html(h: int, d_k: int, seed: int, words: Sequence[str], word: int) -> str:
    """Every head's row ``(h, 7)`` for word ``word`` of ``words``, as one view."""
    weights, guess = _read(h, d_k, seed, tuple(words))  # (h, n, n), (2,) or None
    rows = weights[:, word]  # (h, n)
    labels = position_labels(words)
    head = "".join(
        f'<th scope="col"{" class=mha-hl" if j == word else ""}>{esc(x)}</th>'
        for j, x in enumerate(labels)
    )
    body = "".join(
        f'<tr><th scope="row">head {i + 1}</th>'
        + "".join(
            cell(f"r{i}-{j}", float(rows[i, j]), weight_colour(float(rows[i, j])))
            for j in range(rows.shape[1])
        )
        + "</tr>"
        for i in range(h)
    )
    table = (
        f'<table class="mha-heat"><thead><tr><th scope="col">{esc(labels[word])} → …</th>'
        f"{head}</tr></thead><tbody>{body}</tbody></table>"
    )
    if guess is None:
        answer = "Not of the task's shape (the noun verb the noun): no subject or object to name."
    else:
        s, o = NOUNS[int(guess[0])], NOUNS[int(guess[1])]
        answer = (
            f'Read-out at the verb: subject <b data-key="subject" data-value="{s}">{s}</b>, '
            f'object <b data-key="object" data-value="{o}">{o}</b>.'
        )
    ids = tuple(word_ids(words))
    seen = _sentences()
    where = seen.get(ids, "not one of the task's sentences")
    text = note(f"{esc(setting_label(h, d_k))}, seed {seed}: {where}. {answer}")
    sentence = " ".join(words)
    return view("trained-rows", text + table, h=h, d_k=d_k, seed=seed, sentence=sentence, word=word)


@functools.cache
def _sentences() -> dict[tuple[int, ...], str]:
    """Which part of the task's sentences each sentence belongs to."""
    train, test = split()
    parts = {tuple(t): "a training sentence" for t in train.tokens.tolist()}
    return parts | {tuple(t): "a held-out sentence" for t in test.tokens.tolist()}


@functools.cache
def _n_test() -> int:
    return len(split()[1])


# --------------------------------------------------------- expected values, another route


@register_expected("trained-rows")
def expected_rows(h: str, dk: str, seed: str, sentence: str, word: str) -> dict[str, object]:
    """Numbers a ``trained-rows`` view shows, from the stored weights via SDPA."""
    state = load_state(int(h), int(dk), int(seed))
    words = sentence.split()
    tokens = torch.tensor([word_ids(words)])  # (1, n)
    weights, _ = reference.layer(state, tokens)  # (1, h, n, n)
    rows = weights[0, :, int(word)]  # (h, n)
    out: dict[str, object] = {
        f"r{i}-{j}": float(rows[i, j]) for i in range(rows.shape[0]) for j in range(rows.shape[1])
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


def metrics_html(h: int, d_k: int, seed: int) -> str:
    """The stored run's held-out loss and accuracy, and how every seed of the setting did."""
    m = metrics(h, d_k, seed)
    both = [metrics(h, d_k, s)["test_both"] for s in SEEDS]
    n_test = _n_test()
    run = (
        f"Seed {seed}, on the {count('n_test', n_test)} held-out sentences: loss "
        f"{number('loss', m['test_loss'], spec='.2g')}; "
        f"subject right {number('subject', m['test_subject'], 3)}, "
        f"object right {number('object', m['test_object'], 3)}, "
        f"both right {number('both', m['test_both'], 3)}."
    )
    solved = sum(b >= SOLVED_AT for b in both)
    every = (
        f"All {count('runs', len(both))} stored seeds of {esc(setting_label(h, d_k))}: both nouns "
        f"right on at least {SOLVED_AT:.0%} of held-out sentences in {count('solved', solved)}; "
        f"both right {number('mean_both', sum(both) / len(both), 3)} on average, "
        f"{number('min_both', min(both), 3)} at worst."
    )
    return view("trained-metrics", note(run) + note(every), h=h, d_k=d_k, seed=seed)
