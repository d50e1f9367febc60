"""What the stored runs show, setting by setting: how many seeds solved the task at the last
step and how many met the mark at some evaluation step, how sure those counts are, and what
kind of job each trained head took."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

from mha.stats import wilson_interval
from mha.training.curves import both_curve, metrics
from mha.training.data import all_sentences, split
from mha.training.model import HeadsModel
from mha.training.probe import SOLVED_AT, both_right, head_kinds, scores_without_position
from mha.training.store import SEEDS, load_model


@dataclass(frozen=True)
class Setting:
    """One setting's stored runs, summed up.

    Attributes:
        h, d_k: heads and their width.
        weights: parameters of the whole model (embedding, layer, read-out).
        runs: seeds stored; solved: seeds whose run names both nouns right on at least
            :data:`~mha.training.probe.SOLVED_AT` of the held-out sentences after its last step.
        low, high: the Wilson 95 % interval of ``solved / runs``.
        both: held-out both-right accuracy after the last step, one per seed; loss: held-out
            loss, one per seed.
        best: the highest held-out both-right accuracy at any evaluation step (every
            ``EVAL_EVERY`` steps and the last), one per seed; ``None`` for runs whose
            records keep no accuracy curve.
    """

    h: int
    d_k: int
    weights: int
    runs: int
    solved: int
    low: float
    high: float
    both: tuple[float, ...]
    loss: tuple[float, ...]
    best: tuple[float, ...] | None = None

    @property
    def median_loss(self) -> float:
        return statistics.median(self.loss)

    @property
    def reached(self) -> int:
        """Seeds whose run met the mark at some evaluation step (the last one included)."""
        if self.best is None:
            raise ValueError(f"the runs of h={self.h}, d_k={self.d_k} keep no accuracy curve")
        return sum(b >= SOLVED_AT for b in self.best)


def setting(h: int, d_k: int, seeds: tuple[int, ...] = SEEDS) -> Setting:
    """The stored runs of ``h`` heads of width ``d_k``, summed up (reads ``runs.json`` and
    ``metrics.json``; no weights)."""
    ms = [metrics(h, d_k, s) for s in seeds]
    best = [float(both_curve(h, d_k, s)[1].max()) for s in seeds]
    weights = sum(p.numel() for p in HeadsModel(h, d_k=d_k).parameters())
    return summed_up(h, d_k, weights, ms, best)


def summed_up(
    h: int, d_k: int, weights: int, ms: list[dict[str, float]], best: list[float] | None
) -> Setting:
    """A :class:`Setting` from the final metrics ``ms`` of its runs, one dict per seed, and
    ``best``, each run's highest held-out both-right share at any evaluation step (``None``
    when the runs' records keep no accuracy curve)."""
    if best is not None and len(best) != len(ms):
        raise ValueError(f"{len(ms)} runs' metrics but {len(best)} best accuracies")
    both = tuple(m["test_both"] for m in ms)
    solved = sum(b >= SOLVED_AT for b in both)
    low, high = wilson_interval(solved, len(ms))
    loss = tuple(m["test_loss"] for m in ms)
    kept = None if best is None else tuple(best)
    return Setting(h, d_k, weights, len(ms), solved, low, high, both, loss, kept)


def kinds(h: int, d_k: int, seeds: tuple[int, ...] = SEEDS) -> list[list[str]]:
    """:func:`~mha.training.probe.head_kinds` of every stored seed, over all sentences."""
    data = all_sentences()
    return [head_kinds(load_model(h, d_k, s), data) for s in seeds]


def kind_counts(per_run: list[list[str]]) -> dict[str, int]:
    """How many heads of each kind, and how many runs split by role (a subject head and an
    object head), among the runs of :func:`kinds`."""
    counts = Counter(k for run in per_run for k in run)
    split = sum("subject" in run and "object" in run for run in per_run)
    return {k: counts[k] for k in ("subject", "object", "noun", "mixed")} | {"role_split": split}


def position_drops(h: int, d_k: int, seeds: tuple[int, ...] = SEEDS) -> list[list[float]]:
    """How much each head's position matters to the read-out, for every stored seed.

    Entry ``[s][i]``: the held-out both-right accuracy of seed ``seeds[s]`` minus the same
    accuracy when head ``i``'s values lose where their words stand
    (:func:`~mha.training.probe.scores_without_position`).
    """
    test = split()[1]
    drops = []
    for s in seeds:
        model = load_model(h, d_k, s)
        logits, _ = model(test)  # (N, 2, nouns)
        full = both_right(logits, test)
        drops.append(
            [full - both_right(scores_without_position(model, test, i), test) for i in range(h)]
        )
    return drops
