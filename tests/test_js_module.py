"""The views' JavaScript module (``mha/views/static/mha_views.mjs``) against mha and PyTorch.

Node runs the module through ``tests/js/run_module.mjs``, one process per batch of calls,
on inputs drawn here; the same inputs go through :mod:`mha` and through PyTorch's own
``scaled_dot_product_attention``, and the answers must agree: weights to 1e-6 (in practice
about 1e-15, float64 round-off), logits of the trained model to 1e-9, answers and counts
exactly. Node is required: without it the tests fail and say how to install it.
"""

from __future__ import annotations

import copy
import importlib.resources
import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import torch
from torch.nn.functional import scaled_dot_product_attention

import mha
from mha.training import data
from mha.training.store import SEEDS, SETTINGS, load_model

ROOT = Path(__file__).resolve().parents[1]
DRIVER = ROOT / "tests" / "js" / "run_module.mjs"
MODULE = importlib.resources.files("mha.views") / "static" / "mha_views.mjs"
WEIGHT_TOL = 1e-6  # issue 22: max abs error on attention weights
LOGIT_TOL = 1e-9
N_RANDOM = 400  # random settings of the layer


def run_js(calls: list, shared: dict | None = None) -> list:
    """Results of ``calls`` (``[export, args, keep?]``) from one Node process, in order.

    A result is ``{"value": ...}`` or ``{"error": message}``.
    """
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js 20 is needed to test mha_views.mjs: apt-get install nodejs")
    request = json.dumps({"shared": shared or {}, "calls": calls})
    done = subprocess.run([node, DRIVER], input=request, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)["results"]
    assert len(results) == len(calls)
    return results


def values(results: list) -> list:
    """Every result's value; a call that threw fails the test with its message."""
    errors = [r["error"] for r in results if "error" in r]
    assert not errors, errors[:5]
    return [r["value"] for r in results]


def f64(x: list) -> torch.Tensor:
    return torch.tensor(x, dtype=torch.float64)


def test_the_module_ships_with_the_package_and_is_the_one_node_runs() -> None:
    assert MODULE.is_file()
    assert (ROOT / "src/mha/views/static/mha_views.mjs").read_bytes() == MODULE.read_bytes()
    text = MODULE.read_text(encoding="utf-8")
    assert not re.search(r"^\s*import\b|\bimport\(|\brequire\(", text, re.M)  # no dependencies


# ----------------------------------------------------------------------------- random layers


def window(n: int, radius: int) -> torch.Tensor:
    """Chapter 6's window, written here as the chapter writes it: ``|i - j| <= radius``."""
    i = torch.arange(n)
    return (i[:, None] - i[None, :]).abs() <= radius  # (n, n)


def random_case(k: int) -> dict:
    """Setting ``k``: shapes, weights, an optional second sequence, a mask and heads on/off."""
    r = random.Random(k)
    g = torch.Generator().manual_seed(k)
    h, d_k, d_v = r.randint(1, 6), r.randint(1, 6), r.randint(1, 6)
    n, d_model = r.randint(1, 7), r.randint(1, 12)
    cross = k % 3 == 2
    n_k, d_kv = (r.randint(1, 7), r.randint(1, 12)) if cross else (n, d_model)
    scale = (0.3, 1.0, 3.0, 30.0)[k % 4]  # 30: scores in the thousands, a test of the max shift

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g, dtype=torch.float64)

    X = randn(n, d_model)  # (n, d_model)
    X_kv = randn(n_k, d_kv) if cross else X  # (n_k, d_kv)
    kinds = ["none", "causal", "padding", "random"] + ([] if cross else ["window"])
    kind = kinds[k % len(kinds)]
    opts: dict = {}
    if kind == "none":
        mask = None
    elif kind == "causal":
        mask = mha.causal_mask(n, n_k)  # (n, n_k)
    elif kind == "window":
        opts = {"radius": r.randint(0, 3)}
        mask = window(n, opts["radius"])  # (n, n)
    elif kind == "padding":
        opts = {"n_real": r.randint(1, n_k)}
        mask = torch.ones(n, n_k, dtype=torch.bool)  # (n, n_k), as chapter 6 pads
        mask[:, opts["n_real"] :] = False
    else:
        mask = torch.rand(n, n_k, generator=g) < 0.5  # (n, n_k)
        mask[torch.arange(n), torch.randint(n_k, (n,), generator=g)] = True  # a key per row
    return {
        "X": X,
        "X_kv": X_kv,
        "cross": cross,
        "W_q": scale * randn(h, d_model, d_k),
        "W_k": scale * randn(h, d_kv, d_k),
        "W_v": randn(h, d_kv, d_v),
        "W_o": randn(h * d_v, d_model),
        "kind": kind,
        "opts": opts,
        "mask": mask,
        "heads": [r.random() < 0.7 for _ in range(h)],
    }


