"""Why attention divides its scores by ``sqrt(d_k)``.

A score is a dot product ``q · k`` of ``d_k`` products. When the entries of
``q`` and ``k`` are independent with mean 0 and variance 1, each product has
variance 1 and the ``d_k`` of them add up, so ``q · k`` has variance ``d_k``:
the wider the head, the larger its scores. Dividing by ``sqrt(d_k)`` brings the
variance back to 1 at every width.

This module measures that, and what large scores do to a softmax row:

* :func:`random_qk` draws seeded random queries and keys (:func:`mha.seeds.generator`),
  and :func:`widened` makes them wider one column at a time;
* :func:`score_variance`: the measured variance of the scores per width,
  divided by ``sqrt(d_k)`` or not;
* :func:`saturation`: per width, how much of a row's budget its largest weight
  takes, the row's entropy, and the size of the gradient that reaches the
  scores through the softmax (by autograd, :func:`score_gradient`);
* :func:`head_row`: one query word's row of a random head on the toy sentence,
  widened one column at a time, divided by ``sqrt(d_k)`` or not.

Every tensor is float64.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator, Sequence

import torch
from torch import Tensor

from mha import toy
from mha.seeds import generator

# Widths at which the measurements are made: 1, 2, 4, ..., 512.
WIDTHS: tuple[int, ...] = tuple(2**i for i in range(10))
# Widths the row view offers: few enough to precompute, spread far enough to saturate.
VIEW_WIDTHS: tuple[int, ...] = (1, 4, 16, 64, 256, 1024)
# A key of mha.seeds.generator that no width uses (widths are >= 1).
_UPSTREAM = 0


def random_qk(d_k: int, rows: int, n: int = 1, seed: int = 0) -> tuple[Tensor, Tensor]:
    """Random queries and keys with independent ``N(0, 1)`` entries.

    Args:
        d_k: width of each query and key.
        rows: how many queries, each with keys of its own.
        n: keys per query (``n = 1``: independent (query, key) pairs).
        seed: the same ``(d_k, rows, n, seed)`` always gives the same numbers.

    Returns:
        ``(q, K)``: ``q (rows, d_k)`` and ``K (rows, n, d_k)``.
    """
    if d_k < 1 or rows < 1 or n < 1:
        raise ValueError(f"d_k, rows and n must be positive, got {d_k}, {rows}, {n}")
    g = generator(seed, d_k, n, rows)
    q = torch.randn(rows, d_k, generator=g, dtype=torch.float64)  # (rows, d_k)
    K = torch.randn(rows, n, d_k, generator=g, dtype=torch.float64)  # (rows, n, d_k)
    return q, K


def scores(q: Tensor, K: Tensor, scaled: bool) -> Tensor:
    """Each query's scores against its own keys: ``q · k``, divided by ``sqrt(d_k)`` if ``scaled``.

    Args:
        q: ``(rows, d_k)``.
        K: ``(rows, n, d_k)``.

    Returns:
        ``(rows, n)``.
    """
    s = torch.einsum("rd,rnd->rn", q, K)  # (rows, n)
    return s / math.sqrt(q.shape[-1]) if scaled else s  # (rows, n)


def widened(
    widths: Sequence[int], rows: int, n: int = 1, seed: int = 0
) -> Iterator[tuple[int, Tensor, Tensor]]:
    """Random queries and keys made wider one column at a time, at each of ``widths``.

    One draw of :func:`random_qk` at the largest width serves every width: the
    pairs of width ``d`` are the first ``d`` columns of it, so a wider pair adds
    columns to a narrower one. At each width the rows are independent, with
    independent ``N(0, 1)`` entries, as if drawn at that width alone, and the
    largest width costs no more than one draw.

    Yields:
        ``(d_k, q, K)``: ``q (rows, d_k)`` and ``K (rows, n, d_k)``, for each width.
    """
    q, K = random_qk(max(widths), rows, n, seed)  # (rows, D), (rows, n, D)
    for d_k in widths:
        yield d_k, q[:, :d_k], K[:, :, :d_k]  # (rows, d_k), (rows, n, d_k)


def score_variance(
    widths: Sequence[int] = WIDTHS, pairs: int = 20_000, seed: int = 0
) -> dict[str, list[float]]:
    """Measured variance of ``q · k`` over ``pairs`` random pairs at each width
    (pairs widened one column at a time, :func:`widened`).

    Returns:
        ``{"unscaled", "scaled"}`` -> one sample variance per width; the
        closed forms are ``d_k`` and 1.
    """
    out: dict[str, list[float]] = {"unscaled": [], "scaled": []}
    for _, q, K in widened(widths, pairs, 1, seed):  # (pairs, d_k), (pairs, 1, d_k)
        for name, scaled in (("unscaled", False), ("scaled", True)):
            out[name].append(float(scores(q, K, scaled).var()))
    return out


def entropy(w: Tensor) -> Tensor:
    """Entropy in bits of each row of weights ``(..., n)``: 0 for all weight on one key,
    ``log2(n)`` for a uniform row. Returns ``(...)``."""
    return -torch.special.xlogy(w, w).sum(dim=-1) / math.log(2)  # (...)


def score_gradient(s: Tensor, upstream: Tensor) -> Tensor:
    """Gradient, by autograd, of ``L = sum(softmax(s) * upstream)`` with respect to ``s``.

    ``upstream`` plays the part of the gradient that reaches the weights from
    the rest of the network (``dL/dw``); the result is what the softmax passes
    on to the scores, and from them to ``W^Q`` and ``W^K``.

    Args:
        s: scores ``(rows, n)``.
        upstream: ``(rows, n)``.

    Returns:
        ``dL/ds``, ``(rows, n)``.
    """
    s = s.detach().requires_grad_(True)  # (rows, n)
    loss = (torch.softmax(s, dim=-1) * upstream).sum()  # ()
    (grad,) = torch.autograd.grad(loss, s)  # (rows, n)
    return grad


def saturation(
    widths: Sequence[int] = WIDTHS,
    n: int = 5,
    rows: int = 2_000,
    seed: int = 0,
    fixed_length: bool = False,
) -> dict[str, dict[str, list[float]]]:
    """How a softmax row over ``n`` random keys behaves as ``d_k`` grows, scaled or not.

    At each width, ``rows`` random queries are scored against ``n`` random keys
    each (widened one column at a time, :func:`widened`), and the rows are softmaxed.
    With ``fixed_length``, every query is first rescaled to length ``sqrt(d_k)``
    (its direction kept), so the length of a row's one query no longer varies
    from row to row.

    Returns:
        ``{"unscaled", "scaled"}`` -> ``{"max_weight", "entropy", "gradient"}`` ->
        one number per width: the mean largest weight of a row, the mean entropy
        of a row in bits, and the median length of the gradient
        :func:`score_gradient` passes to a row's scores, for upstream gradients
        with ``N(0, 1)`` entries (the same ones at every width and for both).
    """
    g = generator(seed, _UPSTREAM, n, rows)
    upstream = torch.randn(rows, n, generator=g, dtype=torch.float64)  # (rows, n)
    out = {
        name: {"max_weight": [], "entropy": [], "gradient": []} for name in ("unscaled", "scaled")
    }
    for d_k, q, K in widened(widths, rows, n, seed):  # (rows, d_k), (rows, n, d_k)
        if fixed_length:
            q = q * d_k**0.5 / q.norm(dim=-1, keepdim=True)  # (rows, d_k): length sqrt(d_k)
        for name, scaled in (("unscaled", False), ("scaled", True)):
            s = scores(q, K, scaled)  # (rows, n)
            w = torch.softmax(s, dim=-1)  # (rows, n)
            grad = score_gradient(s, upstream)  # (rows, n)
            out[name]["max_weight"].append(float(w.max(dim=-1).values.mean()))
            out[name]["entropy"].append(float(entropy(w).mean()))
            out[name]["gradient"].append(float(grad.norm(dim=-1).median()))
    return out


def head_scores(d_k: int, scaled: bool, seed: int = 0) -> Tensor:
    """Scores ``(5, 5)`` on the toy sentence of a random head widened one column at a time.

    The head of width ``d_k`` keeps the first ``d_k`` columns of ``W^Q`` and ``W^K``
    of the random head of width ``max(VIEW_WIDTHS)`` (:func:`mha.toy.random_heads`),
    so each wider head adds columns to the narrower one, and each score adds
    products to the narrower head's score.

    Returns:
        ``Q K^T`` (query words down, key words across), divided by ``sqrt(d_k)``
        if ``scaled``.
    """
    if not 1 <= d_k <= max(VIEW_WIDTHS):
        raise ValueError(f"d_k must be between 1 and {max(VIEW_WIDTHS)}, got {d_k}")
    Q, K = _widest_head(seed)  # (5, 1024) each
    s = Q[:, :d_k] @ K[:, :d_k].T  # (5, 5)
    return s / math.sqrt(d_k) if scaled else s  # (5, 5)


@functools.lru_cache(maxsize=8)
def _widest_head(seed: int) -> tuple[Tensor, Tensor]:
    """Queries and keys ``(5, max(VIEW_WIDTHS))`` of the widest head, drawn once per seed."""
    W_q, W_k, _ = toy.random_heads(1, max(VIEW_WIDTHS), seed)  # (1, 9, 1024) each
    return toy.X @ W_q[0], toy.X @ W_k[0]  # (5, 1024) each


def head_row(d_k: int, scaled: bool, word: int = toy.CHASED, seed: int = 0) -> Tensor:
    """Row ``word`` of the weights of :func:`head_scores`: ``(5,)``, summing to one."""
    return torch.softmax(head_scores(d_k, scaled, seed)[word], dim=-1)  # (5,)
