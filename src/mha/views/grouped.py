"""The key/value-groups slider: what heads that share keys and values cost.

For the number of key/value groups ``g`` the reader picks: the weights, the
multiply-adds and the key/value cache of a layer whose ``h`` query heads share ``g``
key/value heads, next to ordinary multi-head attention (``g = h``) and their ratio.
An anywidget (:class:`GroupsView`) whose module, ``static/groups_view.mjs``, computes the
counts in the reader's browser (``layerCost`` in ``static/mha_views.mjs``, the port of
:func:`mha.cost.layer_cost`); the expected values are recomputed from ``numel()`` of
shape-only tensors and PyTorch's FLOP counter on its own
``scaled_dot_product_attention(..., enable_gqa=True)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import traitlets

from mha.views.anywidgets import View


class GroupsView(View, module="groups_view", link="groups"):
    """The key/value-groups view (``static/groups_view.mjs``): the counts of a layer of ``h``
    query heads sharing ``g`` key/value heads next to ``g = h``, computed in the browser
    (``layerCost``). Inputs: ``n`` words, ``d_model``, ``h``; the ``groups`` offered."""

    n = traitlets.Int().tag(sync=True)
    d_model = traitlets.Int().tag(sync=True)
    h = traitlets.Int().tag(sync=True)
    groups = traitlets.List(traitlets.Int()).tag(sync=True)
    g = traitlets.Int().tag(sync=True)


def groups_view(
    n: int = 512,
    d_model: int = 512,
    h: int = 8,
    groups: Sequence[int] = (1, 2, 4, 8),
    start: int = 1,
) -> GroupsView:
    """The key/value-groups slider over ``groups`` (each must divide ``h``, and ``h`` must
    divide ``d_model``); a widget for a page."""
    if d_model % h or any(h % g for g in groups) or start not in groups:
        raise ValueError(
            f"h = {h} must divide d_model = {d_model}, each of groups {list(groups)} must "
            f"divide h, and start = {start} must be among them"
        )
    return GroupsView(
        n=n,
        d_model=d_model,
        h=h,
        groups=list(groups),
        g=start,
    )
