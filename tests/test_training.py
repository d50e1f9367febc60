"""Tests for mha.training: the data, the symmetry result (C15), learning, determinism."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import pytest
import torch

from mha import training as T
from mha.training import results as R
from mha.views.training import steps_slider
from tests import oracles
from tests.test_mask_view import draw

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
    with pytest.raises(ValueError, match="1 to 7 words"):
        T.encode(["the"] * 8)
    with pytest.raises(ValueError, match="one noun before"):
        T.encode(["the", "cat", "chased", "the"])


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


def test_the_accuracy_curve_is_what_a_run_stopped_there_scores() -> None:
    """Run.test_both at step 10 is the held-out both-right share of the same run trained for
    10 steps only, counted here sentence by sentence from its scores."""
    config = T.RunConfig(h=2, d_k=6, seed=3, steps=20)
    run = T.train(config, progress=False)
    assert run.test_both.shape == run.test_loss.shape == run.eval_steps.shape
    early = T.train(T.with_steps(config, 10), progress=False).model
    assert early is not None
    test = T.split()[1]
    with torch.no_grad():
        guess = early(test)[0].argmax(-1)  # (N, 2)
    right = sum(
        int(guess[i, 0]) == int(test.subject[i]) and int(guess[i, 1]) == int(test.object[i])
        for i in range(len(test))
    )
    assert float(run.test_both[run.eval_steps == 10][0]) == right / len(test)
    assert float(run.test_both[-1]) == run.metrics["test_both"]


def test_training_is_deterministic() -> None:
    config = T.RunConfig(h=3, seed=1, steps=15)
    a, b = T.train(config), T.train(config)
    assert torch.equal(a.loss, b.loss)
    assert torch.equal(a.spread, b.spread)
    assert a.metrics == b.metrics
    for step in a.snapshots:
        assert torch.equal(a.snapshots[step], b.snapshots[step])


def test_snapshot_rows_and_roles_match_a_direct_forward_pass() -> None:
    run = T.train(T.RunConfig(h=3, steps=5))
    assert run.model is not None and run.roles is not None
    for rows in run.snapshots.values():  # each a softmax row of the verb: sums to one
        assert torch.allclose(rows.sum(-1), torch.ones(3, dtype=torch.float64))
    # The roles, recomputed sentence by sentence from the model's own weights.
    _, test = T.split()
    with torch.no_grad():
        _, w = run.model(test)  # (N, h, n, n)
    subj = torch.stack([w[i, :, test.verb[i], test.subject_pos[i]] for i in range(len(test))])
    obj = torch.stack([w[i, :, test.verb[i], test.object_pos[i]] for i in range(len(test))])
    torch.testing.assert_close(run.roles[:, 0], subj.mean(0), rtol=0, atol=1e-12)
    torch.testing.assert_close(run.roles[:, 1], obj.mean(0), rtol=0, atol=1e-12)


def adam_by_hand(config: T.RunConfig) -> list[tuple[dict[str, torch.Tensor], float]]:
    """The training run of ``config`` again, without ``train``, torch.optim or the model:
    the forward pass is PyTorch's SDPA on the raw parameters (:mod:`mha.training.reference`),
    the update is Adam written out (Kingma & Ba 2015, torch's defaults: betas 0.9 and
    0.999, eps 1e-8). Returns, for step 0 .. steps, the parameters before that step's update
    and the held-out loss."""
    from mha.seeds import generator
    from mha.training import reference

    train_set, test = T.split()
    params = {k: p.detach().clone() for k, p in T.build(config).named_parameters()}
    m = {k: torch.zeros_like(p) for k, p in params.items()}
    v = {k: torch.zeros_like(p) for k, p in params.items()}
    order = generator(config.seed, 555)  # the run's own draw of training sentences

    def loss(state: dict[str, torch.Tensor], data: T.Sentences) -> torch.Tensor:
        scores = reference.logits(state, data.tokens, data.verb)  # (N, 2, nouns)
        ce = torch.nn.functional.cross_entropy
        return ce(scores[:, 0], data.subject) + ce(scores[:, 1], data.object)

    out = []
    for t in range(1, config.steps + 2):
        with torch.no_grad():
            out.append(({k: p.clone() for k, p in params.items()}, float(loss(params, test))))
        if t > config.steps:
            break
        batch = train_set.take(torch.randint(len(train_set), (config.batch,), generator=order))
        live = {k: p.requires_grad_() for k, p in params.items()}
        grads = torch.autograd.grad(loss(live, batch), list(live.values()))
        with torch.no_grad():
            for (k, p), g in zip(live.items(), grads, strict=True):
                m[k] = 0.9 * m[k] + 0.1 * g
                v[k] = 0.999 * v[k] + 0.001 * g * g
                m_hat, v_hat = m[k] / (1 - 0.9**t), v[k] / (1 - 0.999**t)
                params[k] = p.detach() - config.lr * m_hat / (v_hat.sqrt() + 1e-8)
    return out


@pytest.mark.slow
def test_steps_view_shows_what_adam_written_out_gives() -> None:
    config = T.RunConfig(h=2, steps=20, init="perturbed", eps=1e-3)
    run = T.train(config)
    by_hand = adam_by_hand(config)
    from mha.training import reference

    ids, verb, _, _ = T.encode(T.SHOW)
    view = steps_slider(run).get_state()  # drawn by its module in Node, as the build draws it
    pages = dict(zip((0, 10, 20), draw([{**view, "step": st} for st in (0, 10, 20)]), strict=True))
    for step in (0, 10, 20):
        state, held_out = by_hand[step]
        weights, _ = reference.layer(state, torch.tensor([ids]))  # (1, h, n, n)
        rows = weights[0, :, verb]  # (h, n): the verb's row of SHOW, from SDPA
        torch.testing.assert_close(run.snapshots[step], rows, rtol=0, atol=1e-9)
        assert float(run.test_loss[run.eval_steps == step][0]) == pytest.approx(held_out, abs=1e-9)
        html = pages[step]
        assert 'data-view="training-steps"' in html and f'data-step="{step}"' in html
        shown = dict(re.findall(r'data-key="([^"]+)" data-value="([^"]+)"', html))
        for i in range(2):
            for j in range(T.MAX_LEN):
                assert float(shown[f"r{i}-{j}"]) == pytest.approx(float(rows[i, j]), abs=1e-6)
        assert float(shown["loss"]) == pytest.approx(held_out, rel=1e-5)
    assert run.loss.shape == (20,) and not torch.equal(by_hand[20][0]["W_q"], by_hand[0][0]["W_q"])
    trained = {k: p.detach() for k, p in run.model.named_parameters()}
    for k, p in by_hand[20][0].items():
        torch.testing.assert_close(trained[k], p, rtol=0, atol=1e-9)
    html = pages[10]
    root = re.search(r'<div class="mha-view"[^>]*>', html).group(0)
    attrs = dict(re.findall(r'data-([a-z]+)="([^"]*)"', root))
    assert attrs["eps"] == "0.001" and attrs["init"] == "perturbed"
    # The numbers the browser tests expect for this view (it trains again) are these too.
    want = oracles.expected("training-steps", **{k: v for k, v in attrs.items() if k != "view"})
    weights, _ = reference.layer(by_hand[10][0], torch.tensor([ids]))  # (1, h, n, n)
    assert want is not None and want["loss"] == pytest.approx(by_hand[10][1], abs=1e-9)
    for i in range(2):
        for j in range(T.MAX_LEN):
            assert want[f"r{i}-{j}"] == pytest.approx(float(weights[0, i, verb, j]), abs=1e-9)


def test_noun_preference_is_a_weight_per_head_and_noun() -> None:
    model = T.HeadsModel(3, seed=0)
    data = T.all_sentences()
    pref = T.noun_preference(model, data)
    assert pref.shape == (3, len(T.NOUNS))
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


def test_noun_choice_matches_a_sentence_by_sentence_count() -> None:
    model = T.HeadsModel(2, seed=3)
    data = T.all_sentences()
    decisive, ranked = T.noun_choice(model, data)
    pref = T.noun_preference(model, data)  # (h, nouns)
    with torch.no_grad():
        _, w = model(data)
    for head in range(2):
        shares, agree = [], 0
        for i in range(len(data)):
            s = float(w[i, head, data.verb[i], data.subject_pos[i]])
            o = float(w[i, head, data.verb[i], data.object_pos[i]])
            shares.append(max(s, o) / (s + o))
            prefers_subject = pref[head, data.subject[i]] > pref[head, data.object[i]]
            agree += (s > o) == bool(prefers_subject)
        assert float(decisive[head]) == pytest.approx(sum(shares) / len(shares), abs=1e-12)
        assert float(ranked[head]) == pytest.approx(agree / len(data), abs=1e-12)


def test_batch_reads_sentences_and_their_answers() -> None:
    b = T.batch([["the", "big", "dog", "saw", "the", "hen"], ["the", "cat", "bit", "the", "fox"]])
    assert b.verb.tolist() == [3, 2] and b.subject_pos.tolist() == [2, 1]
    assert [T.NOUNS[i] for i in b.subject] == ["dog", "cat"]
    assert [T.NOUNS[i] for i in b.object] == ["hen", "fox"]
    with pytest.raises(ValueError, match="one verb"):
        T.batch([["the", "cat"]])


def test_readout_with_the_models_own_rows_is_the_models_answer() -> None:
    model = T.load_model(3, 4, 2)
    _, test = T.split()
    with torch.no_grad():
        logits, _ = model(test)  # (N, 2, nouns)
    again = T.readout_with_rows(model, test, T.edited_rows(model, test, "none"))
    torch.testing.assert_close(again, logits, rtol=0, atol=1e-10)
    assert T.both_right(again, test) == T.evaluate(model, test)["both"]


def test_edited_rows_move_only_the_two_nouns_weights() -> None:
    model = T.load_model(2, 6, 0)
    data = T.all_sentences()
    rows = T.edited_rows(model, data, "none")  # (N, h, n)
    idx = torch.arange(len(data))
    for edit in ("swap", "even"):
        new = T.edited_rows(model, data, edit)
        torch.testing.assert_close(new.sum(-1), torch.ones_like(new.sum(-1)))
        s, o = new[idx, :, data.subject_pos], new[idx, :, data.object_pos]
        s0, o0 = rows[idx, :, data.subject_pos], rows[idx, :, data.object_pos]
        if edit == "swap":
            assert torch.equal(s, o0) and torch.equal(o, s0)
        else:
            torch.testing.assert_close(s, (s0 + o0) / 2)
            assert torch.equal(s, o)
        untouched = torch.ones_like(new, dtype=torch.bool)
        untouched[idx, :, data.subject_pos] = False
        untouched[idx, :, data.object_pos] = False
        assert torch.equal(new[untouched], rows[untouched])
    with pytest.raises(ValueError, match="edit must be"):
        T.edited_rows(model, data, "shuffle")


def test_both_right_counts_sentences_with_both_nouns_right() -> None:
    b = T.batch([["the", "cat", "saw", "the", "dog"]] * 4)  # subject cat (0), object dog (2)
    logits = torch.zeros(4, 2, len(T.NOUNS))
    for i, (s, o) in enumerate([(0, 2), (0, 1), (3, 2), (0, 2)]):
        logits[i, 0, s] = logits[i, 1, o] = 1.0
    assert T.both_right(logits, b) == 0.5


def test_head_kinds_follow_the_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    from mha.training import probe

    # Five heads over two sentences: subject weight, object weight per sentence.
    subj = torch.tensor([[0.95, 0.02, 0.9, 0.9, 0.5], [0.96, 0.01, 0.05, 0.05, 0.5]])
    obj = torch.tensor([[0.01, 0.9, 0.05, 0.05, 0.5], [0.02, 0.94, 0.9, 0.9, 0.5]])
    monkeypatch.setattr(probe, "verb_noun_weights", lambda model, batch: (subj, obj))
    decisive = torch.tensor([0.97, 0.98, 0.947, 0.947, 0.5])
    ranked = torch.tensor([0.5, 0.5, 0.9, 0.8, 0.5])
    monkeypatch.setattr(probe, "_choice", lambda subj, obj, batch: (decisive, ranked))
    kinds = probe.head_kinds(None, None)  # type: ignore[arg-type]
    assert kinds == ["subject", "object", "noun", "mixed", "mixed"]


def test_a_settings_summary_counts_what_the_weights_do() -> None:
    import numpy

    from mha.training import reference, results, store

    s = results.setting(1, 12)
    both = [reference.held_out(1, 12, seed)["both"] for seed in T.SEEDS]
    assert s.solved == sum(b >= 0.99 for b in both) and s.runs == len(T.SEEDS)
    # The Wilson interval's ends solve (k/n - p)^2 = z^2 p (1 - p) / n (the score test's
    # boundary): found here by numpy's polynomial roots, not by the closed form.
    z, p_hat = 1.959963984540054, s.solved / s.runs  # z: the normal's 97.5 % quantile
    a = z * z / s.runs
    roots = sorted(numpy.roots([1 + a, -(2 * p_hat + a), p_hat * p_hat]).real)
    assert (s.low, s.high) == pytest.approx((max(0, roots[0]), min(1, roots[1])), abs=1e-12)
    assert s.weights == sum(p.numel() for p in T.HeadsModel(1).parameters())
    # reached: runs whose stored curve (read from the file itself) meets the mark somewhere
    path = store.WEIGHTS_DIR / store.RUNS_FILE
    runs = {r["seed"]: r for r in store.read_runs(path) if r["h"] == 1}
    met = [max(runs[seed]["test_both"]) >= 0.99 for seed in T.SEEDS]
    assert s.reached == sum(met) >= s.solved
    counts = results.kind_counts([["subject", "object"], ["noun", "mixed"], ["subject", "noun"]])
    assert counts == {"subject": 2, "object": 1, "noun": 2, "mixed": 1, "role_split": 1}


def test_switching_a_head_off_drops_its_term_and_nothing_else() -> None:
    """ablation.without_head against the layer rebuilt with that head's row set to zero."""
    from mha.training import ablation

    model = T.HeadsModel(3, seed=4)
    data = T.split()[1]
    for head in range(3):
        rows = T.edited_rows(model, data, "none")  # (N, h, n)
        rows[:, head] = 0.0
        by_hand = T.readout_with_rows(model, data, rows)  # (N, 2, nouns)
        with torch.no_grad():
            off, _ = ablation.without_head(model, head)(data)  # (N, 2, nouns)
        torch.testing.assert_close(off, by_hand, rtol=0, atol=1e-12)
    everything_off = model
    for head in range(3):
        everything_off = ablation.without_head(everything_off, head)
    with torch.no_grad():
        logits, _ = everything_off(data)  # (N, 2, nouns): the read-out's bias alone
    assert torch.equal(logits, model.bias.detach().view(2, -1).expand_as(logits))
    acc = ablation.ablate(model, data)  # (h + 1, 3)
    assert acc.shape == (4, 3) and acc[0].tolist() == [
        T.evaluate(model, data)[k] for k in ("subject", "object", "both")
    ]
    with pytest.raises(ValueError, match="head 3 does not exist"):
        ablation.without_head(model, 3)


