"""Tied-values heads (mha.training.model.TiedValuesModel) and their stored runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from mha import multi_head_attention
from mha import training as T
from mha.training import variants
from mha.training.model import TiedValuesModel


def by_hand(model: TiedValuesModel, tokens: torch.Tensor) -> torch.Tensor:
    """The tied layer's output ``(N, n, d_model)``, one head at a time, with the softmax
    written out: ``sum_i softmax(Q_i K_i^T / sqrt(d_k)) X W_v W_o``."""
    X = model.embed[tokens] + model.pe  # (N, n, d_model)
    summed = torch.zeros(*tokens.shape, tokens.shape[1], dtype=X.dtype)  # (N, n, n)
    for i in range(model.h):
        scores = (X @ model.W_q[i]) @ (X @ model.W_k[i]).transpose(1, 2) / model.d_k**0.5
        e = torch.exp(scores - scores.amax(dim=2, keepdim=True))  # (N, n, n)
        summed += e / e.sum(dim=2, keepdim=True)  # (N, n, n): head i's rows added in
    return summed @ X @ model.W_v @ model.W_o  # (N, n, d_model)


@pytest.mark.parametrize(("h", "d_k", "d_v"), [(2, 6, 12), (3, 4, 5), (1, 12, 7)])
def test_the_tied_layer_is_the_hand_computation(h: int, d_k: int, d_v: int) -> None:
    model = TiedValuesModel(h, seed=4, d_k=d_k, d_v=d_v)
    tokens = T.split()[1].tokens[:20]  # (20, n)
    with torch.no_grad():
        out, weights = model.attend(tokens)  # (20, n, d_model), (20, h, n, n)
        torch.testing.assert_close(out, by_hand(model, tokens), rtol=0, atol=1e-12)
    assert weights.shape == (20, h, T.MAX_LEN, T.MAX_LEN)
    assert tuple(model.W_v.shape) == (T.D_MODEL, d_v) and tuple(model.W_o.shape) == (d_v, 12)


def test_the_tied_layer_is_an_ordinary_layer_with_equal_value_maps_and_w_o_blocks() -> None:
    """Every head given the same W_v and the same block of W_o, the ordinary layer adds the
    heads' averages in the same columns: the tied layer, by another route."""
    model = TiedValuesModel(3, seed=2, d_k=4, d_v=4)
    X = model.embed[T.split()[1].tokens[:10]] + model.pe  # (10, n, d_model)
    W_v = model.W_v.expand(3, -1, -1)  # (3, d_model, d_v): one value map, three times
    W_o = model.W_o.repeat(3, 1)  # (3*d_v, d_model): one block of W_o, three times
    with torch.no_grad():
        want, w_want = multi_head_attention(X, model.W_q, model.W_k, W_v, W_o)
        got, w_got = model.attend(T.split()[1].tokens[:10])
    torch.testing.assert_close(got, want, rtol=0, atol=1e-12)
    assert torch.equal(w_got, w_want)


def test_one_tied_head_is_one_ordinary_head_with_the_same_weights() -> None:
    tied = TiedValuesModel(1, seed=5, d_k=12, d_v=12)
    plain = T.HeadsModel(1, seed=5)
    with torch.no_grad():
        plain.embed.copy_(tied.embed)
        plain.W_q.copy_(tied.W_q)
        plain.W_k.copy_(tied.W_k)
        plain.W_v.copy_(tied.W_v[None])  # (1, d_model, d_v)
        plain.W_o.copy_(tied.W_o)
        plain.read.copy_(tied.read)
        plain.bias.copy_(tied.bias)
        test = T.split()[1]
        torch.testing.assert_close(tied(test)[0], plain(test)[0], rtol=0, atol=1e-12)
    assert not torch.equal(tied.W_v, T.HeadsModel(1, seed=5).W_v[0])  # its own values draw


def test_tied_heads_start_from_the_ordinary_heads_query_and_key_weights() -> None:
    tied, plain = TiedValuesModel(3, seed=1, d_k=4), T.HeadsModel(3, seed=1)
    assert torch.equal(tied.W_q, plain.W_q) and torch.equal(tied.W_k, plain.W_k)
    assert torch.equal(tied.embed, plain.embed) and torch.equal(tied.read, plain.read)


def test_even_summed_weights_cannot_tell_the_nouns_apart() -> None:
    """eq-blend-split for the tied layer: rows whose sum gives subject and object the same
    weight give the same output when the two nouns are swapped; uneven rows do not."""
    model = TiedValuesModel(2, seed=3, d_k=6)
    pair = T.batch(
        [["the", "cat", "chased", "the", "mouse"], ["the", "mouse", "chased", "the", "cat"]]
    )
    head1 = torch.tensor([0.1, 0.6, 0.1, 0.1, 0.0, 0.05, 0.05], dtype=torch.float64)  # (7,)
    head2 = torch.tensor([0.1, 0.0, 0.1, 0.1, 0.6, 0.05, 0.05], dtype=torch.float64)  # (7,)
    even = torch.stack([head1, head2]).expand(2, 2, 7)  # (2, h, 7): summed row even on nouns
    scores = T.readout_with_rows(model, pair, even)  # (2, 2, nouns)
    assert float((scores[0] - scores[1]).abs().max()) < 1e-12
    uneven = torch.stack([head1, head1]).expand(2, 2, 7)  # (2, h, 7): both on the subject
    scores = T.readout_with_rows(model, pair, uneven)  # (2, 2, nouns)
    assert float((scores[0] - scores[1]).abs().max()) > 1e-3


