"""The trade-off slider: tilt *chased*'s scores from *cat* to *mouse* and watch the budget.

The view is an anywidget (:class:`BudgetView`) whose module, ``static/budget_view.mjs``,
computes the row in the reader's browser (``tiltRow`` in ``static/mha_views.mjs``, the port
of :func:`mha.budget.tilt`) for every tilt the slider offers; tests/oracles.py's ``expected_budget``
recomputes its numbers with PyTorch's own attention, by another route.
"""

from __future__ import annotations

from collections.abc import Sequence

import traitlets

from mha import budget, toy
from mha.views.anywidgets import View


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
