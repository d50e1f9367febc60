"""Tests for mha.stack: a stack of layers, and what appending a word changes in it."""

from __future__ import annotations

import pytest
import torch

import mha
from mha import toy
from mha.stack import cached_change, stack_inputs


def two_layers(h: int = 3, d_k: int = 3) -> list[tuple[torch.Tensor, ...]]:
    """Two seeded random layers of h heads of width d_k on the toy's 9 columns."""
    return [(*toy.random_heads(h, d_k, seed=s), toy.random_output(h, d_k, seed=s)) for s in (0, 1)]


def test_stack_inputs_match_a_loop_over_layers_and_heads() -> None:
    layers = two_layers()
    inputs = stack_inputs(toy.X, layers)
    x = toy.X  # (5, 9)
    for layer, got in zip(layers, inputs[1:], strict=True):
        x, _ = mha.multi_head_attention_loop(x, *layer)  # (5, 9): one head at a time
        assert torch.allclose(got, x, atol=1e-12)
    assert len(inputs) == 3 and torch.equal(inputs[0], toy.X)


def test_causal_stack_row_i_reads_the_first_i_words_without_a_mask() -> None:
    # Under the causal mask, word i's output of a layer is the last row of the same
    # layer run without a mask on that layer's inputs of words 0..i.
    layers = two_layers()
    causal = stack_inputs(toy.X, layers, causal=True)
    x = toy.X  # (5, 9)
    for layer, got in zip(layers, causal[1:], strict=True):
        rows = [mha.multi_head_attention_loop(x[: i + 1], *layer)[0][-1] for i in range(len(x))]
        x = torch.stack(rows)  # (5, 9)
        assert torch.allclose(got, x, atol=1e-12)


def test_cached_change_by_hand_for_heads_that_average() -> None:
    # W_q = 0: every score is 0, so each head gives every word the plain mean of the values.
    (_, W_k1, W_v1, W_o1), (W_q2, W_k2, W_v2, W_o2) = two_layers(h=1, d_k=9)
    layers = [(torch.zeros_like(W_k1), W_k1, W_v1, W_o1), (W_q2, W_k2, W_v2, W_o2)]
    word = torch.linspace(-1, 1, 9, dtype=torch.float64)  # (9,)
    longer = torch.cat([toy.X, word[None]])  # (6, 9)
    mean5 = toy.X.mean(dim=0) @ W_v1[0] @ W_o1  # (9,): layer 1's output for every word
    mean6 = longer.mean(dim=0) @ W_v1[0] @ W_o1  # (9,): the same after appending
    expected = max(
        float(((mean6 - mean5) @ W[0]).abs().max()) for W in (W_k2, W_v2)
    )  # layer 2's keys and values move by the change of the mean
    first, second = cached_change(toy.X, word, layers)
    assert first < 1e-12  # layer 1's keys are the words' own projections
    assert second == pytest.approx(expected, rel=1e-9) and expected > 1e-3
    assert max(cached_change(toy.X, word, layers, causal=True)) < 1e-12


def test_cached_change_checks_the_word() -> None:
    with pytest.raises(ValueError, match=r"word must be \(9,\) for X \(5, 9\), got \(8,\)"):
        cached_change(toy.X, torch.zeros(8, dtype=torch.float64), two_layers())
