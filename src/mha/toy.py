"""The running example: *the cat chased the mouse*, in a model 9 wide.

Everything here is built by hand, not trained, so that every number in the
book can be traced back to a line of this file. All tensors are float64.

How the word vectors ``X`` were built
-------------------------------------
Each word is 9 numbers. The first five are yes/no features a reader can name:

====  ===========  ==========================================
col   feature      words that have it
====  ===========  ==========================================
0     determiner   the, the
1     noun         cat, mouse
2     verb         chased
3     agent        cat (the one doing the chasing)
4     prey         mouse (the one being chased)
5-8   position     cos/sin of the position at two frequencies
====  ===========  ==========================================

The last four columns are sinusoids of the word's position ``p = 0..4``, in the spirit of
Vaswani et al. (2017) but not their recipe: ``cos(p*pi/3), sin(p*pi/3),
cos(p*pi/9), sin(p*pi/9)``, in columns of their own next to the features (the
Transformer *adds* its sinusoids, of other frequencies, to the word vectors).
They are what tells the two copies of *the* apart; without them rows 0 and 3
of ``X`` would be equal and no head could treat them differently.
"""

from __future__ import annotations

import functools
import math

import torch
from torch import Tensor

from mha import checks
from mha.attention import all_heads
from mha.seeds import generator

SENTENCE: tuple[str, ...] = ("the", "cat", "chased", "the", "mouse")
# The words as labels that tell the two copies of "the" apart.
WORD_LABELS: tuple[str, ...] = ("the (1st)", "cat", "chased", "the (2nd)", "mouse")
FEATURES: tuple[str, ...] = (
    "determiner",
    "noun",
    "verb",
    "agent",
    "prey",
    "cos(p·π/3)",
    "sin(p·π/3)",
    "cos(p·π/9)",
    "sin(p·π/9)",
)
D_MODEL = 9
CHASED = 2  # row of "chased" in X
CAT, MOUSE = 1, 4
CHASED_ROW: tuple[float, ...] = (0.04, 0.18, 0.12, 0.06, 0.60)  # one full-width head

# Standard deviation of the entries of random weights: wide enough that a
# random head's rows are visibly uneven, narrow enough that they are not one-hot.
RANDOM_SCALE = 0.6

_OMEGA_FAST = math.pi / 3
_OMEGA_SLOW = math.pi / 9
_SEMANTIC = {
    "the": (1, 0, 0, 0, 0),
    "cat": (0, 1, 0, 1, 0),
    "chased": (0, 0, 1, 0, 0),
    "mouse": (0, 1, 0, 0, 1),
}


def position(p: int) -> tuple[float, ...]:
    """Columns 5-8 of the word at position ``p`` (from 0): the four sinusoids."""
    return (
        math.cos(p * _OMEGA_FAST),
        math.sin(p * _OMEGA_FAST),
        math.cos(p * _OMEGA_SLOW),
        math.sin(p * _OMEGA_SLOW),
    )


def _sentence_matrix() -> Tensor:
    rows = [_SEMANTIC[w] + position(p) for p, w in enumerate(SENTENCE)]
    return torch.tensor(rows, dtype=torch.float64)  # (5, 9)


X: Tensor = _sentence_matrix()  # (5, 9); treat as read-only, .clone() before editing


def single_head_weights() -> tuple[Tensor, Tensor, Tensor]:
    """One full-width head (``d_k = 9``) whose row for *chased* is :data:`CHASED_ROW`.

    Returns:
        ``(W_q, W_k, W_v)``, each ``(9, 9)``. With them, :func:`mha.single_head`
        on :data:`X` gives *chased* the weights 0.04, 0.18, 0.12, 0.06, 0.60 over
        *the cat chased the mouse* (exactly, up to float64 round-off).

    How they were built: the weights were solved backwards from the row.
    ``W_k`` and ``W_v`` are the identity, so keys and values are the word
    vectors themselves. A softmax returns ``p`` when its inputs are ``log p``
    (plus any constant), so *chased*'s query ``q`` must satisfy
    ``X q / sqrt(9) = log p - mean(log p)``; ``q`` is the shortest such vector
    (``3 * pinv(X) @ ...``, exact because the five word vectors are linearly
    independent). ``W_q`` is a seeded random matrix ``A`` plus the rank-one
    correction that sends *chased*'s vector to ``q``; the other four words get
    their queries mostly from ``A``.
    """
    p = torch.tensor(CHASED_ROW, dtype=torch.float64)  # (5,)
    target = torch.log(p) - torch.log(p).mean()  # (5,) scores that softmax to p
    q = math.sqrt(D_MODEL) * torch.linalg.pinv(X) @ target  # (9,) chased's query
    g = generator(2017, 0)
    A = RANDOM_SCALE * torch.randn(D_MODEL, D_MODEL, generator=g, dtype=torch.float64)  # (9, 9)
    x_c = X[CHASED]  # (9,)
    W_q = A + torch.outer(x_c, q - A.T @ x_c) / (x_c @ x_c)  # (9, 9), x_c @ W_q == q
    eye = torch.eye(D_MODEL, dtype=torch.float64)  # (9, 9)
    return W_q, eye.clone(), eye.clone()


