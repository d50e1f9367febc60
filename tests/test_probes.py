"""The probes of mha.training.probe against a sentence-by-sentence count on the stored runs.

Each stored run's verb rows are computed again from its raw stored parameters with plain
torch (not through the model or mha's attention), and every measure is then
counted in plain Python, one sentence at a time, by the rule its docstring states. A probe
that averages the wrong way, or fills a column from the wrong weights, changes the answer
of at least one stored run.
"""

from __future__ import annotations

import functools
import math

import pytest
import torch

from mha import training as T
from mha.training import probe
from mha.training.store import load_state

RUNS = [(h, d_k, seed) for h, d_k in T.SETTINGS for seed in T.SEEDS]


@functools.cache
def sentences(which: str) -> T.Sentences:
    """Every sentence of the task, or the held-out ones."""
    return T.all_sentences() if which == "all" else T.split()[1]


@functools.cache
def verb_rows(h: int, d_k: int, seed: int, which: str) -> tuple[list, list, list]:
    """Per sentence: each head's verb row (a list of MAX_LEN floats), the subject's and the
    object's position, and the subject's and the object's noun.

    The rows come from the stored parameters by plain torch (softmax of the scaled
    scores), not through the model or mha's attention."""
    data, state = sentences(which), load_state(h, d_k, seed)
    X = state["embed"][data.tokens] + T.positions()  # (N, n, d_model)
    at_verb = X[torch.arange(len(data)), data.verb]  # (N, d_model)
    q = torch.einsum("nd,hdk->nhk", at_verb, state["W_q"])  # (N, h, d_k)
    K = torch.einsum("njd,hdk->nhjk", X, state["W_k"])  # (N, h, n, d_k)
    scores = torch.einsum("nhk,nhjk->nhj", q, K) / math.sqrt(d_k)  # (N, h, n)
    rows = torch.softmax(scores, dim=-1).tolist()  # N x h x n
    pos = list(zip(data.subject_pos.tolist(), data.object_pos.tolist(), strict=True))
    nouns = list(zip(data.subject.tolist(), data.object.tolist(), strict=True))
    return rows, pos, nouns


def kinds_by_hand(h: int, d_k: int, seed: int) -> list[str]:
    """head_kinds' rule, counted sentence by sentence over every sentence of the task."""
    rows, pos, nouns = verb_rows(h, d_k, seed, "all")
    kinds = []
    for head in range(h):
        s = [r[head][ps] for r, (ps, _) in zip(rows, pos, strict=True)]
        o = [r[head][po] for r, (_, po) in zip(rows, pos, strict=True)]
        N = len(s)
        share = sum(si / (si + oi) for si, oi in zip(s, o, strict=True)) / N
        decisive = sum(max(si, oi) / (si + oi) for si, oi in zip(s, o, strict=True)) / N
        total, seen = [0.0] * len(T.NOUNS), [0] * len(T.NOUNS)
        for si, oi, (ns, no) in zip(s, o, nouns, strict=True):
            total[ns] += si
            total[no] += oi
            seen[ns] += 1
            seen[no] += 1
        pref = [t / c for t, c in zip(total, seen, strict=True)]
        agree = sum(
            (si > oi) == (pref[ns] > pref[no]) for si, oi, (ns, no) in zip(s, o, nouns, strict=True)
        )
        ranked = agree / N
        if share >= probe.ROLE_HEAD:
            kinds.append("subject")
        elif share <= 1 - probe.ROLE_HEAD:
            kinds.append("object")
        elif decisive >= probe.DECISIVE and ranked >= probe.RANKED:
            kinds.append("noun")
        else:
            kinds.append("mixed")
    return kinds


@pytest.mark.slow
def test_head_kinds_match_a_sentence_by_sentence_count_on_every_stored_run() -> None:
    data = sentences("all")
    got = {run: T.head_kinds(T.load_model(*run), data) for run in RUNS}
    want = {run: kinds_by_hand(*run) for run in RUNS}
    assert got == want
    # The stored runs hold every kind of head, so each branch of the rule is exercised.
    assert {k for kinds in want.values() for k in kinds} >= {"subject", "object", "noun"}


def roles_by_hand(h: int, d_k: int, seed: int) -> list[list[float]]:
    """Mean weight of each head's verb row on the subject, the object and every other
    position, summed position by position, over the held-out sentences."""
    rows, pos, _ = verb_rows(h, d_k, seed, "test")
    out = []
    for head in range(h):
        sums = [0.0, 0.0, 0.0]
        for r, (ps, po) in zip(rows, pos, strict=True):
            sums[0] += r[head][ps]
            sums[1] += r[head][po]
            sums[2] += sum(w for j, w in enumerate(r[head]) if j not in (ps, po))
        out.append([x / len(rows) for x in sums])
    return out


@pytest.mark.parametrize(("h", "d_k"), T.SETTINGS)
def test_role_weights_match_a_position_by_position_sum_on_the_stored_runs(h: int, d_k: int):
    test = sentences("test")
    for seed in T.SEEDS:
        got = T.role_weights(T.load_model(h, d_k, seed), test)  # (h, 3)
        want = torch.tensor(roles_by_hand(h, d_k, seed), dtype=torch.float64)  # (h, 3)
        torch.testing.assert_close(got, want, rtol=0, atol=1e-10)
        assert T.role_of(got) == [T.ROLES[max(range(3), key=r.__getitem__)] for r in want.tolist()]
