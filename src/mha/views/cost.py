"""The cost panel's expected values: parameters and multiply-adds of a layer.

The panel (a layer's counts next to one full-width head's) is drawn in the browser by
:mod:`mha.views.heads_view` from ``layerCost`` in mha_views.mjs, the port of
:func:`mha.cost.layer_cost`; its expected values are counted another way, with ``numel()``
of real weight tensors and PyTorch's FLOP counter on each product.
"""

from __future__ import annotations

import torch

from mha.measure import flops, random_layer
from mha.views.expected import register_expected


def _ints(attrs: dict[str, str]) -> dict[str, int]:
    return {k: int(v) for k, v in attrs.items()}


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
