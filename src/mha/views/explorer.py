"""The explorer: sliders for ``h`` and ``d_k``, and a word picker, over the toy sentence.

One widget for every page that lets the reader change the number or the
width of the heads. Panels, any of:

* ``rows``: every head's row for one chosen word, as bars;
* ``heads``: every head's full ``n x n`` weight table;
* ``concat``: the heads' outputs side by side, before ``W^O``;
* ``cost``: the layer's parameters and multiply-adds next to one full-width head,
  at the toy size or at any ``(n, d_model)``.

The heads are :func:`mha.toy.random_heads` with a fixed seed: untrained heads,
so what they show is the *shape* of the result (one row per head, each summing
to one), not what any head means. Every view is precomputed (see
:mod:`mha.views.switch`), so the same numbers appear with a kernel or without.
Each view type's expected values are recomputed by another route than the one
that drew it: PyTorch's ``scaled_dot_product_attention`` for weights and
outputs, and FLOPs counted by PyTorch on real calls for costs.
"""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as widgets
import torch
from torch import Tensor
from torch.nn.functional import scaled_dot_product_attention

from mha import toy
from mha.concat import concat_of_heads
from mha.cost import layer_cost
from mha.measure import flops, random_layer
from mha.style import head_colour, tint
from mha.views.html import bars, cell, count, esc, head_box, heatmap, note, number, view
from mha.views.switch import panel, register_expected, slider, switch

COST_ROWS = (
    ("params_without_out", "parameters in W^Q, W^K, W^V"),
    ("params_total", "parameters with W^O"),
    ("projection", "projection multiply-adds"),
    ("scoring", "scoring multiply-adds (QKᵀ)"),
    ("blending", "blending multiply-adds (weights·V)"),
)


def _ints(attrs: dict[str, str]) -> dict[str, int]:
    return {k: int(v) for k, v in attrs.items()}


def _torch_heads(h: int, d_k: int, seed: int) -> tuple[Tensor, Tensor]:
    """Weights ``(h, 5, 5)`` and outputs ``(h, 5, d_k)`` of the random heads, by PyTorch's SDPA."""
    W_q, W_k, W_v = toy.random_heads(h, d_k, seed)  # (h, 9, d_k) each
    Q, K, V = toy.X @ W_q, toy.X @ W_k, toy.X @ W_v  # (h, 5, d_k) each
    eye = torch.eye(5, dtype=torch.float64).expand(h, 5, 5)  # values that return the weights
    return scaled_dot_product_attention(Q, K, eye), scaled_dot_product_attention(Q, K, V)


def heads_html(h: int, d_k: int, seed: int = 0, highlight: int | None = None) -> str:
    """Every head's weight table ``(5, 5)`` for ``(h, d_k)``, as one view."""
    w = toy.head_weights(h, d_k, seed)  # (h, 5, 5)
    blocks = "".join(
        head_box(f"head {i + 1}", heatmap(w[i], toy.SENTENCE, f"w{i}", highlight)) for i in range(h)
    )
    return view("heads", f'<div class="mha-heads">{blocks}</div>', h=h, d_k=d_k, seed=seed)


@register_expected("heads")
def expected_heads(h: str, dk: str, seed: str) -> dict[str, float]:
    """Numbers a ``heads`` view shows, from its ``data-h/dk/seed`` attributes."""
    w, _ = _torch_heads(int(h), int(dk), int(seed))  # (h, 5, 5)
    return {
        f"w{i}-{r}-{c}": float(w[i, r, c])
        for i in range(int(h))
        for r in range(5)
        for c in range(5)
    }


def rows_html(h: int, d_k: int, word: int, seed: int = 0) -> str:
    """Every head's row ``(5,)`` for one query word, side by side, as one view."""
    w = toy.head_weights(h, d_k, seed)[:, word]  # (h, 5)
    blocks = "".join(
        head_box(
            f"head {i + 1}: {toy.SENTENCE[word]} → …",
            bars(w[i], toy.SENTENCE, f"r{i}")
            + f'<div class="mha-note">row sum {number(f"sum{i}", float(w[i].sum()))}</div>',
        )
        for i in range(h)
    )
    body = f'<div class="mha-heads">{blocks}</div>'
    return view("rows", body, h=h, d_k=d_k, word=word, seed=seed)


@register_expected("rows")
def expected_rows(h: str, dk: str, word: str, seed: str) -> dict[str, float]:
    """Numbers a ``rows`` view shows, from its ``data-h/dk/word/seed`` attributes."""
    w, _ = _torch_heads(int(h), int(dk), int(seed))  # (h, 5, 5)
    rows = w[:, int(word)]  # (h, 5)
    out = {f"r{i}-{j}": float(rows[i, j]) for i in range(rows.shape[0]) for j in range(5)}
    out.update({f"sum{i}": float(rows[i].sum()) for i in range(rows.shape[0])})
    return out


