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
    """One weight table per head, stacked top to bottom, every value printed.

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
        h, 1, figsize=(1.9 + 0.95 * n_k, h * (0.5 * n_q + 0.75) + 0.9), sharex=True, squeeze=False
    )
    for i, ax in enumerate(axes[:, 0]):
        heatmap(ax, weights[i], query_words, key_words, head_names[i])
        ax.set_aspect("auto")  # wide cells: the panels fill the figure's width
        ax.set_ylabel("word being written")
        ax.set_xlabel("source word read" if i == h - 1 else "")
    fig.tight_layout()
    return fig
