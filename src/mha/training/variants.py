"""Tied-values heads: several rows, one shared set of value columns (stored runs).

The book's thesis has two parts: several heads give several softmax rows, and they
deliver their averages in separate columns. :class:`~mha.training.model.TiedValuesModel`
keeps the first and removes the second: every head has its own ``W_q``, ``W_k``, but all
share one ``W_v`` ``(d_model, d_v)`` and their averages are added before one ``W_o``.
Trained on the book's task with the book's recipe, it tells whether what the task needs is
several rows or separate columns.

``python -m mha.training.variants`` (part of ``make weights``) trains :data:`TIED_GRID`
(one process, one thread) and writes, into :data:`VARIANTS_DIR`:

* ``tied_values.npz``: every run's trained parameters, ``h{h}_dk{d_k}_dv{d_v}.seed{s}.{name}``;
* ``tied_values.json``: per run, its settings, final metrics on the training and held-out
  sentences, and the held-out loss every ``EVAL_EVERY`` steps.

Both are written byte for byte the same on every run of the command. The folder is kept
apart from :data:`mha.training.store.WEIGHTS_DIR`, which holds the explorer's runs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

from mha.training.data import D_MODEL
from mha.training.loop import EVAL_EVERY, RunConfig, train
from mha.training.model import TiedValuesModel
from mha.training.results import Setting, summed_up
from mha.training.store import StoredWeightsError, read_npz, read_runs, write_npz, write_runs

TIED_DV = D_MODEL  # one shared value space as wide as the word vectors: width is no bottleneck
# (h, d_k): the narrow settings of mha.training.store, each head's query/key width d_model / h.
TIED_SETTINGS: tuple[tuple[int, int], ...] = ((2, 6), (3, 4), (4, 3), (6, 2))
TIED_SEEDS: tuple[int, ...] = tuple(range(10))
TIED_GRID: tuple[RunConfig, ...] = tuple(
    RunConfig(h=h, d_k=d_k, seed=s, tied_dv=TIED_DV) for h, d_k in TIED_SETTINGS for s in TIED_SEEDS
)
VARIANTS_DIR = Path(__file__).with_name("variant_runs")
NAME = "tied_values"
COMMAND = "make weights"
_SAVED = ("steps", "lr", "batch", "init", "eps")  # settings a stored run must share


def key(config: RunConfig) -> str:
    """The name of a tied run's setting: ``h{h}_dk{d_k}_dv{d_v}``."""
    if config.tied_dv is None:
        raise ValueError(f"{config} is not a tied-values run (tied_dv is None)")
    return f"h{config.h}_dk{config.d_k}_dv{config.tied_dv}"


def _problem(path: Path, what: str) -> StoredWeightsError:
    return StoredWeightsError(
        f"{path} {what}. Run `{COMMAND}` (or `python -m mha.training.variants`) to write it again."
    )


# ----------------------------------------------------------------------------- writing


def record(config: RunConfig) -> tuple[dict[str, np.ndarray], dict]:
    """Train one tied run; return its parameters (by stored name) and its metrics record."""
    run = train(config, progress=False)
    assert run.model is not None
    prefix = f"{key(config)}.seed{config.seed}."
    arrays = {prefix + n: p.detach().numpy().copy() for n, p in run.model.named_parameters()}
    rec = {
        "h": config.h,
        "d_k": config.d_k,
        "d_v": config.tied_dv,
        "seed": config.seed,
        **{k: getattr(config, k) for k in _SAVED},
        "metrics": run.metrics,
        "eval_every": EVAL_EVERY,
        "eval_steps": run.eval_steps.tolist(),
        "test_loss": run.test_loss.tolist(),
        "test_both": run.test_both.tolist(),
    }
    return arrays, rec


def write_all(folder: Path | None = None, configs: tuple[RunConfig, ...] = TIED_GRID) -> float:
    """Train ``configs`` one after another and write both files; returns seconds taken.

    The files are written again after every run, so the runs finished so far can be read
    while the rest train; the last writing holds them all.
    """
    folder = folder or VARIANTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    arrays: dict[str, np.ndarray] = {}
    records = []
    for config in configs:
        t0 = time.perf_counter()
        arr, rec = record(config)
        arrays |= arr
        records.append(rec)
        print(
            f"tied {key(config)} seed {config.seed}: {time.perf_counter() - t0:.1f} s", flush=True
        )
        write_npz(folder / f"{NAME}.npz", arrays)
        write_runs(folder / f"{NAME}.json", records)
    return time.perf_counter() - start


