"""The trained layer computed a second way, to check the model and the stored weights.

:class:`~mha.training.model.HeadsModel` runs :func:`mha.multi_head_attention`. The
functions here start from a stored run's raw parameters (:func:`mha.training.store.load_state`)
and run each head with PyTorch's ``scaled_dot_product_attention`` instead, so that a view,
a table or a stored metric can be checked against numbers that did not come from the
code that produced them.
"""

from __future__ import annotations

import functools

import torch
from torch import Tensor
from torch.nn.functional import cross_entropy, scaled_dot_product_attention

from mha.training.data import NOUNS, positions, split
from mha.training.store import load_state


def layer(state: dict[str, Tensor], tokens: Tensor) -> tuple[Tensor, Tensor]:
    """Weights ``(N, h, n, n)`` and outputs ``(N, n, d_model)`` for word ids ``(N, n)``."""
    X = state["embed"][tokens] + positions()  # (N, n, d_model)
    Q, K, V = (X[:, None] @ state[k][None] for k in ("W_q", "W_k", "W_v"))  # (N, h, n, d_k)
    n = tokens.shape[1]
    eye = torch.eye(n, dtype=X.dtype).expand(*Q.shape[:2], n, n)  # values that return weights
    weights = scaled_dot_product_attention(Q, K, eye)  # (N, h, n, n)
    heads = scaled_dot_product_attention(Q, K, V)  # (N, h, n, d_k)
    concat = heads.transpose(1, 2).flatten(2)  # (N, n, h*d_k)
    return weights, concat @ state["W_o"]  # (N, h, n, n), (N, n, d_model)


def logits(state: dict[str, Tensor], tokens: Tensor, verb: Tensor) -> Tensor:
    """Subject and object scores ``(N, 2, len(NOUNS))`` read from the verb's output row."""
    _, out = layer(state, tokens)  # (N, n, d_model)
    at_verb = out[torch.arange(len(tokens)), verb]  # (N, d_model)
    return (at_verb @ state["read"] + state["bias"]).view(-1, 2, len(NOUNS))


@functools.cache
def held_out(h: int, d_k: int, seed: int) -> dict[str, float]:
    """Loss and subject / object / both-right accuracy of a stored run on the held-out set."""
    test = split()[1]
    scores = logits(load_state(h, d_k, seed), test.tokens, test.verb)  # (N, 2, nouns)
    s_ok = scores[:, 0].argmax(-1) == test.subject  # (N,)
    o_ok = scores[:, 1].argmax(-1) == test.object  # (N,)
    loss = cross_entropy(scores[:, 0], test.subject) + cross_entropy(scores[:, 1], test.object)
    return {
        "loss": float(loss),
        "subject": float(s_ok.double().mean()),
        "object": float(o_ok.double().mean()),
        "both": float((s_ok & o_ok).double().mean()),
    }
