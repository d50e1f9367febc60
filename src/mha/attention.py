"""Scaled dot-product attention, one head and many.

The head index is a leading tensor dimension: the projections, the scores and
the softmax happen for every head at once, and no head ever reads another.
Every function accepts an optional leading batch dimension on ``X``.
"""

from __future__ import annotations

import torch
from torch import Tensor

from mha import checks


def scaled_dot_product(
    Q: Tensor, K: Tensor, V: Tensor, mask: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """The core that every head runs: ``softmax(Q K^T / sqrt(d_k)) V``.

    Args:
        Q: queries ``(..., n, d_k)``.
        K: keys ``(..., n, d_k)``.
        V: values ``(..., n, d_v)``.
        mask: optional boolean ``(n, n)``; ``mask[i, j] = False`` forbids word
            ``i`` to read word ``j`` (its weight becomes exactly 0). Every row
            must allow at least one word.

    Returns:
        ``(blend, weights)``: ``blend (..., n, d_v)`` and ``weights (..., n, n)``,
        whose rows each sum to one.
    """
    if Q.shape[-1] != K.shape[-1] or Q.shape[-2] != K.shape[-2] or K.shape[-2] != V.shape[-2]:
        raise ValueError(
            f"Q {checks.shape(Q)}, K {checks.shape(K)} and V {checks.shape(V)} must agree: "
            "Q and K on d_k, all three on n"
        )
    d_k = Q.shape[-1]
    scores = Q @ K.transpose(-2, -1) / d_k**0.5  # (..., n, n)
    if mask is not None:
        n = K.shape[-2]
        if mask.dtype != torch.bool or mask.shape != (n, n):
            raise ValueError(
                f"mask must be boolean ({n}, {n}), got {mask.dtype} {checks.shape(mask)}"
            )
        if not mask.any(dim=-1).all():
            raise ValueError("every row of mask must allow at least one word")
        scores = scores.masked_fill(~mask, float("-inf"))  # (..., n, n)
    weights = torch.softmax(scores, dim=-1)  # (..., n, n), rows sum to one
    return weights @ V, weights  # (..., n, d_v), (..., n, n)


def single_head(X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> tuple[Tensor, Tensor]:
    """One attention head, as in the previous chapter.

    Args:
        X: the sentence, ``(n, d_model)`` or ``(batch, n, d_model)``.
        W_q, W_k: ``(d_model, d_k)``.
        W_v: ``(d_model, d_v)``.

    Returns:
        ``(out, weights)``: ``out (..., n, d_v)`` and ``weights (..., n, n)``.
    """
    checks.projections(X, W_q, W_k, W_v, heads=False)
    Q, K, V = X @ W_q, X @ W_k, X @ W_v  # (..., n, d_k), (..., n, d_k), (..., n, d_v)
    return scaled_dot_product(Q, K, V)


def project(X: Tensor, W: Tensor) -> Tensor:
    """``X @ W[i]`` for every head ``i`` at once: ``(..., n, d_model) x (h, d_model, d_k)``.

    The same ``X`` goes into every head and no head sees another. Written as one
    einsum, torch runs it as one matmul instead of ``h`` broadcast copies of ``X``.

    Returns:
        ``(..., h, n, d_k)``.
    """
    return torch.einsum("...nd,hdk->...hnk", X, W)  # (..., h, n, d_k)


def heads(X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> tuple[Tensor, Tensor]:
    """Every head at once, before concatenation.

    Args:
        X: ``(n, d_model)`` or ``(batch, n, d_model)``.
        W_q, W_k: ``(h, d_model, d_k)``.
        W_v: ``(h, d_model, d_v)``.

    Returns:
        ``(heads, weights)``: ``heads (..., h, n, d_v)``, one ``n x d_v`` matrix
        per head, and ``weights (..., h, n, n)``.
    """
    checks.projections(X, W_q, W_k, W_v, heads=True)
    Q, K, V = project(X, W_q), project(X, W_k), project(X, W_v)  # (..., h, n, d_k/d_v)
    return scaled_dot_product(Q, K, V)  # (..., h, n, d_v), (..., h, n, n)


def concat_heads(H: Tensor) -> Tensor:
    """Lay the heads side by side: ``(..., h, n, d_v) -> (..., n, h*d_v)``.

    Columns ``i*d_v`` to ``(i+1)*d_v - 1`` of each row belong to head ``i``.
    """
    if H.dim() < 3:
        raise ValueError(f"heads must be (..., h, n, d_v), got {checks.shape(H)}")
    h, _, d_v = H.shape[-3:]
    H = H.transpose(-3, -2)  # (..., n, h, d_v): for each word, its h vectors
    return H.reshape(*H.shape[:-2], h * d_v)  # (..., n, h*d_v)


def multi_head_attention(
    X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor, W_o: Tensor
) -> tuple[Tensor, Tensor]:
    """Multi-head attention, the chapter's function.

    Args:
        X: the sentence, ``(n, d_model)`` or ``(batch, n, d_model)``.
        W_q, W_k: ``(h, d_model, d_k)``, head ``i``'s projections in ``W_q[i]``.
        W_v: ``(h, d_model, d_v)``.
        W_o: ``(h*d_v, d_model)``, the one place where the heads meet.

    Returns:
        ``(out, weights)``: ``out (..., n, d_model)`` and ``weights (..., h, n, n)``.
    """
    h, _, d_v = checks.projections(X, W_q, W_k, W_v, heads=True)
    checks.output(W_o, h, d_v, X.shape[-1], X.dtype)
    H, weights = heads(X, W_q, W_k, W_v)  # (..., h, n, d_v), (..., h, n, n)
    concat = concat_heads(H)  # (..., n, h*d_v)
    return concat @ W_o, weights  # (..., n, d_model), (..., h, n, n)


def multi_head_attention_loop(
    X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor, W_o: Tensor
) -> tuple[Tensor, Tensor]:
    """The same layer written as a Python loop over heads, to show it equals the above.

    Shapes as in :func:`multi_head_attention`. Head ``i`` is computed by
    :func:`single_head` with ``W_q[i], W_k[i], W_v[i]``, one after another.
    """
    h, _, d_v = checks.projections(X, W_q, W_k, W_v, heads=True)
    checks.output(W_o, h, d_v, X.shape[-1], X.dtype)
    outs, weights = [], []
    for i in range(h):
        out_i, w_i = single_head(X, W_q[i], W_k[i], W_v[i])  # (..., n, d_v), (..., n, n)
        outs.append(out_i)
        weights.append(w_i)
    concat = torch.cat(outs, dim=-1)  # (..., n, h*d_v)
    return concat @ W_o, torch.stack(weights, dim=-3)  # (..., n, d_model), (..., h, n, n)


def split_heads(W: Tensor, h: int) -> Tensor:
    """Cut one full-width projection into ``h`` narrow heads.

    Args:
        W: ``(d_model, d_model)``, for example one of ``torch.nn.MultiheadAttention``'s
            projections written as ``X @ W``.
        h: number of heads; must divide ``d_model``.

    Returns:
        ``(h, d_model, d_k)`` with ``d_k = d_model / h``: head ``i`` owns columns
        ``i*d_k`` to ``(i+1)*d_k - 1`` of ``W``.
    """
    checks.as_tensor("W", W)
    if W.dim() != 2:
        raise ValueError(f"W must be (d_model, d_model), got {checks.shape(W)}")
    d_k = checks.head_width(W.shape[1], h)
    return W.reshape(W.shape[0], h, d_k).transpose(0, 1)  # (h, d_model, d_k)


def causal_mask(n: int) -> Tensor:
    """Boolean ``(n, n)``: word ``i`` may read words ``0..i`` only (True = allowed)."""
    if n < 1:
        raise ValueError(f"a mask needs at least one word, got n = {n}")
    return torch.ones(n, n, dtype=torch.bool).tril()  # (n, n)
