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

import torch
import traitlets
from torch.nn.functional import scaled_dot_product_attention

from mha.measure import FLOPS_PER_MAC, flops
from mha.views.anywidgets import View
from mha.views.expected import register_expected


def _by_tensors(n: int, d_model: int, h: int, g: int) -> dict[str, int]:
    """The view's rows (``GROUP_ROWS`` in groups_view.mjs) from shape-only tensors and
    PyTorch's FLOP counter."""
    d_k = d_model // h
    X = torch.empty(n, d_model, device="meta")  # (n, d_model)
    W_q = torch.empty(h, d_model, d_k, device="meta")  # (h, d_model, d_k)
    W_k = torch.empty(g, d_model, d_k, device="meta")  # (g, d_model, d_k)
    W_v = torch.empty(g, d_model, d_k, device="meta")  # (g, d_model, d_v)
    Q = torch.einsum("nd,hdk->hnk", X, W_q)  # (h, n, d_k)
    K = torch.einsum("nd,gdk->gnk", X, W_k)  # (g, n, d_k)
    V = torch.einsum("nd,gdk->gnk", X, W_v)  # (g, n, d_v)

    def macs(fn: object, *args: object, **kwargs: object) -> int:
        return flops(fn, *args, **kwargs)["total"] // FLOPS_PER_MAC

    out = {
        "params_q": W_q.numel(),
        "params_kv": W_k.numel() + W_v.numel(),
        "projection_q": macs(torch.einsum, "nd,hdk->hnk", X, W_q),
        "projection_kv": macs(torch.einsum, "nd,gdk->gnk", X, W_k)
        + macs(torch.einsum, "nd,gdk->gnk", X, W_v),
        "attend": macs(scaled_dot_product_attention, Q, K, V, enable_gqa=True),
        "kv_cache": (K.numel() + V.numel()) // n,  # one key and one value per word
    }
    out["params"] = out["params_q"] + out["params_kv"]
    out["macs"] = out["projection_q"] + out["projection_kv"] + out["attend"]
    return out


@register_expected("grouped-cost")
def expected_grouped_cost(n: str, dmodel: str, h: str, g: str) -> dict[str, float]:
    """Numbers a ``grouped-cost`` view shows, by another route: ``numel()`` of shape-only
    tensors, and FLOPs counted by PyTorch on its own grouped attention (``enable_gqa``)."""
    n_, d_model, h_, g_ = int(n), int(dmodel), int(h), int(g)
    ours = _by_tensors(n_, d_model, h_, g_)
    base = _by_tensors(n_, d_model, h_, h_)
    out: dict[str, float] = dict(ours)
    out.update({f"mha-{k}": v for k, v in base.items()})
    out.update({f"ratio-{k}": ours[k] / base[k] for k in ours})
    return out


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
