"""Scaled dot-product attention, one head and many.

The head index is a leading tensor dimension: the projections, the scores and
the softmax happen for every head at once, and no head ever reads another.
Every function accepts an optional leading batch dimension on ``X``.

The bodies below are the maths and nothing else. Each public function is
wrapped in :func:`mha.checks.boundary`, which checks the arguments of the
outermost call only, so a wrong shape fails once, with a message naming the
shapes, and calls from one function of this module to another run unchecked.
"""

from __future__ import annotations

import torch
from torch import Tensor

from mha import checks


@checks.boundary(checks.attention_inputs)
def scaled_dot_product(
    Q: Tensor, K: Tensor, V: Tensor, mask: Tensor | None = None
) -> tuple[Tensor, Tensor]:
    """``softmax(Q K^T / sqrt(d_k)) V``, the core that every head runs.

    Args:
        Q: queries ``(..., n_q, d_k)``.
        K: keys ``(..., n_k, d_k)``.
        V: values ``(..., n_k, d_v)``, one per key.
        mask: optional boolean ``(n_q, n_k)``; ``mask[i, j] = False`` forbids
            query ``i`` to read key ``j`` (its weight becomes exactly 0). Every
            row must allow at least one key.

    Returns:
        ``(blend, weights)``: ``blend (..., n_q, d_v)`` and ``weights (..., n_q, n_k)``,
        whose rows each sum to one.
    """
    scores = Q @ K.transpose(-2, -1) / Q.shape[-1] ** 0.5  # (..., n_q, n_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # (..., n_q, n_k)
    weights = torch.softmax(scores, dim=-1)  # (..., n_q, n_k), rows sum to one
    return weights @ V, weights  # (..., n_q, d_v), (..., n_q, n_k)


