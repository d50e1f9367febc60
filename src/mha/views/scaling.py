"""The scaling view: one row of weights as a head widens, its scores divided by √d_k or not.

An anywidget (:class:`ScalingView`) whose module, ``static/scaling_view.mjs``, draws the
random head and computes the row in the reader's browser for every width and toggle the
controls offer; the test oracle ``expected_scaling`` (tests/oracles.py) recomputes its
numbers in torch, by another route.
"""

from __future__ import annotations

from collections.abc import Sequence

import traitlets

from mha import scaling, toy
from mha.views.anywidgets import View

# The toggle's positions: (label, scaled).
SCALED_OPTIONS: tuple[tuple[str, int], ...] = (("scores ÷ √d_k", 1), ("scores not divided", 0))


class ScalingView(View, module="scaling_view", link="scaling"):
    """The scaling view (``static/scaling_view.mjs``): ``word``'s row of the random head of
    ``seed`` cut to width ``d_k`` (:func:`mha.scaling.head_scores`), its scores divided by
    √d_k if ``scaled``, computed in the browser. Inputs: X ``(n, d_model)`` and its
    ``words``; ``scale``, the random heads' standard deviation; ``widest``, the width of the
    head drawn; the widths offered (``widths``) and the toggle's ``scaled_options``."""

    X = traitlets.List().tag(sync=True)
    words = traitlets.List(traitlets.Unicode()).tag(sync=True)
    word = traitlets.Int(toy.CHASED).tag(sync=True)
    seed = traitlets.Int(0, min=0).tag(sync=True)
    scale = traitlets.Float(toy.RANDOM_SCALE).tag(sync=True)
    widest = traitlets.Int(max(scaling.VIEW_WIDTHS)).tag(sync=True)
    widths = traitlets.List(traitlets.Int()).tag(sync=True)
    d_k = traitlets.Int(16).tag(sync=True)
    scaled_options = traitlets.List().tag(sync=True)
    scaled = traitlets.Int(1).tag(sync=True)


def scaling_view(
    widths: Sequence[int] = scaling.VIEW_WIDTHS, start: int = 16, scaled: bool = True
) -> ScalingView:
    """A ``d_k`` slider over ``widths`` and a divided/not-divided toggle on *chased*'s row;
    a widget for a page."""
    if start not in widths or not 1 <= min(widths) <= max(widths) <= max(scaling.VIEW_WIDTHS):
        raise ValueError(
            f"widths {list(widths)} must be from 1 to {max(scaling.VIEW_WIDTHS)} "
            f"and hold start = {start}"
        )
    return ScalingView(
        X=toy.X.tolist(),  # (5, 9)
        words=list(toy.SENTENCE),
        widths=list(widths),
        d_k=start,
        scaled_options=[list(o) for o in SCALED_OPTIONS],
        scaled=int(scaled),
    )
