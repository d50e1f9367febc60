"""Chapter 6's mask view module (mha.views.mask_view), run in Node as the build runs it.

The widget's ES module (``_esm``: esbuild's bundle of mask_view.mjs) is named in the saved
state and drawn in Node from the site's mha-views.js by book/_ext/anywidget_static.mjs, as
the build draws first views (book/_ext/static_widgets.py); its numbers, for every mask kind
and parameter, are compared with what mha computes in torch with masks built here; words
reach the HTML as text, never as markup. The browser side is tests/browser/test_mask_view.py.
"""

from __future__ import annotations

import re
import shutil

import pytest
import torch

import mha
from mha import toy, translation
from mha.views.mask_view import chapter6_mask_view
from tests.book_ext import static_widgets
from tests.browser import expected

HEADS = ["head 1 (subject)", "head 2 (object)", "head 3 (next word)"]
SETTINGS = [
    ("none", 1, 1),
    ("causal", 1, 1),
    *(("window", r, 1) for r in range(5)),
    *(("padding", 1, p) for p in (1, 2, 3)),
]


def draw(states: list[dict]) -> list[str]:
    """The first views of widgets' saved ``states``, drawn as the build draws them: each
    widget's module named (static_widgets.name_views), then drawn by the site's mha-views.js
    in Node (anywidget_static.mjs)."""
    if shutil.which("node") is None:
        pytest.fail("Node.js is needed: apt-get install nodejs", pytrace=False)
    saved = {
        "state": {
            str(i): {"model_module": "anywidget", "model_name": "AnyModel", "state": s}
            for i, s in enumerate(states)
        }
    }
    named = static_widgets.name_views(saved, static_widgets.view_names())["state"]
    return static_widgets.render_anywidgets([named[str(i)]["state"] for i in range(len(states))])


def masks_by_torch(mask: str, radius: int, n_pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The self-attention ``(n_k, n_k)`` and cross-attention ``(3, n_k)`` masks of a setting,
    built here in torch (True = allowed)."""
    n = toy.X.shape[0]
    n_k = n + (n_pad if mask == "padding" else 0)
    j = torch.arange(n_k)  # (n_k,)
    masks = {
        "none": torch.ones(n_k, n_k, dtype=torch.bool),
        "causal": j[None, :] <= j[:, None],
        "window": (j[None, :] - j[:, None]).abs() <= radius,
        "padding": (j < n).expand(n_k, n_k),
    }
    cross_mask = (j < n).expand(translation.Y.shape[0], n_k)  # (3, n_k): no filler read
    return masks[mask], cross_mask


def weights_by_torch(mask: str, radius: int, n_pad: int) -> dict[str, float]:
    """The view's numbers by another route: masks built here, mha.cross_attention's weights."""
    X = torch.cat([toy.X, torch.zeros(n_pad if mask == "padding" else 0, toy.X.shape[1])])
    self_mask, cross_mask = masks_by_torch(mask, radius, n_pad)
    W_o = torch.eye(toy.X.shape[1], dtype=toy.X.dtype)  # (9, 9): any W^O; weights ignore it
    _, w_self = mha.cross_attention(X, X, *toy.designed_heads(), W_o, mask=self_mask)
    _, w_cross = mha.cross_attention(translation.Y, X, *translation.cross_heads(), W_o, cross_mask)
    out = {}
    for key, w in (("self", w_self), ("cross", w_cross)):  # (3, n_q, n_k)
        for h, i, k in torch.cartesian_prod(*(torch.arange(s) for s in w.shape)).tolist():
            out[f"{key}-{h}-{i}-{k}"] = float(w[h, i, k])
    return out


def test_the_module_travels_as_one_text_with_no_import():
    text = chapter6_mask_view(HEADS).get_state()["_esm"]  # esbuild's bundle
    assert re.search(r"^\s*import\b|\bfrom\s+[\"']", text, re.M) is None  # no import statement
    assert "function headWeights(" in text
    assert re.search(r"^export \{[^}]*\brenderView\b", text, re.M)


def test_every_mask_gives_mhas_weights():
    base = chapter6_mask_view(HEADS).get_state()
    states = [{**base, "mask": m, "radius": r, "n_pad": p} for m, r, p in SETTINGS]
    worst = 0.0
    for (m, r, p), html in zip(SETTINGS, draw(states), strict=True):
        (attrs, cells), *rest = expected.parse_views(html)
        assert rest == [] and attrs == {"view": "mask", "mask": m, "radius": str(r), "npad": str(p)}
        want = weights_by_torch(m, r, p)
        assert cells.keys() == want.keys(), (m, r, p)
        worst = max(worst, *(abs(float(cells[k]) - v) for k, v in want.items()))
    assert worst <= 1e-12, worst


def test_masked_weights_are_zero_and_the_masks_differ():
    base = chapter6_mask_view(HEADS).get_state()
    drawn = draw([{**base, "mask": m} for m in ("none", "causal")])
    none, causal = (expected.parse_views(h)[0][1] for h in drawn)
    assert causal["self-1-2-4"] == "0" and float(none["self-1-2-4"]) > 0.5  # chased -> mouse


def test_forbidden_pairs_are_marked_and_only_they():
    """A forbidden pair shows a dash on a hatched cell, not 0.00 (which a weight can round to)."""
    base = chapter6_mask_view(HEADS).get_state()
    states = [{**base, "mask": m, "radius": r, "n_pad": p} for m, r, p in SETTINGS]
    for (m, r, p), html in zip(SETTINGS, draw(states), strict=True):
        marked = set(re.findall(r'<td class="mha-masked" data-key="([\w-]+)"[^>]*>–</td>', html))
        self_mask, cross_mask = masks_by_torch(m, r, p)
        forbidden = {
            f"{key}-{h}-{i}-{k}"
            for key, allowed in (("self", self_mask), ("cross", cross_mask))
            for h in range(3)
            for i, k in (~allowed).nonzero().tolist()
        }
        assert marked == forbidden, (m, r, p)
        assert bool(forbidden) == (m != "none" and (m, r) != ("window", 4)), (m, r, p)


def test_words_reach_the_page_as_text():
    state = {**chapter6_mask_view(HEADS).get_state(), "words": ["<b>", "a&b", '"q"', "'", "x"]}
    html = draw([state])[0]
    assert "<b>" not in html and "&lt;b&gt;" in html and "a&amp;b" in html
    assert "&quot;q&quot;" in html and "&#x27;" in html


def test_permalinks_read_valid_settings_and_write_the_mask_shown():
    from tests.test_heads_view import call

    state = {**chapter6_mask_view(HEADS).get_state(), "link": "mask-2"}
    hashes = [
        "#mask-2:mask=window,window=3",
        "#mask-2:mask=padding,filler=1,window=4",
        "#mask-2:mask=diagonal,window=5,filler=0",  # no such mask; out of range
        "#mask-1:mask=none",  # another view's link
        "#mask-2:mask=none%2Cwindow=2",  # an encoded comma
    ]
    got = call("readLink", [[h, state] for h in hashes], "mask_view.mjs")
    assert got == [
        {"mask": "window", "radius": 3},
        {"mask": "padding", "n_pad": 1, "radius": 4},
        {},
        None,
        {"mask": "none", "radius": 2},
    ]
    written = call(
        "linkOf",
        [[{**state, "mask": m, "radius": 2, "n_pad": 3}] for m in ("causal", "window", "padding")],
        "mask_view.mjs",
    )
    assert written == [
        "#mask-2:mask=causal",
        "#mask-2:mask=window,window=2",
        "#mask-2:mask=padding,filler=3",
    ]