# ----------------------------------------------------------------------------- reading


@dataclass
class TiedRun:
    """One stored tied-values run: settings, trained model, final metrics, and every
    ``EVAL_EVERY`` steps the held-out loss and both-right share (``None`` if its record
    keeps no accuracy curve)."""

    config: RunConfig
    model: TiedValuesModel
    metrics: dict[str, float]
    eval_steps: Tensor
    test_loss: Tensor
    test_both: Tensor | None


@cache
def _records(folder: Path) -> dict[tuple[int, int, int, int], dict]:
    path = folder / f"{NAME}.json"
    try:
        return {(r["h"], r["d_k"], r["d_v"], r["seed"]): r for r in read_runs(path)}
    except KeyError as err:
        raise _problem(path, f"is corrupt (KeyError: {err})") from err


def load_tied(
    h: int, d_k: int, seed: int, d_v: int = TIED_DV, folder: Path | None = None
) -> TiedRun:
    """One stored tied-values run (``h`` heads, query/key width ``d_k``, shared ``d_v``)."""
    folder = folder or VARIANTS_DIR
    config = RunConfig(h=h, d_k=d_k, seed=seed, tied_dv=d_v)
    rec = _records(folder).get((h, d_k, d_v, seed))
    if rec is None or any(rec.get(k) != getattr(config, k) for k in _SAVED):
        raise _problem(folder / f"{NAME}.json", f"has no up-to-date run {key(config)} seed {seed}")
    prefix = f"{key(config)}.seed{seed}."
    state = {
        n.removeprefix(prefix): v
        for n, v in read_npz(folder / f"{NAME}.npz").items()
        if n.startswith(prefix)
    }
    model = TiedValuesModel(h, seed, d_k=d_k, d_v=d_v)
    want = {n: tuple(p.shape) for n, p in model.named_parameters()}
    if want != {n: v.shape for n, v in state.items()}:
        raise _problem(folder / f"{NAME}.npz", f"does not hold the parameters of {prefix}")
    with torch.no_grad():
        for n, p in model.named_parameters():
            p.copy_(torch.from_numpy(state[n].copy()))
    return TiedRun(
        config=config,
        model=model,
        metrics=dict(rec["metrics"]),
        eval_steps=torch.tensor(rec["eval_steps"]),
        test_loss=torch.tensor(rec["test_loss"], dtype=torch.float64),
        test_both=_both(rec) if "test_both" in rec else None,
    )


def _both(rec: dict) -> Tensor:
    """``(k,)`` a tied run's held-out both-right share at its ``eval_steps``."""
    if len(rec.get("test_both", ())) != len(rec["eval_steps"]):
        path = VARIANTS_DIR / f"{NAME}.json"
        raise _problem(path, "records no held-out accuracy at every evaluation step")
    return torch.tensor(rec["test_both"], dtype=torch.float64)


def _tied_record(h: int, d_k: int, seed: int, d_v: int) -> dict:
    rec = _records(VARIANTS_DIR).get((h, d_k, d_v, seed))
    if rec is None:
        raise _problem(VARIANTS_DIR / f"{NAME}.json", f"has no run h={h} d_k={d_k} d_v={d_v}")
    return rec


def tied_setting(h: int, d_k: int, d_v: int = TIED_DV) -> Setting:
    """The stored tied runs of ``h`` heads (query/key width ``d_k``, shared ``d_v``), summed up
    as :func:`mha.training.results.setting` sums up the ordinary ones (without the best
    accuracy of each run if the stored records keep no accuracy curve)."""
    recs = [_tied_record(h, d_k, s, d_v) for s in TIED_SEEDS]
    ms = [dict(r["metrics"]) for r in recs]
    kept = all("test_both" in r for r in recs)
    best = [float(_both(r).max()) for r in recs] if kept else None
    weights = sum(p.numel() for p in TiedValuesModel(h, d_k=d_k, d_v=d_v).parameters())
    return summed_up(h, d_k, weights, ms, best)


def main() -> None:
    """``python -m mha.training.variants``: train :data:`TIED_GRID`, write the files."""
    seconds = write_all()
    total = sum(p.stat().st_size for p in VARIANTS_DIR.iterdir())
    print(f"{len(TIED_GRID)} tied runs in {seconds:.0f} s; {VARIANTS_DIR}: {total / 1e3:.0f} kB")


if __name__ == "__main__":
    main()