def test_replacing_a_head_by_its_mean_keeps_only_its_average_term() -> None:
    """ablation.scores_with_mean_head against a second route through switching the head off.

    The read-out is linear in the verb's row, so the model with head i replaced by its mean is
    the model with head i switched off plus the mean, over the batch, of what switching it off
    took away. A mean taken over the wrong axis, or of the wrong head, fails this."""
    from mha.training import ablation

    model = T.HeadsModel(3, seed=4)
    data = T.split()[1]
    with torch.no_grad():
        intact, _ = model(data)  # (N, 2, nouns)
    for head in range(3):
        with torch.no_grad():
            off, _ = ablation.without_head(model, head)(data)  # (N, 2, nouns)
        by_hand = off + (intact - off).mean(0)  # (N, 2, nouns)
        mean = ablation.scores_with_mean_head(model, data, head)  # (N, 2, nouns)
        torch.testing.assert_close(mean, by_hand, rtol=0, atol=1e-12)
        assert not torch.allclose(mean, intact)  # the head's output does vary by sentence
    one = T.batch([["the", "cat", "chased", "the", "mouse"]])  # the mean of one is itself
    with torch.no_grad():
        torch.testing.assert_close(ablation.scores_with_mean_head(model, one, 1), model(one)[0])
    acc = ablation.mean_ablate(model, data)  # (h + 1, 3)
    assert acc.shape == (4, 3) and acc[0].tolist() == [
        T.evaluate(model, data)[k] for k in ("subject", "object", "both")
    ]
    with pytest.raises(ValueError, match="head 3 does not exist"):
        ablation.scores_with_mean_head(model, data, 3)
    with pytest.raises(ValueError, match="tied-values"):
        ablation.head_outputs(T.TiedValuesModel(2), data)