def concat_html(h: int, d_k: int, seed: int = 0) -> str:
    """The concatenated heads ``(5, h*d_k)`` as a table, each head's columns tinted its colour."""
    c = concat_of_heads(h, d_k, seed)  # (5, h*d_k)
    tints = [tint(head_colour(i)) for i in range(h)]
    top = "".join(
        f'<th scope="col" colspan="{d_k}" style="background:{tints[i]}">head {i + 1}</th>'
        for i in range(h)
    )
    cols = "".join(
        f'<th scope="col" style="background:{tints[j // d_k]}">{j + 1}</th>' for j in range(h * d_k)
    )
    body = "".join(
        f'<tr><th scope="row">{esc(word)}</th>'
        + "".join(cell(f"c{r}-{j}", float(c[r, j]), tints[j // d_k]) for j in range(h * d_k))
        + "</tr>"
        for r, word in enumerate(toy.SENTENCE)
    )
    width = h * d_k
    verdict = (
        "the words leave at the width they arrived at"
        if width == toy.D_MODEL
        else f"W^O must map {width} columns back to d_model = {toy.D_MODEL}"
    )
    table = (
        f'<table class="mha-heat"><thead><tr><td></td>{top}</tr><tr><th scope="col">column</th>'
        f"{cols}</tr></thead><tbody>{body}</tbody></table>"
    )
    text = note(f"concat is 5 × {count('width', width)} (h·d_k = {h} × {d_k}): {esc(verdict)}.")
    return view("concat", text + table, h=h, d_k=d_k, seed=seed)


@register_expected("concat")
def expected_concat(h: str, dk: str, seed: str) -> dict[str, float]:
    """Numbers a ``concat`` view shows: PyTorch's per-head outputs joined by ``torch.cat``."""
    _, outs = _torch_heads(int(h), int(dk), int(seed))  # (h, 5, d_k)
    c = torch.cat(list(outs), dim=-1)  # (5, h*d_k)
    out = {f"c{r}-{j}": float(c[r, j]) for r in range(c.shape[0]) for j in range(c.shape[1])}
    out["width"] = float(c.shape[1])
    return out


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


class Explorer(widgets.VBox):
    """Sliders for ``h`` and ``d_k`` and a word picker over the toy sentence.

    Args:
        h_values: the positions of the ``h`` slider.
        d_k_values: the positions of the ``d_k`` slider.
        h, d_k, word: the starting position (``word`` is an index into the sentence).
        seed: the seed of :func:`mha.toy.random_heads`.
        show: which panels to show, any of ``"rows"``, ``"heads"``, ``"concat"``, ``"cost"``.
        n, d_model: the size the ``cost`` panel prices (default: the toy sentence's).

    A control with a single position is not shown. ``self.controls`` holds the
    controls (outermost first), ``self.panels`` the views by name.
    """

    def __init__(
        self,
        h_values: Sequence[int] = (1, 2, 3, 4),
        d_k_values: Sequence[int] = tuple(range(1, 10)),
        h: int = 3,
        d_k: int = 3,
        word: int = toy.CHASED,
        seed: int = 0,
        show: Sequence[str] = ("rows", "heads", "cost"),
        n: int = len(toy.SENTENCE),
        d_model: int = toy.D_MODEL,
    ) -> None:
        if h not in h_values or d_k not in d_k_values:
            raise ValueError(f"start h = {h}, d_k = {d_k} must be among {h_values}, {d_k_values}")
        self.h_slider = slider("heads h", h_values, h)
        self.d_k_slider = slider("head width d_k", d_k_values, d_k)
        self.word_picker = widgets.Dropdown(
            options=list(zip(toy.WORD_LABELS, range(5), strict=True)),
            value=word,
            description="row of",
            layout=widgets.Layout(width="200px"),
        )
        hv, dv = list(h_values), list(d_k_values)
        hd = (self.h_slider, self.d_k_slider)
        makers = {
            "rows": (
                (*hd, self.word_picker),
                lambda k: rows_html(hv[k[0]], dv[k[1]], k[2], seed),
            ),
            "heads": (hd, lambda k: heads_html(hv[k[0]], dv[k[1]], seed)),
            "concat": (hd, lambda k: concat_html(hv[k[0]], dv[k[1]], seed)),
            "cost": (hd, lambda k: cost_html(n, d_model, hv[k[0]], dv[k[1]])),
        }
        unknown = set(show) - set(makers)
        if unknown:
            raise ValueError(f"unknown panels {sorted(unknown)}; choose from {sorted(makers)}")
        self.panels = {name: switch(*makers[name]) for name in show}
        used = [*hd] + ([self.word_picker] if "rows" in show else [])
        self.controls = [c for c in used if len(c.options) > 1]
        box = panel(self.controls, *self.panels.values())
        super().__init__(box.children)