def test_readout_with_its_own_rows_is_the_model() -> None:
    model = TiedValuesModel(3, seed=0, d_k=4)
    test = T.split()[1]
    with torch.no_grad():
        logits, _ = model(test)  # (N, 2, nouns)
    rows = T.edited_rows(model, test, "none")  # (N, h, n)
    torch.testing.assert_close(T.readout_with_rows(model, test, rows), logits, rtol=0, atol=1e-12)
    pooled = T.edited_rows(model, test, "pool")  # (N, h, n): same sum, so the same answers
    torch.testing.assert_close(T.readout_with_rows(model, test, pooled), logits, rtol=0, atol=1e-12)


def test_pooling_changes_ordinary_heads() -> None:
    model = T.load_model(2, 6, 1)
    test = T.split()[1]
    rows = T.edited_rows(model, test, "pool")  # (N, h, n)
    assert torch.equal(rows[:, 0], rows[:, 1])
    torch.testing.assert_close(rows.sum(-1), torch.ones(len(test), 2, dtype=torch.float64))
    own = T.readout_with_rows(model, test, T.edited_rows(model, test, "none"))
    assert float((T.readout_with_rows(model, test, rows) - own).abs().max()) > 1e-3


def test_tied_heads_refuse_symmetric_starts() -> None:
    with pytest.raises(ValueError, match=r"from init=.random. only"):
        T.build(T.RunConfig(h=2, tied_dv=12, init="symmetric"))
    with pytest.raises(ValueError, match="share W_v"):
        T.make_symmetric(TiedValuesModel(2, d_k=6))
    with pytest.raises(ValueError, match="share W_v"):
        T.perturb(TiedValuesModel(2, d_k=6))


@pytest.mark.slow
def test_every_stored_tied_run_is_there_and_its_metrics_fit_its_weights() -> None:
    """The recorded held-out metrics, recomputed from the stored weights by the hand route."""
    test = T.split()[1]
    ce = torch.nn.functional.cross_entropy
    for config in variants.TIED_GRID:
        assert config.d_k is not None
        run = variants.load_tied(config.h, config.d_k, config.seed)
        with torch.no_grad():
            out = by_hand(run.model, test.tokens)[torch.arange(len(test)), test.verb]  # (N, 12)
            scores = (out @ run.model.read + run.model.bias).view(-1, 2, len(T.NOUNS))
        s_ok = scores[:, 0].argmax(-1) == test.subject  # (N,)
        o_ok = scores[:, 1].argmax(-1) == test.object  # (N,)
        loss = float(ce(scores[:, 0], test.subject) + ce(scores[:, 1], test.object))
        assert run.metrics["test_loss"] == pytest.approx(loss, rel=1e-9), config
        assert run.metrics["test_both"] == float((s_ok & o_ok).double().mean()), config
    assert len(variants.TIED_GRID) == len(variants.TIED_SETTINGS) * len(variants.TIED_SEEDS)


@pytest.mark.slow
def test_the_stored_tied_runs_are_what_training_produces(tmp_path: Path) -> None:
    """One run trained again, written twice to a fresh folder: the same bytes both times, and
    the same weights and record as the stored file."""
    config = T.RunConfig(h=3, d_k=4, seed=6, tied_dv=variants.TIED_DV)
    for folder in (tmp_path / "a", tmp_path / "b"):
        variants.write_all(folder, configs=(config,))
    for suffix in ("json", "npz"):
        name = f"{variants.NAME}.{suffix}"
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    again = variants.load_tied(3, 4, 6, folder=tmp_path / "a")
    stored = variants.load_tied(3, 4, 6)
    for (name, p), q in zip(again.model.named_parameters(), stored.model.parameters(), strict=True):
        torch.testing.assert_close(p, q, rtol=0, atol=1e-10, msg=name)
    (rec,) = json.loads((tmp_path / "a" / f"{variants.NAME}.json").read_text())["runs"]
    assert rec["metrics"] == pytest.approx(stored.metrics, rel=0, abs=1e-10)
    torch.testing.assert_close(
        torch.tensor(rec["test_loss"], dtype=torch.float64), stored.test_loss, rtol=0, atol=1e-10
    )


def test_a_missing_tied_file_names_the_command(tmp_path: Path) -> None:
    with pytest.raises(T.StoredWeightsError, match="make weights"):
        variants.load_tied(2, 6, 0, folder=tmp_path)


def test_the_summed_subject_share_is_read_from_the_added_rows() -> None:
    model = TiedValuesModel(3, seed=8, d_k=4)
    test = T.split()[1]
    with torch.no_grad():
        _, weights = model(test)  # (N, h, n, n)
    share = T.summed_subject_share(model, test)  # (N,)
    for k in (0, 17, 250):
        row = weights[k, :, int(test.verb[k])].sum(0)  # (n,): the heads' rows added
        s, o = float(row[int(test.subject_pos[k])]), float(row[int(test.object_pos[k])])
        assert float(share[k]) == pytest.approx(s / (s + o), rel=1e-12)
