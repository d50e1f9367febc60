"""A stack of multi-head layers, and what appending a word changes in it.

A model that writes text appends one word at a time. The key/value cache keeps
the keys and values of the words written so far, which is only right if
appending a word leaves them unchanged. In the first layer it always does: a
key is a projection of the word's own vector. From the second layer up the
keys and values are projections of the previous layer's outputs, and those
change when a new word can be read by the earlier ones, unless a causal mask
(:func:`mha.causal_mask`) keeps every word from reading the words after it.
"""

from __future__ import annotations

from collections.abc import Sequence

from torch import Tensor

from mha.attention import causal_mask, cross_attention, project

# One layer's weights: W_q, W_k, W_v (h, d_model, d_k) each and W_o (h*d_v, d_model).
LayerWeights = tuple[Tensor, Tensor, Tensor, Tensor]


def stack_inputs(X: Tensor, layers: Sequence[LayerWeights], causal: bool = False) -> list[Tensor]:
    """What each layer of a stack reads, and what the last one writes.

    Layer ``l`` reads the output of layer ``l - 1`` (the first reads ``X``). Real
    Transformers also add each layer's input back to its output and normalise;
    this stack leaves both out.

    Args:
        X: the sentence, ``(n, d_model)``.
        layers: one ``(W_q, W_k, W_v, W_o)`` per layer, as for :func:`mha.multi_head_attention`.
        causal: run every layer under :func:`mha.causal_mask`.

    Returns:
        ``len(layers) + 1`` tensors ``(n, d_model)``: ``X``, then each layer's output.
    """
    mask = causal_mask(X.shape[-2]) if causal else None  # (n, n) or no mask
    inputs = [X]  # (n, d_model) each
    for W_q, W_k, W_v, W_o in layers:
        out, _ = cross_attention(inputs[-1], inputs[-1], W_q, W_k, W_v, W_o, mask)  # (n, d_model)
        inputs.append(out)
    return inputs


def cached_change(
    X: Tensor, word: Tensor, layers: Sequence[LayerWeights], causal: bool = False
) -> list[float]:
    """How far appending ``word`` moves the keys and values of the words already there.

    Args:
        X: the sentence so far, ``(n, d_model)``.
        word: the appended word's vector, ``(d_model,)``.
        layers: one ``(W_q, W_k, W_v, W_o)`` per layer.
        causal: run every layer under the causal mask.

    Returns:
        One number per layer: the largest absolute change, over the first ``n``
        words, of that layer's keys and values (every head) once ``word`` is appended.

    Raises:
        ValueError: if ``word`` is not ``(d_model,)`` for ``X (n, d_model)``.
    """
    if word.shape != X.shape[-1:]:
        raise ValueError(
            f"word must be ({X.shape[-1]},) for X {tuple(X.shape)}, got {tuple(word.shape)}"
        )
    n = X.shape[-2]
    longer = X.new_empty(n + 1, X.shape[-1])  # (n + 1, d_model)
    longer[:n], longer[n] = X, word
    before = stack_inputs(X, layers, causal)  # (n, d_model) per layer
    after = stack_inputs(longer, layers, causal)  # (n + 1, d_model) per layer
    changes = []
    for (_, W_k, W_v, _), x_old, x_new in zip(layers, before, after, strict=False):
        kv_old = [project(x_old, W) for W in (W_k, W_v)]  # (h, n, d_k) each
        kv_new = [project(x_new, W)[..., :n, :] for W in (W_k, W_v)]  # (h, n, d_k) each
        changes.append(max(float((a - b).abs().max()) for a, b in zip(kv_old, kv_new, strict=True)))
    return changes
