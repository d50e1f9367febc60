"""Stored trained weights: they are what training produces, they load, and bad files say so."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from mha import training as T
from mha.stats import wilson_interval
from mha.training import curves, more, reference, store
from mha.training import experiments as X
from mha.training import variants as V

# A few settings retrained from scratch (seconds each): a narrow one and the full-width one.
RETRAINED = [(1, 12, 3), (2, 12, 7), (6, 2, 0)]


@pytest.mark.slow
@pytest.mark.parametrize(("h", "d_k", "seed"), RETRAINED)
def test_stored_weights_are_what_training_produces(h: int, d_k: int, seed: int) -> None:
    run = T.train(T.RunConfig(h=h, d_k=d_k, seed=seed), progress=False)
    assert run.model is not None
    stored = store.load_state(h, d_k, seed)
    trained = dict(run.model.named_parameters())
    assert set(stored) == set(trained)
    for name, p in trained.items():
        torch.testing.assert_close(stored[name], p.detach(), rtol=0, atol=1e-10, msg=name)
    saved = store.load_run(h, d_k, seed)
    for key, value in run.metrics.items():
        assert saved.metrics[key] == pytest.approx(value, rel=0, abs=1e-10), key
    torch.testing.assert_close(saved.test_loss, run.test_loss, rtol=0, atol=1e-10)
    torch.testing.assert_close(saved.test_both, run.test_both, rtol=0, atol=0)
    assert torch.equal(saved.eval_steps, run.eval_steps)


@pytest.mark.slow
def test_every_stored_run_is_there_and_its_metrics_fit_its_weights() -> None:
    """The recorded held-out metrics, recomputed from the stored weights by PyTorch's SDPA."""
    for config in store.GRID:
        h, d_k, seed = config.h, config.d_k, config.seed
        assert d_k is not None
        saved = curves.metrics(h, d_k, seed)
        again = reference.held_out(h, d_k, seed)
        for key in ("loss", "subject", "object", "both"):
            assert saved[f"test_{key}"] == pytest.approx(again[key], rel=1e-9, abs=1e-12), (
                config,
                key,
            )
        steps, both = curves.both_curve(h, d_k, seed)  # the curve's last point: the same count
        assert int(steps[-1]) == config.steps and float(both[-1]) == again["both"], config


def test_the_grid_covers_every_explorer_setting() -> None:
    hs = {h for h, d_k in store.SETTINGS if h * d_k == T.D_MODEL}
    assert hs >= {h for h in range(1, 5) if T.D_MODEL % h == 0}
    assert any(h * d_k != T.D_MODEL for h, d_k in store.SETTINGS)  # a full-width setting
    assert len(store.SEEDS) >= 10
    files = {p.name for p in store.WEIGHTS_DIR.iterdir()}
    weights = {store.weights_file(*s).name for s in store.SETTINGS}
    assert files == {store.RUNS_FILE, store.METRICS_FILE, X.EXPERIMENTS_FILE, *weights}
    total = sum(p.stat().st_size for p in store.WEIGHTS_DIR.iterdir())
    assert total < 1_000_000, f"{total} bytes of stored weights"


@pytest.mark.slow
def test_every_metrics_only_run_is_stored_and_one_is_what_training_produces() -> None:
    """metrics.json holds every run of METRICS_GRID; one of them is trained again here."""
    for config in more.METRICS_GRID:
        assert config.d_k is not None
        m = curves.metrics(config.h, config.d_k, config.seed, steps=config.steps)
        assert 0 <= m["test_both"] <= min(m["test_subject"], m["test_object"]) <= 1
    config = next(c for c in more.METRICS_GRID if c.h == 4)
    assert config.seed not in store.SEEDS  # a seed whose weights are not stored
    run = T.train(config, progress=False, keep_model=False)
    assert config.d_k is not None
    saved = curves.metrics(config.h, config.d_k, config.seed)
    for key, value in run.metrics.items():
        assert saved[key] == pytest.approx(value, rel=0, abs=1e-10), key
    steps, loss = curves.loss_curve(config.h, config.d_k, config.seed)
    assert torch.equal(steps, run.eval_steps)
    torch.testing.assert_close(loss, run.test_loss, rtol=0, atol=1e-10)
    steps_b, both = curves.both_curve(config.h, config.d_k, config.seed)
    assert torch.equal(steps_b, run.eval_steps) and torch.equal(both, run.test_both)


