"""The trade-off slider: tilt *chased*'s scores from *cat* to *mouse* and watch the budget.

The view is an anywidget (:class:`BudgetView`) whose module, ``static/budget_view.mjs``,
computes the row in the reader's browser (``tiltRow`` in ``static/mha_views.mjs``, the port
of :func:`mha.budget.tilt`) for every tilt the slider offers; :func:`expected_budget`
recomputes its numbers with PyTorch's own attention, by another route.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import traitlets
from torch.nn.functional import scaled_dot_product_attention

from mha import budget, toy
from mha.views.anywidgets import View
from mha.views.expected import register_expected


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


class BudgetView(View, module="budget_view", link="budget"):
    """The trade-off view (``static/budget_view.mjs``): ``word``'s row of one head, its
    scores tilted by ``tilt`` from key ``lose`` to key ``gain``, computed in the browser.
    Inputs: X ``(n, d_model)`` and its ``words``; the head's W_q, W_k ``(d_model, d_k)``;
    the control's positions ``tilts``."""

    X = traitlets.List().tag(sync=True)
    W_q = traitlets.List().tag(sync=True)
    W_k = traitlets.List().tag(sync=True)
    words = traitlets.List(traitlets.Unicode()).tag(sync=True)
    word = traitlets.Int(toy.CHASED).tag(sync=True)
    gain = traitlets.Int(toy.MOUSE).tag(sync=True)
    lose = traitlets.Int(toy.CAT).tag(sync=True)
    tilts = traitlets.List(traitlets.Float()).tag(sync=True)
    tilt = traitlets.Float(0.0).tag(sync=True)


def budget_view(tilts: Sequence[float] = budget.TILTS, start: float = 0.0) -> BudgetView:
    """The trade-off slider over ``tilts`` on *chased*'s row of the single full-width head
    (:func:`mha.toy.single_head_weights`), starting at ``start``; a widget for a page."""
    if start not in tilts:
        raise ValueError(f"start tilt {start} must be among {list(tilts)}")
    W_q, W_k, _ = toy.single_head_weights()  # (9, 9) each
    return BudgetView(
        X=toy.X.tolist(),  # (5, 9)
        W_q=W_q.tolist(),
        W_k=W_k.tolist(),
        words=list(toy.SENTENCE),
        tilts=[float(t) for t in tilts],
        tilt=float(start),
    )
