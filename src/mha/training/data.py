"""The task: sentences shaped like *the cat chased the mouse*, and who did what to whom.

Sentences are ``the ADJ? NOUN VERB the ADJ? NOUN``; at the verb a model must
name both its subject and its object. :func:`all_sentences` lists every such
sentence with two different nouns, and :func:`split` divides them, once and for
all, into training and test sentences.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import torch
from torch import Tensor

from mha.seeds import generator

NOUNS: tuple[str, ...] = ("cat", "mouse", "dog", "bird", "fox", "hen")
VERBS: tuple[str, ...] = ("chased", "saw", "bit")
ADJECTIVES: tuple[str, ...] = ("big", "small", "grey")
PAD = "."  # fills shorter sentences up to MAX_LEN; an ordinary word to the model
VOCAB: tuple[str, ...] = ("the", *NOUNS, *VERBS, *ADJECTIVES, PAD)
MAX_LEN = 7  # the big cat chased the small mouse
D_MODEL = 12  # divisible by h = 1, 2, 3 (and 4, 6)
ROLES: tuple[str, ...] = ("subject", "object", "other")

# The sentence whose verb row the figures and the slider show.
SHOW: tuple[str, ...] = ("the", "grey", "cat", "chased", "the", "small", "mouse")
SHOW_VERB = 3
SHOW_SUBJECT, SHOW_OBJECT = 2, 6

_WORD = {w: i for i, w in enumerate(VOCAB)}
_DATA_SEED = 2017  # the split into training and test sentences never changes


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Sentences:
    """A batch of toy sentences, padded with ``PAD`` to ``MAX_LEN`` words.

    Attributes:
        tokens: ``(N, MAX_LEN)`` word ids into :data:`VOCAB`.
        verb: ``(N,)`` position of the verb (2 or 3).
        subject_pos, object_pos: ``(N,)`` positions of the two nouns.
        subject, object: ``(N,)`` the answers, indices into :data:`NOUNS`.
    """

    tokens: Tensor
    verb: Tensor
    subject_pos: Tensor
    object_pos: Tensor
    subject: Tensor
    object: Tensor

    def __len__(self) -> int:
        return self.tokens.shape[0]

    def take(self, idx: Tensor) -> Sentences:
        """The sentences at indices ``idx`` ``(M,)``."""
        return Sentences(*(getattr(self, f)[idx] for f in self.__dataclass_fields__))

    def words(self, i: int) -> list[str]:
        """Sentence ``i`` as words (padding included)."""
        return [VOCAB[t] for t in self.tokens[i].tolist()]


def word_ids(words: list[str] | tuple[str, ...]) -> list[int]:
    """Ids of up to ``MAX_LEN`` words of :data:`VOCAB`, padded with ``PAD`` to ``MAX_LEN``.

    Any such sequence is something the model can read (its attention rows exist);
    only sentences of the task's shape (:func:`encode`) have a subject and an object.
    """
    if not 1 <= len(words) <= MAX_LEN:
        raise ValueError(f"a sentence has 1 to {MAX_LEN} words, got {len(words)}")
    unknown = [w for w in words if w not in _WORD]
    if unknown:
        raise ValueError(f"unknown words {unknown}; the vocabulary is {VOCAB}")
    return [_WORD[w] for w in words] + [_WORD[PAD]] * (MAX_LEN - len(words))


def encode(words: list[str] | tuple[str, ...]) -> tuple[list[int], int, int, int]:
    """Word ids of one sentence padded to ``MAX_LEN``, and its verb, subject, object positions.

    Raises ``ValueError`` unless the sentence has the task's shape: one verb, one noun
    before it and one after it.
    """
    ids = word_ids(words)
    verbs = [p for p, w in enumerate(words) if w in VERBS]
    if len(verbs) != 1:
        raise ValueError(f"a sentence needs exactly one verb, got {words}")
    v = verbs[0]
    nouns = [p for p, w in enumerate(words) if w in NOUNS]
    before, after = [p for p in nouns if p < v], [p for p in nouns if p > v]
    if len(before) != 1 or len(after) != 1:
        raise ValueError(f"a sentence needs one noun before the verb and one after, got {words}")
    return ids, v, before[0], after[0]


def batch(sentences: list[list[str]] | list[tuple[str, ...]]) -> Sentences:
    """Sentences of the task's shape (:func:`encode`) as one batch, answers included."""
    rows = []
    for words in sentences:
        ids, v, sp, op = encode(words)
        rows.append((ids, v, sp, op, NOUNS.index(words[sp]), NOUNS.index(words[op])))
    ids, v, sp, op, s, o = zip(*rows, strict=True)
    long = functools.partial(torch.tensor, dtype=torch.long)
    return Sentences(long(ids), long(v), long(sp), long(op), long(s), long(o))


def all_sentences() -> Sentences:
    """Every sentence ``the ADJ? NOUN VERB the ADJ? NOUN`` with two different nouns.

    4 subject adjectives (none or one of three) x 6 subjects x 3 verbs x 4 object
    adjectives x 5 objects = 1440 sentences, in a fixed order.
    """
    rows = []
    for a1 in (None, *ADJECTIVES):
        for s in NOUNS:
            for v in VERBS:
                for a2 in (None, *ADJECTIVES):
                    for o in NOUNS:
                        if o == s:
                            continue
                        words = ["the", *([a1] if a1 else []), s, v, "the", *([a2] if a2 else [])]
                        rows.append((*encode([*words, o]), NOUNS.index(s), NOUNS.index(o)))
    ids, v, sp, op, s, o = zip(*rows, strict=True)
    long = functools.partial(torch.tensor, dtype=torch.long)
    return Sentences(long(ids), long(v), long(sp), long(op), long(s), long(o))


def split(test_fraction: float = 0.2) -> tuple[Sentences, Sentences]:
    """A fixed random split of :func:`all_sentences` into ``(train, test)``."""
    data = all_sentences()
    g = generator(_DATA_SEED)
    order = torch.randperm(len(data), generator=g)  # (N,)
    n_test = round(test_fraction * len(data))
    return data.take(order[n_test:]), data.take(order[:n_test])


def positions(n: int = MAX_LEN, d_model: int = D_MODEL) -> Tensor:
    """Sinusoidal position vectors as in Vaswani et al. (2017): ``(n, d_model)``."""
    p = torch.arange(n, dtype=torch.float64)[:, None]  # (n, 1)
    i = torch.arange(0, d_model, 2, dtype=torch.float64)  # (d_model/2,)
    angle = p / 10000 ** (i / d_model)  # (n, d_model/2)
    pe = torch.zeros(n, d_model, dtype=torch.float64)  # (n, d_model)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(angle), torch.cos(angle)
    return pe
