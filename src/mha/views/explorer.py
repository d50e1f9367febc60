"""The explorer of chapter 2: sliders for ``h`` and ``d_k``, and a word picker, over the toy
sentence, with a source picker for designed, random and trained heads.

Panels, any of:

* ``rows``: every head's row for one chosen word, as bars;
* ``heads``: every head's full ``n x n`` weight table.

The heads are :func:`mha.toy.random_heads` with a fixed seed: untrained heads,
so what they show is the *shape* of the result (one row per head, each summing
to one), not what any head means. A source picker can add the hand-written heads of
:func:`mha.toy.designed_heads` and the trained heads of :mod:`mha.views.trained`.
Every view is precomputed (see :mod:`mha.views.switch`), so the same numbers appear
with a kernel or without. Chapters 1, 3 and 4 use :mod:`mha.views.heads_view`, computed
in the browser, which draws these panels and ``concat`` and ``cost`` (the heads side by
side; a layer's counts). This module keeps every panel type's expected values, recomputed
by another route than the one that drew it: PyTorch's ``scaled_dot_product_attention``
for weights and outputs (the cost's, by FLOPs counted by PyTorch, are in
:mod:`mha.views.cost`).
"""

from __future__ import annotations

from collections.abc import Sequence

import ipywidgets as widgets
import torch
from torch import Tensor
from torch.nn.functional import scaled_dot_product_attention

from mha import toy
from mha.attention import all_heads
from mha.views.html import bars, head_box, heatmap, number, view
from mha.views.switch import choose, panel, register_expected, slider, switch
from mha.views.trained_panel import TrainedPanel


def _torch_heads(h: int, d_k: int, seed: int, source: str = "random") -> tuple[Tensor, Tensor]:
    """Weights ``(h, 5, 5)`` and outputs ``(h, 5, d_k)`` of the heads, by PyTorch's SDPA."""
    heads = toy.designed_heads() if source == "designed" else toy.random_heads(h, d_k, seed)
    W_q, W_k, W_v = heads  # (h, 9, d_k) each
    Q, K, V = toy.X @ W_q, toy.X @ W_k, toy.X @ W_v  # (h, 5, d_k) each
    eye = torch.eye(5, dtype=torch.float64).expand(h, 5, 5)  # values that return the weights
    return scaled_dot_product_attention(Q, K, eye), scaled_dot_product_attention(Q, K, V)


def _weights(h: int, d_k: int, seed: int, source: str) -> Tensor:
    """``(h, 5, 5)``: the random heads ``(h, d_k, seed)``, or the designed ones (3 of width 3)."""
    if source == "designed":
        return all_heads(toy.X, *toy.designed_heads())[1]  # (3, 5, 5)
    return toy.head_weights(h, d_k, seed)  # (h, 5, 5)


def heads_html(
    h: int, d_k: int, seed: int = 0, highlight: int | None = None, source: str = "random"
) -> str:
    """Every head's weight table ``(5, 5)`` for ``(h, d_k)``, as one view."""
    w = _weights(h, d_k, seed, source)  # (h, 5, 5)
    blocks = "".join(
        head_box(f"head {i + 1}", heatmap(w[i], toy.SENTENCE, f"w{i}", highlight)) for i in range(h)
    )
    body = f'<div class="mha-heads">{blocks}</div>'
    return view("heads", body, h=h, d_k=d_k, seed=seed, source=source)


@register_expected("heads")
def expected_heads(h: str, dk: str, seed: str, source: str = "random") -> dict[str, float]:
    """Numbers a ``heads`` view shows, from its ``data-h/dk/seed/source`` attributes."""
    w, _ = _torch_heads(int(h), int(dk), int(seed), source)  # (h, 5, 5)
    return {
        f"w{i}-{r}-{c}": float(w[i, r, c])
        for i in range(int(h))
        for r in range(5)
        for c in range(5)
    }


def rows_html(h: int, d_k: int, word: int, seed: int = 0, source: str = "random") -> str:
    """Every head's row ``(5,)`` for one query word, side by side, as one view."""
    w = _weights(h, d_k, seed, source)[:, word]  # (h, 5)
    blocks = "".join(
        head_box(
            f"head {i + 1}: {toy.SENTENCE[word]} → …",
            bars(w[i], toy.SENTENCE, f"r{i}")
            + f'<div class="mha-note">row sum {number(f"sum{i}", float(w[i].sum()))}</div>',
        )
        for i in range(h)
    )
    body = f'<div class="mha-heads">{blocks}</div>'
    return view("rows", body, h=h, d_k=d_k, word=word, seed=seed, source=source)


@register_expected("rows")
def expected_rows(
    h: str, dk: str, word: str, seed: str, source: str = "random"
) -> dict[str, float]:
    """Numbers a ``rows`` view shows, from its ``data-h/dk/word/seed/source`` attributes."""
    w, _ = _torch_heads(int(h), int(dk), int(seed), source)  # (h, 5, 5)
    rows = w[:, int(word)]  # (h, 5)
    out = {f"r{i}-{j}": float(rows[i, j]) for i in range(rows.shape[0]) for j in range(5)}
    out.update({f"sum{i}": float(rows[i].sum()) for i in range(rows.shape[0])})
    return out


