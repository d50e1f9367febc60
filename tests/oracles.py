"""The test oracles: the numbers each view of the book should show, by another route.

Every view is ``<div class="mha-view" data-view="NAME" data-...>`` and every number it shows
has a ``data-key`` and a ``data-value``. :data:`ORACLES` gives, for each view type, the
function that recomputes those numbers from the view's ``data-*`` attributes (names without
``data-``, hyphens as underscores, values as strings), in torch and by another route than the
JavaScript that drew them (PyTorch's ``scaled_dot_product_attention``, ``Categorical``'s
entropy, ``numel()`` and PyTorch's FLOP counter, training again); :func:`expected` looks one
up. The browser tests and the Node tests of the views read them (tests/browser/expected.py).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import torch
from torch import Tensor
from torch.distributions import Categorical
from torch.nn.functional import scaled_dot_product_attention

import mha
from mha import exercise, scaling, toy, translation
from mha.measure import FLOPS_PER_MAC, flops, random_layer
from mha.training import (
    NOUNS,
    SEEDS,
    SHOW,
    RunConfig,
    cached_run,
    encode,
    reference,
    split,
    word_ids,
)
from mha.training.probe import SOLVED_AT
from mha.training.store import load_state

# ---------------------------------------------------------------------- budget


def expected_budget(tilt: str) -> dict[str, float]:
    """Numbers a ``budget`` view shows, by another route: PyTorch's own attention, with the
    tilt passed as an additive mask on the scores and the identity as values, so that
    its output rows are the weights."""
    t = float(tilt)
    W_q, W_k, _ = toy.single_head_weights()  # (9, 9) each
    Q, K = toy.X @ W_q, toy.X @ W_k  # (5, 9) each
    eye = torch.eye(5, dtype=torch.float64)  # (5, 5): values that return the weights
    tilt_mask = torch.zeros(5, 5, dtype=torch.float64)  # (5, 5), added to the scores
    tilt_mask[toy.CHASED, toy.MOUSE], tilt_mask[toy.CHASED, toy.CAT] = t, -t
    row = scaled_dot_product_attention(Q, K, eye, attn_mask=tilt_mask)[toy.CHASED]  # (5,)
    base = scaled_dot_product_attention(Q, K, eye)[toy.CHASED]  # (5,)
    out = {f"b-{j}": float(row[j]) for j in range(5)}
    out["sum"] = float(row.sum())
    out["gain"] = float(row[toy.MOUSE] - base[toy.MOUSE])
    out["others"] = float(sum(row[j] - base[j] for j in range(5) if j != toy.MOUSE))
    return out


# ---------------------------------------------------------------------- scaling


def expected_scaling(dk: str, scaled: str, word: str, seed: str) -> dict[str, float]:
    """Numbers a ``scaling`` view shows, by another route: PyTorch's attention with
    ``scale=1`` for undivided scores (its default divides by ``sqrt(d_k)``) and the
    identity as values, so that its output rows are the weights; the entropy from
    ``torch.distributions.Categorical``; the lead of the largest score as the log
    of the ratio of the two largest weights."""
    d_k, w_i = int(dk), int(word)
    W_q, W_k, _ = toy.random_heads(1, max(scaling.VIEW_WIDTHS), int(seed))  # (1, 9, 1024) each
    Q, K = toy.X @ W_q[0, :, :d_k], toy.X @ W_k[0, :, :d_k]  # (5, d_k) each
    eye = torch.eye(5, dtype=torch.float64)  # (5, 5): values that return the weights
    scale = None if int(scaled) else 1.0
    row = scaled_dot_product_attention(Q, K, eye, scale=scale)[w_i]  # (5,)
    first, second = row.topk(2).values.tolist()
    out = {f"w-{j}": float(row[j]) for j in range(5)}
    out["max"] = first
    out["entropy"] = float(Categorical(probs=row).entropy()) / math.log(2)
    out["uniform"] = math.log2(5)
    out["gap"] = math.log(first / second)
    return out


# ---------------------------------------------------------------------- grouped


def _by_tensors(n: int, d_model: int, h: int, g: int) -> dict[str, int]:
    """The view's rows (``GROUP_ROWS`` in groups_view.mjs) from shape-only tensors and
    PyTorch's FLOP counter."""
    d_k = d_model // h
    X = torch.empty(n, d_model, device="meta")  # (n, d_model)
    W_q = torch.empty(h, d_model, d_k, device="meta")  # (h, d_model, d_k)
    W_k = torch.empty(g, d_model, d_k, device="meta")  # (g, d_model, d_k)
    W_v = torch.empty(g, d_model, d_k, device="meta")  # (g, d_model, d_v)
    Q = torch.einsum("nd,hdk->hnk", X, W_q)  # (h, n, d_k)
    K = torch.einsum("nd,gdk->gnk", X, W_k)  # (g, n, d_k)
    V = torch.einsum("nd,gdk->gnk", X, W_v)  # (g, n, d_v)

    def macs(fn: object, *args: object, **kwargs: object) -> int:
        return flops(fn, *args, **kwargs)["total"] // FLOPS_PER_MAC

    out = {
        "params_q": W_q.numel(),
        "params_kv": W_k.numel() + W_v.numel(),
        "projection_q": macs(torch.einsum, "nd,hdk->hnk", X, W_q),
        "projection_kv": macs(torch.einsum, "nd,gdk->gnk", X, W_k)
        + macs(torch.einsum, "nd,gdk->gnk", X, W_v),
        "attend": macs(scaled_dot_product_attention, Q, K, V, enable_gqa=True),
        "kv_cache": (K.numel() + V.numel()) // n,  # one key and one value per word
    }
    out["params"] = out["params_q"] + out["params_kv"]
    out["macs"] = out["projection_q"] + out["projection_kv"] + out["attend"]
    return out


