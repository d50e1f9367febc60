"""The key/value-groups slider: what heads that share keys and values cost.

One view per number of key/value groups ``g``: the weights, the multiply-adds and
the key/value cache of a layer whose ``h`` query heads share ``g`` key/value
heads, next to ordinary multi-head attention (``g = h``) and their ratio. The
counts come from :func:`mha.cost.layer_cost`; the expected values are recomputed
from ``numel()`` of shape-only tensors and PyTorch's FLOP counter on its own
``scaled_dot_product_attention(..., enable_gqa=True)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as widgets
import torch
from torch.nn.functional import scaled_dot_product_attention

from mha.cost import Cost, layer_cost
from mha.measure import FLOPS_PER_MAC, flops
from mha.views.html import count, esc, note, number, view
from mha.views.switch import register_expected, slider, switch

GROUP_ROWS = (
    ("params_q", "weights in W^Q"),
    ("params_kv", "weights in W^K and W^V"),
    ("params", "weights in W^Q, W^K, W^V together"),
    ("projection_q", "multiply-adds: projecting Q"),
    ("projection_kv", "multiply-adds: projecting K and V"),
    ("attend", "multiply-adds: scoring and blending"),
    ("macs", "multiply-adds: all of the above"),
    ("kv_cache", "key/value cache: numbers per word"),
)


def _counts(c: Cost) -> dict[str, int]:
    """The rows of :data:`GROUP_ROWS` from a :class:`~mha.cost.Cost`."""
    return {
        "params_q": c.params_per_role,
        "params_kv": 2 * c.params_kv_per_role,
        "params": c.params_without_out,
        "projection_q": c.projection_per_role,
        "projection_kv": 2 * c.projection_kv_per_role,
        "attend": c.scoring + c.blending,
        "macs": c.macs_without_out,
        "kv_cache": c.kv_cache_per_token,
    }


def variant(h: int, g: int) -> str:
    """The usual name of ``h`` query heads sharing ``g`` key/value heads."""
    if g == h:
        return "ordinary multi-head attention"
    if g == 1:
        return "multi-query attention"
    return "grouped-query attention"


def grouped_cost_html(n: int, d_model: int, h: int, g: int) -> str:
    """One view: the counts of :data:`GROUP_ROWS` for ``g`` groups, for ``g = h``, and the ratio."""
    ours = _counts(layer_cost(n, d_model, h, kv_groups=g))
    base = _counts(layer_cost(n, d_model, h))
    rows = "".join(
        f'<tr><th scope="row">{esc(label)}</th><td>{count(k, ours[k])}</td>'
        f"<td>{count(f'mha-{k}', base[k])}</td>"
        f"<td>×{number(f'ratio-{k}', ours[k] / base[k], 3)}</td></tr>"
        for k, label in GROUP_ROWS
    )
    share = h // g
    head = f"{h} query heads, g = {g} key/value head{'s' if g > 1 else ''}"
    text = (
        f"{head}: {variant(h, g)}; each key/value head serves {share} query "
        f"head{'s' if share > 1 else ''} (d_model = {d_model}, n = {n} words)."
    )
    table = (
        f'<table class="mha-costs"><thead><tr><td></td><th scope="col">g = {g}</th>'
        f'<th scope="col">g = {h} (multi-head)</th><th scope="col">ratio</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
    )
    return view("grouped-cost", note(esc(text)) + table, n=n, d_model=d_model, h=h, g=g)


def _by_tensors(n: int, d_model: int, h: int, g: int) -> dict[str, int]:
    """The rows of :data:`GROUP_ROWS` from shape-only tensors and PyTorch's FLOP counter."""
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


def groups_switch(
    n: int = 512,
    d_model: int = 512,
    h: int = 8,
    groups: Sequence[int] = (1, 2, 4, 8),
    start: int = 1,
) -> tuple[widgets.SelectionSlider, widgets.Widget]:
    """The key/value-groups slider and its precomputed views.

    Returns:
        ``(slider, stack)``: put both in :func:`mha.views.switch.panel`; the stack
        follows the slider with or without a kernel.
    """
    control = slider("key/value groups g", groups, start)
    stack = switch([control], lambda key: grouped_cost_html(n, d_model, h, groups[key[0]]))
    return control, stack
