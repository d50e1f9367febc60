"""Chapter 1's exercise: set one head's query and key weights, and meet goals for *chased*.

The head is one column wide (``d_k = 1``) and reads only the five named features of
:data:`mha.toy.X` (determiner, noun, verb, agent, prey): its ``W^Q`` and ``W^K`` are
``(9, 1)``, zero on the four position columns. *chased*'s only named feature is *verb*, so
its query is ``W^Q[verb]``; each word's key is the sum of ``W^K``'s weights on its features.
*chased*'s row therefore depends on six weights, the six controls of the exercise view
(:mod:`mha.views.exercise_view`): the query's weight on *verb* and the key's five. Each
control takes the values :data:`VALUES`.

The goals (:data:`GOALS`), in order: put at least 0.5 on *mouse*; at least 0.4 on both *cat*
and *mouse*; at least 0.5 on both. :func:`search` runs every setting the controls can reach
(13^6 of them) in torch, to find the nearest setting that meets a goal, or to show that
none does.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import torch
from torch import Tensor

from mha import toy
from mha.attention import single_head

N_FEATURES = 5  # the named features, columns 0-4 of toy.X
FEATURES: tuple[str, ...] = toy.FEATURES[:N_FEATURES]
VERB = FEATURES.index("verb")
VALUES: tuple[float, ...] = tuple(v / 2 for v in range(-6, 7))  # -3.0, -2.5, ..., 3.0
START = 0.0  # every control starts here: a uniform row


class Goal(NamedTuple):
    """*chased* puts at least ``at_least`` on each of the keys ``words`` (indices of X)."""

    words: tuple[int, ...]
    at_least: float


GOALS: tuple[Goal, ...] = (
    Goal((toy.MOUSE,), 0.5),
    Goal((toy.CAT, toy.MOUSE), 0.4),
    Goal((toy.CAT, toy.MOUSE), 0.5),
)


class Setting(NamedTuple):
    """The six weights: ``q_verb``, the query's weight on *verb*; ``k``, the key's weights
    on the five named features, in the order of :data:`FEATURES`."""

    q_verb: float
    k: tuple[float, ...]


def head(setting: Setting) -> tuple[Tensor, Tensor]:
    """The head's ``(W_q, W_k)``, each ``(9, 1)``: zero but on the named features."""
    if len(setting.k) != N_FEATURES:
        raise ValueError(f"k must hold {N_FEATURES} weights, got {len(setting.k)}")
    W_q = torch.zeros(toy.D_MODEL, 1, dtype=torch.float64)  # (9, 1)
    W_k = torch.zeros(toy.D_MODEL, 1, dtype=torch.float64)  # (9, 1)
    W_q[VERB, 0] = setting.q_verb
    W_k[:N_FEATURES, 0] = torch.tensor(setting.k, dtype=torch.float64)
    return W_q, W_k


def chased_row(setting: Setting) -> Tensor:
    """*chased*'s row of weights ``(5,)``, by :func:`mha.attention.single_head` (values: X)."""
    W_q, W_k = head(setting)  # (9, 1) each
    eye = torch.eye(toy.D_MODEL, dtype=torch.float64)  # (9, 9): any W^V; weights ignore it
    _, weights = single_head(toy.X, W_q, W_k, eye)  # (5, 5)
    return weights[toy.CHASED]  # (5,)


def met(rows: Tensor, goal: Goal) -> Tensor:
    """Whether rows ``(..., 5)`` meet ``goal``: ``(...,)`` booleans."""
    return (rows[..., list(goal.words)] >= goal.at_least).all(dim=-1)  # (...,)


def _rows(q_verb: float, K: Tensor) -> Tensor:
    """*chased*'s rows ``(B, 5)`` for one query weight and ``B`` key settings ``K (B, 5)``,
    written out as the softmax of ``q * (X_named @ k)`` (d_k = 1: no division)."""
    X_named = toy.X[:, :N_FEATURES]  # (5, 5): word j's named features
    scores = q_verb * toy.X[toy.CHASED, VERB] * (K @ X_named.T)  # (B, 5)
    return torch.softmax(scores, dim=-1)  # (B, 5)


def every_setting() -> tuple[Tensor, Tensor]:
    """Every setting the controls reach: ``q (13,)`` and key settings ``K (13^5, 5)``."""
    values = torch.tensor(VALUES, dtype=torch.float64)  # (13,)
    K = torch.cartesian_prod(*[values] * N_FEATURES)  # (13^5, 5)
    return values, K


class Search(NamedTuple):
    """What :func:`search` found for one goal over every setting: ``count`` settings meet
    it; ``nearest``, one of them with the fewest arrow-key steps from :data:`START`, then the
    fewest negative weights, then the largest margin over the threshold (or None);
    ``best``, the largest weight that every goal word gets at once over all settings;
    ``margin``, the smallest distance of a goal word's weight from the threshold over all
    settings (how far round-off is from changing any verdict)."""

    count: int
    nearest: Setting | None
    best: float
    margin: float


def _search_one(goal: Goal, found: Search, q: float, rows: Tensor, rank: Tensor) -> Search:
    """``found`` updated with the rows ``(B, 5)`` of query weight ``q``; ``rank (B,)``."""
    got = rows[:, list(goal.words)]  # (B, len(words))
    low = got.min(dim=-1).values  # (B,): the least a goal word gets
    ok = low >= goal.at_least  # (B,)
    count, nearest = found.count + int(ok.sum()), found.nearest
    if ok.any():
        cost = torch.where(ok, rank - (low - goal.at_least), torch.inf)  # (B,)
        i = int(cost.argmin())
        best_so_far = _rank_of(nearest, goal) if nearest else float("inf")
        if float(cost[i]) < best_so_far:
            nearest = Setting(q, tuple(_keys()[i].tolist()))
    best = max(found.best, float(low.max()))
    margin = min(found.margin, float((got - goal.at_least).abs().min()))
    return Search(count, nearest, best, margin)


def _rank(q: float, K: Tensor) -> Tensor:
    """Settings' order of preference ``(B,)``: 100 per arrow-key step from START, 10 per
    negative weight (a margin, below 1, is subtracted from it)."""
    weights = torch.cat([torch.full((K.shape[0], 1), q, dtype=K.dtype), K], dim=1)  # (B, 6)
    steps = ((weights - START).abs() / 0.5).sum(dim=-1)  # (B,)
    return 100 * steps + 10 * (weights < 0).sum(dim=-1)  # (B,)


def _rank_of(s: Setting, goal: Goal) -> float:
    K = torch.tensor([s.k], dtype=torch.float64)  # (1, 5)
    low = float(_rows(s.q_verb, K)[0, list(goal.words)].min())
    return float(_rank(s.q_verb, K)[0]) - (low - goal.at_least)


@functools.cache
def _keys() -> Tensor:
    """Every key setting ``(13^5, 5)``, in a fixed order."""
    return every_setting()[1]


@functools.cache
def search(goals: tuple[Goal, ...] = GOALS) -> tuple[Search, ...]:
    """Runs every setting of the six controls (13^6) and measures each goal on each (once
    per goals: the result is cached)."""
    found = [Search(0, None, 0.0, float("inf")) for _ in goals]
    for q in VALUES:
        rows = _rows(q, _keys())  # (13^5, 5)
        rank = _rank(q, _keys())  # (13^5,)
        found = [_search_one(g, f, q, rows, rank) for g, f in zip(goals, found, strict=True)]
    return tuple(found)


def settings_count() -> int:
    """How many settings the six controls reach: 13^6."""
    return len(VALUES) ** (1 + N_FEATURES)
