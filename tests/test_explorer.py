"""The explorer widget: every view precomputed, and the numbers it shows are mha's."""

from __future__ import annotations

import re

import pytest

from mha import toy
from mha.style import contrast
from mha.views import switch as mw
from mha.views.explorer import Explorer

VALUE = re.compile(r'data-key="([^"]+)" data-value="([^"]+)"')
ATTRS = re.compile(r'data-(h|dk|seed|word|n|dmodel)="(\d+)"')
COLOURED = re.compile(r'style="background:(#[0-9a-f]{6});color:(#[0-9a-f]{6})" data-key="([^"]+)"')


def shown(html: str) -> tuple[str, dict[str, str], dict[str, float]]:
    view = re.search(r'data-view="([^"]+)"', html).group(1)
    attrs = dict(ATTRS.findall(html.split(">", 1)[0]))
    return view, attrs, {k: float(v) for k, v in VALUE.findall(html)}


@pytest.fixture(scope="module")
def explorer() -> Explorer:
    return Explorer(h_values=(1, 2, 3), d_k_values=(1, 3, 9), show=("rows", "heads"))


def test_every_position_shows_mhas_numbers(explorer: Explorer) -> None:
    checked = 0
    for h in explorer.h_slider.options:
        for d_k in explorer.d_k_slider.options:
            for word in range(5):
                explorer.h_slider.value, explorer.d_k_slider.value = h, d_k
                explorer.word_picker.value = word
                for panel in explorer.panels.values():
                    view, attrs, values = shown(mw.visible_html(panel))
                    assert int(attrs["h"]) == h and int(attrs["dk"]) == d_k
                    want = mw.expected(view, **attrs)
                    assert want is not None and values and set(values) == set(want), view
                    for k, v in values.items():
                        assert v == pytest.approx(want[k], rel=1e-5, abs=1e-6), (view, k)
                    checked += 1
    assert checked == 3 * 3 * 5 * 2


def test_rows_view_follows_the_word_picker(explorer: Explorer) -> None:
    explorer.h_slider.value, explorer.d_k_slider.value = 3, 3
    explorer.word_picker.value = toy.CHASED
    _, attrs, values = shown(mw.visible_html(explorer.panels["rows"]))
    assert attrs["word"] == str(toy.CHASED)
    assert sum(values[f"r0-{j}"] for j in range(5)) == pytest.approx(1.0)


def test_single_position_controls_are_hidden() -> None:
    e = Explorer(h_values=(1,), d_k_values=(1, 2), h=1, d_k=2, show=("heads",))
    assert e.controls == [e.d_k_slider]


def test_bad_start_is_rejected() -> None:
    with pytest.raises(ValueError, match="start h = 5"):
        Explorer(h_values=(1, 2), h=5)


def test_numbers_on_coloured_cells_meet_wcag_aa(explorer: Explorer) -> None:
    """Every number on a coloured cell (weights) has a contrast of at least 4.5 with its cell
    (WCAG AA); the browser tests check the same on the page (and test_heads_view.py on the
    heads view's)."""
    checked = 0
    for h in explorer.h_slider.options:
        for d_k in explorer.d_k_slider.options:
            explorer.h_slider.value, explorer.d_k_slider.value = h, d_k
            for name in ("heads",):
                cells = COLOURED.findall(mw.visible_html(explorer.panels[name]))
                assert cells, f"{name}: no coloured cell"
                low = [(k, fg, bg) for bg, fg, k in cells if contrast(fg, bg) < 4.5]
                assert low == [], f"{name} h={h} d_k={d_k}: {low[:5]}"
                checked += len(cells)
    assert checked > 100