def test_order_seed_moves_only_the_sentence_order() -> None:
    base = T.RunConfig(h=3, seed=0, steps=5)
    default, explicit = T.train(base), T.train(replace(base, order_seed=0))
    assert torch.equal(default.loss, explicit.loss)  # None means the seed: stored runs unchanged
    other = T.train(replace(base, order_seed=1))
    start = T.build(base).state_dict()
    assert all(torch.equal(v, T.build(other.config).state_dict()[k]) for k, v in start.items())
    assert not torch.equal(default.loss, other.loss)  # same start, other batches
    assert default.loss[0] != other.loss[0]


def test_stripping_positions_changes_nothing_when_every_position_is_alike() -> None:
    model = T.load_model(3, 4, 1)
    _, test = T.split()
    with torch.no_grad():
        model.pe.copy_(model.pe.mean(0).expand_as(model.pe))  # one position vector everywhere
        logits, _ = model(test)  # (N, 2, nouns): the model's own forward pass
    for head in range(3):
        assert torch.allclose(T.scores_without_position(model, test, head), logits, atol=1e-12)
    with pytest.raises(ValueError, match="head 3 does not exist"):
        T.scores_without_position(model, test, 3)


def test_stripping_a_noun_heads_positions_can_cost_answers() -> None:
    # Trained three-head layers whose noun heads carry where their noun stood: stripping
    # one head's positions must change the answers of some run.
    drops = [d for s in (1, 2) for d in R.position_drops(3, 4, (s,))[0]]
    assert max(drops) > 0.05


