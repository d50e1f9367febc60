"""Tests for mha.training: the data, the symmetry result (C15), learning, determinism."""

from __future__ import annotations

import pytest
import torch

from mha import training as T
from mha import widgets as mw

SHORT = 40  # steps: enough to see every effect, a fraction of a second each


def test_sentences_cover_the_task() -> None:
    data = T.all_sentences()
    assert len(data) == 4 * 6 * 3 * 4 * 5
    assert (data.subject != data.object).all()
    assert set(data.verb.tolist()) == {2, 3}
    assert set(data.object_pos.tolist()) == {4, 5, 6}
    assert (data.subject_pos == data.verb - 1).all()
    nouns = torch.tensor([T.VOCAB.index(w) for w in T.NOUNS])
    idx = torch.arange(len(data))
    assert torch.equal(data.tokens[idx, data.subject_pos], nouns[data.subject])
    assert torch.equal(data.tokens[idx, data.object_pos], nouns[data.object])
    train, test = T.split()
    assert len(train) + len(test) == len(data)
    seen = {tuple(t) for t in train.tokens.tolist()}
    assert not any(tuple(t) in seen for t in test.tokens.tolist())


def test_encode_rejects_bad_sentences() -> None:
    with pytest.raises(ValueError, match="unknown words"):
        T.encode(["the", "cow", "chased", "the", "cat"])
    with pytest.raises(ValueError, match="one verb"):
        T.encode(["the", "cat", "the", "mouse"])
    with pytest.raises(ValueError, match="at most"):
        T.encode(["the"] * 8)


def test_model_uses_same_parameter_count_for_every_h() -> None:
    counts = {h: sum(p.numel() for p in T.HeadsModel(h).parameters()) for h in (1, 2, 3)}
    assert len(set(counts.values())) == 1, counts
    with pytest.raises(ValueError, match="divisor"):
        T.HeadsModel(5)


def test_short_training_lowers_the_loss() -> None:
    run = T.train(T.RunConfig(h=2, steps=SHORT))
    assert run.test_loss[-1] < 0.8 * run.test_loss[0]
    assert run.loss[-5:].mean() < run.loss[:5].mean()
    assert run.spread.shape == (SHORT + 1,)
    assert SHORT in run.snapshots and 0 in run.snapshots


def test_identical_heads_stay_identical() -> None:
    model = T.build(T.RunConfig(h=3, init="symmetric"))
    assert T.head_spread(model) == 0.0
    run = T.train(T.RunConfig(h=3, steps=SHORT, init="symmetric"))
    assert run.model is not None
    assert float(run.spread.max()) <= 1e-12
    blocks = run.model.head_blocks()  # (h, 4, d_model, d_k)
    assert torch.allclose(blocks[1], blocks[0], rtol=0, atol=1e-12)
    assert torch.allclose(blocks[2], blocks[0], rtol=0, atol=1e-12)
    # ... but they did train: the parameters moved.
    start = T.build(T.RunConfig(h=3, init="symmetric")).head_blocks()
    assert float((blocks - start).abs().max()) > 1e-2


def test_perturbed_heads_drift_apart() -> None:
    run = T.train(T.RunConfig(h=3, steps=SHORT, init="perturbed", eps=1e-6))
    assert 1e-7 < float(run.spread[0]) < 1e-5
    assert float(run.spread[-1]) > 100 * float(run.spread[0])


def test_perturb_checks_its_head() -> None:
    with pytest.raises(ValueError, match="does not exist"):
        T.perturb(T.HeadsModel(2), head=2)


def test_training_is_deterministic() -> None:
    config = T.RunConfig(h=3, seed=1, steps=15)
    a, b = T.train(config), T.train(config)
    assert torch.equal(a.loss, b.loss)
    assert torch.equal(a.spread, b.spread)
    assert a.metrics == b.metrics
    for step in a.snapshots:
        assert torch.equal(a.snapshots[step], b.snapshots[step])


def test_rows_sum_to_one_and_roles_add_up() -> None:
    run = T.train(T.RunConfig(h=3, steps=5))
    for rows in run.snapshots.values():
        assert torch.allclose(rows.sum(-1), torch.ones(3, dtype=torch.float64))
    assert run.roles is not None
    assert torch.allclose(run.roles.sum(-1), torch.ones(3, dtype=torch.float64))


def test_steps_view_matches_expected() -> None:
    config = T.RunConfig(h=2, steps=20)
    run = T.cached_run(config)
    html = T.steps_html(run, 10)
    assert 'data-view="training-steps"' in html and 'data-step="10"' in html
    attrs = {"h": "2", "seed": "0", "steps": "20", "lr": str(config.lr), "batch": "128"}
    want = mw.expected("training-steps", **attrs, step="10")
    assert want is not None
    for key, value in want.items():
        assert f'data-key="{key}" data-value="{value:.6g}"' in html


def test_noun_preference_is_a_weight_per_head_and_noun() -> None:
    model = T.HeadsModel(3, seed=0)
    data = T.all_sentences()
    pref = T.noun_preference(model, data)
    assert pref.shape == (3, len(T.NOUNS))
    assert ((pref >= 0) & (pref <= 1)).all()
    # Recompute one entry by hand: head 2, noun "dog".
    with torch.no_grad():
        _, w = model(data)
    k, total, count = T.NOUNS.index("dog"), 0.0, 0
    for i in range(len(data)):
        for pos, noun in (
            (data.subject_pos[i], data.subject[i]),
            (data.object_pos[i], data.object[i]),
        ):
            if noun == k:
                total += float(w[i, 1, data.verb[i], pos])
                count += 1
    assert abs(float(pref[1, k]) - total / count) < 1e-12


def test_noun_choice_shares_and_ranking() -> None:
    model = T.HeadsModel(2, seed=3)
    decisive, ranked = T.noun_choice(model, T.all_sentences())
    assert decisive.shape == ranked.shape == (2,)
    assert ((decisive >= 0.5) & (decisive <= 1)).all()
    assert ((ranked >= 0) & (ranked <= 1)).all()