def js_args(c: dict) -> list:
    opts = {"heads": c["heads"]}
    if c["mask"] is not None:
        opts["mask"] = c["mask"].tolist()
    if c["cross"]:
        opts["X_kv"] = c["X_kv"].tolist()
    return [c[k].tolist() for k in ("X", "W_q", "W_k", "W_v", "W_o")] + [opts]


def torch_weights(c: dict) -> torch.Tensor:
    """Each head's weights by PyTorch's SDPA, values the identity: ``(h, n, n_k)``."""
    Q = c["X"] @ c["W_q"]  # (h, n, d_k), broadcast over the heads
    K = c["X_kv"] @ c["W_k"]  # (h, n_k, d_k)
    eye = torch.eye(K.shape[1], dtype=K.dtype).expand(K.shape[0], -1, -1)  # (h, n_k, n_k)
    return scaled_dot_product_attention(Q, K, eye, attn_mask=c["mask"])  # (h, n, n_k)


def torch_output(c: dict) -> torch.Tensor:
    """The layer's output with the off heads' rows of W_o zeroed: ``(n, d_model)``."""
    Q, K, V = c["X"] @ c["W_q"], c["X_kv"] @ c["W_k"], c["X_kv"] @ c["W_v"]  # (h, *, d_k|d_v)
    H = scaled_dot_product_attention(Q, K, V, attn_mask=c["mask"])  # (h, n, d_v)
    W_o = c["W_o"].clone()  # (h*d_v, d_model)
    d_v = V.shape[-1]
    for i, on in enumerate(c["heads"]):
        if not on:
            W_o[i * d_v : (i + 1) * d_v] = 0
    return torch.cat(list(H), dim=-1) @ W_o  # (n, d_model)


def random_layer_errors(count: int = N_RANDOM) -> dict[str, float]:
    """The module against mha and PyTorch on ``count`` random layers (random_case): the max
    abs error of its weights against mha's ("mha") and torch's SDPA ("torch"), and of its
    layer output relative to the output's size ("out"). Checks on the way that a forbidden
    weight is exactly 0 and that the module's masks are the settings' masks. make bench
    reports these errors too (benchmarks/run.py)."""
    cases = [random_case(k) for k in range(count)]
    calls = [["multiHeadAttention", js_args(c)] for c in cases]
    for c in cases:  # the module's own masks, built from the same settings
        n, n_k = c["X"].shape[0], c["X_kv"].shape[0]
        if c["kind"] != "random":
            calls.append(["makeMask", [c["kind"], n, n_k, c["opts"]]])
    got = values(run_js(calls))
    worst = {"mha": 0.0, "torch": 0.0, "out": 0.0}
    for c, js in zip(cases, got[: len(cases)], strict=True):
        w = f64(js["weights"])  # (h, n, n_k)
        mask = c["mask"]
        out, w_mha = mha.cross_attention(
            c["X"], c["X_kv"], c["W_q"], c["W_k"], c["W_v"], c["W_o"], mask=mask
        )  # (n, d_model), (h, n, n_k)
        if mask is not None:
            assert (w[:, ~mask] == 0).all(), "a forbidden weight is not exactly 0"
        worst["mha"] = max(worst["mha"], float((w - w_mha).abs().max()))
        worst["torch"] = max(worst["torch"], float((w - torch_weights(c)).abs().max()))
        want = torch_output(c)  # (n, d_model)
        if all(c["heads"]):
            torch.testing.assert_close(want, out, rtol=1e-9, atol=1e-9)  # torch == mha
        size = max(1.0, float(want.abs().max()))
        worst["out"] = max(worst["out"], float((f64(js["out"]) - want).abs().max()) / size)
    masks = iter(got[len(cases) :])
    for c in cases:
        if c["kind"] != "random":
            shape = (c["X"].shape[0], c["X_kv"].shape[0])  # (n, n_k)
            want = c["mask"] if c["mask"] is not None else torch.ones(shape, dtype=torch.bool)
            assert torch.equal(torch.tensor(next(masks)), want), (c["kind"], c["opts"])
    return worst