def designed_heads() -> tuple[Tensor, Tensor, Tensor]:
    """Three hand-written heads of width 3 (``h = 3, d_k = 3``) that split the work.

    Returns:
        ``(W_q, W_k, W_v)``, each ``(3, 9, 3)``.

    How they were built (every non-zero entry is set below, nothing is trained):

    * head 0, *subject*: the query reads the ``verb`` feature, the key reads
      ``agent``; so *chased* scores high against *cat*. Nouns also query the
      ``determiner`` feature, so *cat* and *mouse* look at the *the*s.
    * head 1, *object*: the same, with the key reading ``prey``; *chased*
      looks at *mouse*.
    * head 2, *next word*: query and key read the fast position sinusoid; the
      query is rotated one position ahead, so each word looks at its right-hand
      neighbour (which for *chased* is the second *the*).

    The query strength ``3 * sqrt(3)`` makes a matching key score 3 after the
    ``1/sqrt(d_k)`` scaling, which is what gives *chased* most, not all, of its
    weight on the target word. Values: heads 0 and 1 pass on ``noun, agent,
    prey``; head 2 passes on ``determiner, noun, verb``.
    """
    h, d_k, a = 3, 3, 3 * math.sqrt(3)
    W_q = torch.zeros(h, D_MODEL, d_k, dtype=torch.float64)  # (3, 9, 3)
    W_k = torch.zeros(h, D_MODEL, d_k, dtype=torch.float64)  # (3, 9, 3)
    W_v = torch.zeros(h, D_MODEL, d_k, dtype=torch.float64)  # (3, 9, 3)
    for head, target in ((0, 3), (1, 4)):  # subject looks for agent, object for prey
        W_q[head, 2, 0] = a  # verb asks ...
        W_k[head, target, 0] = 1.0  # ... for the agent / the prey
        W_q[head, 1, 1] = a / 2  # nouns ask ...
        W_k[head, 0, 1] = 1.0  # ... for a determiner
        W_v[head, [1, 3, 4], [0, 1, 2]] = 1.0  # pass on noun, agent, prey
    c, s = math.cos(_OMEGA_FAST), math.sin(_OMEGA_FAST)
    rotate = torch.tensor([[c, s], [-s, c]], dtype=torch.float64)  # (2, 2), one position ahead
    W_q[2, 5:7, 0:2] = a * rotate
    W_k[2, 5:7, 0:2] = torch.eye(2, dtype=torch.float64)
    W_v[2, [0, 1, 2], [0, 1, 2]] = 1.0  # pass on determiner, noun, verb
    return W_q, W_k, W_v


def random_heads(
    h: int, d_k: int | None = None, seed: int = 0, d_model: int = D_MODEL
) -> tuple[Tensor, Tensor, Tensor]:
    """Random heads, one generator per head, so adding a head keeps the others.

    Args:
        h: number of heads.
        d_k: width of each head (``d_v = d_k``); defaults to ``d_model / h``,
            which must then be a whole number.
        seed: any int; the same ``(seed, head, d_k)`` always gives the same head.
        d_model: width of the word vectors, 9 for the toy sentence.

    Returns:
        ``(W_q, W_k, W_v)``, each ``(h, d_model, d_k)``, entries drawn from
        ``N(0, RANDOM_SCALE^2)``. Head ``i`` is drawn from its own generator seeded
        by ``(seed, i, d_k, d_model)``, so ``random_heads(4, 3)`` starts with the
        three heads of ``random_heads(3, 3)``.
    """
    if d_k is None:
        d_k = checks.head_width(d_model, h)
    if not isinstance(h, int) or h < 1 or not isinstance(d_k, int) or d_k < 1:
        raise ValueError(f"h and d_k must be positive ints, got h = {h!r}, d_k = {d_k!r}")
    per_head = []
    for i in range(h):
        g = generator(seed, i, d_k, d_model)
        w = RANDOM_SCALE * torch.randn(
            3, d_model, d_k, generator=g, dtype=torch.float64
        )  # (3, d_model, d_k)
        per_head.append(w)  # (3, d_model, d_k): this head's W_q, W_k, W_v
    W = torch.stack(per_head, dim=1)  # (3, h, d_model, d_k)
    return W[0], W[1], W[2]


def random_output(h: int, d_v: int, seed: int = 0, d_model: int = D_MODEL) -> Tensor:
    """A seeded random ``W_o`` of shape ``(h*d_v, d_model)``, entries ``N(0, 1/(h*d_v))``.

    The ``1/(h*d_v)`` variance keeps the output about as large as one head's values.
    """
    if h < 1 or d_v < 1:
        raise ValueError(f"h and d_v must be positive, got h = {h}, d_v = {d_v}")
    g = generator(seed, 1_000_000, h, d_v, d_model)  # a key no head uses
    scale = 1 / math.sqrt(h * d_v)
    return scale * torch.randn(h * d_v, d_model, generator=g, dtype=torch.float64)


def head_weights(h: int, d_k: int, seed: int = 0) -> Tensor:
    """Attention weights of :func:`random_heads` ``(h, d_k, seed)`` on the toy sentence.

    Returns:
        ``(h, 5, 5)``: head ``i``'s weights, query words down, key words across.
    """
    return _head_weights(h, d_k, seed).clone()  # (h, 5, 5)


@functools.lru_cache(maxsize=256)
def _head_weights(h: int, d_k: int, seed: int) -> Tensor:
    """Cached: the explorer draws each setting in several panels and rows."""
    W_q, W_k, W_v = random_heads(h, d_k, seed)  # (h, 9, d_k) each
    _, weights = all_heads(X, W_q, W_k, W_v)  # (h, 5, 5)
    return weights
