"""One head's budget: a softmax row sums to one, and what happens without it.

Two things about the single full-width head of :func:`mha.toy.single_head_weights`:

* the *trade-off*: tilting *chased*'s scores towards *mouse* and
  away from *cat* moves weight between them, and the row still sums to one;
* the *runaway*: weights that are not a softmax give blends whose
  size grows without bound as the scores grow, while the softmax blend stays
  inside the box spanned by the value vectors.

Every tensor is float64, like the toy sentence.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from mha import toy
from mha.attention import single_head

# The trade-off slider's positions: how far chased's scores are tilted from cat to mouse.
TILTS: tuple[float, ...] = tuple(t / 2 for t in range(-8, 9))  # -4.0, -3.5, ..., 4.0


def single_head_scores() -> Tensor:
    """The scaled scores ``Q K^T / sqrt(d_k)`` of the single full-width head of
    :func:`mha.toy.single_head_weights`.

    Returns:
        ``(5, 5)``: query words down, key words across. Row ``toy.CHASED``
        softmaxes to the row 0.04, 0.18, 0.12, 0.06, 0.60.
    """
    W_q, W_k, _ = toy.single_head_weights()  # (9, 9) each
    Q, K = toy.X @ W_q, toy.X @ W_k  # (5, 9), (5, 9)
    return Q @ K.T / Q.shape[-1] ** 0.5  # (5, 5)


def single_head_attention() -> tuple[Tensor, Tensor]:
    """Run the single full-width head on the toy sentence.

    Returns:
        ``(out, weights)``: ``out (5, 9)``, one blended vector per word, and
        ``weights (5, 5)``, one row of weights per word.
    """
    return single_head(toy.X, *toy.single_head_weights())  # (5, 9), (5, 5)


def tilt(scores: Tensor, t: float, gain: int = toy.MOUSE, lose: int = toy.CAT) -> Tensor:
    """Softmax of one row of scores after moving ``t`` from key ``lose`` to key ``gain``.

    Args:
        scores: one query's scores ``(n,)``.
        t: how much to add to ``scores[gain]`` and subtract from ``scores[lose]``
            (negative ``t`` tilts the other way).
        gain, lose: key positions, by default *mouse* and *cat*.

    Returns:
        The tilted row of weights ``(n,)``; it sums to one for every ``t``.
    """
    if scores.dim() != 1:
        raise ValueError(f"scores must be one row (n,), got shape {tuple(scores.shape)}")
    shifted = scores.clone()  # (n,)
    shifted[gain] += t
    shifted[lose] -= t
    return torch.softmax(shifted, dim=-1)  # (n,)


def chased_tilted(t: float) -> Tensor:
    """*chased*'s row of the single head, tilted by ``t`` from *cat* to *mouse*. ``(5,)``."""
    return tilt(single_head_scores()[toy.CHASED], t)  # (5,)


def chased_tilted_rows(tilts: Tensor) -> Tensor:
    """*chased*'s row of the single head at many tilts at once.

    Args:
        tilts: ``(T,)`` tilts, each moving score from *cat* to *mouse* as in :func:`tilt`.

    Returns:
        ``(T, 5)``: row ``i`` is :func:`chased_tilted` of ``tilts[i]``, computed as one batch.
    """
    if tilts.dim() != 1:
        raise ValueError(f"tilts must be one dimension (T,), got shape {tuple(tilts.shape)}")
    scores = single_head_scores()[toy.CHASED]  # (5,)
    step = torch.zeros_like(scores)  # (5,): +1 for mouse, -1 for cat
    step[toy.MOUSE], step[toy.CAT] = 1.0, -1.0
    shifted = scores + tilts.to(scores.dtype)[:, None] * step  # (T, 5)
    return torch.softmax(shifted, dim=-1)  # (T, 5)


def blends(scores: Tensor, V: Tensor) -> dict[str, Tensor]:
    """Three ways to turn scores into a blend of values: one softmax, two without.

    Args:
        scores: ``(n, n)``, query words down, key words across.
        V: values ``(n, d_v)``.

    Returns:
        ``{"softmax", "raw", "exp"}`` -> ``(n, d_v)`` blends: the attention blend
        ``softmax(scores) V``; ``scores V`` (the scores used as weights as they
        are); ``exp(scores) V`` (positive weights that are never normalised).
    """
    if scores.dim() != 2 or scores.shape[0] != scores.shape[1] or scores.shape[1] != V.shape[0]:
        raise ValueError(
            f"scores must be (n, n) and V (n, d_v), got {tuple(scores.shape)} and {tuple(V.shape)}"
        )
    return {
        "softmax": torch.softmax(scores, dim=-1) @ V,  # (n, d_v), rows of weights sum to one
        "raw": scores @ V,  # (n, d_v), weights may be negative and sum to anything
        "exp": torch.exp(scores) @ V,  # (n, d_v), positive weights, any sum
    }


def blend_norms(scales: Sequence[float], word: int = toy.CHASED) -> dict[str, list[float]]:
    """Length of ``word``'s blend when the single head's scores are multiplied by each scale.

    Returns:
        ``{"softmax", "raw", "exp"}`` -> one Euclidean norm per scale, plus
        ``"bound"``: the longest value vector, which no softmax blend can exceed.
    """
    scores = single_head_scores()  # (5, 5)
    _, _, W_v = toy.single_head_weights()  # (9, 9)
    V = toy.X @ W_v  # (5, 9)
    out: dict[str, list[float]] = {"softmax": [], "raw": [], "exp": []}
    for c in scales:
        for name, blend in blends(c * scores, V).items():  # (5, 9) each
            out[name].append(float(blend[word].norm()))
    out["bound"] = [float(V.norm(dim=-1).max())] * len(scales)
    return out