@pytest.mark.slow
def test_random_layers_agree_with_mha_and_torch() -> None:
    worst = random_layer_errors()
    print(
        f"\n{N_RANDOM} random layers, max abs error on weights: vs mha {worst['mha']:.2e}, "
        f"vs torch SDPA {worst['torch']:.2e}; layer output (relative) {worst['out']:.2e}"
    )
    assert worst["mha"] <= WEIGHT_TOL and worst["torch"] <= WEIGHT_TOL
    assert worst["out"] <= 1e-9


def test_bad_shapes_and_masks_fail_with_a_message_that_names_them() -> None:
    g = torch.Generator().manual_seed(0)
    X = torch.randn(4, 6, generator=g, dtype=torch.float64)  # (n, d_model)
    W_q, W_k, W_v = torch.randn(3, 2, 6, 3, generator=g, dtype=torch.float64)  # (2, 6, 3) each
    W_o = torch.randn(6, 6, generator=g, dtype=torch.float64)  # (h*d_v, d_model)
    empty_row = torch.ones(4, 4, dtype=torch.bool)  # (n, n)
    empty_row[1] = False
    cases = [
        (X[:, :5], None),  # words one column short of the weights
        (X, torch.ones(5, 4, dtype=torch.bool)),  # a mask of the wrong shape
        (X, empty_row),  # a row that allows no key
    ]
    calls = [
        [
            "headWeights",
            [x.tolist(), W_q.tolist(), W_k.tolist(), {"mask": None if m is None else m.tolist()}],
        ]
        for x, m in cases
    ]
    not_numbers = [["the", "cat"], ["chased", "mouse"]]  # words where numbers belong
    calls.append(["multiHeadAttention", [not_numbers, *(w.tolist() for w in (W_q, W_k, W_v, W_o))]])
    results = run_js(calls)
    assert results.pop()["error"] == "X must hold numbers, in the shape (2, 2) throughout"
    for (x, m), r in zip(cases, results, strict=True):
        with pytest.raises(ValueError):
            mha.cross_attention(x, x, W_q, W_k, W_v, W_o, mask=m)
        assert "error" in r, r
    assert results[0]["error"] == "X (4, 5) cannot go into W_q (2, 6, 3)"
    assert "mask must be boolean (n_q, n_k) = (4, 4), got (5, 4)" in results[1]["error"]
    assert "rows [1] allow none" in results[2]["error"]


# ----------------------------------------------------------------------------- cost counts


def cost_settings() -> list[tuple]:
    r = random.Random(22)
    out = [(5, 9, 3, None, None), (4096, 4096, 32, None, 8), (1, 1, 1, None, None)]
    for _ in range(600):
        h = r.randint(1, 8)
        d_k = r.choice([None, r.randint(1, 12)])
        g = r.choice([None, r.randint(1, 8)])
        out.append((r.randint(1, 16), r.randint(1, 24), h, d_k, g))
    return out


def test_cost_counts_are_exactly_layer_cost() -> None:
    settings = cost_settings()
    results = run_js([["layerCost", list(s)] for s in settings])
    compared = refused = 0
    for s, r in zip(settings, results, strict=True):
        try:
            want = mha.layer_cost(*s).as_dict()
        except ValueError:
            assert "error" in r, f"layer_cost{s} refuses, the module does not"
            refused += 1
            continue
        assert r.get("value") == want, s
        compared += 1
    assert compared > 200 and refused > 100  # both branches are exercised


# ----------------------------------------------------------------------------- the trained model


