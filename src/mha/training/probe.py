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


def summed_subject_share(model: HeadsModel, batch: Sentences) -> Tensor:
    """The subject's share of the noun weight in the heads' rows ADDED: ``(N,)``.

    ``sum_i subj_i / sum_i (subj_i + obj_i)`` over heads ``i``, for the verb of each sentence:
    the proportion in which a layer that adds its heads' averages in shared columns
    (:class:`~mha.training.model.TiedValuesModel`) delivers the two nouns. 1/2 is even.
    """
    subj, obj = verb_noun_weights(model, batch)  # (N, h) each
    return subj.sum(-1) / (subj + obj).sum(-1)  # (N,)


def noun_preference(model: HeadsModel, batch: Sentences) -> Tensor:
    """How much each head's verb row weighs each noun, whatever its role: ``(h, len(NOUNS))``.

    Entry ``[i, k]`` is the mean weight head ``i`` gives the position of noun
    ``k``, over every sentence of ``batch`` that contains noun ``k`` (as subject
    or as object).
    """
    return _preference(*verb_noun_weights(model, batch), batch)


def _preference(subj: Tensor, obj: Tensor, batch: Sentences) -> Tensor:
    """:func:`noun_preference` from the verb rows' weights ``subj``, ``obj`` ``(N, h)`` each."""
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
    return _choice(*verb_noun_weights(model, batch), batch)


def _choice(subj: Tensor, obj: Tensor, batch: Sentences) -> tuple[Tensor, Tensor]:
    """:func:`noun_choice` from the verb rows' weights ``subj``, ``obj`` ``(N, h)`` each."""
    decisive = (torch.maximum(subj, obj) / (subj + obj)).mean(0)  # (h,)
    pref = _preference(subj, obj, batch)  # (h, nouns)
    ranked_subj = pref[:, batch.subject].T > pref[:, batch.object].T  # (N, h)
    ranked = ((subj > obj) == ranked_subj).double().mean(0)  # (h,)
    return decisive, ranked


def evaluate(model: HeadsModel, batch: Sentences) -> dict[str, float]:
    """Loss and subject / object / both-right accuracy on ``batch``."""
    with torch.no_grad():
        logits, _ = model(batch)  # (N, 2, nouns)
        return {"loss": float(loss_fn(logits, batch)), **accuracies(logits, batch)}


def accuracies(logits: Tensor, batch: Sentences) -> dict[str, float]:
    """Subject, object and both-right shares of ``batch`` for scores ``(N, 2, nouns)``."""
    guess = logits.argmax(-1)  # (N, 2)
    s_ok, o_ok = guess[:, 0] == batch.subject, guess[:, 1] == batch.object  # (N,) each
    return {
        "subject": float(s_ok.double().mean()),
        "object": float(o_ok.double().mean()),
        "both": both_right(logits, batch),
    }


def both_right(logits: Tensor, batch: Sentences) -> float:
    """Share of ``batch`` whose subject and object scores ``(N, 2, nouns)`` both name the right
    noun."""
    guess = logits.argmax(-1)  # (N, 2)
    return float(((guess[:, 0] == batch.subject) & (guess[:, 1] == batch.object)).double().mean())


def role_of(roles: Tensor) -> list[str]:
    """For ``(h, 3)`` role weights, the role each head weighs most."""
    return [ROLES[int(i)] for i in roles.argmax(-1)]


# How a head chooses, averaged over sentences (see :func:`head_kinds`).
ROLE_HEAD = 0.9  # share of a head's noun weight on one role, for a subject or object head
DECISIVE = 0.9  # share of a head's noun weight on the noun it prefers, for a noun head
RANKED = 0.85  # how often one fixed ranking of the nouns predicts that choice


def head_kinds(model: HeadsModel, batch: Sentences) -> list[str]:
    """What each head's verb row looks for, one word per head, from its averages over ``batch``.

    * ``"subject"`` / ``"object"``: on average at least :data:`ROLE_HEAD` of the weight
      it gives the two nouns goes to that role;
    * ``"noun"``: otherwise, if it gives on average at least :data:`DECISIVE` of its noun
      weight to one of the two nouns, and one fixed ranking of the nouns predicts which
      one in at least :data:`RANKED` of the sentences (:func:`noun_choice`);
    * ``"mixed"``: neither.
    """
    subj, obj = verb_noun_weights(model, batch)  # (N, h) each: one pass serves every measure
    share = (subj / (subj + obj)).mean(0)  # (h,): the subject's share of the noun weight
    decisive, ranked = _choice(subj, obj, batch)  # (h,) each
    kinds = []
    for s, d, r in zip(share.tolist(), decisive.tolist(), ranked.tolist(), strict=True):
        if s >= ROLE_HEAD or s <= 1 - ROLE_HEAD:
            kinds.append("subject" if s >= ROLE_HEAD else "object")
        else:
            kinds.append("noun" if d >= DECISIVE and r >= RANKED else "mixed")
    return kinds


def readout_with_rows(model: HeadsModel, batch: Sentences, rows: Tensor) -> Tensor:
    """The read-out's scores ``(N, 2, nouns)`` when the verb's rows are ``rows`` ``(N, h, n)``.

    The verb's output is rebuilt from the given rows and the model's own values
    (:meth:`~mha.training.model.HeadsModel.deliver`: ``sum_j rows[:, i, j] * V_i[j]`` per
    head ``i``, then ``W_o``), then the read-out, so that the rows can be edited and the
    effect on the answer measured.
    """
    with torch.no_grad():
        X = model.embed[batch.tokens] + model.pe  # (N, n, d_model)
        out = model.deliver(X, rows)  # (N, d_model)
        return (out @ model.read + model.bias).view(len(batch), 2, len(NOUNS))