@pytest.mark.slow
def test_refit_readout_fits_only_the_readout() -> None:
    train_set, test_set = T.split()
    trained = T.load_model(3, 4, 0)
    blank = T.load_model(3, 4, 0)
    with torch.no_grad():
        blank.read.zero_()
        blank.bias.zero_()  # a read-out that knows nothing: every noun equally likely
    assert T.evaluate(blank, train_set)["loss"] == pytest.approx(2 * math.log(len(T.NOUNS)))
    refit = T.refit_readout(blank, train_set)
    for name in ("embed", "W_q", "W_k", "W_v", "W_o"):
        assert torch.equal(getattr(refit, name), getattr(blank, name))
    # the attention layer of a trained model, with a read-out learned again from nothing,
    # names the nouns about as well as the model trained as a whole
    assert T.evaluate(refit, test_set)["both"] >= T.evaluate(trained, test_set)["both"] - 0.02
    assert T.evaluate(refit, train_set)["loss"] < T.evaluate(blank, train_set)["loss"] / 10


@pytest.mark.slow
def test_refit_readout_ends_at_the_readouts_minimum() -> None:
    # The loss is convex in the read-out (R, b), so where L-BFGS stops, the gradient of the
    # model's own loss (its forward pass, not the refit's closure) with respect to R and b
    # must vanish. On a layer narrower than d_model (h * d_k = 6 < 12) whose read-out
    # starts untrained, so the copy must keep the layer's width.
    train_set, _ = T.split()
    model = T.HeadsModel(2, seed=1, d_k=3)
    refit = T.refit_readout(model, train_set)
    logits, _ = refit(train_set)  # (N, 2, nouns)
    T.loss_fn(logits, train_set).backward()
    assert float(refit.read.grad.abs().max()) < 1e-4
    assert float(refit.bias.grad.abs().max()) < 1e-4
    model.zero_grad()
    logits, _ = model(train_set)  # (N, 2, nouns)
    T.loss_fn(logits, train_set).backward()
    assert float(model.read.grad.abs().max()) > 1e-2  # the start was not already there


def test_edited_both_right_reads_the_edited_rows_out() -> None:
    _, test_set = T.split()
    model = T.load_model(3, 4, 0)
    # unedited rows give the model's own answers; rows with the two nouns' weights swapped
    # give each sentence's nouns the other way round, so (nearly) none stays right
    assert T.edited_both_right(model, test_set, "none") == T.evaluate(model, test_set)["both"]
    assert T.edited_both_right(model, test_set, "swap") < 0.1
