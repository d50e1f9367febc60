"""Stored experiments on why heads differ (chapter 5), too slow to run while a page builds.

Two grids of three-head runs (``h = 3``, ``d_k = 4``), trained by ``make weights``
(``python -m mha.training.experiments``) and written to ``weights/experiments.json``
byte for byte the same every time:

* :data:`ORDER_RUNS`: starting weights from seed ``w`` and sentence order from seed ``o``,
  for every pair of different seeds of :data:`ORDER_SEEDS` (the pairs ``w = o`` are the
  stored runs of :mod:`mha.training.store`), so that runs can share their starting
  weights and differ in sentence order, or the other way round;
* :data:`NUDGE_RUNS`: all heads start identical (head 1's random weights), then head 2 is
  nudged by ``eps`` (:func:`~mha.training.model.perturb`), for every seed of
  :data:`NUDGE_SEEDS` and every size of :data:`NUDGE_SIZES`.

Each record keeps what chapter 5 measures: the final metrics, every head's kind and noun
preference over all sentences, its subject share, and the largest difference between heads
every :data:`SPREAD_EVERY` steps. The chapter retrains one run in its build and checks it
against its record.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

from torch import Tensor

from mha.training.data import all_sentences
from mha.training.loop import Run, RunConfig, train
from mha.training.probe import head_kinds, noun_preference, verb_noun_weights
from mha.training.store import COMMAND, WEIGHTS_DIR, StoredWeightsError, read_runs, write_runs

ORDER_SEEDS: tuple[int, ...] = (0, 1, 2)
ORDER_RUNS: tuple[RunConfig, ...] = tuple(
    RunConfig(h=3, d_k=4, seed=w, order_seed=o) for w in ORDER_SEEDS for o in ORDER_SEEDS if w != o
)
NUDGE_SEEDS: tuple[int, ...] = (0, 1, 2)
NUDGE_SIZES: tuple[float, ...] = (1e-12, 1e-6, 1e-3)
NUDGE_RUNS: tuple[RunConfig, ...] = tuple(
    RunConfig(h=3, d_k=4, seed=s, init="perturbed", eps=e) for s in NUDGE_SEEDS for e in NUDGE_SIZES
)
SPREAD_EVERY = 5  # steps between two stored values of the spread between heads
EXPERIMENTS_FILE = "experiments.json"
_KEYS = ("h", "d_k", "seed", "order_seed", "init", "eps", "steps", "lr", "batch")


def record(run: Run) -> dict:
    """What a run's record keeps (see the module's docstring); ``run`` must keep its model."""
    assert run.model is not None, "record() needs the trained model (keep_model=True)"
    data = all_sentences()
    subj, obj = verb_noun_weights(run.model, data)  # (N, h) each
    config = run.config
    return {
        **{k: getattr(config, k) for k in _KEYS},
        "metrics": run.metrics,
        "kinds": head_kinds(run.model, data),
        "preference": noun_preference(run.model, data).tolist(),  # (h, nouns)
        "subject_share": (subj / (subj + obj)).mean(0).tolist(),  # (h,)
        "spread_every": SPREAD_EVERY,
        "spread": run.spread[::SPREAD_EVERY].tolist(),
    }


def _one(config: RunConfig) -> dict:
    return record(train(config, progress=False))


def write(folder: Path | None = None, jobs: int | None = None) -> Path:
    """Train both grids (in ``jobs`` processes) and write ``experiments.json``."""
    configs = ORDER_RUNS + NUDGE_RUNS
    jobs = jobs or os.cpu_count() or 1
    if jobs > 1:
        with ProcessPoolExecutor(jobs, mp_context=get_context("spawn")) as pool:
            records = list(pool.map(_one, configs))
    else:
        records = [_one(c) for c in configs]
    return write_records(records, folder)


def write_records(records: list[dict], folder: Path | None = None) -> Path:
    """Write ``records`` (from :func:`record`) as ``experiments.json``."""
    return write_runs((folder or WEIGHTS_DIR) / EXPERIMENTS_FILE, records)


def stored(config: RunConfig, folder: Path | None = None) -> dict:
    """The stored record of one run of :data:`ORDER_RUNS` or :data:`NUDGE_RUNS`."""
    path = (folder or WEIGHTS_DIR) / EXPERIMENTS_FILE
    want = {k: getattr(config, k) for k in _KEYS}
    for r in read_runs(path):
        if {k: r.get(k) for k in _KEYS} == want:
            return r
    raise StoredWeightsError(f"{path} has no run {want}. Run `{COMMAND}` to write it again.")


def preference_gap(a: Tensor, b: Tensor) -> float:
    """How differently two runs' heads pick nouns, slot by slot.

    ``a``, ``b``: ``(h, nouns)`` noun preferences
    (:func:`~mha.training.probe.noun_preference`) of two runs with the same ``h``. Returns
    the mean absolute difference between head ``i`` of one and head ``i`` of the other,
    over heads and nouns: 0 when every slot does the same job in both runs.
    """
    if a.shape != b.shape:
        raise ValueError(f"noun preferences of shapes {tuple(a.shape)} and {tuple(b.shape)}")
    return float((a - b).abs().mean())


def main() -> None:
    """``python -m mha.training.experiments``: train both grids and write the file."""
    path = write()
    print(f"{len(ORDER_RUNS) + len(NUDGE_RUNS)} runs written to {path}")


if __name__ == "__main__":
    main()
