"""Figures of cross-attention: one sequence's words reading another's.

Rows are the words that ask (the sentence being written, in the decoder),
columns the words read (the source sentence, from the encoder); the two lists
differ, so the tables are not square.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from torch import Tensor

from mha.figures.attention import heatmap


def cross_weights(
    weights: Tensor,
    query_words: Sequence[str],
    key_words: Sequence[str],
    head_names: Sequence[str],
) -> Figure:
    """One weight table per head, side by side, every value printed.

    Args:
        weights: ``(h, n_q, n_k)``.
        query_words: the ``n_q`` words that ask (rows).
        key_words: the ``n_k`` words read (columns).
        head_names: the ``h`` panel titles.
    """
    h, n_q, n_k = weights.shape
    if (len(head_names), len(query_words), len(key_words)) != (h, n_q, n_k):
        raise ValueError(
            f"weights {tuple(weights.shape)} need {h} head names, {n_q} query words and "
            f"{n_k} key words, got {len(head_names)}, {len(query_words)} and {len(key_words)}"
        )
    fig, axes = plt.subplots(
        1, h, figsize=(1.0 + 0.95 * n_k * h, 1.0 + 0.62 * n_q + 1.2), sharey=True, squeeze=False
    )
    for i, ax in enumerate(axes[0]):
        heatmap(ax, weights[i], query_words, key_words, head_names[i])
        ax.set_xlabel("key: source word read")
        ax.set_ylabel("query: word being written" if i == 0 else "")
    fig.tight_layout()
    return fig
