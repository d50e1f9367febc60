"""Trained weights kept with the package: every setting the explorer offers, several seeds.

Training one model takes seconds, too long to repeat for every setting while a page
builds. ``make weights`` (``python -m mha.training``) trains :data:`GRID` once and
writes, into :data:`WEIGHTS_DIR`:

* ``h{h}_dk{d_k}.npz``: the trained parameters of every seed of one setting, float64,
  one array ``seed{s}.{name}`` per parameter (the fixed position vectors are not stored);
* ``runs.json``: per run, its settings, its final loss and accuracy on the training and
  held-out sentences, and every ``EVAL_EVERY`` steps the held-out loss and the held-out
  share of sentences with both nouns right;
* ``metrics.json``: the same records, without weights, for more runs
  (:data:`mha.training.more.METRICS_GRID`, written by :func:`mha.training.more.write_metrics`).

All are written byte for byte the same on every run of the command, so a change shows up
in ``git diff`` only when the numbers change. :func:`load_model` and :func:`load_run` read
them back; a missing, corrupt or out-of-date file raises :class:`StoredWeightsError`,
which names the file and the command that writes it again. :mod:`mha.training.curves`
reads a run's record from either file.
"""

from __future__ import annotations

import io
import json
import os
import time
import zipfile
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cache
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import torch
from torch import Tensor

from mha.training.data import split
from mha.training.loop import EVAL_EVERY, RunConfig, train
from mha.training.model import HeadsModel
from mha.training.probe import role_weights

# (h, d_k): every divisor width of d_model = 12, and one setting whose heads stay full width.
SETTINGS: tuple[tuple[int, int], ...] = ((1, 12), (2, 6), (3, 4), (4, 3), (6, 2), (2, 12))
SEEDS: tuple[int, ...] = tuple(range(10))
GRID: tuple[RunConfig, ...] = tuple(
    RunConfig(h=h, d_k=d_k, seed=s) for h, d_k in SETTINGS for s in SEEDS
)
WEIGHTS_DIR = Path(__file__).with_name("weights")
RUNS_FILE = "runs.json"
METRICS_FILE = "metrics.json"
COMMAND = "make weights"
_SAVED = ("steps", "lr", "batch", "init", "eps")  # settings a stored run must share with GRID


class StoredWeightsError(RuntimeError):
    """A stored weights or metrics file is missing, unreadable or out of date."""


def weights_file(h: int, d_k: int, folder: Path | None = None) -> Path:
    """The file that holds every seed's weights for ``h`` heads of width ``d_k``."""
    return (folder or WEIGHTS_DIR) / f"h{h}_dk{d_k}.npz"


def _problem(path: Path, what: str) -> StoredWeightsError:
    return StoredWeightsError(
        f"{path} {what}. Run `{COMMAND}` in the repository to write the stored weights again."
    )


# ----------------------------------------------------------------------------- writing


def _train_one(config: RunConfig) -> tuple[RunConfig, dict[str, np.ndarray], dict, float]:
    start = time.perf_counter()
    run = train(config, progress=False)
    assert run.model is not None
    arrays = {
        f"seed{config.seed}.{name}": p.detach().numpy().copy()
        for name, p in run.model.named_parameters()
    }
    record = {
        "h": config.h,
        "d_k": config.d_k,
        "seed": config.seed,
        **{k: getattr(config, k) for k in _SAVED},
        "metrics": run.metrics,
        "eval_every": EVAL_EVERY,
        "eval_steps": run.eval_steps.tolist(),
        "test_loss": run.test_loss.tolist(),
        "test_both": run.test_both.tolist(),
    }
    return config, arrays, record, time.perf_counter() - start


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """An ``.npz`` that ``np.load`` reads, with fixed timestamps: same arrays, same bytes."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name in sorted(arrays):
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.ascontiguousarray(arrays[name]), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, buf.getvalue())


def runs_text(records: list[dict]) -> str:
    """``runs.json``'s text: ``{"runs": [...]}``, one run per line, keys sorted."""
    lines = ",\n".join(json.dumps(r, sort_keys=True) for r in records)
    return '{"runs": [\n' + lines + "\n]}\n"


