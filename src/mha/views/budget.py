"""The trade-off slider: tilt *chased*'s scores from *cat* to *mouse* and watch the budget."""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as widgets
import torch
from torch.nn.functional import scaled_dot_product_attention

from mha import budget, toy
from mha.views.html import bars, head_box, note, number, view
from mha.views.switch import register_expected, slider, switch


def budget_html(t: float) -> str:
    """One view of the trade-off slider: *chased*'s tilted row ``(5,)``, its sum, the exchange."""
    row, base = budget.chased_tilted(t), budget.chased_tilted(0.0)  # (5,), (5,)
    gain = float(row[toy.MOUSE] - base[toy.MOUSE])
    others = float((row - base).sum()) - gain
    body = bars(row, toy.SENTENCE, "b")
    body += note(f"row sum = {number('sum', float(row.sum()), 12)}")
    body += note(
        f"change in mouse's weight: {number('gain', gain, 3)}; "
        f"in the other four words' weights together: {number('others', others, 3)}"
    )
    return view(
        "budget",
        head_box(f"chased → … (scores tilted by {t:+.1f} from cat to mouse)", body),
        tilt=t,
    )


@register_expected("budget")
def expected_budget(tilt: str) -> dict[str, float]:
    """Numbers a ``budget`` view shows, by another route: PyTorch's own attention, with the
    tilt passed as an additive mask on the scores and the identity as values, so that
    its output rows are the weights."""
    t = float(tilt)
    W_q, W_k, _ = toy.single_head_weights()  # (9, 9) each
    Q, K = toy.X @ W_q, toy.X @ W_k  # (5, 9) each
    eye = torch.eye(5, dtype=torch.float64)  # (5, 5): values that return the weights
    tilt_mask = torch.zeros(5, 5, dtype=torch.float64)  # (5, 5), added to the scores
    tilt_mask[toy.CHASED, toy.MOUSE], tilt_mask[toy.CHASED, toy.CAT] = t, -t
    row = scaled_dot_product_attention(Q, K, eye, attn_mask=tilt_mask)[toy.CHASED]  # (5,)
    base = scaled_dot_product_attention(Q, K, eye)[toy.CHASED]  # (5,)
    out = {f"b-{j}": float(row[j]) for j in range(5)}
    out["sum"] = float(row.sum())
    out["gain"] = float(row[toy.MOUSE] - base[toy.MOUSE])
    out["others"] = float(sum(row[j] - base[j] for j in range(5) if j != toy.MOUSE))
    return out


def budget_switch(
    tilts: Sequence[float] = budget.TILTS, start: float = 0.0
) -> tuple[widgets.SelectionSlider, widgets.Widget]:
    """The trade-off slider and its precomputed views.

    Returns:
        ``(slider, stack)``: put both in :func:`mha.views.switch.panel`; the stack
        follows the slider with or without a kernel.
    """
    control = slider("tilt from cat to mouse", [(f"{t:+.1f}", t) for t in tilts], start)
    stack = switch([control], lambda key: budget_html(tilts[key[0]]))
    return control, stack