@checks.boundary(checks.single_head_inputs)
def single_head(X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> tuple[Tensor, Tensor]:
    """One attention head of a sentence on itself.

    Args:
        X: the sentence, ``(n, d_model)`` or ``(batch, n, d_model)``.
        W_q, W_k: ``(d_model, d_k)``.
        W_v: ``(d_model, d_v)``.

    Returns:
        ``(out, weights)``: ``out (..., n, d_v)`` and ``weights (..., n, n)``.
    """
    Q, K, V = X @ W_q, X @ W_k, X @ W_v  # (..., n, d_k), (..., n, d_k), (..., n, d_v)
    return scaled_dot_product(Q, K, V)  # (..., n, d_v), (..., n, n)


@checks.boundary(checks.project_inputs)
def project(X: Tensor, W: Tensor) -> Tensor:
    """``X @ W[i]`` for every head ``i`` at once: ``(..., n, d_model) x (h, d_model, d_k)``.

    The same ``X`` goes into every head and no head sees another. Written as one
    einsum (``n`` words, ``d`` model columns, ``h`` heads, ``k`` head columns:
    the shared ``d`` is summed over), torch runs it as one matrix product
    instead of ``h`` broadcast copies of ``X``.

    Returns:
        ``(..., h, n, d_k)``.
    """
    return torch.einsum("...nd,hdk->...hnk", X, W)  # (..., h, n, d_k)


@checks.boundary(checks.heads_inputs)
def all_heads(X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> tuple[Tensor, Tensor]:
    """Every head at once, before concatenation.

    Args:
        X: ``(n, d_model)`` or ``(batch, n, d_model)``.
        W_q, W_k: ``(h, d_model, d_k)``.
        W_v: ``(h, d_model, d_v)``.

    Returns:
        ``(H, weights)``: ``H (..., h, n, d_v)``, one ``n x d_v`` matrix per
        head, and ``weights (..., h, n, n)``.
    """
    Q, K, V = project(X, W_q), project(X, W_k), project(X, W_v)  # (..., h, n, d_k|d_v)
    return scaled_dot_product(Q, K, V)  # (..., h, n, d_v), (..., h, n, n)


@checks.boundary(checks.grouped_inputs)
def grouped_heads(X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> tuple[Tensor, Tensor]:
    """Grouped-query attention: ``h`` query heads share ``g`` key/value heads.

    Query heads ``j*h/g`` to ``(j+1)*h/g - 1`` all read group ``j``'s keys and
    values (the order of ``repeat_interleave`` and of PyTorch's
    ``scaled_dot_product_attention(..., enable_gqa=True)``). ``g = h`` is
    :func:`all_heads`; ``g = 1`` is multi-query attention.

    Args:
        X: ``(n, d_model)`` or ``(batch, n, d_model)``.
        W_q: ``(h, d_model, d_k)``.
        W_k: ``(g, d_model, d_k)``, with ``g`` dividing ``h``.
        W_v: ``(g, d_model, d_v)``.

    Returns:
        ``(H, weights)``: ``H (..., h, n, d_v)`` and ``weights (..., h, n, n)``,
        as from :func:`all_heads`.
    """
    h, g = W_q.shape[0], W_k.shape[0]
    Q = project(X, W_q)  # (..., h, n, d_k)
    Q = Q.unflatten(-3, (g, h // g))  # (..., g, h/g, n, d_k): the heads of each group
    K = project(X, W_k).unsqueeze(-3)  # (..., g, 1, n, d_k): one key head per group
    V = project(X, W_v).unsqueeze(-3)  # (..., g, 1, n, d_v)
    H, weights = scaled_dot_product(Q, K, V)  # (..., g, h/g, n, d_v), (..., g, h/g, n, n)
    return H.flatten(-4, -3), weights.flatten(-4, -3)  # (..., h, n, d_v), (..., h, n, n)


@checks.boundary(checks.concat_inputs)
def concat_heads(H: Tensor) -> Tensor:
    """Lay the heads side by side: ``(..., h, n, d_v) -> (..., n, h*d_v)``.

    Columns ``i*d_v`` to ``(i+1)*d_v - 1`` of each row belong to head ``i``.
    """
    h, _, d_v = H.shape[-3:]
    H = H.transpose(-3, -2)  # (..., n, h, d_v): for each word, its h vectors
    return H.reshape(*H.shape[:-2], h * d_v)  # (..., n, h*d_v)


@checks.boundary(checks.layer_inputs)
def multi_head_attention(
    X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor, W_o: Tensor
) -> tuple[Tensor, Tensor]:
    """Multi-head self-attention: every head, side by side, mixed by ``W_o``.

    Args:
        X: the sentence, ``(n, d_model)`` or ``(batch, n, d_model)``.
        W_q, W_k: ``(h, d_model, d_k)``, head ``i``'s projections in ``W_q[i]``.
        W_v: ``(h, d_model, d_v)``.
        W_o: ``(h*d_v, d_model)``, the one place where the heads meet.

    Returns:
        ``(out, weights)``: ``out (..., n, d_model)`` and ``weights (..., h, n, n)``.
    """
    H, weights = all_heads(X, W_q, W_k, W_v)  # (..., h, n, d_v), (..., h, n, n)
    concat = concat_heads(H)  # (..., n, h*d_v)
    return concat @ W_o, weights  # (..., n, d_model), (..., h, n, n)


@checks.boundary(checks.cross_inputs)
def cross_attention(
    X_q: Tensor,
    X_kv: Tensor,
    W_q: Tensor,
    W_k: Tensor,
    W_v: Tensor,
    W_o: Tensor,
    mask: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """Multi-head attention whose queries come from one sequence, keys and values from another.

    With ``X_kv = X_q`` this is :func:`multi_head_attention` (self-attention);
    with a sentence being written as ``X_q`` and the sentence being read as
    ``X_kv`` it is a Transformer decoder's encoder-decoder attention.

    Args:
        X_q: the sequence that asks, ``(n_q, d_q)`` or ``(batch, n_q, d_q)``.
        X_kv: the sequence that is read, ``(n_k, d_kv)`` or ``(batch, n_k, d_kv)``.
        W_q: ``(h, d_q, d_k)``.
        W_k: ``(h, d_kv, d_k)``.
        W_v: ``(h, d_kv, d_v)``.
        W_o: ``(h*d_v, d_q)``: the output has the width of the sequence that asked.
        mask: optional boolean ``(n_q, n_k)``, shared by every head and batch
            element; ``mask[i, j] = False`` forbids query ``i`` to read key ``j``.

    Returns:
        ``(out, weights)``: ``out (..., n_q, d_q)``, one row per query word, and
        ``weights (..., h, n_q, n_k)``.
    """
    Q = project(X_q, W_q)  # (..., h, n_q, d_k): the asking sequence
    K, V = project(X_kv, W_k), project(X_kv, W_v)  # (..., h, n_k, d_k|d_v): the one read
    H, weights = scaled_dot_product(Q, K, V, mask)  # (..., h, n_q, d_v), (..., h, n_q, n_k)
    return concat_heads(H) @ W_o, weights  # (..., n_q, d_q), (..., h, n_q, n_k)


@checks.boundary(checks.layer_inputs)
def multi_head_attention_loop(
    X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor, W_o: Tensor
) -> tuple[Tensor, Tensor]:
    """The same layer written as a Python loop over heads, one :func:`single_head` each.

    Shapes as in :func:`multi_head_attention`.
    """
    outs, weights = zip(
        *(single_head(X, W_q[i], W_k[i], W_v[i]) for i in range(W_q.shape[0])), strict=True
    )  # h x (..., n, d_v), h x (..., n, n)
    concat = torch.cat(outs, dim=-1)  # (..., n, h*d_v)
    return concat @ W_o, torch.stack(weights, dim=-3)  # (..., n, d_model), (..., h, n, n)


@checks.boundary(checks.split_inputs)
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
    return W.reshape(W.shape[0], h, W.shape[1] // h).transpose(0, 1)  # (h, d_model, d_k)


def causal_mask(n_q: int, n_k: int | None = None) -> Tensor:
    """Boolean ``(n_q, n_k)``: query ``i`` may read keys ``0..i`` only (True = allowed).

    ``n_k`` defaults to ``n_q`` (a sentence reading itself).
    """
    n_k = n_q if n_k is None else n_k
    checks.positive(n_q=n_q, n_k=n_k)
    return torch.ones(n_q, n_k, dtype=torch.bool).tril()  # (n_q, n_k)


def window_mask(n: int, radius: int = 1) -> Tensor:
    """Boolean ``(n, n)``: word ``i`` may read the words ``j`` with ``|i - j| <= radius``,
    on either side (True = allowed). ``radius`` 0 lets each word read only itself."""
    checks.positive(n=n)
    if not isinstance(radius, int) or isinstance(radius, bool) or radius < 0:
        raise ValueError(f"radius must be an int >= 0, got {radius!r}")
    i = torch.arange(n)  # (n,)
    return (i[:, None] - i[None, :]).abs() <= radius  # (n, n)