def _read(model: HeadsModel, rows: Tensor, V: Tensor) -> Tensor:
    """Scores ``(N, 2, nouns)`` from the verb's rows ``(N, h, n)`` and values ``(N, h, n, d_k)``."""
    return read_heads(model, torch.einsum("bhn,bhnk->bhk", rows, V))  # (N, 2, nouns)


def read_heads(model: HeadsModel, heads: Tensor) -> Tensor:
    """The read-out's scores ``(N, 2, nouns)`` from each head's average at the verb
    ``(N, h, d_k)``: side by side, times ``W_o``, then the read-out."""
    out = heads.flatten(1) @ model.W_o  # (N, d_model)
    return (out @ model.read + model.bias).view(len(heads), 2, len(NOUNS))  # (N, 2, nouns)


def scores_without_position(model: HeadsModel, batch: Sentences, head: int) -> Tensor:
    """The read-out's scores ``(N, 2, nouns)`` when one head's values lose where words stand.

    Every attention row stays as the model computes it (queries and keys still see the
    positions). Only in the values of head ``head`` is each word's position vector
    ``P_j`` replaced by the mean of all position vectors, so that the head still passes
    on *which* words it weighs, but no longer *where* they stood.
    """
    if not 0 <= head < model.h:
        raise ValueError(f"head {head} does not exist in a model with h = {model.h}")
    with torch.no_grad():
        _, weights = model(batch)  # (N, h, n, n)
        rows = weights[torch.arange(len(batch)), :, batch.verb]  # (N, h, n)
        E = model.embed[batch.tokens]  # (N, n, d_model)
        V = torch.einsum("bnd,hdk->bhnk", E + model.pe, model.W_v)  # (N, h, n, d_k)
        mean_pe = model.pe.mean(0)  # (d_model,)
        V[:, head] = (E + mean_pe) @ model.W_v[head]  # (N, n, d_k)
        return _read(model, rows, V)


def verb_output(model: HeadsModel, batch: Sentences) -> Tensor:
    """The attention layer's output row at the verb, what the read-out reads: ``(N, d_model)``."""
    with torch.no_grad():
        out, _ = model.attend(batch.tokens)  # (N, n, d_model)
    return out[torch.arange(len(batch)), batch.verb]  # (N, d_model)


def refit_readout(model: HeadsModel, batch: Sentences, iterations: int = 200) -> HeadsModel:
    """A copy of ``model`` whose read-out ``(R, b)`` is trained again on ``batch``, alone.

    The attention layer is frozen, so the verb's output rows are fixed numbers, and the
    loss is convex in ``R`` and ``b``: L-BFGS, started from the model's own read-out,
    lowers it for ``iterations`` iterations at most (it can only go down).
    """
    copy = type(model)(model.h, d_k=model.d_k)
    copy.load_state_dict(model.state_dict())
    feats = verb_output(model, batch)  # (N, d_model)
    read = copy.read.detach().clone().requires_grad_()  # (d_model, 2*nouns)
    bias = copy.bias.detach().clone().requires_grad_()  # (2*nouns,)
    opt = torch.optim.LBFGS([read, bias], max_iter=iterations, line_search_fn="strong_wolfe")

    def closure() -> Tensor:
        opt.zero_grad()
        logits = (feats @ read + bias).view(len(batch), 2, len(NOUNS))  # (N, 2, nouns)
        loss = loss_fn(logits, batch)
        loss.backward()
        return loss

    opt.step(closure)
    with torch.no_grad():
        copy.read.copy_(read)
        copy.bias.copy_(bias)
    return copy


def edited_rows(model: HeadsModel, batch: Sentences, edit: str) -> Tensor:
    """The verb's rows ``(N, h, n)``, with the subject's and the object's weights edited.

    ``edit``: ``"none"``; ``"swap"`` (each head gives the subject the object's weight and
    the object the subject's); ``"even"`` (each head gives both their mean); ``"pool"``
    (every head gets the heads' mean row, so no head's row differs from another's). Every
    row still sums to one; under ``"swap"`` and ``"even"`` every other word keeps its weight.
    """
    with torch.no_grad():
        _, weights = model(batch)  # (N, h, n, n)
    idx = torch.arange(len(batch))  # (N,)
    rows = weights[idx, :, batch.verb].clone()  # (N, h, n)
    if edit == "pool":
        return rows.mean(dim=1, keepdim=True).expand_as(rows).clone()  # (N, h, n)
    s, o = rows[idx, :, batch.subject_pos], rows[idx, :, batch.object_pos]  # (N, h) each
    if edit == "swap":
        s, o = o, s
    elif edit == "even":
        s = o = (s + o) / 2
    elif edit != "none":
        raise ValueError(f"edit must be 'none', 'swap', 'even' or 'pool', got {edit!r}")
    rows[idx, :, batch.subject_pos], rows[idx, :, batch.object_pos] = s, o
    return rows


def edited_both_right(model: HeadsModel, batch: Sentences, edit: str) -> float:
    """Share of ``batch`` answered right (both nouns) when the verb's rows are edited by
    :func:`edited_rows` (``"none"``, ``"swap"``, ``"even"`` or ``"pool"``) and read out by
    :func:`readout_with_rows`."""
    return both_right(readout_with_rows(model, batch, edited_rows(model, batch, edit)), batch)
