"""The running example: the sentence, the chapter's row (C1) and the designed heads (C5)."""

from __future__ import annotations

import torch

import mha
from mha import toy


def test_sentence_matrix() -> None:
    assert toy.SENTENCE == ("the", "cat", "chased", "the", "mouse")
    assert toy.X.shape == (5, 9)
    assert toy.X.dtype == torch.float64
    assert not torch.equal(toy.X[0], toy.X[3]), "the two copies of 'the' must differ"
    assert torch.equal(toy.X[0, :5], toy.X[3, :5]), "...but only by position"
    assert torch.linalg.matrix_rank(toy.X) == 5


def test_chased_row_is_the_chapters_row() -> None:  # C1
    W_q, W_k, W_v = toy.single_head_weights()
    assert W_q.shape == W_k.shape == W_v.shape == (9, 9)
    _, weights = mha.single_head(toy.X, W_q, W_k, W_v)
    row = weights[toy.CHASED]
    assert [round(v, 2) for v in row.tolist()] == list(toy.CHASED_ROW)
    torch.testing.assert_close(row, torch.tensor(toy.CHASED_ROW, dtype=torch.float64))


def test_other_rows_are_not_copies_of_chased() -> None:
    _, weights = mha.single_head(toy.X, *toy.single_head_weights())
    for i in (0, 1, 3, 4):
        assert not torch.allclose(weights[i], weights[toy.CHASED], atol=0.02)


def test_designed_heads_split_subject_and_object() -> None:  # C5
    W_q, W_k, W_v = toy.designed_heads()
    assert W_q.shape == W_k.shape == W_v.shape == (3, 9, 3)
    _, weights = mha.all_heads(toy.X, W_q, W_k, W_v)
    subject, obj = weights[0, toy.CHASED], weights[1, toy.CHASED]
    assert subject.argmax() == toy.CAT and subject[toy.CAT] > 0.5
    assert obj.argmax() == toy.MOUSE and obj[toy.MOUSE] > 0.5
    # one budget each: neither head pays for the other
    assert subject[toy.MOUSE] < 0.1 and obj[toy.CAT] < 0.1


def test_random_heads_are_deterministic_and_stable_under_adding_heads() -> None:
    a = toy.random_heads(3, 3, seed=5)
    b = toy.random_heads(3, 3, seed=5)
    c = toy.random_heads(5, 3, seed=5)
    d = toy.random_heads(3, 3, seed=6)
    for x, y, z, w in zip(a, b, c, d, strict=True):
        assert torch.equal(x, y)
        assert torch.equal(x, z[:3])
        assert not torch.equal(x, w)


def test_random_heads_default_to_narrow_width() -> None:
    W_q, _, _ = toy.random_heads(3)
    assert W_q.shape == (3, 9, 3)