def expected_grouped_cost(n: str, dmodel: str, h: str, g: str) -> dict[str, float]:
    """Numbers a ``grouped-cost`` view shows, by another route: ``numel()`` of shape-only
    tensors, and FLOPs counted by PyTorch on its own grouped attention (``enable_gqa``)."""
    n_, d_model, h_, g_ = int(n), int(dmodel), int(h), int(g)
    ours = _by_tensors(n_, d_model, h_, g_)
    base = _by_tensors(n_, d_model, h_, h_)
    out: dict[str, float] = dict(ours)
    out.update({f"mha-{k}": v for k, v in base.items()})
    out.update({f"ratio-{k}": ours[k] / base[k] for k in ours})
    return out


# ---------------------------------------------------------------------- training


def expected_steps(**attrs: str) -> dict[str, float]:
    """Numbers a ``training-steps`` view shows, recomputed by training again from its settings."""
    config = RunConfig(
        h=int(attrs["h"]),
        d_k=int(attrs["dk"]),
        seed=int(attrs["seed"]),
        steps=int(attrs["steps"]),
        lr=float(attrs["lr"]),
        batch=int(attrs["batch"]),
        init=attrs["init"],
        eps=float(attrs["eps"]),
    )
    run, step = cached_run(config), int(attrs["step"])
    rows = run.snapshots[step]  # (h, n)
    out = {f"r{i}-{j}": float(rows[i, j]) for i in range(rows.shape[0]) for j in range(len(SHOW))}
    out["loss"] = float(run.test_loss[run.eval_steps == step][0])
    return out


# ---------------------------------------------------------------------- mask_view


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


def _mask_weights(
    X_q: Tensor, X_kv: Tensor, heads: tuple[Tensor, ...], mask: Tensor | None
) -> Tensor:
    """Every head's weights ``(h, n_q, n_k)`` of X_q reading X_kv, by mha."""
    W_q, W_k, W_v = heads  # (h, d_model, d_k) each
    Q, K, V = mha.project(X_q, W_q), mha.project(X_kv, W_k), mha.project(X_kv, W_v)
    return mha.scaled_dot_product(Q, K, V, mask)[1]  # (h, n_q, n_k)


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
        ("self", _mask_weights(X_kv, X_kv, toy.designed_heads(), self_mask)),  # (3, n_k, n_k)
        ("cross", _mask_weights(Y, X_kv, translation.cross_heads(), cross_mask)),  # (3, 3, n_k)
    ):
        for h, i, j in itertools.product(*map(range, w.shape)):
            out[f"{key}-{h}-{i}-{j}"] = float(w[h, i, j])
    return out


# ---------------------------------------------------------------------- exercise_view


