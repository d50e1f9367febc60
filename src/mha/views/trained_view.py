"""The trained explorer of chapters 2 and 5: an anywidget whose browser side computes the views.

The view (``static/trained_view.mjs``) runs the trained model of :mod:`mha.training` on a
sentence the reader types (any words of the task's vocabulary), for every stored setting
(:data:`mha.training.SETTINGS`) and every stored seed (:data:`mha.training.SEEDS`), with any
heads switched off (as :func:`mha.training.ablation.without_head` does: their rows of
``W^O`` count as zero). It draws every head's row for a chosen word as bars, every head's
full weight table with that row framed, the read-out's answer at the verb, and the run's
held-out metrics, and whether the sentence is one the run trained on. The numbers are
computed in the browser by ``modelForward`` of
``static/mha_views.mjs``, the book's maths ported to JavaScript and checked against it;
Python only sends the inputs as traits: the stored weights (float32, little-endian, base64:
float32 keeps attention weights within 1e-6 of the stored float64 model's, measured by
tests/test_trained_view.py over every stored run), the stored metrics, and the task's
held-out sentences.

Each view keeps the ``data-*`` contract: :mod:`mha.views.trained`'s ``expected_rows`` and
``expected_metrics`` recompute its numbers in torch by another route (PyTorch's SDPA on the
stored float64 weights).
"""

from __future__ import annotations

import base64

import numpy as np
import traitlets

from mha.training import (
    ADJECTIVES,
    D_MODEL,
    MAX_LEN,
    NOUNS,
    PAD,
    SEEDS,
    SETTINGS,
    SHOW,
    SOLVED_AT,
    VERBS,
    VOCAB,
    metrics,
    split,
)
from mha.training.store import load_state
from mha.views.anywidgets import View
from mha.views.trained import START_SEED, START_SETTING, setting_label

# The order in which one run's parameters follow each other in a setting's blob.
PARAMS: tuple[str, ...] = ("embed", "W_q", "W_k", "W_v", "W_o", "read", "bias")
METRICS: tuple[str, ...] = ("test_loss", "test_subject", "test_object", "test_both")


def weights_blob(h: int, d_k: int, seeds: tuple[int, ...] = SEEDS) -> str:
    """Every seed's stored parameters of one setting, in :data:`PARAMS` order, seed after
    seed, as float32 little-endian bytes in base64."""
    parts = []
    for seed in seeds:
        state = load_state(h, d_k, seed)
        parts += [state[name].numpy().astype("<f4").ravel() for name in PARAMS]
    return base64.b64encode(np.concatenate(parts).tobytes()).decode("ascii")


def sentences_text(tokens: list[list[int]]) -> str:
    """Sentences of word ids as one string: each id one base-36 digit, sentences by spaces."""
    if len(VOCAB) > 36:
        raise ValueError(f"a vocabulary of {len(VOCAB)} words needs more than one digit a word")
    return " ".join("".join(np.base_repr(t, 36).lower() for t in ids) for ids in tokens)


class TrainedView(View, module="trained_view", link="trained"):
    """The trained explorer. Inputs: ``settings`` (``[h, d_k, label]`` each), ``seeds``, and
    per setting ``weights`` (:func:`weights_blob`) and ``metrics`` (per seed, the held-out
    loss, subject, object and both accuracy); the task's ``vocab``, ``nouns``, ``verbs``,
    ``adjectives``, ``pad``, ``max_len``, ``d_model``; ``test``, its held-out sentences
    (:func:`sentences_text`; the others of its shape are its training sentences);
    ``solved_at``. The reader's settings: ``setting``
    (an index into ``settings``), ``seed``, ``text`` (the sentence), ``word`` (a position
    in it), ``off`` (the heads switched off, from 0); ``link``, the view's name in the page's
    URL fragment (``#trained-1:h=3,dk=4,seed=7,text=the+dog+bit+the+hen,word=2,off=2``);
    ``_mha_lazy``, ``{"weights": "setting"}``: the site's pages hold the weights of the setting
    the view opens at only, and load another's when the view asks for it (its element of
    ``weights`` is null there; book/_ext/static_widgets.py)."""

    settings = traitlets.List().tag(sync=True)
    seeds = traitlets.List(traitlets.Int()).tag(sync=True)
    weights = traitlets.List(traitlets.Unicode()).tag(sync=True)
    metrics = traitlets.List().tag(sync=True)
    vocab = traitlets.List(traitlets.Unicode()).tag(sync=True)
    nouns = traitlets.List(traitlets.Unicode()).tag(sync=True)
    verbs = traitlets.List(traitlets.Unicode()).tag(sync=True)
    adjectives = traitlets.List(traitlets.Unicode()).tag(sync=True)
    pad = traitlets.Unicode(PAD).tag(sync=True)
    max_len = traitlets.Int(MAX_LEN).tag(sync=True)
    d_model = traitlets.Int(D_MODEL).tag(sync=True)
    test = traitlets.Unicode().tag(sync=True)
    solved_at = traitlets.Float(SOLVED_AT).tag(sync=True)
    setting = traitlets.Int(0).tag(sync=True)
    seed = traitlets.Int(0).tag(sync=True)
    text = traitlets.Unicode("").tag(sync=True)
    word = traitlets.Int(0).tag(sync=True)
    off = traitlets.List(traitlets.Int()).tag(sync=True)
    _mha_lazy = traitlets.Dict({"weights": "setting"}).tag(sync=True)


def trained_view(
    setting: tuple[int, int] = START_SETTING,
    seed: int = START_SEED,
    words: tuple[str, ...] = SHOW,
    word: int | None = None,
    off: tuple[int, ...] = (),
    link: str | None = None,
) -> TrainedView:
    """The trained explorer over every stored setting and seed, opening at ``setting``,
    ``seed``, the sentence ``words`` and its word ``word`` (default: the verb, else the
    first word) with the heads ``off`` switched off; ``link`` names it in permalinks
    (default ``trained-N`` for the N-th trained view made in this kernel)."""
    if setting not in SETTINGS or seed not in SEEDS:
        raise ValueError(f"setting {setting}, seed {seed}: choose from {SETTINGS}, {SEEDS}")
    verbs = [p for p, w in enumerate(words) if w in VERBS]
    word = word if word is not None else (verbs[0] if verbs else 0)
    if not 0 <= word < len(words) or not all(0 <= i < setting[0] for i in off):
        raise ValueError(f"word {word} of {len(words)} words, heads off {off} of {setting[0]}")
    return TrainedView(
        settings=[[h, d_k, setting_label(h, d_k)] for h, d_k in SETTINGS],
        seeds=list(SEEDS),
        weights=[weights_blob(h, d_k) for h, d_k in SETTINGS],
        metrics=[[[metrics(h, d_k, s)[k] for k in METRICS] for s in SEEDS] for h, d_k in SETTINGS],
        vocab=list(VOCAB),
        nouns=list(NOUNS),
        verbs=list(VERBS),
        adjectives=list(ADJECTIVES),
        test=sentences_text(split()[1].tokens.tolist()),
        setting=SETTINGS.index(setting),
        seed=seed,
        text=" ".join(words),
        word=word,
        off=sorted(off),
        link=link,
    )
