"""Small HTML pictures of attention weights, for views that must work with no kernel.

Plain HTML tables and bars, coloured with matplotlib's ``cividis`` map (designed
to be read the same with the common colour-vision deficiencies), every number
printed as well as coloured, and every number tagged with ``data-key`` and
``data-value`` so tests can read what the reader sees.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import matplotlib as mpl
from torch import Tensor

CMAP = mpl.colormaps["cividis"]


def colour(value: float) -> tuple[str, str]:
    """Background and text colour for a weight in [0, 1]."""
    r, g, b, _ = CMAP(min(max(value, 0.0), 1.0))
    text = "#000" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "#fff"
    return mpl.colors.to_hex((r, g, b)), text


def tint(colour: str, alpha: float = 0.3) -> str:
    """A light version of ``colour`` mixed with white, so black text stays readable on it."""
    r, g, b = mpl.colors.to_rgb(colour)
    return mpl.colors.to_hex(tuple(1 - alpha + alpha * x for x in (r, g, b)))


def number(key: str, value: float, digits: int = 2) -> str:
    """``<span>`` showing ``value`` rounded, carrying its full value for tests."""
    return f'<span data-key="{key}" data-value="{value:.6g}">{value:.{digits}f}</span>'


def count(key: str, value: int) -> str:
    """``<span>`` showing an integer count with thousands separators."""
    return f'<span data-key="{key}" data-value="{value}">{value:,}</span>'


def heatmap(weights: Tensor, words: Sequence[str], key: str, highlight: int | None = None) -> str:
    """One head's weights ``(n, n)`` as a table: rows are queries, columns keys.

    The row ``highlight`` (a query word) gets a frame, so the heatmap and the
    bar chart beside it visibly show the same numbers.
    """
    w = html.escape
    head = "".join(f'<th scope="col">{w(x)}</th>' for x in words)
    rows = []
    for i, word in enumerate(words):
        cells = []
        for j in range(len(words)):
            v = float(weights[i, j])
            bg, fg = colour(v)
            cells.append(
                f'<td style="background:{bg};color:{fg}" data-key="{key}-{i}-{j}" '
                f'data-value="{v:.6g}">{v:.2f}</td>'
            )
        cls = ' class="mha-hl"' if i == highlight else ""
        rows.append(f'<tr{cls}><th scope="row">{w(word)}</th>{"".join(cells)}</tr>')
    return (
        f'<table class="mha-heat"><thead><tr><th>query ↓ key →</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def bars(row: Tensor, words: Sequence[str], key: str) -> str:
    """One attention row ``(n,)`` as horizontal bars with the weight printed."""
    items = []
    for j, word in enumerate(words):
        v = float(row[j])
        bg, _ = colour(v)
        items.append(
            f'<div class="mha-bar"><span class="mha-bar-word">{html.escape(word)}</span>'
            f'<span class="mha-bar-track"><span class="mha-bar-fill" '
            f'style="width:{100 * v:.1f}%;background:{bg}"></span></span>'
            f"{number(f'{key}-{j}', v)}</div>"
        )
    return f'<div class="mha-bars">{"".join(items)}</div>'


STYLE = """<style>
.mha-view{font-family:system-ui,sans-serif;font-size:13px;line-height:1.35}
.mha-view .mha-heads{display:flex;flex-wrap:wrap;gap:14px}
.mha-view .mha-head{border:1px solid #8888;border-radius:6px;padding:6px 8px}
.mha-view .mha-head h4{margin:0 0 4px 0;font-size:13px}
.mha-view table.mha-heat{border-collapse:collapse;margin-top:6px}
.mha-view table.mha-heat td{width:38px;text-align:center;padding:2px 0}
.mha-view table.mha-heat th{font-weight:normal;padding:1px 4px;font-size:12px}
.mha-view table.mha-heat tr.mha-hl td{outline:2px solid #d55e00;outline-offset:-2px}
.mha-view .mha-bar{display:flex;align-items:center;gap:6px;height:18px}
.mha-view .mha-bar-word{width:54px;text-align:right}
.mha-view .mha-bar-track{display:inline-block;width:120px;height:12px;background:#8883}
.mha-view .mha-bar-fill{display:block;height:12px}
.mha-view .mha-costs td,.mha-view .mha-costs th{padding:1px 8px;text-align:right}
.mha-view .mha-note{margin:4px 0}
</style>"""