def write_runs(path: Path, records: list[dict]) -> Path:
    """Write ``records`` to ``path`` as :func:`runs_text` (every runs file of the package)."""
    path.write_text(runs_text(records), encoding="utf-8")
    return path


def _train_many(
    configs: tuple[RunConfig, ...], jobs: int | None
) -> Iterator[tuple[RunConfig, dict[str, np.ndarray], dict]]:
    """Train ``configs`` in ``jobs`` processes, yielding each run's arrays and record in order."""
    jobs = jobs or os.cpu_count() or 1
    # Fresh worker processes ("spawn"): a forked copy of a process whose torch threads have
    # already run can hang.
    pool = ProcessPoolExecutor(jobs, mp_context=get_context("spawn")) if jobs > 1 else None
    try:
        for config, arr, record, seconds in (pool.map if pool else map)(_train_one, configs):
            print(
                f"h = {config.h}, d_k = {config.d_k}, seed {config.seed}, "
                f"{config.steps} steps: {seconds:.1f} s"
            )
            yield config, arr, record
    finally:
        if pool:
            pool.shutdown()


def write_all(
    folder: Path | None = None, configs: tuple[RunConfig, ...] = GRID, jobs: int | None = None
) -> float:
    """Train ``configs`` (in ``jobs`` processes) and write their files; returns seconds taken."""
    folder = folder or WEIGHTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    arrays: dict[tuple[int, int], dict[str, np.ndarray]] = {}
    records = []
    for config, arr, record in _train_many(configs, jobs):
        arrays.setdefault((config.h, config.d_k), {}).update(arr)
        records.append(record)
    for (h, d_k), arr in arrays.items():
        write_npz(weights_file(h, d_k, folder), arr)
    write_runs(folder / RUNS_FILE, records)
    return time.perf_counter() - start


# ----------------------------------------------------------------------------- reading


@dataclass
class StoredRun:
    """One stored run: its settings, trained model, final metrics and held-out loss curve.

    Attributes:
        config: the run's settings.
        model: the trained model, read from the weights file.
        metrics: final loss and subject/object/both accuracy, ``train_*`` and ``test_*``.
        eval_steps, test_loss: ``(k,)`` every ``EVAL_EVERY`` steps, the held-out loss.
        test_both: ``(k,)`` at the same steps, the held-out share with both nouns right.
    """

    config: RunConfig
    model: HeadsModel
    metrics: dict[str, float]
    eval_steps: Tensor
    test_loss: Tensor
    test_both: Tensor

    @property
    def roles(self) -> Tensor:
        """``(h, 3)`` mean weight of each head's verb row on subject, object, rest (held out)."""
        return role_weights(self.model, split()[1])


@cache
def read_runs(path: Path) -> tuple[dict, ...]:
    """The records of a runs file written by :func:`write_runs` (every runs file of the
    package); a missing or corrupt file raises :class:`StoredWeightsError` naming it."""
    if not path.is_file():
        raise _problem(path, "is missing")
    try:
        runs = json.loads(path.read_text(encoding="utf-8"))["runs"]
        if not all(isinstance(r, dict) for r in runs):
            raise TypeError("a run is not an object")
        return tuple(runs)
    except (ValueError, KeyError, TypeError) as err:
        raise _problem(path, f"is corrupt ({type(err).__name__}: {err})") from err


def _read_records(path: Path) -> dict[tuple[int, int, int, int], dict]:
    """The records of one runs file, by ``(h, d_k, seed, steps)``."""
    try:
        return {(r["h"], r["d_k"], r["seed"], r["steps"]): r for r in read_runs(path)}
    except KeyError as err:
        raise _problem(path, f"is corrupt (KeyError: {err})") from err