def test_a_longer_run_begins_as_the_stored_run() -> None:
    """The single head trained for LONG_STEPS repeats the stored 400-step run at first."""
    long = [c for c in more.METRICS_GRID if c.steps == more.LONG_STEPS]
    assert {c.seed for c in long} == set(store.SEEDS)
    steps, loss = curves.loss_curve(1, 12, 0, steps=more.LONG_STEPS)
    stored = store.load_run(1, 12, 0)
    first = steps <= stored.config.steps
    assert torch.equal(steps[first], stored.eval_steps)
    torch.testing.assert_close(loss[first], stored.test_loss, rtol=0, atol=1e-10)
    assert int(steps[-1]) == more.LONG_STEPS


def test_a_missing_metrics_run_names_the_file_and_the_command(copy: Path) -> None:
    with pytest.raises(store.StoredWeightsError, match=r"metrics\.json has no up-to-date run"):
        curves.metrics(3, 4, 10, folder=copy)  # three heads: no extra seeds are stored
    (copy / store.METRICS_FILE).unlink()
    store.read_runs.cache_clear()  # the file was read above
    with pytest.raises(store.StoredWeightsError, match=r"metrics\.json is missing.*make weights"):
        curves.metrics(1, 12, 10, folder=copy)
    assert curves.metrics(1, 12, 0, folder=copy)  # runs.json alone still serves its runs


def test_a_loaded_model_computes_what_the_weights_say() -> None:
    model = store.load_model(3, 4, 1)
    test = T.split()[1]
    with torch.no_grad():
        logits, _ = model(test)  # (N, 2, nouns)
    state = store.load_state(3, 4, 1)
    torch.testing.assert_close(
        logits, reference.logits(state, test.tokens, test.verb), rtol=0, atol=1e-10
    )


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    shutil.copytree(store.WEIGHTS_DIR, tmp_path, dirs_exist_ok=True)
    return tmp_path


def test_a_missing_weights_file_names_itself_and_the_command(copy: Path) -> None:
    path = store.weights_file(2, 6, copy)
    path.unlink()
    with pytest.raises(store.StoredWeightsError) as err:
        store.load_model(2, 6, 0, folder=copy)
    assert str(path) in str(err.value) and "is missing" in str(err.value)
    assert "make weights" in str(err.value)
    (copy / store.RUNS_FILE).unlink()
    with pytest.raises(store.StoredWeightsError, match=r"runs\.json is missing.*make weights"):
        store.load_run(3, 4, 0, folder=copy)


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[: len(b) // 2],  # truncated
        lambda b: b"not a zip file at all",
        lambda b: b[:200] + bytes(x ^ 0xFF for x in b[200:400]) + b[400:],  # flipped bytes
    ],
    ids=["truncated", "garbage", "flipped"],
)
def test_a_corrupt_weights_file_names_itself_and_the_command(copy: Path, damage) -> None:
    path = store.weights_file(4, 3, copy)
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(store.StoredWeightsError) as err:
        store.load_model(4, 3, 0, folder=copy)
    assert str(path) in str(err.value) and "corrupt" in str(err.value)
    assert "make weights" in str(err.value)


def test_a_corrupt_runs_file_or_a_missing_seed_says_so(copy: Path) -> None:
    with pytest.raises(store.StoredWeightsError, match=r"no run with seed 99.*make weights"):
        store.load_model(3, 4, 99, folder=copy)
    (copy / store.RUNS_FILE).write_text('{"runs": [', encoding="utf-8")
    with pytest.raises(store.StoredWeightsError, match=r"runs\.json is corrupt.*make weights"):
        store.load_run(3, 4, 0, folder=copy)


def test_wrong_shapes_are_reported_as_out_of_date(copy: Path) -> None:
    good, wrong = store.weights_file(2, 6, copy), store.weights_file(3, 4, copy)
    shutil.copy(wrong, good)  # h = 3 weights where h = 2 should be
    with pytest.raises(store.StoredWeightsError, match=r"does not hold the parameters"):
        store.load_model(2, 6, 0, folder=copy)


