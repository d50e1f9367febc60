"""The heads of chapters 1 to 4: an anywidget whose browser side computes the views.

The view (``static/heads_view.mjs``) draws the panels ``rows``, ``heads``, ``concat`` and
``cost`` for the designed heads of :func:`mha.toy.designed_heads` and
for random heads of :func:`mha.toy.random_heads` at the ``h`` and ``d_k`` the reader picks,
with native controls inside the module. While the designed heads are shown, the ``h`` and
``d_k`` sliders stand at theirs (3 and 3); moving a slider, or the seed, switches to random
heads. The numbers are computed in the browser by
``static/mha_views.mjs``, the book's maths ported to JavaScript and checked against it; Python
only sends the inputs (the sentence, weights, colours) as traits. Each panel keeps the views'
``data-*`` contract, so the test oracles (tests/oracles.py: ``expected_rows``/``heads``/
``concat``/``cost``) recompute its numbers in torch.

Random heads do not travel: the module draws them for any seed exactly as
:func:`mha.toy.random_heads` does (``randomHeads`` in mha_views.mjs, with ``toy.RANDOM_SCALE``
sent as a trait; tests/test_js_random.py checks it bit for bit against numpy and PyTorch).
book/_ext/static_widgets.py says how the site loads the module, and draws its first view in
Node.
"""

from __future__ import annotations

from collections.abc import Sequence

import traitlets

from mha import toy
from mha.style import head_colour, text_on, tint
from mha.views.anywidgets import View

PANELS = ("rows", "heads", "concat", "cost")
WEIGHT_PANELS = ("rows", "heads", "concat")
SOURCES = ("designed", "random")


def _weights(W: tuple) -> dict[str, list]:
    W_q, W_k, W_v = W  # (3, d_model, 3) each
    return {"W_q": W_q.tolist(), "W_k": W_k.tolist(), "W_v": W_v.tolist()}


def _tints() -> list[list[str]]:
    """Each head's tint (concat panel's column colours) with its text colour."""
    return [[tint(head_colour(i)), text_on(tint(head_colour(i)))] for i in range(9)]


class HeadsView(View, module="heads_view", link="heads"):
    """The heads view. Inputs: X ``(n, d_model)`` and its words' labels; the designed heads
    (``{W_q, W_k, W_v}``, each ``(3, d_model, 3)``); ``scale``, the random heads' standard
    deviation; the reader's settings: ``source``, ``h``, ``d_k``, ``seed``, ``word``; the
    offered ``h_values``, ``d_k_values``, ``sources``, ``panels``; ``n``/``d_model`` the
    size the cost panel prices; ``link``, the view's name in the page's URL fragment
    (``#heads-1:h=4,dk=3,word=4``: a permalink on the site)."""

    X = traitlets.List().tag(sync=True)
    labels = traitlets.List(traitlets.Unicode()).tag(sync=True)
    designed = traitlets.Dict().tag(sync=True)
    scale = traitlets.Float(toy.RANDOM_SCALE).tag(sync=True)
    head_tints = traitlets.List().tag(sync=True)
    panels = traitlets.List(traitlets.Unicode()).tag(sync=True)
    sources = traitlets.List(traitlets.Unicode()).tag(sync=True)
    h_values = traitlets.List(traitlets.Int()).tag(sync=True)
    d_k_values = traitlets.List(traitlets.Int()).tag(sync=True)
    n = traitlets.Int(len(toy.SENTENCE)).tag(sync=True)
    d_model = traitlets.Int(toy.D_MODEL).tag(sync=True)
    source = traitlets.Unicode("random").tag(sync=True)
    h = traitlets.Int(3).tag(sync=True)
    d_k = traitlets.Int(3).tag(sync=True)
    seed = traitlets.Int(0, min=0).tag(sync=True)
    word = traitlets.Int(toy.CHASED).tag(sync=True)


def heads_view(
    h_values: Sequence[int] = (1, 2, 3, 4),
    d_k_values: Sequence[int] = tuple(range(1, 10)),
    h: int = 3,
    d_k: int = 3,
    word: int = toy.CHASED,
    seed: int = 0,
    show: Sequence[str] = ("rows", "heads", "cost"),
    n: int = len(toy.SENTENCE),
    d_model: int = toy.D_MODEL,
    sources: Sequence[str] = ("random",),
    source: str | None = None,
    link: str | None = None,
) -> HeadsView:
    """The heads view over the toy sentence.

    Args:
        h_values, d_k_values: the positions of the ``h`` and ``d_k`` sliders.
        h, d_k, word, seed: the starting setting (``word`` indexes the sentence).
        show: the panels, any of :data:`PANELS`.
        n, d_model: the size the ``cost`` panel prices (default: the toy sentence's).
        sources: ``"designed"`` and/or ``"random"``; source: the one shown first.
        link: the view's name in permalinks; default ``heads-N`` for the N-th view made
            in this kernel (on a page, its N-th heads view).
    """
    if h not in h_values or d_k not in d_k_values:
        raise ValueError(f"start h = {h}, d_k = {d_k} must be among {h_values}, {d_k_values}")
    if not set(show) <= set(PANELS) or not show:
        raise ValueError(f"panels {list(show)}: choose from {list(PANELS)}")
    source = source or sources[0]
    if not set(sources) <= set(SOURCES) or source not in sources:
        raise ValueError(f"sources {list(sources)}, source {source}: choose from {list(SOURCES)}")
    designed = toy.designed_heads()[0].shape  # W_q: (h, d_model, d_k)
    if "designed" in sources and (designed[0] not in h_values or designed[2] not in d_k_values):
        raise ValueError(
            f"the designed heads (h = {designed[0]}, d_k = {designed[2]}) must be among"
            f" {h_values}, {d_k_values}"
        )
    weights = any(p in WEIGHT_PANELS for p in show)
    return HeadsView(
        X=toy.X.tolist() if weights else [],  # (5, 9)
        labels=list(toy.WORD_LABELS),
        designed=_weights(toy.designed_heads()) if "designed" in sources else {},
        head_tints=_tints(),
        panels=list(show),
        sources=[s for s in SOURCES if s in sources],
        h_values=list(h_values),
        d_k_values=list(d_k_values),
        n=n,
        d_model=d_model,
        source=source,
        h=h,
        d_k=d_k,
        seed=seed,
        word=word,
        link=link,
    )
