"""The cost panel: parameters and multiply-adds of a layer next to one full-width head.

Counts come from :func:`mha.cost.layer_cost`; the expected values are counted another
way, with ``numel()`` of real weight tensors and PyTorch's FLOP counter on each product.
"""

from __future__ import annotations

import torch

from mha.cost import layer_cost
from mha.measure import flops, random_layer
from mha.views.html import count, esc, note, view
from mha.views.switch import register_expected

COST_ROWS = (
    ("params_without_out", "parameters in W^Q, W^K, W^V"),
    ("params_total", "parameters with W^O"),
    ("projection", "projection multiply-adds"),
    ("scoring", "scoring multiply-adds (QKᵀ)"),
    ("blending", "blending multiply-adds (weights·V)"),
)


def _ints(attrs: dict[str, str]) -> dict[str, int]:
    return {k: int(v) for k, v in attrs.items()}


def cost_html(n: int, d_model: int, h: int, d_k: int) -> str:
    """A table of parameter and multiply-add counts for ``(n, d_model, h, d_k)``.

    Next to each count: the same count for one head of full width ``d_model``,
    and the ratio, so heads that stay full width show their ``h``-fold cost.
    """
    cd = layer_cost(n, d_model, h, d_k).as_dict()
    od = layer_cost(n, d_model, 1, d_model).as_dict()
    body = "".join(
        f'<tr><th scope="row">{label}</th><td>{count(k, cd[k])}</td>'
        f"<td>{od[k]:,}</td><td>×{cd[k] / od[k]:.2f}</td></tr>"
        for k, label in COST_ROWS
    )
    width = h * d_k
    verdict = (
        f"h·d_k = {width} = d_model: the heads split one head's width (and its cost)."
        if width == d_model
        else f"h·d_k = {width} ≠ d_model = {d_model}: the heads do not split one head's width."
    )
    table = (
        f'<table class="mha-costs"><thead><tr><td></td><th scope="col">{h} × d_k={d_k}</th>'
        f'<th scope="col">1 × d_k={d_model}</th><th scope="col">ratio</th></tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )
    return view("cost", note(esc(verdict)) + table, n=n, d_model=d_model, h=h, d_k=d_k)


@register_expected("cost")
def expected_cost(n: str, dmodel: str, h: str, dk: str) -> dict[str, float]:
    """Counts a ``cost`` view shows, by another route: ``numel()`` of real weight tensors and
    PyTorch's FLOP counter (two FLOPs per multiply-add) on each product, on shape-only tensors."""
    a = _ints({"n": n, "d_model": dmodel, "h": h, "d_k": dk})
    layer = random_layer(a["n"], a["d_model"], a["h"], a["d_k"], device="meta")
    Q = torch.einsum("nd,hdk->hnk", layer.X, layer.W_q)  # (h, n, d_k)
    weights = torch.empty(a["h"], a["n"], a["n"], device="meta")  # (h, n, n)
    qkv = layer.W_q.numel() + layer.W_k.numel() + layer.W_v.numel()
    return {
        "params_without_out": qkv,
        "params_total": qkv + layer.W_o.numel(),
        "projection": 3 * flops(torch.einsum, "nd,hdk->hnk", layer.X, layer.W_q)["total"] // 2,
        "scoring": flops(torch.matmul, Q, Q.transpose(-2, -1))["total"] // 2,
        "blending": flops(torch.matmul, weights, Q)["total"] // 2,
    }
