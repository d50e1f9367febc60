"""Expected values of the heads view's panels (:mod:`mha.views.heads_view`), by another route.

The heads view (chapters 1 to 4) draws, in the reader's browser, panels of the heads over
the toy sentence:

* ``rows``: every head's row for one chosen word, as bars;
* ``heads``: every head's full ``n x n`` weight table;
* ``concat``: the heads' outputs side by side.

This module keeps every panel type's expected values, recomputed by another route than the
one that drew it: PyTorch's ``scaled_dot_product_attention`` for weights and outputs (the
cost panel's, by FLOPs counted by PyTorch, are in :mod:`mha.views.cost`).
"""

from __future__ import annotations

import torch
from torch import Tensor
from torch.nn.functional import scaled_dot_product_attention

from mha import toy
from mha.views.expected import register_expected


def _torch_heads(h: int, d_k: int, seed: int, source: str = "random") -> tuple[Tensor, Tensor]:
    """Weights ``(h, 5, 5)`` and outputs ``(h, 5, d_k)`` of the heads, by PyTorch's SDPA."""
    heads = toy.designed_heads() if source == "designed" else toy.random_heads(h, d_k, seed)
    W_q, W_k, W_v = heads  # (h, 9, d_k) each
    Q, K, V = toy.X @ W_q, toy.X @ W_k, toy.X @ W_v  # (h, 5, d_k) each
    eye = torch.eye(5, dtype=torch.float64).expand(h, 5, 5)  # values that return the weights
    return scaled_dot_product_attention(Q, K, eye), scaled_dot_product_attention(Q, K, V)


@register_expected("heads")
def expected_heads(h: str, dk: str, seed: str, source: str = "random") -> dict[str, float]:
    """Numbers a ``heads`` view shows, from its ``data-h/dk/seed/source`` attributes."""
    w, _ = _torch_heads(int(h), int(dk), int(seed), source)  # (h, 5, 5)
    return {
        f"w{i}-{r}-{c}": float(w[i, r, c])
        for i in range(int(h))
        for r in range(5)
        for c in range(5)
    }


@register_expected("rows")
def expected_rows(
    h: str, dk: str, word: str, seed: str, source: str = "random"
) -> dict[str, float]:
    """Numbers a ``rows`` view shows, from its ``data-h/dk/word/seed/source`` attributes."""
    w, _ = _torch_heads(int(h), int(dk), int(seed), source)  # (h, 5, 5)
    rows = w[:, int(word)]  # (h, 5)
    out = {f"r{i}-{j}": float(rows[i, j]) for i in range(rows.shape[0]) for j in range(5)}
    out.update({f"sum{i}": float(rows[i].sum()) for i in range(rows.shape[0])})
    return out


@register_expected("concat")
def expected_concat(h: str, dk: str, seed: str) -> dict[str, float]:
    """Numbers a ``concat`` view (mha.views.heads_view) shows: PyTorch's per-head outputs
    joined by ``torch.cat``."""
    _, outs = _torch_heads(int(h), int(dk), int(seed))  # (h, 5, d_k)
    c = torch.cat(list(outs), dim=-1)  # (5, h*d_k)
    out = {f"c{r}-{j}": float(c[r, j]) for r in range(c.shape[0]) for j in range(c.shape[1])}
    out["width"] = float(c.shape[1])
    return out
