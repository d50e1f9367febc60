"""Switching heads off after training: how much the trained read-out relies on each head.

Two ways to take a head out, both leaving every other weight, the read-out included, as
trained (nothing is trained again):

* **switching a head off** (zero-ablation): zero the head's block of ``d_v`` rows of
  ``W^O``, so its output adds nothing to the verb's row,
  ``O = sum_{j != i} head_j W^O_j`` (Michel et al. 2019 remove heads the same way);
* **replacing a head by its mean** (mean-ablation): the head's output at the verb is
  replaced by its mean over a batch of sentences, so the head still adds its average
  contribution but no longer anything that depends on the sentence.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import torch

from mha.training.data import Sentences
from mha.training.model import HeadsModel, TiedValuesModel
from mha.training.probe import SOLVED_AT, accuracies, evaluate, read_heads
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


def head_outputs(model: HeadsModel, batch: Sentences) -> torch.Tensor:
    """Each head's output at the verb, before ``W^O``: ``(N, h, d_v)``.

    Head ``i``'s output is its verb row of weights times its values; the layer's output at
    the verb is these side by side, times ``W^O``.
    """
    if isinstance(model, TiedValuesModel):
        raise ValueError("head_outputs needs an ordinary HeadsModel, not a tied-values layer")
    with torch.no_grad():
        _, weights = model(batch)  # (N, h, n, n)
        rows = weights[torch.arange(len(batch)), :, batch.verb]  # (N, h, n)
        X = model.embed[batch.tokens] + model.pe  # (N, n, d_model)
        return model.head_averages(X, rows)  # (N, h, d_v)


def scores_with_mean_head(model: HeadsModel, batch: Sentences, head: int) -> torch.Tensor:
    """The read-out's scores ``(N, 2, nouns)`` when head ``head`` is replaced by its mean.

    The head's output at the verb is replaced, in every sentence of ``batch``, by its mean
    over ``batch``; every other head's output, ``W^O`` and the read-out stay as they are.
    """
    if not 0 <= head < model.h:
        raise ValueError(f"head {head} does not exist in a model with h = {model.h}")
    heads = head_outputs(model, batch)  # (N, h, d_v)
    heads[:, head] = heads[:, head].mean(0)  # (d_v,) broadcast to every sentence
    with torch.no_grad():
        return read_heads(model, heads)  # (N, 2, nouns)


def mean_ablate(model: HeadsModel, batch: Sentences) -> torch.Tensor:
    """Accuracy left when each head is replaced by its mean over ``batch`` in turn: ``(h + 1, 3)``.

    Laid out as :func:`ablate`: row 0 is the intact model, row ``i + 1`` the model with head
    ``i`` replaced by its mean; the columns are subject, object and both right.
    """
    with torch.no_grad():
        logits, _ = model(batch)  # (N, 2, nouns)
    scores = [logits, *(scores_with_mean_head(model, batch, i) for i in range(model.h))]
    rows = [[accuracies(s, batch)[k] for k in ACCURACIES] for s in scores]
    return torch.tensor(rows, dtype=torch.float64)  # (h + 1, 3)


@dataclass(frozen=True)
class Removal:
    """One setting's runs with one head switched off at a time.

    Attributes:
        h, d_k: heads and their width.
        seeds: the runs, one per seed.
        acc: ``(runs, h + 1, 3)`` :func:`ablate` of every run (heads switched off).
        mean: ``(runs, h + 1, 3)`` :func:`mean_ablate` of every run (heads replaced by their
            mean over the same sentences).
    """

    h: int
    d_k: int
    seeds: tuple[int, ...]
    acc: torch.Tensor
    mean: torch.Tensor

    @property
    def solved(self) -> torch.Tensor:
        """``(runs,)`` whether the intact run solves the task."""
        return self.acc[:, 0, 2] >= SOLVED_AT

    @property
    def spare(self) -> torch.Tensor:
        """``(runs, h)`` whether the run still solves the task without that head."""
        return self.acc[:, 1:, 2] >= SOLVED_AT

    @property
    def spare_mean(self) -> torch.Tensor:
        """``(runs, h)`` whether the run still solves the task with that head replaced by its
        mean."""
        return self.mean[:, 1:, 2] >= SOLVED_AT

    @property
    def least_loss(self) -> torch.Tensor:
        """``(runs,)`` the both-right accuracy lost by removing the head the run needs least."""
        return self.acc[:, 0, 2] - self.acc[:, 1:, 2].max(-1).values


def removal(h: int, d_k: int, seeds: tuple[int, ...], batch: Sentences) -> Removal:
    """:func:`ablate` and :func:`mean_ablate` for the stored runs of ``h`` heads of width
    ``d_k``, on ``batch``."""
    models = [load_model(h, d_k, s) for s in seeds]
    acc = torch.stack([ablate(m, batch) for m in models])  # (runs, h + 1, 3)
    mean = torch.stack([mean_ablate(m, batch) for m in models])  # (runs, h + 1, 3)
    return Removal(h, d_k, tuple(seeds), acc, mean)
