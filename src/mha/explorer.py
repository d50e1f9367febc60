"""The explorer: sliders for ``h`` and ``d_k`` over the toy sentence.

One widget, used by every chapter that lets the reader change the number or
the width of the heads. It shows, for the chosen setting,

* every head's full ``n x n`` weight table (rows: queries, columns: keys),
* every head's row for one chosen word, as bars,
* the layer's cost at the toy size, next to one full-width head.

The heads are :func:`mha.toy.random_heads` with a fixed seed: untrained heads,
so the point is the *shape* of the result (one row per head, each summing to
one), not what any head means. Every view is precomputed (see
:mod:`mha.widgets`), so the same numbers appear with a kernel or without.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import ipywidgets as widgets
from torch import Tensor

from mha import render, toy
from mha import widgets as mw
from mha.attention import concat_heads
from mha.attention import heads as run_heads
from mha.cost import layer_cost
from mha.plots import HEAD_COLOURS

WORD_LABELS = ("the (1st)", "cat", "chased", "the (2nd)", "mouse")


def head_weights(h: int, d_k: int, seed: int = 0) -> Tensor:
    """Attention weights of ``h`` random heads of width ``d_k`` on the toy sentence.

    Returns:
        ``(h, 5, 5)``: head ``i``'s weights, query words down, key words across.
    """
    return _head_weights(h, d_k, seed).clone()  # (h, 5, 5)


@functools.lru_cache(maxsize=256)
def _head_weights(h: int, d_k: int, seed: int) -> Tensor:
    """Cached for the explorer, which draws each setting in several panels and rows."""
    W_q, W_k, W_v = toy.random_heads(h, d_k, seed)  # (h, 9, d_k) each
    _, weights = run_heads(toy.X, W_q, W_k, W_v)  # (h, 5, 5)
    return weights


def _ints(**attrs: str) -> dict[str, int]:
    return {k: int(v) for k, v in attrs.items() if k in {"h", "dk", "seed", "word", "n", "dmodel"}}


@mw.register_expected("heads")
def expected_heads(**attrs: str) -> dict[str, float]:
    """Numbers a ``heads`` view shows, from its ``data-h/dk/seed`` attributes."""
    a = _ints(**attrs)
    w = head_weights(a["h"], a["dk"], a["seed"])  # (h, 5, 5)
    h, n, _ = w.shape
    return {
        f"w{i}-{r}-{c}": float(w[i, r, c]) for i in range(h) for r in range(n) for c in range(n)
    }


@mw.register_expected("rows")
def expected_rows(**attrs: str) -> dict[str, float]:
    """Numbers a ``rows`` view shows, from its ``data-h/dk/seed/word`` attributes."""
    a = _ints(**attrs)
    w = head_weights(a["h"], a["dk"], a["seed"])[:, a["word"]]  # (h, 5)
    out = {f"r{i}-{j}": float(w[i, j]) for i in range(w.shape[0]) for j in range(w.shape[1])}
    out.update({f"sum{i}": float(w[i].sum()) for i in range(w.shape[0])})
    return out


@mw.register_expected("cost")
def expected_cost(**attrs: str) -> dict[str, float]:
    """Counts a ``cost`` view shows, from its ``data-n/dmodel/h/dk`` attributes."""
    a = _ints(**attrs)
    c = layer_cost(a["n"], a["dmodel"], a["h"], a["dk"]).as_dict()
    return {k: float(v) for k, v in c.items() if k not in {"n", "d_model", "h", "d_k"}}


def concat_of_heads(h: int, d_k: int, seed: int = 0) -> Tensor:
    """The heads' outputs laid side by side, before ``W^O``: ``(5, h*d_k)``."""
    W_q, W_k, W_v = toy.random_heads(h, d_k, seed)  # (h, 9, d_k) each
    H, _ = run_heads(toy.X, W_q, W_k, W_v)  # (h, 5, d_k)
    return concat_heads(H)  # (5, h*d_k)


