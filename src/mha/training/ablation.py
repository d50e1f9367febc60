"""Switching heads off after training: how much of the answer each head carries.

A head is removed by zeroing its block of ``d_v`` rows of ``W^O``, so its output adds
nothing to the verb's row, ``O = sum_{j != i} head_j W^O_j``, while every other weight,
the read-out included, stays as trained (Michel et al. 2019 remove heads the same way).
Nothing is trained again: one forward pass per removed head.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import torch

from mha.training.data import Sentences
from mha.training.model import HeadsModel
from mha.training.probe import SOLVED_AT, evaluate
from mha.training.store import load_model

ACCURACIES: tuple[str, ...] = ("subject", "object", "both")


def without_head(model: HeadsModel, head: int) -> HeadsModel:
    """A copy of ``model`` whose head ``head`` is switched off: its rows of ``W_o``
    ``(d_v, d_model)`` are zero."""
    if not 0 <= head < model.h:
        raise ValueError(f"head {head} does not exist in a model with h = {model.h}")
    off = copy.deepcopy(model)
    with torch.no_grad():
        off.W_o[head * off.d_k : (head + 1) * off.d_k] = 0.0  # (d_v, d_model) block
    return off


def ablate(model: HeadsModel, batch: Sentences) -> torch.Tensor:
    """Accuracy left when each head is switched off in turn: ``(h + 1, 3)``.

    Row 0 is the intact model, row ``i + 1`` the model without head ``i``; the columns are
    the share of ``batch`` whose subject, object, and both nouns come out right.
    """
    models = [model, *(without_head(model, i) for i in range(model.h))]
    scores = [evaluate(m, batch) for m in models]  # one forward pass per model
    rows = [[score[k] for k in ACCURACIES] for score in scores]
    return torch.tensor(rows, dtype=torch.float64)  # (h + 1, 3)


@dataclass(frozen=True)
class Removal:
    """One setting's runs with one head switched off at a time.

    Attributes:
        h, d_k: heads and their width.
        seeds: the runs, one per seed.
        acc: ``(runs, h + 1, 3)`` :func:`ablate` of every run.
    """

    h: int
    d_k: int
    seeds: tuple[int, ...]
    acc: torch.Tensor

    @property
    def solved(self) -> torch.Tensor:
        """``(runs,)`` whether the intact run solves the task."""
        return self.acc[:, 0, 2] >= SOLVED_AT

    @property
    def spare(self) -> torch.Tensor:
        """``(runs, h)`` whether the run still solves the task without that head."""
        return self.acc[:, 1:, 2] >= SOLVED_AT

    @property
    def least_loss(self) -> torch.Tensor:
        """``(runs,)`` the both-right accuracy lost by removing the head the run needs least."""
        return self.acc[:, 0, 2] - self.acc[:, 1:, 2].max(-1).values


def removal(h: int, d_k: int, seeds: tuple[int, ...], batch: Sentences) -> Removal:
    """:func:`ablate` for the stored runs of ``h`` heads of width ``d_k``, on ``batch``."""
    acc = torch.stack([ablate(load_model(h, d_k, s), batch) for s in seeds])  # (runs, h+1, 3)
    return Removal(h, d_k, tuple(seeds), acc)
