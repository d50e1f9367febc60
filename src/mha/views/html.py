"""HTML pieces of the views: one root element, numbers that tests can read, tables, bars.

Every view is one ``<div class="mha-view" data-view="NAME" data-...>`` made by
:func:`view`, and every number it shows is an element with ``data-key`` and
``data-value`` (:func:`number`, :func:`count`). Text and attribute values pass
through :func:`esc` (or :func:`view`, which escapes what it inserts), so a word
such as ``<b>`` reaches the page as text, never as markup.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from torch import Tensor

from mha.style import text_on, weight_colour


def esc(text: object) -> str:
    """``text`` as HTML-escaped text (quotes included), safe in content and attributes."""
    return html.escape(str(text), quote=True)


def view(name: str, body: str, **data: object) -> str:
    """The root element of a view: ``<div class="mha-view" data-view=name data-k=v ...>``.

    Args:
        name: the view type, the key of its expected-value function
            (:func:`mha.views.expected.register_expected`).
        body: the view's inner HTML, built from the helpers of this module.
        data: every parameter the view depends on; ``d_k=3`` becomes ``data-dk="3"``.
            Values are escaped.
    """
    attrs = "".join(f' data-{k.replace("_", "")}="{esc(v)}"' for k, v in data.items())
    return f'<div class="mha-view" data-view="{esc(name)}"{attrs}>{body}</div>'


def number(key: str, value: float, digits: int = 2, spec: str | None = None) -> str:
    """``<span>`` showing ``value`` rounded (or formatted by ``spec``, e.g. ``".2g"`` for
    numbers that span many orders of magnitude), carrying its full value for tests."""
    shown = format(value, spec) if spec else f"{value:.{digits}f}"
    return f'<span data-key="{esc(key)}" data-value="{value:.6g}">{shown}</span>'


def count(key: str, value: int) -> str:
    """``<span>`` showing an integer count with thousands separators."""
    return f'<span data-key="{esc(key)}" data-value="{value}">{value:,}</span>'


def cell(key: str, value: float, background: str, digits: int = 2) -> str:
    """A table cell ``<td>`` coloured ``background``, text in black or white for contrast."""
    return (
        f'<td style="background:{background};color:{text_on(background)}" '
        f'data-key="{esc(key)}" data-value="{value:.6g}">{value:.{digits}f}</td>'
    )


def heatmap(weights: Tensor, words: Sequence[str], key: str, highlight: int | None = None) -> str:
    """A weight table ``(n_q, n_k)``: rows are query words, columns key words.

    Args:
        weights: ``(len(words), len(words))``, or ``(n_q, n_k)`` with ``words`` naming keys.
        words: the key words (and the query words when the table is square).
        key: prefix of each cell's ``data-key``: cell ``[i, j]`` is ``key-i-j``.
        highlight: a query row to frame, so the table and a bar chart of that row
            visibly show the same numbers.
    """
    head = "".join(f'<th scope="col">{esc(x)}</th>' for x in words)
    rows = []
    for i in range(weights.shape[0]):
        cells = "".join(
            cell(f"{key}-{i}-{j}", float(weights[i, j]), weight_colour(float(weights[i, j])))
            for j in range(weights.shape[1])
        )
        cls = ' class="mha-hl"' if i == highlight else ""
        rows.append(f'<tr{cls}><th scope="row">{esc(words[i])}</th>{cells}</tr>')
    return (
        f'<table class="mha-heat"><thead><tr><th scope="col">query ↓ key →</th>{head}</tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
    )


def bars(row: Tensor, words: Sequence[str], key: str) -> str:
    """One attention row ``(n,)`` as horizontal bars with the weight printed."""
    items = []
    for j, word in enumerate(words):
        v = float(row[j])
        items.append(
            f'<div class="mha-bar"><span class="mha-bar-word">{esc(word)}</span>'
            f'<span class="mha-bar-track"><span class="mha-bar-fill" '
            f'style="width:{100 * v:.1f}%;background:{weight_colour(v)}"></span></span>'
            f"{number(f'{key}-{j}', v)}</div>"
        )
    return f'<div class="mha-bars">{"".join(items)}</div>'


def head_box(title: str, body: str) -> str:
    """One head's panel: a heading (escaped) over its table or bars."""
    return f'<div class="mha-head"><h4>{esc(title)}</h4>{body}</div>'


def note(text: str) -> str:
    """A line of explanation under or over a view; ``text`` is HTML built by this module."""
    return f'<p class="mha-note">{text}</p>'


STYLE = """<style>
.mha-view{font-family:system-ui,sans-serif;font-size:13px;line-height:1.35;max-width:100%;overflow-x:auto}
.mha-view .mha-heads{display:flex;flex-wrap:wrap;gap:14px}
.mha-view .mha-head{border:1px solid #8888;border-radius:6px;padding:6px 8px}
.mha-view .mha-head h4{margin:0 0 4px 0;font-size:13px}
.mha-view table.mha-heat{border-collapse:collapse;margin-top:6px}
.mha-view table.mha-heat td{width:38px;text-align:center;padding:2px 0}
.mha-view table.mha-heat th{font-weight:normal;padding:1px 4px;font-size:12px}
.mha-view table.mha-heat tr.mha-hl td{outline:2px solid #d55e00;outline-offset:-2px}
.mha-view .mha-bar{display:flex;align-items:center;gap:6px;height:18px}
.mha-view .mha-bar-word{flex:none;min-width:5.5em;text-align:right;white-space:nowrap}
.mha-view .mha-bar-track{display:inline-block;width:120px;height:12px;background:#8883}
.mha-view .mha-bar-fill{display:block;height:12px}
.mha-view .mha-costs td,.mha-view .mha-costs th{padding:1px 8px;text-align:right}
.mha-view .mha-note{margin:4px 0}
</style>"""