def expected_exercise(
    qverb: str, kdeterminer: str, knoun: str, kverb: str, kagent: str, kprey: str, word: str
) -> dict[str, float | str]:
    """The numbers the exercise view shows for its data-* attributes, by torch: ``q``,
    ``key-j``, ``s-j``, ``r-j``, ``pair``, ``rest``, ``sum``, and for goal ``g`` its status
    ``goal-g`` ("met"/"not met") and its words' weights ``gG-J``."""
    if int(word) != toy.CHASED:
        raise ValueError(f"the exercise asks about chased (row {toy.CHASED}), got row {word}")
    setting = exercise.Setting(
        float(qverb), tuple(map(float, (kdeterminer, knoun, kverb, kagent, kprey)))
    )
    W_q, W_k = exercise.head(setting)  # (9, 1) each
    q = float(toy.X[toy.CHASED] @ W_q[:, 0])  # chased's query
    keys = toy.X @ W_k[:, 0]  # (5,)
    row = exercise.chased_row(setting)  # (5,) by single_head
    pair_words = sorted({j for g in exercise.GOALS for j in g.words})
    pair = float(row[pair_words].sum())
    out: dict[str, float | str] = {"q": q, "pair": pair, "sum": float(row.sum())}
    out["rest"] = float(row.sum()) - pair
    for j in range(len(toy.SENTENCE)):
        out[f"key-{j}"] = float(keys[j])
        out[f"s-{j}"] = q * float(keys[j])  # d_k = 1: no division
        out[f"r-{j}"] = float(row[j])
    for i, g in enumerate(exercise.GOALS):
        out[f"goal-{i}"] = "met" if bool(exercise.met(row, g)) else "not met"
        out.update({f"g{i}-{j}": float(row[j]) for j in g.words})
    return out


# ---------------------------------------------------------------------- cost


def _ints(attrs: dict[str, str]) -> dict[str, int]:
    return {k: int(v) for k, v in attrs.items()}


def expected_cost(n: str, dmodel: str, h: str, dk: str) -> dict[str, float]:
    """Counts a ``cost`` view shows, by another route: ``numel()`` of real weight tensors and
    PyTorch's FLOP counter (two FLOPs per multiply-add) on each product, on shape-only tensors."""
    a = _ints({"n": n, "d_model": dmodel, "h": h, "d_k": dk})
    layer = random_layer(a["n"], a["d_model"], a["h"], a["d_k"], device="meta")
    Q = torch.einsum("nd,hdk->hnk", layer.X, layer.W_q)  # (h, n, d_k)
    weights = torch.empty(a["h"], a["n"], a["n"], device="meta")  # (h, n, n)
    qkv = layer.W_q.numel() + layer.W_k.numel() + layer.W_v.numel()
    concat = torch.empty(a["n"], a["h"] * a["d_k"], device="meta")  # (n, h*d_k)
    counts = {
        "params_without_out": qkv,
        "params_total": qkv + layer.W_o.numel(),
        "projection": 3 * flops(torch.einsum, "nd,hdk->hnk", layer.X, layer.W_q)["total"] // 2,
        "scoring": flops(torch.matmul, Q, Q.transpose(-2, -1))["total"] // 2,
        "blending": flops(torch.matmul, weights, Q)["total"] // 2,
    }
    out = flops(torch.matmul, concat, layer.W_o)["total"] // 2  # concat @ W^O
    counts["macs_total"] = counts["projection"] + counts["scoring"] + counts["blending"] + out
    return counts


# ---------------------------------------------------------------------- explorer


def _torch_heads(h: int, d_k: int, seed: int, source: str = "random") -> tuple[Tensor, Tensor]:
    """Weights ``(h, 5, 5)`` and outputs ``(h, 5, d_k)`` of the heads, by PyTorch's SDPA."""
    heads = toy.designed_heads() if source == "designed" else toy.random_heads(h, d_k, seed)
    W_q, W_k, W_v = heads  # (h, 9, d_k) each
    Q, K, V = toy.X @ W_q, toy.X @ W_k, toy.X @ W_v  # (h, 5, d_k) each
    eye = torch.eye(5, dtype=torch.float64).expand(h, 5, 5)  # values that return the weights
    return scaled_dot_product_attention(Q, K, eye), scaled_dot_product_attention(Q, K, V)


def expected_heads(h: str, dk: str, seed: str, source: str = "random") -> dict[str, float]:
    """Numbers a ``heads`` view shows, from its ``data-h/dk/seed/source`` attributes."""
    w, _ = _torch_heads(int(h), int(dk), int(seed), source)  # (h, 5, 5)
    return {
        f"w{i}-{r}-{c}": float(w[i, r, c])
        for i in range(int(h))
        for r in range(5)
        for c in range(5)
    }


