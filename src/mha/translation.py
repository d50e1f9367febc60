"""A sentence for a decoder to write: *the cat chased the mouse* in Latin, *feles murem agitavit*.

A Transformer that translates reads the source sentence (:data:`mha.toy.X`) in
its encoder and writes the translation in its decoder; encoder-decoder
attention lets each word being written read the source. This module builds
the written side of that toy, by hand and in the same 9 columns as
:mod:`mha.toy`, so that one set of projections can read both sentences.

How the word vectors ``Y`` were built
-------------------------------------
Latin has no articles and here puts the verb last, so three words translate
five, in another order:

==========  ===========  ==============  =============================
word        translates   features        notes
==========  ===========  ==============  =============================
feles       cat          noun, agent     nominative: the one chasing
murem       mouse        noun, prey      accusative of *mus*: the one chased
agitavit    chased       verb            perfect of *agitare*, to chase
celeriter   (quickly)    none            not in the source; for exercises
==========  ===========  ==============  =============================

Columns 0-4 are the features of :mod:`mha.toy` (determiner, noun, verb,
agent, prey); columns 5-8 the same sinusoids of the word's position, counted
from 0 within the Latin sentence. A trained model would learn its own vectors;
these share the source's columns by construction, which is what lets
hand-written heads match a Latin word with an English one. No column says
*which* word a word is: the features name grammatical roles, so a head can
match roles, never meanings (:func:`english` builds source sentences in which
the roles are swapped).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import Tensor

from mha import toy

TARGET: tuple[str, ...] = ("feles", "murem", "agitavit")
_FEATURES = {
    "feles": (0, 1, 0, 1, 0),
    "murem": (0, 1, 0, 0, 1),
    "agitavit": (0, 0, 1, 0, 0),
    "celeriter": (0, 0, 0, 0, 0),
}
VOCABULARY: tuple[str, ...] = tuple(_FEATURES)
SOURCE_OF: dict[str, str] = {"feles": "cat", "murem": "mouse", "agitavit": "chased"}


def sentence(words: Sequence[str]) -> Tensor:
    """Word vectors ``(len(words), 9)`` of a Latin sentence, positions counted from 0.

    Raises:
        KeyError: for a word not in :data:`VOCABULARY`.
    """
    unknown = [w for w in words if w not in _FEATURES]
    if unknown:
        raise KeyError(f"no vector for {unknown}; the vocabulary is {VOCABULARY}")
    rows = [_FEATURES[w] + toy.position(p) for p, w in enumerate(words)]
    return torch.tensor(rows, dtype=torch.float64)  # (len(words), 9)


Y: Tensor = sentence(TARGET)  # (3, 9); treat as read-only, .clone() before editing

HEAD_NAMES: tuple[str, ...] = ("head 1 (subject)", "head 2 (object)", "head 3 (same role)")

_ENGLISH_ROLES = {"the": "determiner", "cat": "noun", "mouse": "noun", "chased": "verb"}


def english(words: Sequence[str]) -> Tensor:
    """Word vectors ``(len(words), 9)`` of an English source sentence, in :mod:`mha.toy`'s columns.

    The roles come from word order, as in *the cat chased the mouse*: a noun before
    the verb is the agent, a noun after it the prey. So ``english(toy.SENTENCE)`` is
    :data:`mha.toy.X`, and *the mouse chased the cat* gets the very same vectors.

    Raises:
        KeyError: for a word other than *the*, *cat*, *mouse*, *chased*.
        ValueError: unless exactly one word is the verb *chased*.
    """
    unknown = [w for w in words if w not in _ENGLISH_ROLES]
    if unknown:
        raise KeyError(f"no vector for {unknown}; the words are {tuple(_ENGLISH_ROLES)}")
    if list(words).count("chased") != 1:
        raise ValueError(f"need exactly one verb 'chased', got {list(words)}")
    verb = list(words).index("chased")
    rows = []
    for p, w in enumerate(words):
        role = _ENGLISH_ROLES[w]
        agent, prey = role == "noun" and p < verb, role == "noun" and p > verb
        features = (role == "determiner", role == "noun", role == "verb", agent, prey)
        rows.append(tuple(float(f) for f in features) + toy.position(p))
    return torch.tensor(rows, dtype=torch.float64)  # (len(words), 9)


def cross_heads() -> tuple[Tensor, Tensor, Tensor]:
    """Three hand-written heads (``h = 3, d_k = 3``) through which Latin words read the source.

    Returns:
        ``(W_q, W_k, W_v)``, each ``(3, 9, 3)``; queries read :data:`Y`, keys
        and values read :data:`mha.toy.X`.

    * heads 0 and 1: the *subject* and *object* heads of
      :func:`mha.toy.designed_heads`, unchanged: the verb *agitavit* looks for
      the source's agent (*cat*) and its prey (*mouse*), and the nouns look at
      the source's determiners.
    * head 2, *same role* (in the slot of the designed next-word head): query
      and key both read the ``verb``, ``agent`` and ``prey`` features, so each
      Latin word scores high against the English word with the same
      grammatical role, wherever it stands. In *the cat chased the mouse* that
      is the word it translates (*feles* with *cat*, *murem* with *mouse*,
      *agitavit* with *chased*); in *the mouse chased the cat* *feles* finds
      *mouse*, since no feature says which noun is which. The value passes on
      the same three features.

    As in :func:`mha.toy.designed_heads`, the query strength ``3 * sqrt(3)``
    makes a match score 3 after the ``1/sqrt(d_k)`` scaling.
    """
    a = 3 * math.sqrt(3)
    W_q, W_k, W_v = toy.designed_heads()  # (3, 9, 3) each: subject, object, next word
    for W in (W_q, W_k, W_v):
        W[2] = 0.0  # the next-word head's slot becomes the same-role head
    features = [2, 3, 4]  # verb, agent, prey
    W_q[2, features, [0, 1, 2]] = a  # each word asks for its own role ...
    W_k[2, features, [0, 1, 2]] = 1.0  # ... in the source's keys
    W_v[2, features, [0, 1, 2]] = 1.0  # and takes it back
    return W_q, W_k, W_v