@pytest.mark.slow
def test_writing_is_reproducible_byte_for_byte(tmp_path: Path) -> None:
    configs = (T.RunConfig(h=2, d_k=6, seed=0, steps=3), T.RunConfig(h=2, d_k=6, seed=1, steps=3))
    store.write_all(tmp_path / "a", configs, jobs=1)
    store.write_all(tmp_path / "b", configs, jobs=2)  # in two worker processes
    more.write_metrics(tmp_path / "a", configs, jobs=1)
    more.write_metrics(tmp_path / "b", configs, jobs=2)
    for name in ("h2_dk6.npz", store.RUNS_FILE, store.METRICS_FILE):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    # metrics.json holds the same records as runs.json for the same runs
    assert (tmp_path / "a" / store.METRICS_FILE).read_bytes() == (
        tmp_path / "a" / store.RUNS_FILE
    ).read_bytes()


# Newcombe (1998), Statistics in Medicine 17:857-872, Table I, method 3 (Wilson score).
@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_interval_matches_published_values(k: int, n: int, low: float, high: float) -> None:
    got = wilson_interval(k, n)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_interval_edges_and_errors() -> None:
    low, high = wilson_interval(10, 10)
    assert high == 1.0 and 0.70 < low < 0.75
    assert wilson_interval(5, 10, 0.99)[0] < wilson_interval(5, 10, 0.95)[0]
    for bad in ((11, 10), (-1, 10), (0, 0)):
        with pytest.raises(ValueError, match="0 <= k <= n"):
            wilson_interval(*bad)


def test_experiments_file_holds_every_grid_run_and_is_written_byte_for_byte(
    tmp_path: Path,
) -> None:
    stored = (store.WEIGHTS_DIR / X.EXPERIMENTS_FILE).read_bytes()
    records = [X.stored(c) for c in X.ORDER_RUNS + X.NUDGE_RUNS]
    assert X.write_records(records, tmp_path).read_bytes() == stored
    for c, r in zip(X.ORDER_RUNS + X.NUDGE_RUNS, records, strict=True):
        assert len(r["kinds"]) == len(r["preference"]) == len(r["subject_share"]) == c.h
        assert len(r["spread"]) == c.steps // X.SPREAD_EVERY + 1
    with pytest.raises(store.StoredWeightsError, match="has no run"):
        X.stored(T.RunConfig(h=3, seed=7, order_seed=1))


def test_experiment_records_what_the_run_did() -> None:
    run = T.train(replace(X.NUDGE_RUNS[0], steps=10))
    rec = X.record(run)
    assert rec["metrics"] == run.metrics and rec["spread"][0] == float(run.spread[0])
    data = T.all_sentences()
    subj, obj = T.verb_noun_weights(run.model, data)  # (N, h) each
    # the subject share, sentence by sentence, by another route
    share = [
        sum(s[i] / (s[i] + o[i]) for s, o in zip(subj.tolist(), obj.tolist(), strict=True))
        / len(data)
        for i in range(3)
    ]
    assert rec["subject_share"] == pytest.approx(share, abs=1e-12)
    with pytest.raises(ValueError, match="shapes"):
        X.preference_gap(torch.zeros(3, 6), torch.zeros(2, 6))
    assert X.preference_gap(torch.zeros(3, 6), torch.full((3, 6), 0.25)) == 0.25


def test_every_stored_run_records_the_same_fields() -> None:
    """A run trained before a field was added (as the 1,200-step and tied-values runs were,
    until bfd0691) would lack it: then ``make weights`` would not write the files back byte
    for byte, and a chapter that reads the field would silently skip the run."""
    files = [
        store.WEIGHTS_DIR / store.RUNS_FILE,
        store.WEIGHTS_DIR / store.METRICS_FILE,
        V.VARIANTS_DIR / f"{V.NAME}.json",
    ]
    runs = [run for path in files for run in store.read_runs(path)]
    fields = {frozenset(run) - {"d_v"} for run in runs}  # d_v: the tied runs' own width
    curves_kept = {frozenset(run["metrics"]) for run in runs}
    assert len(fields) == 1, fields
    assert len(curves_kept) == 1, curves_kept