def test_positions_and_sentences_agree_with_the_training_data() -> None:
    sentences = data.all_sentences()
    words = [[w for w in sentences.words(i) if w != data.PAD] for i in range(len(sentences))]
    vocab, args = list(data.VOCAB), (data.MAX_LEN, data.PAD)
    calls: list = [["positions", [data.MAX_LEN, data.D_MODEL]]]
    calls += [["wordIds", [w, vocab, *args]] for w in words]
    calls += [["roles", [w, list(data.VERBS), list(data.NOUNS)]] for w in words]
    bad = [["the", "cat", "chased", "the", "unicorn"], ["the", "cat", "the", "mouse"], []]
    calls += [["wordIds", [bad[0], vocab, *args]], ["roles", [bad[1], data.VERBS, data.NOUNS]]]
    calls += [["wordIds", [bad[2], vocab, *args]]]
    results = run_js(calls)
    pe = f64(results[0]["value"])  # (MAX_LEN, D_MODEL)
    assert float((pe - data.positions()).abs().max()) <= 1e-15
    n = len(words)
    for i, w in enumerate(words):
        ids, verb, subject, obj = data.encode(w)
        assert results[1 + i]["value"] == ids
        assert results[1 + n + i]["value"] == {"verb": verb, "subject": subject, "object": obj}
    unknown, no_verb, empty = (r.get("error", "") for r in results[1 + 2 * n :])
    assert "unicorn" in unknown and " ".join(data.VOCAB) in unknown and "\n" not in unknown
    assert "one verb" in no_verb and "1 to 7 words" in empty
    for w, check in zip(bad, (data.word_ids, data.encode, data.word_ids), strict=True):
        with pytest.raises(ValueError):
            check(w)


def patterns(h: int) -> list[list[bool]]:
    """All heads on; each head off alone; none on (the read-out's bias alone)."""
    out = [[True] * h]
    out += [[j != i for j in range(h)] for i in range(h)]
    out += [[False] * h]
    unique = []
    for p in out:
        if p not in unique:
            unique.append(p)
    return unique


def ablated_logits(model: torch.nn.Module, batch: data.Sentences, on: list[bool]) -> torch.Tensor:
    """Logits ``(N, 2, nouns)`` of a copy of ``model`` whose off heads' W_o rows are zero."""
    copy_ = copy.deepcopy(model)
    with torch.no_grad():
        for i, keep in enumerate(on):
            if not keep:
                copy_.W_o[i * copy_.d_k : (i + 1) * copy_.d_k] = 0
        return copy_(batch)[0]


@pytest.mark.slow
def test_every_stored_run_answers_as_the_model_does() -> None:
    test = data.split()[1]
    N, tokens, verbs = len(test), test.tokens.tolist(), test.verb.tolist()
    shared, calls, blocks = {}, [], []  # blocks: (first call, weights or None, logits)
    for h, d_k in SETTINGS:
        for seed in SEEDS:
            model = load_model(h, d_k, seed)
            name = f"h{h}_dk{d_k}_s{seed}"
            shared[name] = {k: p.detach().tolist() for k, p in model.named_parameters()}
            with torch.no_grad():
                weights = model(test)[1]  # (N, h, n, n)
            for on in patterns(h):
                full = all(on)
                blocks.append(
                    (len(calls), weights if full else None, ablated_logits(model, test, on))
                )
                keep = ["logits", "answer"] + (["weights"] if full else [])
                calls += [
                    ["modelForward", [{"$ref": name}, t, v, on], keep]
                    for t, v in zip(tokens, verbs, strict=True)
                ]
    got = values(run_js(calls, shared))
    worst_logit = worst_weight = 0.0
    changed = 0  # answers that an ablation changes: switching heads off must matter somewhere
    for start, weights, logits in blocks:
        js = got[start : start + N]
        answers = torch.tensor([[r["answer"]["subject"], r["answer"]["object"]] for r in js])
        assert torch.equal(answers, logits.argmax(-1))  # (N, 2)
        if weights is not None:
            full_answers = answers
        changed += int((answers != full_answers).sum())
        worst_logit = max(worst_logit, float((f64([r["logits"] for r in js]) - logits).abs().max()))
        if weights is not None:
            js_w = f64([r["weights"] for r in js])  # (N, h, n, n)
            worst_weight = max(worst_weight, float((js_w - weights).abs().max()))
    runs = len(SETTINGS) * len(SEEDS)
    print(
        f"\n{runs} stored runs x {N} held-out sentences, {len(calls)} forward passes "
        f"(ablations included): max abs error on logits {worst_logit:.2e}, "
        f"on weights {worst_weight:.2e}; every answer identical ({changed} changed by ablations)"
    )
    assert worst_logit <= LOGIT_TOL and worst_weight <= WEIGHT_TOL
    assert changed > 0
