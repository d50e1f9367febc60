"""Chapter 6's mask view: an anywidget whose browser side computes the weights.

The view (``static/mask_view.mjs``) shows the per-head softmax rows of chapter 6's example,
self-attention of *the cat chased the mouse* under a mask the reader picks (none, causal,
sliding window and its width, padding), and cross-attention's rows of the Latin sentence
over it. The numbers are computed in the browser by ``static/mha_views.mjs``, the book's
maths ported to JavaScript and checked against it (tests/test_js_module.py); Python only
sends the inputs (sentences, weights, colours) as traits.

esbuild bundles the module with the ones it imports (:mod:`mha.views.anywidgets`);
book/_ext/static_widgets.py says how the site loads it, and draws its first view with the
same bundle in Node.
"""

from __future__ import annotations

from collections.abc import Sequence

import traitlets
from torch import Tensor

from mha import toy, translation
from mha.views.anywidgets import View

MASK_KINDS = ("none", "causal", "window", "padding")


def _rows(t: Tensor) -> list:
    return t.tolist()


class MaskView(View, module="mask_view", link="mask"):
    """The mask view. Inputs: X ``(n, d_model)``, W_q/W_k ``(h, d_model, d_k)`` (self-
    attention), Y ``(m, d_model)``, Wc_q/Wc_k ``(h, d_model, d_k)`` (cross-attention, keys
    from X); the reader's settings: ``mask``, ``radius`` (window), ``n_pad`` (padding);
    ``link``, the view's name in the page's URL fragment (a permalink on the site)."""

    X = traitlets.List().tag(sync=True)
    W_q = traitlets.List().tag(sync=True)
    W_k = traitlets.List().tag(sync=True)
    Y = traitlets.List().tag(sync=True)
    Wc_q = traitlets.List().tag(sync=True)
    Wc_k = traitlets.List().tag(sync=True)
    words = traitlets.List(traitlets.Unicode()).tag(sync=True)
    latin = traitlets.List(traitlets.Unicode()).tag(sync=True)
    head_names = traitlets.List(traitlets.Unicode()).tag(sync=True)
    cross_head_names = traitlets.List(traitlets.Unicode()).tag(sync=True)
    mask = traitlets.Enum(MASK_KINDS, default_value="causal").tag(sync=True)
    radius = traitlets.Int(1, min=0, max=4).tag(sync=True)
    n_pad = traitlets.Int(2, min=1, max=3).tag(sync=True)


def chapter6_mask_view(head_names: Sequence[str], mask: str = "causal") -> MaskView:
    """The view of chapter 6: the designed heads (named ``head_names``) on toy.X, and the
    Latin sentence's cross heads over it."""
    W_q, W_k, _ = toy.designed_heads()  # (3, 9, 3) each
    Wc_q, Wc_k, _ = translation.cross_heads()  # (3, 9, 3) each
    return MaskView(
        X=_rows(toy.X),  # (5, 9)
        W_q=_rows(W_q),
        W_k=_rows(W_k),
        Y=_rows(translation.Y),  # (3, 9)
        Wc_q=_rows(Wc_q),
        Wc_k=_rows(Wc_k),
        words=list(toy.WORD_LABELS),
        latin=list(translation.TARGET),
        head_names=list(head_names),
        cross_head_names=list(translation.HEAD_NAMES),
        mask=mask,
    )
