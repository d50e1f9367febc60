"""Encoder-decoder (cross) attention against PyTorch's own, its checks, and the Latin toy."""

from __future__ import annotations

import math

import pytest
import torch

import mha
from mha import toy
from mha import translation as tr

CASES = [  # (n_q, n_k, d_model, h)
    (3, 5, 9, 3),
    (1, 7, 4, 1),
    (6, 2, 8, 2),
    (4, 4, 12, 4),
    (9, 3, 16, 8),
]


def _layer(d_model: int, h: int, seed: int, kdim: int | None = None) -> torch.nn.MultiheadAttention:
    torch.manual_seed(seed)
    layer = torch.nn.MultiheadAttention(
        d_model, h, bias=False, batch_first=True, kdim=kdim, vdim=kdim, dtype=torch.float64
    )
    for p in layer.parameters():  # default init leaves some zero; make every weight count
        torch.nn.init.normal_(p, std=d_model**-0.5)
    return layer


def _our_weights(layer: torch.nn.MultiheadAttention, h: int):
    """torch stores each role as A with x -> A x; the book's heads are columns of A^T."""
    d = layer.embed_dim
    if layer._qkv_same_embed_dim:
        A_q, A_k, A_v = layer.in_proj_weight.detach().split(d)  # (d, d) each
    else:  # (d, d), (d, kdim), (d, vdim)
        A_q, A_k, A_v = (
            w.detach() for w in (layer.q_proj_weight, layer.k_proj_weight, layer.v_proj_weight)
        )
    W_q, W_k, W_v = (mha.split_heads(A.T, h) for A in (A_q, A_k, A_v))  # (h, d|kdim, d_k)
    return W_q, W_k, W_v, layer.out_proj.weight.detach().T  # W_o: (h*d_k, d)


def _mask(n_q: int, n_k: int, seed: int) -> torch.Tensor:
    """A random boolean (n_q, n_k) mask in which every row allows at least one key."""
    g = torch.Generator().manual_seed(seed)
    mask = torch.rand(n_q, n_k, generator=g) < 0.5  # (n_q, n_k)
    mask[torch.arange(n_q), torch.randint(n_k, (n_q,), generator=g)] = True
    return mask


@pytest.mark.parametrize(("n_q", "n_k", "d_model", "h"), CASES)
@pytest.mark.parametrize("masked", [False, True])
def test_matches_torch_multihead_attention(
    n_q: int, n_k: int, d_model: int, h: int, masked: bool
) -> None:
    layer = _layer(d_model, h, seed=n_q * 100 + n_k)
    g = torch.Generator().manual_seed(n_q + 10 * n_k)
    X_q = torch.randn(2, n_q, d_model, dtype=torch.float64, generator=g)  # (batch, n_q, d)
    X_kv = torch.randn(2, n_k, d_model, dtype=torch.float64, generator=g)  # (batch, n_k, d)
    mask = _mask(n_q, n_k, seed=d_model) if masked else None  # (n_q, n_k), True = allowed
    with torch.no_grad():  # torch's boolean attn_mask marks the pairs it forbids
        want, want_w = layer(
            X_q,
            X_kv,
            X_kv,
            attn_mask=None if mask is None else ~mask,
            average_attn_weights=False,
        )  # (2, n_q, d), (2, h, n_q, n_k)
    got, got_w = mha.cross_attention(X_q, X_kv, *_our_weights(layer, h), mask=mask)
    assert got.shape == (2, n_q, d_model) and got_w.shape == (2, h, n_q, n_k)
    torch.testing.assert_close(got, want, rtol=0, atol=1e-12)
    torch.testing.assert_close(got_w, want_w, rtol=0, atol=1e-12)
    if mask is not None:
        assert (got_w[..., ~mask] == 0).all() and (got_w[..., mask] > 0).all()


def test_unbatched_and_of_another_width_match_torch() -> None:
    """No batch dimension, and a read sequence 5 wide while the asking one is 8 wide."""
    layer = _layer(8, 2, seed=3, kdim=5)
    g = torch.Generator().manual_seed(3)
    X_q = torch.randn(4, 8, dtype=torch.float64, generator=g)  # (n_q, d_q)
    X_kv = torch.randn(6, 5, dtype=torch.float64, generator=g)  # (n_k, d_kv)
    mask = mha.causal_mask(4, 6)  # (4, 6)
    with torch.no_grad():
        want, want_w = layer(X_q, X_kv, X_kv, attn_mask=~mask, average_attn_weights=False)
    got, got_w = mha.cross_attention(X_q, X_kv, *_our_weights(layer, 2), mask=mask)
    torch.testing.assert_close(got, want, rtol=0, atol=1e-12)
    torch.testing.assert_close(got_w, want_w, rtol=0, atol=1e-12)


