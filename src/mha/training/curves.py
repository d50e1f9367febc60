"""A run's record without its weights: final metrics and curves, from either stored file.

``runs.json`` holds the runs whose weights are stored, ``metrics.json`` more runs
(:mod:`mha.training.store` says what each holds and writes them).
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import Tensor

from mha.training.store import WEIGHTS_DIR, _both, _record


def metrics(
    h: int, d_k: int, seed: int, folder: Path | None = None, steps: int = 400
) -> dict[str, float]:
    """The final metrics recorded for one run (no weights are read), from ``runs.json`` for
    the runs whose weights are stored, else from ``metrics.json``."""
    return dict(_record(h, d_k, seed, steps, folder)["metrics"])


def loss_curve(
    h: int, d_k: int, seed: int, steps: int = 400, folder: Path | None = None
) -> tuple[Tensor, Tensor]:
    """``(eval_steps, test_loss)``, each ``(k,)``: one run's held-out loss as it trained."""
    record = _record(h, d_k, seed, steps, folder)
    return torch.tensor(record["eval_steps"]), torch.tensor(
        record["test_loss"], dtype=torch.float64
    )


def both_curve(
    h: int, d_k: int, seed: int, steps: int = 400, folder: Path | None = None
) -> tuple[Tensor, Tensor]:
    """``(eval_steps, test_both)``, each ``(k,)``: one run's held-out share of sentences with
    both nouns right, every ``EVAL_EVERY`` steps as it trained (the same evaluations as
    :func:`loss_curve`)."""
    record = _record(h, d_k, seed, steps, folder)
    return torch.tensor(record["eval_steps"]), _both(record, folder or WEIGHTS_DIR)
