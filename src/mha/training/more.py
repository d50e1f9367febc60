"""More runs than the explorer stores weights for: only their metrics are kept.

``make weights`` trains :data:`~mha.training.store.GRID` and keeps its weights, then trains
:data:`METRICS_GRID` and keeps only what :mod:`~mha.training.store` records about each run
(final metrics and held-out loss curve) in ``metrics.json``, byte for byte reproducibly:

* seeds :data:`EXTRA_SEEDS` of the settings :data:`EXTRA_SETTINGS`, whose comparison with
  one head ten seeds left open (2 and 4 narrow heads solved 9 of 10 each, one head 4 of 10);
* the single head of every stored seed trained for :data:`LONG_STEPS` steps instead of 400.
"""

from __future__ import annotations

import time
from pathlib import Path

from mha.training.loop import RunConfig
from mha.training.store import (
    GRID,
    METRICS_FILE,
    SEEDS,
    WEIGHTS_DIR,
    _train_many,
    write_all,
    write_runs,
)

EXTRA_SEEDS: tuple[int, ...] = tuple(range(10, 20))
ALL_SEEDS: tuple[int, ...] = SEEDS + EXTRA_SEEDS
EXTRA_SETTINGS: tuple[tuple[int, int], ...] = ((1, 12), (2, 6), (4, 3))
LONG_STEPS = 1200
METRICS_GRID: tuple[RunConfig, ...] = tuple(
    RunConfig(h=h, d_k=d_k, seed=s) for h, d_k in EXTRA_SETTINGS for s in EXTRA_SEEDS
) + tuple(RunConfig(h=1, d_k=12, seed=s, steps=LONG_STEPS) for s in SEEDS)


def seeds_of(h: int, d_k: int) -> tuple[int, ...]:
    """Every seed whose final metrics are stored for ``h`` heads of width ``d_k``."""
    return ALL_SEEDS if (h, d_k) in EXTRA_SETTINGS else SEEDS


def write_metrics(
    folder: Path | None = None,
    configs: tuple[RunConfig, ...] = METRICS_GRID,
    jobs: int | None = None,
) -> float:
    """Train ``configs`` and write only their records, to ``metrics.json``; returns seconds."""
    folder = folder or WEIGHTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    records = [record for _, _, record in _train_many(configs, jobs)]
    write_runs(folder / METRICS_FILE, records)
    return time.perf_counter() - start


def main() -> None:
    """``make weights``: train :data:`~mha.training.store.GRID` and :data:`METRICS_GRID`,
    write the files, say how long it took."""
    seconds = write_all() + write_metrics()
    total = sum(p.stat().st_size for p in WEIGHTS_DIR.iterdir())
    runs = len(GRID) + len(METRICS_GRID)
    print(f"{runs} runs in {seconds:.0f} s; {WEIGHTS_DIR}: {total / 1e3:.0f} kB")