@mw.register_expected("concat")
def expected_concat(**attrs: str) -> dict[str, float]:
    """Numbers a ``concat`` view shows, from its ``data-h/dk/seed`` attributes."""
    a = _ints(**attrs)
    c = concat_of_heads(a["h"], a["dk"], a["seed"])  # (5, h*d_k)
    out = {f"c{r}-{j}": float(c[r, j]) for r in range(c.shape[0]) for j in range(c.shape[1])}
    out["width"] = float(c.shape[1])
    return out


def concat_html(h: int, d_k: int, seed: int = 0) -> str:
    """The concatenated heads ``(5, h*d_k)`` as a table, each head's columns tinted its colour."""
    c = concat_of_heads(h, d_k, seed)  # (5, h*d_k)
    tint = [render.tint(HEAD_COLOURS[i % len(HEAD_COLOURS)]) for i in range(h)]
    top = "".join(
        f'<th colspan="{d_k}" style="background:{tint[i]}">head {i + 1}</th>' for i in range(h)
    )
    cols = "".join(f'<th style="background:{tint[j // d_k]}">{j + 1}</th>' for j in range(h * d_k))
    body = "".join(
        f'<tr><th scope="row">{word}</th>'
        + "".join(
            f'<td style="background:{tint[j // d_k]};color:#000" data-key="c{r}-{j}" '
            f'data-value="{float(c[r, j]):.6g}">{float(c[r, j]):.2f}</td>'
            for j in range(h * d_k)
        )
        + "</tr>"
        for r, word in enumerate(toy.SENTENCE)
    )
    width = h * d_k
    verdict = (
        "the words leave at the width they arrived at"
        if width == toy.D_MODEL
        else f"W^O must map {width} columns back to d_model = {toy.D_MODEL}"
    )
    return (
        f'<div class="mha-view" data-view="concat" data-h="{h}" data-dk="{d_k}" '
        f'data-seed="{seed}"><p class="mha-note">concat is 5 × '
        f"{render.count('width', width)} (h·d_k = {h} × {d_k}): {verdict}.</p>"
        f'<table class="mha-heat"><thead><tr><th></th>{top}</tr><tr><th>column</th>{cols}'
        f"</tr></thead><tbody>{body}</tbody></table></div>"
    )


def heads_html(h: int, d_k: int, seed: int = 0, highlight: int | None = None) -> str:
    """Every head's weight table for ``(h, d_k)``, as one view."""
    w = head_weights(h, d_k, seed)  # (h, 5, 5)
    blocks = "".join(
        f'<div class="mha-head"><h4>head {i + 1}</h4>'
        f"{render.heatmap(w[i], toy.SENTENCE, f'w{i}', highlight)}</div>"
        for i in range(h)
    )
    return (
        f'<div class="mha-view" data-view="heads" data-h="{h}" data-dk="{d_k}" '
        f'data-seed="{seed}"><div class="mha-heads">{blocks}</div></div>'
    )


def rows_html(h: int, d_k: int, word: int, seed: int = 0) -> str:
    """Every head's row for one query word, side by side, as one view."""
    w = head_weights(h, d_k, seed)[:, word]  # (h, 5)
    blocks = "".join(
        f'<div class="mha-head"><h4>head {i + 1}: {toy.SENTENCE[word]} → …</h4>'
        f"{render.bars(w[i], toy.SENTENCE, f'r{i}')}"
        f'<div class="mha-note">row sum {render.number(f"sum{i}", float(w[i].sum()))}</div></div>'
        for i in range(h)
    )
    return (
        f'<div class="mha-view" data-view="rows" data-h="{h}" data-dk="{d_k}" '
        f'data-word="{word}" data-seed="{seed}"><div class="mha-heads">{blocks}</div></div>'
    )