def expected_rows(
    h: str, dk: str, word: str, seed: str, source: str = "random"
) -> dict[str, float]:
    """Numbers a ``rows`` view shows, from its ``data-h/dk/word/seed/source`` attributes."""
    w, _ = _torch_heads(int(h), int(dk), int(seed), source)  # (h, 5, 5)
    rows = w[:, int(word)]  # (h, 5)
    out = {f"r{i}-{j}": float(rows[i, j]) for i in range(rows.shape[0]) for j in range(5)}
    out.update({f"sum{i}": float(rows[i].sum()) for i in range(rows.shape[0])})
    return out


def expected_concat(h: str, dk: str, seed: str) -> dict[str, float]:
    """Numbers a ``concat`` view (mha.views.heads_view) shows: PyTorch's per-head outputs
    joined by ``torch.cat``."""
    _, outs = _torch_heads(int(h), int(dk), int(seed))  # (h, 5, d_k)
    c = torch.cat(list(outs), dim=-1)  # (5, h*d_k)
    out = {f"c{r}-{j}": float(c[r, j]) for r in range(c.shape[0]) for j in range(c.shape[1])}
    out["width"] = float(c.shape[1])
    return out


# ---------------------------------------------------------------------- trained


def expected_trained_rows(
    h: str, dk: str, seed: str, sentence: str, word: str, off: str = ""
) -> dict[str, object]:
    """Numbers a ``trained-rows`` view shows, from the stored weights via SDPA: every head's
    row for ``word`` (``r{i}-{j}``) and full table (``w{i}-{r}-{c}``, rows the sentence's
    words), and the read-out's answer with the heads ``off`` (space-separated, from 0)
    switched off by zeroing their rows of ``W_o``, as :mod:`mha.training.ablation` does."""
    state = load_state(int(h), int(dk), int(seed))
    W_o = state["W_o"].clone()  # (h*d_k, d_model)
    for i in (int(x) for x in off.split()):
        W_o[i * int(dk) : (i + 1) * int(dk)] = 0.0  # (d_k, d_model): head i's block
    state = {**state, "W_o": W_o}
    words = sentence.split()
    tokens = torch.tensor([word_ids(words)])  # (1, n)
    weights = reference.layer(state, tokens)[0][0]  # (h, n, n)
    out: dict[str, object] = {
        f"r{i}-{j}": float(weights[i, int(word), j])
        for i in range(weights.shape[0])
        for j in range(weights.shape[2])
    }
    out |= {
        f"w{i}-{r}-{c}": float(weights[i, r, c])
        for i in range(weights.shape[0])
        for r in range(len(words))
        for c in range(weights.shape[2])
    }
    try:
        _, v, _, _ = encode(words)
    except ValueError:
        return out
    guess = reference.logits(state, tokens, torch.tensor([v]))[0].argmax(-1)  # (2,)
    return out | {"subject": NOUNS[int(guess[0])], "object": NOUNS[int(guess[1])]}


def expected_trained_metrics(h: str, dk: str, seed: str) -> dict[str, float]:
    """Numbers a ``trained-metrics`` view shows, from the stored weights via SDPA."""
    runs = [reference.held_out(int(h), int(dk), s) for s in SEEDS]
    both = [r["both"] for r in runs]
    return reference.held_out(int(h), int(dk), int(seed)) | {
        "n_test": len(split()[1]),  # (not cached: counted afresh)
        "solved": sum(b >= SOLVED_AT for b in both),
        "runs": len(runs),
        "mean_both": sum(both) / len(both),
        "min_both": min(both),
    }


Oracle = Callable[..., dict[str, object]]

# The view types (their data-view) and their oracles.
ORACLES: dict[str, Oracle] = {
    "budget": expected_budget,
    "scaling": expected_scaling,
    "grouped-cost": expected_grouped_cost,
    "training-steps": expected_steps,
    "mask": expected_mask_view,
    "exercise": expected_exercise,
    "cost": expected_cost,
    "heads": expected_heads,
    "rows": expected_rows,
    "concat": expected_concat,
    "trained-rows": expected_trained_rows,
    "trained-metrics": expected_trained_metrics,
}


def expected(view: str, **attrs: str) -> dict[str, object] | None:
    """The numbers a view of type ``view`` should show, or ``None`` if it has no oracle."""
    fn = ORACLES.get(view)
    return None if fn is None else fn(**attrs)
