"""Chapter 6's mask view: an anywidget whose browser side computes the weights.

The view (``static/mask_view.mjs``) shows the per-head softmax rows of chapter 6's example,
self-attention of *the cat chased the mouse* under a mask the reader picks (none, causal,
sliding window and its width, padding), and cross-attention's rows of the Latin sentence
over it. The numbers are computed in the browser by ``static/mha_views.mjs``, the book's
maths ported to JavaScript and checked against it (tests/test_js_module.py); Python only
sends the inputs (sentences, weights, colours) as traits.

esbuild bundles the module with the ones it imports (:mod:`mha.views.anywidgets`);
book/_ext/widget_loader.py says how the site loads it; book/_ext/static_widgets.py draws its
first view with the same bundle in Node.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import torch
import traitlets
from torch import Tensor

import mha
from mha import toy, translation
from mha.views.anywidgets import View
from mha.views.expected import register_expected

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


def _mask(kind: str, n_q: int, n_k: int, radius: int, n_real: int) -> Tensor | None:
    """The mask of ``kind`` as chapter 6 builds it in torch: ``(n_q, n_k)`` boolean, or None."""
    if kind == "none":
        return None
    if kind == "causal":
        return mha.causal_mask(n_q, n_k)  # (n_q, n_k)
    if kind == "window":
        return mha.window_mask(n_q, radius)  # (n, n)
    allowed = torch.ones(n_q, n_k, dtype=torch.bool)  # (n_q, n_k)
    allowed[:, n_real:] = False  # no word may read the filler
    return allowed


def _weights(X_q: Tensor, X_kv: Tensor, heads: tuple[Tensor, ...], mask: Tensor | None) -> Tensor:
    """Every head's weights ``(h, n_q, n_k)`` of X_q reading X_kv, by mha."""
    W_q, W_k, W_v = heads  # (h, d_model, d_k) each
    Q, K, V = mha.project(X_q, W_q), mha.project(X_kv, W_k), mha.project(X_kv, W_v)
    return mha.scaled_dot_product(Q, K, V, mask)[1]  # (h, n_q, n_k)


@register_expected("mask")
def expected_mask_view(mask: str, radius: str, npad: str, **_: str) -> dict[str, float]:
    """The numbers chapter 6's mask view shows for its data-* attributes, computed by mha in
    torch (the view computes them in JavaScript): ``self-H-I-J`` and ``cross-H-I-J``."""
    X, n = toy.X, toy.X.shape[0]  # (5, 9)
    n_pad = int(npad) if mask == "padding" else 0
    X_kv = torch.cat([X, torch.zeros(n_pad, X.shape[1], dtype=X.dtype)])  # (n + n_pad, 9)
    Y = translation.Y  # (3, 9)
    self_mask = _mask(mask, n + n_pad, n + n_pad, int(radius), n)
    cross_mask = _mask("padding", Y.shape[0], n + n_pad, 0, n) if n_pad else None
    out: dict[str, float] = {}
    for key, w in (
        ("self", _weights(X_kv, X_kv, toy.designed_heads(), self_mask)),  # (3, n_k, n_k)
        ("cross", _weights(Y, X_kv, translation.cross_heads(), cross_mask)),  # (3, 3, n_k)
    ):
        for h, i, j in itertools.product(*map(range, w.shape)):
            out[f"{key}-{h}-{i}-{j}"] = float(w[h, i, j])
    return out