def cost_html(n: int, d_model: int, h: int, d_k: int) -> str:
    """A table of parameter and multiply-add counts for ``(n, d_model, h, d_k)``.

    Next to each count: the same count for one head of full width ``d_model``,
    and the ratio, so heads that stay full width show their ``h``-fold cost.
    """
    c, one = layer_cost(n, d_model, h, d_k), layer_cost(n, d_model, 1, d_model)
    rows = (
        ("params_without_out", "parameters in W^Q, W^K, W^V"),
        ("params_total", "parameters with W^O"),
        ("projection", "projection multiply-adds"),
        ("scoring", "scoring multiply-adds (QKᵀ)"),
        ("blending", "blending multiply-adds (weights·V)"),
    )
    cd, od = c.as_dict(), one.as_dict()
    body = "".join(
        f"<tr><th scope='row'>{label}</th><td>{render.count(k, cd[k])}</td>"
        f"<td>{od[k]:,}</td><td>×{cd[k] / od[k]:.2f}</td></tr>"
        for k, label in rows
    )
    width = h * d_k
    verdict = (
        f"h·d_k = {width} = d_model: the heads split one head's budget."
        if width == d_model
        else f"h·d_k = {width} ≠ d_model = {d_model}: the heads do not split one head's width."
    )
    return (
        f'<div class="mha-view" data-view="cost" data-n="{n}" data-dmodel="{d_model}" '
        f'data-h="{h}" data-dk="{d_k}"><p class="mha-note">{verdict}</p>'
        f'<table class="mha-costs"><thead><tr><th></th><th>{h} × d_k={d_k}</th>'
        f"<th>1 × d_k={d_model}</th><th>ratio</th></tr></thead><tbody>{body}</tbody></table></div>"
    )


class Explorer(widgets.VBox):
    """Sliders for ``h`` and ``d_k`` and a word picker over the toy sentence.

    Args:
        h_values: the positions of the ``h`` slider.
        d_k_values: the positions of the ``d_k`` slider.
        h, d_k, word: the starting position (``word`` is an index into the sentence).
        seed: the seed of :func:`mha.toy.random_heads`.
        show: which panels to show, any of ``"rows"``, ``"heads"``, ``"concat"``
            (the heads side by side before ``W^O``), ``"cost"``.

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
    ) -> None:
        if h not in h_values or d_k not in d_k_values:
            raise ValueError(f"start h = {h}, d_k = {d_k} must be among {h_values}, {d_k_values}")
        self.h_slider = mw.slider("heads h", h_values, h)
        self.d_k_slider = mw.slider("head width d_k", d_k_values, d_k)
        self.word_picker = widgets.Dropdown(
            options=list(zip(WORD_LABELS, range(5), strict=True)),
            value=word,
            description="row of",
            layout=widgets.Layout(width="200px"),
        )
        hv, dv = list(h_values), list(d_k_values)
        makers = {
            "rows": (
                (self.h_slider, self.d_k_slider, self.word_picker),
                lambda k: rows_html(hv[k[0]], dv[k[1]], k[2], seed),
            ),
            "heads": (
                (self.h_slider, self.d_k_slider),
                lambda k: heads_html(hv[k[0]], dv[k[1]], seed),
            ),
            "concat": (
                (self.h_slider, self.d_k_slider),
                lambda k: concat_html(hv[k[0]], dv[k[1]], seed),
            ),
            "cost": (
                (self.h_slider, self.d_k_slider),
                lambda k: cost_html(len(toy.SENTENCE), toy.D_MODEL, hv[k[0]], dv[k[1]]),
            ),
        }
        unknown = set(show) - set(makers)
        if unknown:
            raise ValueError(f"unknown panels {sorted(unknown)}; choose from {sorted(makers)}")
        self.panels = {name: mw.switch(*makers[name]) for name in show}
        used = [self.h_slider, self.d_k_slider] + ([self.word_picker] if "rows" in show else [])
        self.controls = [c for c in used if len(c.options) > 1]
        super().__init__(
            [widgets.HTML(render.STYLE), widgets.HBox(self.controls), *self.panels.values()]
        )
