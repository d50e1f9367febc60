"""The scaling switch: one row of weights as a head widens, its scores divided by √d_k or not."""

from __future__ import annotations

import math
from collections.abc import Sequence

import ipywidgets as widgets
import torch
from torch.distributions import Categorical
from torch.nn.functional import scaled_dot_product_attention

from mha import scaling, toy
from mha.views.html import bars, head_box, note, number, view
from mha.views.switch import register_expected, slider, switch

# The toggle's positions: (label, scaled).
SCALED_OPTIONS: tuple[tuple[str, int], ...] = (("scores ÷ √d_k", 1), ("scores not divided", 0))


def scaling_html(d_k: int, scaled: bool, word: int = toy.CHASED, seed: int = 0) -> str:
    """One view of the scaling switch: ``word``'s row ``(5,)`` of the head of width ``d_k``
    (:func:`mha.scaling.head_scores`), its largest weight, its entropy and the lead of
    its largest score over the next."""
    s = scaling.head_scores(d_k, scaled, seed)[word]  # (5,): the scores the softmax sees
    row = torch.softmax(s, dim=-1)  # (5,)
    first, second = s.topk(2).values.tolist()
    body = bars(row, toy.SENTENCE, "w")
    body += note(
        f"largest weight {number('max', float(row.max()))}; "
        f"entropy {number('entropy', float(scaling.entropy(row)))} bits "
        f"(an even row has {number('uniform', math.log2(len(row)))}, "
        "all weight on one word has 0)"
    )
    body += note(f"the largest score leads the next by {number('gap', first - second, 1)}")
    how = "divided by √d_k" if scaled else "not divided"
    title = f"{toy.SENTENCE[word]} → … (d_k = {d_k}, scores {how})"
    return view("scaling", head_box(title, body), d_k=d_k, scaled=int(scaled), word=word, seed=seed)


@register_expected("scaling")
def expected_scaling(dk: str, scaled: str, word: str, seed: str) -> dict[str, float]:
    """Numbers a ``scaling`` view shows, by another route: PyTorch's attention with
    ``scale=1`` for undivided scores (its default divides by ``sqrt(d_k)``) and the
    identity as values, so that its output rows are the weights; the entropy from
    ``torch.distributions.Categorical``; the lead of the largest score as the log
    of the ratio of the two largest weights."""
    d_k, w_i = int(dk), int(word)
    W_q, W_k, _ = toy.random_heads(1, max(scaling.VIEW_WIDTHS), int(seed))  # (1, 9, 1024) each
    Q, K = toy.X @ W_q[0, :, :d_k], toy.X @ W_k[0, :, :d_k]  # (5, d_k) each
    eye = torch.eye(5, dtype=torch.float64)  # (5, 5): values that return the weights
    scale = None if int(scaled) else 1.0
    row = scaled_dot_product_attention(Q, K, eye, scale=scale)[w_i]  # (5,)
    first, second = row.topk(2).values.tolist()
    out = {f"w-{j}": float(row[j]) for j in range(5)}
    out["max"] = first
    out["entropy"] = float(Categorical(probs=row).entropy()) / math.log(2)
    out["uniform"] = math.log2(5)
    out["gap"] = math.log(first / second)
    return out


def scaling_switch(
    widths: Sequence[int] = scaling.VIEW_WIDTHS, start: int = 16, scaled: bool = True
) -> tuple[list[widgets.Widget], widgets.Widget]:
    """A ``d_k`` slider, a divided/not-divided toggle and their precomputed views.

    Returns:
        ``(controls, stack)``: put both in :func:`mha.views.switch.panel`; the stack
        follows the controls with or without a kernel.
    """
    width = slider("head width d_k", widths, start)
    toggle = widgets.ToggleButtons(
        options=list(SCALED_OPTIONS),
        value=int(scaled),
        description="",
        style={"description_width": "initial", "button_width": "auto"},
    )
    options = [v for _, v in SCALED_OPTIONS]
    stack = switch([width, toggle], lambda key: scaling_html(widths[key[0]], bool(options[key[1]])))
    return [width, toggle], stack
