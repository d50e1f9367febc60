"""What a trained model does: its accuracy, and where each head's verb row looks."""

from __future__ import annotations

import torch
from torch import Tensor

from mha.training.data import NOUNS, ROLES, SHOW, Sentences, encode
from mha.training.model import HeadsModel, loss_fn

# A run "solves" the task when both nouns come out right on at least this share of the
# held-out sentences.
SOLVED_AT = 0.99


def show_rows(model: HeadsModel) -> Tensor:
    """Every head's row for the verb of :data:`SHOW`: ``(h, MAX_LEN)``."""
    ids, v, _, _ = encode(SHOW)
    one = Sentences(*(torch.tensor([x]) for x in (ids, v, 0, 0, 0, 0)))
    with torch.no_grad():
        _, weights = model(one)  # (1, h, n, n)
    return weights[0, :, v].clone()  # (h, n)


def verb_noun_weights(model: HeadsModel, batch: Sentences) -> tuple[Tensor, Tensor]:
    """The weight each head's verb row puts on the subject and on the object.

    Returns:
        ``(subj, obj)``, each ``(N, h)`` for the ``N`` sentences of ``batch``.
    """
    with torch.no_grad():
        _, weights = model(batch)  # (N, h, n, n)
    idx = torch.arange(len(batch))  # (N,)
    rows = weights[idx, :, batch.verb]  # (N, h, n)
    return rows[idx, :, batch.subject_pos], rows[idx, :, batch.object_pos]  # (N, h) each


def role_weights(model: HeadsModel, batch: Sentences) -> Tensor:
    """Mean weight of each head's verb row on subject, object, rest: ``(h, 3)``."""
    subj, obj = verb_noun_weights(model, batch)  # (N, h) each
    return torch.stack([subj, obj, 1 - subj - obj], dim=-1).mean(0)  # (h, 3)


def noun_preference(model: HeadsModel, batch: Sentences) -> Tensor:
    """How much each head's verb row weighs each noun, whatever its role: ``(h, len(NOUNS))``.

    Entry ``[i, k]`` is the mean weight head ``i`` gives the position of noun
    ``k``, over every sentence of ``batch`` that contains noun ``k`` (as subject
    or as object).
    """
    subj, obj = verb_noun_weights(model, batch)  # (N, h) each
    k = len(NOUNS)
    as_subj = torch.nn.functional.one_hot(batch.subject, k).double()  # (N, nouns)
    as_obj = torch.nn.functional.one_hot(batch.object, k).double()  # (N, nouns)
    total = subj.T @ as_subj + obj.T @ as_obj  # (h, nouns)
    return total / (as_subj.sum(0) + as_obj.sum(0))  # (h, nouns)


def noun_choice(model: HeadsModel, batch: Sentences) -> tuple[Tensor, Tensor]:
    """How each head chooses between the two nouns of a sentence.

    Returns:
        ``(decisive, ranked)``, each ``(h,)``: ``decisive[i]`` is the mean share of
        head ``i``'s noun weight that goes to the noun it weighs more (1/2 = an
        even split, 1 = all on one noun); ``ranked[i]`` is the fraction of
        sentences in which that noun is the one with the higher
        :func:`noun_preference`, i.e. how well one fixed ranking of the nouns
        predicts the head's choice.
    """
    subj, obj = verb_noun_weights(model, batch)  # (N, h) each
    decisive = (torch.maximum(subj, obj) / (subj + obj)).mean(0)  # (h,)
    pref = noun_preference(model, batch)  # (h, nouns)
    ranked_subj = pref[:, batch.subject].T > pref[:, batch.object].T  # (N, h)
    ranked = ((subj > obj) == ranked_subj).double().mean(0)  # (h,)
    return decisive, ranked


def evaluate(model: HeadsModel, batch: Sentences) -> dict[str, float]:
    """Loss and subject / object / both-right accuracy on ``batch``."""
    with torch.no_grad():
        logits, _ = model(batch)  # (N, 2, nouns)
        guess = logits.argmax(-1)  # (N, 2)
        s_ok, o_ok = guess[:, 0] == batch.subject, guess[:, 1] == batch.object  # (N,) each
        return {
            "loss": float(loss_fn(logits, batch)),
            "subject": float(s_ok.double().mean()),
            "object": float(o_ok.double().mean()),
            "both": float((s_ok & o_ok).double().mean()),
        }


def role_of(roles: Tensor) -> list[str]:
    """For ``(h, 3)`` role weights, the role each head weighs most."""
    return [ROLES[int(i)] for i in roles.argmax(-1)]