def _records(folder: Path) -> dict[tuple[int, int, int], dict]:
    """``runs.json``'s records (the runs whose weights are stored), by ``(h, d_k, seed)``."""
    return {key[:3]: r for key, r in _read_records(folder / RUNS_FILE).items()}


def _record(h: int, d_k: int, seed: int, steps: int, folder: Path | None) -> dict:
    """The up-to-date record of one run, from ``runs.json`` or else ``metrics.json``."""
    folder = folder or WEIGHTS_DIR
    config = RunConfig(h=h, d_k=d_k, seed=seed, steps=steps)
    for name in (RUNS_FILE, METRICS_FILE):
        record = _read_records(folder / name).get((h, d_k, seed, steps))
        if record is not None and all(record.get(k) == getattr(config, k) for k in _SAVED):
            return record
    raise _problem(
        folder / METRICS_FILE,
        f"has no up-to-date run for h={h} d_k={d_k} seed={seed} steps={steps}",
    )


@cache
def read_npz(path: Path) -> dict[str, np.ndarray]:
    """The arrays of an ``.npz`` written by :func:`write_npz`, by name; a missing or corrupt
    file raises :class:`StoredWeightsError` naming it."""
    if not path.is_file():
        raise _problem(path, "is missing")
    try:
        with np.load(path, allow_pickle=False) as z:
            return {name: z[name] for name in z.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as err:
        raise _problem(path, f"is corrupt ({type(err).__name__}: {err})") from err


def load_state(h: int, d_k: int, seed: int, folder: Path | None = None) -> dict[str, Tensor]:
    """The stored parameters of one run, by name (``W_q`` ``(h, d_model, d_k)``, ...)."""
    path = weights_file(h, d_k, folder)
    arrays = read_npz(path)
    prefix = f"seed{seed}."
    state = {k.removeprefix(prefix): torch.from_numpy(v.copy()) for k, v in arrays.items()}
    state = {k: v for k, v in state.items() if "." not in k}
    if not state:
        raise _problem(path, f"holds no run with seed {seed}")
    return state


def load_model(h: int, d_k: int, seed: int, folder: Path | None = None) -> HeadsModel:
    """The trained model of one stored run (``h`` heads of width ``d_k``, seed ``seed``)."""
    model = HeadsModel(h, seed, d_k=d_k)
    state = load_state(h, d_k, seed, folder)
    want = {name: tuple(p.shape) for name, p in model.named_parameters()}
    got = {name: tuple(t.shape) for name, t in state.items()}
    if want != got or any(t.dtype != torch.float64 for t in state.values()):
        path = weights_file(h, d_k, folder)
        raise _problem(path, f"does not hold the parameters of seed {seed} (found {got})")
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_(state[name])
    return model


def load_run(h: int, d_k: int, seed: int, folder: Path | None = None) -> StoredRun:
    """One stored run: the model and what ``runs.json`` records about it."""
    folder = folder or WEIGHTS_DIR
    config = RunConfig(h=h, d_k=d_k, seed=seed)
    record = _records(folder).get((h, d_k, seed))
    if record is None or any(record.get(k) != getattr(config, k) for k in _SAVED):
        raise _problem(folder / RUNS_FILE, f"has no up-to-date run for h={h} d_k={d_k} seed={seed}")
    return StoredRun(
        config=config,
        model=load_model(h, d_k, seed, folder),
        metrics=dict(record["metrics"]),
        eval_steps=torch.tensor(record["eval_steps"]),
        test_loss=torch.tensor(record["test_loss"], dtype=torch.float64),
        test_both=_both(record, folder / RUNS_FILE),
    )


def _both(record: dict, path: Path) -> Tensor:
    """``(k,)`` the held-out both-right share of ``record`` at its ``eval_steps``."""
    if len(record.get("test_both", ())) != len(record["eval_steps"]):
        raise _problem(path, "records no held-out accuracy at every evaluation step")
    return torch.tensor(record["test_both"], dtype=torch.float64)