@register_expected("concat")
def expected_concat(h: str, dk: str, seed: str) -> dict[str, float]:
    """Numbers a ``concat`` view (mha.views.heads_view) shows: PyTorch's per-head outputs
    joined by ``torch.cat``."""
    _, outs = _torch_heads(int(h), int(dk), int(seed))  # (h, 5, d_k)
    c = torch.cat(list(outs), dim=-1)  # (5, h*d_k)
    out = {f"c{r}-{j}": float(c[r, j]) for r in range(c.shape[0]) for j in range(c.shape[1])}
    out["width"] = float(c.shape[1])
    return out


SOURCES = {"designed": "designed (h = 3)", "random": "random", "trained": "trained"}


def _word_picker(word: int) -> widgets.Dropdown:
    return widgets.Dropdown(
        options=list(zip(toy.WORD_LABELS, range(5), strict=True)),
        value=word,
        description="row of",
        layout=widgets.Layout(width="200px"),
    )


class Explorer(widgets.VBox):
    """Sliders for ``h`` and ``d_k`` and a word picker over the toy sentence.

    Args:
        h_values: the positions of the ``h`` slider.
        d_k_values: the positions of the ``d_k`` slider.
        h, d_k, word: the starting position (``word`` is an index into the sentence).
        seed: the seed of :func:`mha.toy.random_heads`.
        show: which panels to show, any of ``"rows"``, ``"heads"``.
        sources: which heads to offer, any of ``"designed"`` (the three hand-written heads
            of :func:`mha.toy.designed_heads`: rows and heads panels), ``"random"`` (the
            sliders above) and ``"trained"`` (:class:`mha.views.trained.TrainedPanel`, the
            stored trained heads of the subject/object task); with more than one, a
            source picker switches between them.
        source: the source shown first (default: the first of ``sources``).

    A control with a single position is not shown. ``self.controls`` holds the random
    source's controls (outermost first), ``self.panels`` its views by name;
    ``self.source_picker``, ``self.designed`` and ``self.trained`` exist when offered.
    """

    def __init__(
        self,
        h_values: Sequence[int] = (1, 2, 3, 4),
        d_k_values: Sequence[int] = tuple(range(1, 10)),
        h: int = 3,
        d_k: int = 3,
        word: int = toy.CHASED,
        seed: int = 0,
        show: Sequence[str] = ("rows", "heads"),
        sources: Sequence[str] = ("random",),
        source: str | None = None,
    ) -> None:
        if h not in h_values or d_k not in d_k_values:
            raise ValueError(f"start h = {h}, d_k = {d_k} must be among {h_values}, {d_k_values}")
        order = [s for s in SOURCES if s in sources]
        if len(order) != len(sources) or (source or order[0]) not in order:
            raise ValueError(f"sources {sources}, source {source}: choose from {list(SOURCES)}")
        self.h_slider = slider("heads h", h_values, h)
        self.d_k_slider = slider("head width d_k", d_k_values, d_k)
        self.word_picker = _word_picker(word)
        hv, dv = list(h_values), list(d_k_values)
        hd = (self.h_slider, self.d_k_slider)
        makers = {
            "rows": (
                (*hd, self.word_picker),
                lambda k: rows_html(hv[k[0]], dv[k[1]], k[2], seed),
            ),
            "heads": (hd, lambda k: heads_html(hv[k[0]], dv[k[1]], seed)),
        }
        unknown = set(show) - set(makers)
        if unknown:
            raise ValueError(f"unknown panels {sorted(unknown)}; choose from {sorted(makers)}")
        self.panels = {name: switch(*makers[name]) for name in show}
        used = [*hd] + ([self.word_picker] if "rows" in show else [])
        self.controls = [c for c in used if len(c.options) > 1]
        style, *random = panel(self.controls, *self.panels.values()).children
        if order == ["random"]:
            super().__init__([style, *random])
            return
        boxes = {"random": widgets.VBox(random)}
        if "designed" in order:
            self.designed = _word_picker(word)
            rows = switch([self.designed], lambda k: rows_html(3, 3, k[0], source="designed"))
            heads = widgets.HTML(heads_html(3, 3, source="designed"))
            boxes["designed"] = widgets.VBox([self.designed, rows, heads])
        if "trained" in order:
            self.trained = TrainedPanel()
            boxes["trained"] = self.trained
        self.source_picker = widgets.ToggleButtons(
            options=[(SOURCES[s], i) for i, s in enumerate(order)],
            value=order.index(source or order[0]),
            description="heads",
        )
        stack = choose(self.source_picker, [boxes[s] for s in order])
        super().__init__([style, self.source_picker, stack])