def test_self_attention_is_the_case_x_q_equals_x_kv() -> None:
    W_q, W_k, W_v = toy.random_heads(3, 3, seed=4)
    W_o = toy.random_output(3, 3, seed=4)
    out, w = mha.cross_attention(toy.X, toy.X, W_q, W_k, W_v, W_o)
    want, want_w = mha.multi_head_attention(toy.X, W_q, W_k, W_v, W_o)
    torch.testing.assert_close(out, want, rtol=0, atol=1e-12)
    torch.testing.assert_close(w, want_w, rtol=0, atol=1e-12)


def test_each_query_row_depends_only_on_its_own_word() -> None:
    """Changing the last written word moves only its own row: no causal mask is needed."""
    W = tr.cross_heads()
    W_o = toy.random_output(3, 3)
    out, w = mha.cross_attention(tr.Y, toy.X, *W, W_o)  # (3, 9), (3, 3, 5)
    Y2 = tr.Y.clone()
    Y2[-1] += 0.5  # (3, 9)
    out2, w2 = mha.cross_attention(Y2, toy.X, *W, W_o)
    assert torch.equal(out2[:-1], out[:-1]) and torch.equal(w2[:, :-1], w[:, :-1])
    assert not torch.equal(w2[:, -1], w[:, -1])


def test_latin_words_find_their_source_in_the_source_word_head() -> None:
    _, w = mha.cross_attention(tr.Y, toy.X, *tr.cross_heads(), toy.random_output(3, 3))
    match = math.exp(3) / (math.exp(3) + 4)  # one key scores 3, the other four score 0
    for i, word in enumerate(tr.TARGET):
        j = toy.SENTENCE.index(tr.SOURCE_OF[word])
        assert w[2, i, j] == pytest.approx(match, abs=1e-12)
        others = [k for k in range(5) if k != j]
        assert w[2, i, others] == pytest.approx([(1 - match) / 4] * 4, abs=1e-12)
    assert int(w[0, 2].argmax()) == toy.CAT and int(w[1, 2].argmax()) == toy.MOUSE


def test_latin_vectors() -> None:
    assert tr.Y.shape == (3, 9)
    assert tr.Y[:, :5].tolist() == [[0, 1, 0, 1, 0], [0, 1, 0, 0, 1], [0, 0, 1, 0, 0]]
    torch.testing.assert_close(tr.Y[:, 5:], toy.X[:3, 5:], rtol=0, atol=0)  # positions 0..2
    with pytest.raises(KeyError, match="vocabulary"):
        tr.sentence(["felis"])


def _good():
    W_q, W_k, W_v = tr.cross_heads()
    return tr.Y, toy.X, W_q, W_k, W_v, toy.random_output(3, 3)


def test_errors_name_the_shapes() -> None:
    Y, X, W_q, W_k, W_v, W_o = _good()
    with pytest.raises(ValueError, match=r"W_k \(3, 8, 3\).*but X_kv \(5, 9\) has width 9"):
        mha.cross_attention(Y, X, W_q, W_k[:, :8], W_v, W_o)
    with pytest.raises(ValueError, match=r"W_q \(3, 9, 3\).*but X_q \(3, 8\) has width 8"):
        mha.cross_attention(Y[:, :8], X, W_q, W_k, W_v, W_o)
    with pytest.raises(ValueError, match=r"mask must be boolean \(n_q, n_k\) = \(3, 5\).*\(5, 3\)"):
        mha.cross_attention(Y, X, W_q, W_k, W_v, W_o, mask=torch.ones(5, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"same batch dimensions, got \(2,\) and \(\)"):
        mha.cross_attention(Y.expand(2, 3, 9), X, W_q, W_k, W_v, W_o)
    with pytest.raises(ValueError, match=r"X_kv holds an empty sentence"):
        mha.cross_attention(Y, X[:0], W_q, W_k, W_v, W_o)
    with pytest.raises(ValueError, match=r"W_o must be \(h\*d_v, d_model\) = \(9, 9\)"):
        mha.cross_attention(Y, X, W_q, W_k, W_v, W_o[:6])
    with pytest.raises(TypeError, match=r"X_q: torch.float32, X_kv: torch.float64"):
        mha.cross_attention(Y.float(), X, W_q, W_k, W_v, W_o)


def test_english_builds_the_toy_sentence_and_roles_by_word_order() -> None:
    from mha import translation

    assert torch.equal(translation.english(toy.SENTENCE), toy.X)
    swapped = translation.english(("the", "mouse", "chased", "the", "cat"))  # (5, 9)
    assert swapped[1, :5].tolist() == [0, 1, 0, 1, 0]  # mouse, before the verb: noun, agent
    assert swapped[4, :5].tolist() == [0, 1, 0, 0, 1]  # cat, after it: noun, prey
    with pytest.raises(KeyError, match="dog"):
        translation.english(("the", "dog", "chased", "the", "cat"))
    with pytest.raises(ValueError, match="exactly one verb"):
        translation.english(("the", "cat", "the", "mouse"))
