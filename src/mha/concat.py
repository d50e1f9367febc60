"""Where the heads' numbers end up once they are laid side by side.

Which output columns each head can
reach (with and without ``W^O``), each head's value-and-output map
``W^V_i W^O_i`` and its query-key map ``W^Q_i (W^K_i)^T``, and a tensor of cell *labels* that can be
pushed through the same ``transpose``/``reshape`` calls as the heads, so a
figure can show where every number goes.
"""

from __future__ import annotations

import torch
from torch import Tensor

from mha import checks, toy
from mha.attention import all_heads, concat_heads


def layer_output(
    X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor, W_o: Tensor | None = None
) -> Tensor:
    """The concatenated heads ``(..., n, h*d_v)``, or the layer output ``(..., n, d_model)``.

    Without ``W_o`` this stops after concatenation; with it, it is
    :func:`mha.multi_head_attention`'s output.
    """
    H, _ = all_heads(X, W_q, W_k, W_v)  # (..., h, n, d_v)
    concat = concat_heads(H)  # (..., n, h*d_v)
    return concat if W_o is None else concat @ W_o  # (..., n, h*d_v) or (..., n, d_model)


def columns_touched(
    X: Tensor,
    W_q: Tensor,
    W_k: Tensor,
    W_v: Tensor,
    W_o: Tensor | None = None,
    scale: float = 1e-3,
    seed: int = 0,
    tol: float = 1e-9,
) -> Tensor:
    """Which output columns move when one head's weights move.

    For each head ``i`` in turn, a small seeded random change is added to
    ``W_q[i]``, ``W_k[i]`` and ``W_v[i]`` (no other head is touched) and the
    layer is run again.

    Args:
        X: ``(n, d_model)``.
        W_q, W_k, W_v: ``(h, d_model, d_k)``.
        W_o: ``(h*d_v, d_model)`` or ``None`` to stop after concatenation.
        scale: standard deviation of the change.
        seed: seed of the change.
        tol: a column counts as changed when some entry moved by more than this
            (far below the change itself, far above float64 round-off).

    Returns:
        Boolean ``(h, d_out)``: entry ``[i, c]`` is True when column ``c`` of
        the output changed (in any row) after changing head ``i`` only.
    """
    h, _, _ = checks.projections(X, W_q, W_k, W_v, heads=True)
    base = layer_output(X, W_q, W_k, W_v, W_o)  # (n, d_out)
    g = torch.Generator().manual_seed(seed)
    rows = []
    for i in range(h):
        moved = []
        for W in (W_q, W_k, W_v):
            W = W.clone()  # (h, d_model, d_k)
            W[i] += scale * torch.randn(W.shape[1:], generator=g, dtype=W.dtype)
            moved.append(W)
        out = layer_output(X, *moved, W_o)  # (n, d_out)
        rows.append((out - base).abs().amax(dim=0) > tol)  # (d_out,)
    return torch.stack(rows)  # (h, d_out)


@checks.boundary(checks.head_maps_inputs)
def head_maps(W_v: Tensor, W_o: Tensor) -> Tensor:
    """Each head's value projection times its block of rows of ``W^O``: ``W^V_i W^O_i``.

    Head ``i`` adds ``A_i X (W^V_i W^O_i)`` to the layer's output, where ``A_i`` is
    its ``(n, n)`` table of weights; the map is ``d_model x d_model`` but has rank at
    most ``d_v``, since it passes through head ``i``'s ``d_v`` columns.

    Args:
        W_v: ``(h, d_model, d_v)``.
        W_o: ``(h*d_v, d_model)``; rows ``i*d_v`` to ``(i+1)*d_v - 1`` are head ``i``'s block.

    Returns:
        ``(h, d_model, d_model)``: map ``i`` takes a word vector to what head ``i``
        writes for it.
    """
    h, _, d_v = W_v.shape
    blocks = W_o.reshape(h, d_v, W_o.shape[-1])  # (h, d_v, d_model): W^O_i
    return W_v @ blocks  # (h, d_model, d_model)


def _qk_inputs(W_q: Tensor, W_k: Tensor) -> None:
    """Check ``W_q`` and ``W_k``, both ``(h, d_model, d_k)`` and of one dtype."""
    checks.as_tensor("W_q", W_q)
    checks.as_tensor("W_k", W_k)
    if W_q.dim() != 3 or W_q.shape != W_k.shape or W_q.dtype != W_k.dtype:
        raise ValueError(
            "W_q and W_k must both be (h, d_model, d_k) of one dtype, got "
            f"W_q {checks.shape(W_q)} {W_q.dtype} and W_k {checks.shape(W_k)} {W_k.dtype}"
        )


@checks.boundary(_qk_inputs)
def qk_maps(W_q: Tensor, W_k: Tensor) -> Tensor:
    """Each head's query-key map ``W^Q_i (W^K_i)^T``: where the head looks, as one matrix.

    Head ``i``'s raw score of word ``a`` against word ``b`` is the bilinear form
    ``x_a (W^Q_i (W^K_i)^T) x_b^T``; the map is ``d_model x d_model`` but has rank
    at most ``d_k``, since both factors pass through head ``i``'s ``d_k`` columns.

    Args:
        W_q, W_k: ``(h, d_model, d_k)`` each.

    Returns:
        ``(h, d_model, d_model)``: entry ``[i, f, g]`` is how much feature ``f`` of the
        asking word and feature ``g`` of the word read add to head ``i``'s score.
    """
    return W_q @ W_k.transpose(-2, -1)  # (h, d_model, d_model)


def concat_of_heads(h: int, d_k: int, seed: int = 0) -> Tensor:
    """The random heads of :func:`mha.toy.random_heads` on the toy sentence, laid side by
    side before ``W^O``: ``(5, h*d_k)``."""
    return layer_output(toy.X, *toy.random_heads(h, d_k, seed))  # (5, h*d_k)


def cell_labels(h: int, n: int, d_v: int) -> Tensor:
    """Integer labels shaped like the heads, ``(h, n, d_v)``: cell ``[i, w, c]`` holds
    ``(i * n + w) * d_v + c``, its own position in memory.

    Push them through the same ``transpose``/``reshape`` calls as the heads and
    decode each label with :func:`decode` to see where every number went.
    """
    if min(h, n, d_v) < 1:
        raise ValueError(f"h, n and d_v must be positive, got ({h}, {n}, {d_v})")
    return torch.arange(h * n * d_v).reshape(h, n, d_v)  # (h, n, d_v)


def decode(label: int, n: int, d_v: int) -> tuple[int, int, int]:
    """``(head, word, component)`` of a label made by :func:`cell_labels`."""
    head, rest = divmod(int(label), n * d_v)
    word, comp = divmod(rest, d_v)
    return head, word, comp
