"""The model that learns the task: one multi-head attention layer and a read-out at the verb.

Word embeddings plus fixed sinusoidal positions go into
:func:`mha.multi_head_attention`; a linear read-out of the verb's output row
names the subject and the object. There is no residual connection (no copy of
the verb's own vector added back to the layer's output), so everything the
read-out learns about the nouns reached the verb through attention, and the
only way to tell subject from object is where the words stand.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from mha.attention import multi_head_attention, project, scaled_dot_product
from mha.seeds import generator
from mha.training.data import D_MODEL, MAX_LEN, NOUNS, VOCAB, Sentences, positions


class HeadsModel(torch.nn.Module):
    """Embeddings + positions -> multi-head attention -> linear read-out at the verb.

    Parameters (``h`` heads of width ``d_k``, by default ``d_model / h``):
        embed ``(len(VOCAB), d_model)``; W_q, W_k, W_v ``(h, d_model, d_k)``;
        W_o ``(h*d_k, d_model)``; read ``(d_model, 2*len(NOUNS))``; bias ``(2*len(NOUNS),)``.

    Head ``i`` is drawn from its own generator ``(seed, i)``, and the embedding
    and read-out from generators that do not depend on ``h``, so models with
    different ``h`` but the same seed start from the same words and read-out.

    Args:
        h: number of heads.
        seed: names the generators of the starting weights.
        d_model: width of the word vectors.
        d_k: width of each head (``d_v = d_k``); ``None`` means ``d_model / h``, which
            must then be whole. Any other width gives a layer whose heads do not split
            ``d_model`` (``h * d_k != d_model``): ``W_o`` maps ``h * d_k`` columns back.
    """

    def __init__(
        self, h: int, seed: int = 0, d_model: int = D_MODEL, d_k: int | None = None
    ) -> None:
        super().__init__()
        if d_k is None:
            if h < 1 or d_model % h:
                raise ValueError(f"h = {h} must be a positive divisor of d_model = {d_model}")
            d_k = d_model // h
        elif h < 1 or d_k < 1:
            raise ValueError(f"h = {h} and d_k = {d_k} must be positive")
        f64 = torch.float64
        self.h, self.d_k = h, d_k

        def normal(g: torch.Generator, *shape: int, std: float) -> torch.nn.Parameter:
            return torch.nn.Parameter(std * torch.randn(*shape, generator=g, dtype=f64))

        self.embed = normal(generator(seed, 100), len(VOCAB), d_model, std=1.0)
        # Head i's W_q, W_k, W_v and its block of W_o (transposed), from generator (seed, i).
        per_head = [
            torch.randn(4, d_model, d_k, generator=generator(seed, i), dtype=f64) for i in range(h)
        ]
        W = torch.stack(per_head, dim=1) / math.sqrt(d_model)  # (4, h, d_model, d_k)
        self.W_q = torch.nn.Parameter(W[0].clone())  # (h, d_model, d_k)
        self.W_k = torch.nn.Parameter(W[1].clone())  # (h, d_model, d_k)
        self.W_v = torch.nn.Parameter(W[2].clone())  # (h, d_model, d_k)
        W_o = W[3].transpose(1, 2).reshape(h * d_k, d_model)  # (h*d_k, d_model)
        self.W_o = torch.nn.Parameter(W_o.clone())
        self.read = normal(generator(seed, 101), d_model, 2 * len(NOUNS), std=d_model**-0.5)
        self.bias = torch.nn.Parameter(torch.zeros(2 * len(NOUNS), dtype=f64))
        self.register_buffer("pe", positions(MAX_LEN, d_model))  # (MAX_LEN, d_model)

    def attend(self, tokens: Tensor) -> tuple[Tensor, Tensor]:
        """The attention layer alone on word ids ``(N, MAX_LEN)``.

        Returns ``(out, weights)``: ``(N, MAX_LEN, d_model)`` and ``(N, h, MAX_LEN, MAX_LEN)``.
        """
        X = self.embed[tokens] + self.pe  # (N, n, d_model)
        return multi_head_attention(X, self.W_q, self.W_k, self.W_v, self.W_o)

    def forward(self, batch: Sentences) -> tuple[Tensor, Tensor]:
        """Returns ``(logits, weights)``: ``(N, 2, len(NOUNS))`` subject/object
        scores, and the attention weights ``(N, h, MAX_LEN, MAX_LEN)``."""
        out, weights = self.attend(batch.tokens)  # (N, n, d_model), (N, h, n, n)
        at_verb = out[torch.arange(len(batch)), batch.verb]  # (N, d_model), the verb's row only
        logits = at_verb @ self.read + self.bias  # (N, 2*nouns)
        return logits.view(-1, 2, len(NOUNS)), weights  # (N, 2, nouns), (N, h, n, n)

    def deliver(self, X: Tensor, rows: Tensor) -> Tensor:
        """The layer's output at one query per sentence, from every head's row of weights.

        Args:
            X: the layer's input ``(N, n, d_model)``.
            rows: ``(N, h, n)``, head ``i``'s weights over the ``n`` words.

        Returns:
            ``(N, d_model)``: ``sum_j rows[:, i, j] * V_i[j]`` per head ``i``, side by side,
            times ``W_o``.
        """
        return self.head_averages(X, rows).flatten(1) @ self.W_o  # (N, d_model)

    def head_averages(self, X: Tensor, rows: Tensor) -> Tensor:
        """Each head's average of its values at one query per sentence, before ``W_o``.

        Args:
            X: the layer's input ``(N, n, d_model)``.
            rows: ``(N, h, n)``, head ``i``'s weights over the ``n`` words.

        Returns:
            ``(N, h, d_k)``: ``sum_j rows[:, i, j] * V_i[j]`` for each head ``i``.
        """
        V = torch.einsum("bnd,hdk->bhnk", X, self.W_v)  # (N, h, n, d_k)
        return torch.einsum("bhn,bhnk->bhk", rows, V)  # (N, h, d_k)

    def head_blocks(self) -> Tensor:
        """Every parameter that belongs to one head, head by head: ``(h, 4, d_model, d_k)``.

        Block ``i`` holds head ``i``'s W_q, W_k, W_v and its rows of W_o (transposed).
        """
        W_o = self.W_o.view(self.h, self.d_k, -1).transpose(1, 2)  # (h, d_model, d_k)
        blocks = torch.stack([self.W_q, self.W_k, self.W_v, W_o], dim=1)  # (h, 4, d_model, d_k)
        return blocks.detach()


class TiedValuesModel(HeadsModel):
    """``h`` heads with their own rows but ONE shared value map, their outputs added.

    Head ``i`` keeps its own ``W_q[i]``, ``W_k[i]`` (its own softmax row), but every head
    averages the same values ``X W_v`` and the heads' averages are added before one ``W_o``:

        out = (A_1 + ... + A_h) X W_v W_o,

    so both nouns reach the verb in the same ``d_v`` columns however many rows there are.
    It is the ordinary layer with every ``W_v[i]`` equal to ``W_v`` and every block of
    ``W_o`` equal to ``W_o``; with ``h = 1`` it is one ordinary head.

    Parameters: as :class:`HeadsModel`'s embedding, ``W_q``, ``W_k`` ``(h, d_model, d_k)``
    (drawn from the same generators, so they start equal to :class:`HeadsModel`'s for the
    same ``h``, ``d_k`` and seed) and read-out, but ``W_v`` ``(d_model, d_v)`` and
    ``W_o`` ``(d_v, d_model)``, drawn from generator ``(seed, 200)``.

    Args:
        h, seed, d_model, d_k: as for :class:`HeadsModel`.
        d_v: width of the one shared value space.
    """

    def __init__(
        self,
        h: int,
        seed: int = 0,
        d_model: int = D_MODEL,
        d_k: int | None = None,
        d_v: int = D_MODEL,
    ) -> None:
        super().__init__(h, seed, d_model, d_k)
        if d_v < 1:
            raise ValueError(f"d_v = {d_v} must be positive")
        self.d_v = d_v
        g = generator(seed, 200)
        W = torch.randn(2, d_model, d_v, generator=g, dtype=torch.float64) / math.sqrt(d_model)
        self.W_v = torch.nn.Parameter(W[0].clone())  # (d_model, d_v), shared by every head
        self.W_o = torch.nn.Parameter(W[1].T.clone())  # (d_v, d_model)

    def attend(self, tokens: Tensor) -> tuple[Tensor, Tensor]:
        """The tied layer alone on word ids ``(N, MAX_LEN)``.

        Returns ``(out, weights)``: ``(N, MAX_LEN, d_model)`` and ``(N, h, MAX_LEN, MAX_LEN)``.
        """
        X = self.embed[tokens] + self.pe  # (N, n, d_model)
        Q, K = project(X, self.W_q), project(X, self.W_k)  # (N, h, n, d_k) each
        V = (X @ self.W_v).unsqueeze(-3)  # (N, 1, n, d_v): the same values for every head
        H, weights = scaled_dot_product(Q, K, V)  # (N, h, n, d_v), (N, h, n, n)
        return H.sum(dim=-3) @ self.W_o, weights  # (N, n, d_model), (N, h, n, n)

    def deliver(self, X: Tensor, rows: Tensor) -> Tensor:
        """The layer's output at one query per sentence, from every head's row of weights.

        ``X`` ``(N, n, d_model)``, ``rows`` ``(N, h, n)``; returns ``(N, d_model)``: the
        heads' rows added, times the shared values ``X W_v``, times ``W_o``.
        """
        V = X @ self.W_v  # (N, n, d_v): the same values for every head
        summed = rows.sum(dim=1)  # (N, n): the heads' rows added
        return torch.einsum("bn,bnk->bk", summed, V) @ self.W_o  # (N, d_model)

    def head_blocks(self) -> Tensor:
        """The parameters that belong to one head alone: ``(h, 2, d_model, d_k)``, its W_q, W_k."""
        return torch.stack([self.W_q, self.W_k], dim=1).detach()  # (h, 2, d_model, d_k)


def head_spread(model: HeadsModel) -> float:
    """The largest difference between any head's parameters and head 0's (0 if h = 1)."""
    with torch.no_grad():
        blocks = model.head_blocks()  # (h, 4, d_model, d_k)
        return float((blocks - blocks[:1]).abs().max())


def make_symmetric(model: HeadsModel) -> HeadsModel:
    """Copy head 0 into every head: its three projections and its block of rows of W_o."""
    if isinstance(model, TiedValuesModel):
        raise ValueError("tied-values heads share W_v and W_o; only W_q, W_k could be copied")
    with torch.no_grad():
        d_k = model.d_k
        for i in range(1, model.h):
            for W in (model.W_q, model.W_k, model.W_v):
                W[i] = W[0]
            model.W_o[i * d_k : (i + 1) * d_k] = model.W_o[:d_k]
    return model


def perturb(model: HeadsModel, head: int = 1, eps: float = 1e-6, seed: int = 0) -> HeadsModel:
    """Add ``eps`` times standard normal noise to every parameter of one head."""
    if not 0 <= head < model.h:
        raise ValueError(f"head {head} does not exist in a model with h = {model.h}")
    if isinstance(model, TiedValuesModel):
        raise ValueError("tied-values heads share W_v and W_o; perturb nudges a head's own W_v")
    g, d_k = generator(seed, 999), model.d_k
    with torch.no_grad():
        for W in (model.W_q, model.W_k, model.W_v):
            W[head] += eps * torch.randn(W[head].shape, generator=g, dtype=W.dtype)
        rows = model.W_o[head * d_k : (head + 1) * d_k]  # (d_k, d_model), a view
        rows += eps * torch.randn(rows.shape, generator=g, dtype=rows.dtype)
    return model


def loss_fn(logits: Tensor, batch: Sentences) -> Tensor:
    """Cross-entropy for the subject plus cross-entropy for the object."""
    ce = torch.nn.functional.cross_entropy
    return ce(logits[:, 0], batch.subject) + ce(logits[:, 1], batch.object)
