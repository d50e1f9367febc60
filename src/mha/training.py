"""Train real heads on a toy task, small enough to run in the page.

The task: sentences shaped like the running example, ``the ADJ? NOUN VERB the
ADJ? NOUN``, and at the verb the model must name both its subject and its
object. The model is one multi-head attention layer (:func:`mha.multi_head_attention`)
over word embeddings plus fixed sinusoidal positions, and a linear read-out of
the verb's output row only. There is no residual connection, so everything the
read-out learns about the nouns reached the verb through attention, and the
only way to tell subject from object is where the words stand.

Everything is float64 and seeded: the same :class:`RunConfig` gives the same
numbers on every run. A training run records what the chapter draws: the loss
curve, the largest difference between heads at every step, and snapshots of
every head's row for the verb of one fixed sentence.
"""

from __future__ import annotations

import contextlib
import functools
import html
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import torch
from torch import Tensor
from tqdm.auto import tqdm

from mha import render
from mha import widgets as mw
from mha.attention import multi_head_attention

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


def encode(words: list[str] | tuple[str, ...]) -> tuple[list[int], int, int, int]:
    """Word ids of one sentence padded to ``MAX_LEN``, and its verb, subject, object positions."""
    if len(words) > MAX_LEN:
        raise ValueError(f"a sentence has at most {MAX_LEN} words, got {len(words)}")
    unknown = [w for w in words if w not in _WORD]
    if unknown:
        raise ValueError(f"unknown words {unknown}; the vocabulary is {VOCAB}")
    verbs = [p for p, w in enumerate(words) if w in VERBS]
    if len(verbs) != 1:
        raise ValueError(f"a sentence needs exactly one verb, got {words}")
    v = verbs[0]
    nouns = [p for p, w in enumerate(words) if w in NOUNS]
    before, after = [p for p in nouns if p < v], [p for p in nouns if p > v]
    if len(before) != 1 or len(after) != 1:
        raise ValueError(f"a sentence needs one noun before the verb and one after, got {words}")
    ids = [_WORD[w] for w in words] + [_WORD[PAD]] * (MAX_LEN - len(words))
    return ids, v, before[0], after[0]


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
    g = torch.Generator().manual_seed(_DATA_SEED)
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


# -------------------------------------------------------------------------- model


def _gen(*key: int) -> torch.Generator:
    """A generator seeded from small ints, e.g. ``(seed, head)``."""
    return torch.Generator().manual_seed(sum(k * 1_000_003**j for j, k in enumerate(key)))


class HeadsModel(torch.nn.Module):
    """Embeddings + positions -> multi-head attention -> linear read-out at the verb.

    Parameters (``h`` heads of width ``d_k = d_model / h``):
        embed ``(len(VOCAB), d_model)``; W_q, W_k, W_v ``(h, d_model, d_k)``;
        W_o ``(h*d_k, d_model)``; read ``(d_model, 2*len(NOUNS))``; bias ``(2*len(NOUNS),)``.

    Head ``i`` is drawn from its own generator ``(seed, i)``, and the embedding
    and read-out from generators that do not depend on ``h``, so models with
    different ``h`` but the same seed start from the same words and read-out.
    """

    def __init__(self, h: int, seed: int = 0, d_model: int = D_MODEL) -> None:
        super().__init__()
        if h < 1 or d_model % h:
            raise ValueError(f"h = {h} must be a positive divisor of d_model = {d_model}")
        d_k, f64 = d_model // h, torch.float64
        self.h, self.d_k = h, d_k

        def normal(g: torch.Generator, *shape: int, std: float) -> torch.nn.Parameter:
            return torch.nn.Parameter(std * torch.randn(*shape, generator=g, dtype=f64))

        self.embed = normal(_gen(seed, 100), len(VOCAB), d_model, std=1.0)
        # Head i's W_q, W_k, W_v and its block of W_o (transposed), from generator (seed, i).
        per_head = [
            torch.randn(4, d_model, d_k, generator=_gen(seed, i), dtype=f64) for i in range(h)
        ]
        W = torch.stack(per_head, dim=1) / math.sqrt(d_model)  # (4, h, d_model, d_k)
        self.W_q = torch.nn.Parameter(W[0].clone())  # (h, d_model, d_k)
        self.W_k = torch.nn.Parameter(W[1].clone())  # (h, d_model, d_k)
        self.W_v = torch.nn.Parameter(W[2].clone())  # (h, d_model, d_k)
        W_o = W[3].transpose(1, 2).reshape(h * d_k, d_model)  # (h*d_k, d_model)
        self.W_o = torch.nn.Parameter(W_o.clone())
        self.read = normal(_gen(seed, 101), d_model, 2 * len(NOUNS), std=d_model**-0.5)
        self.bias = torch.nn.Parameter(torch.zeros(2 * len(NOUNS), dtype=f64))
        self.register_buffer("pe", positions(MAX_LEN, d_model))  # (MAX_LEN, d_model)

    def forward(self, batch: Sentences) -> tuple[Tensor, Tensor]:
        """Returns ``(logits, weights)``: ``(N, 2, len(NOUNS))`` subject/object
        scores, and the attention weights ``(N, h, MAX_LEN, MAX_LEN)``."""
        X = self.embed[batch.tokens] + self.pe  # (N, n, d_model)
        out, weights = multi_head_attention(X, self.W_q, self.W_k, self.W_v, self.W_o)
        at_verb = out[torch.arange(len(batch)), batch.verb]  # (N, d_model), the verb's row only
        logits = at_verb @ self.read + self.bias  # (N, 2*nouns)
        return logits.view(-1, 2, len(NOUNS)), weights  # (N, 2, nouns), (N, h, n, n)

    def head_blocks(self) -> Tensor:
        """Every parameter that belongs to one head, head by head: ``(h, 4, d_model, d_k)``.

        Block ``i`` holds head ``i``'s W_q, W_k, W_v and its rows of W_o (transposed).
        """
        W_o = self.W_o.view(self.h, self.d_k, -1).transpose(1, 2)  # (h, d_model, d_k)
        blocks = torch.stack([self.W_q, self.W_k, self.W_v, W_o], dim=1)  # (h, 4, d_model, d_k)
        return blocks.detach()


def head_spread(model: HeadsModel) -> float:
    """The largest difference between any head's parameters and head 0's (0 if h = 1)."""
    with torch.no_grad():
        blocks = model.head_blocks()  # (h, 4, d_model, d_k)
        return float((blocks - blocks[:1]).abs().max())


def make_symmetric(model: HeadsModel) -> HeadsModel:
    """Copy head 0 into every head: its three projections and its block of rows of W_o."""
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
    g, d_k = _gen(seed, 999), model.d_k
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


# ----------------------------------------------------------------------- training


@dataclass(frozen=True)
class RunConfig:
    """Everything that determines a training run (and so its numbers)."""

    h: int = 3
    seed: int = 0
    steps: int = 400
    lr: float = 0.03
    batch: int = 128  # sentences per step, drawn from generator (seed, 555)
    init: str = "random"  # "random", "symmetric" or "perturbed"
    eps: float = 1e-6  # size of the perturbation for init="perturbed"


SNAPSHOT_STEPS: tuple[int, ...] = (0, 5, 10, 20, 30, 40, 60, 80, 100, 150, 200, 300, 400)
EVAL_EVERY = 10  # steps between two measurements of the test loss


@dataclass
class Run:
    """What one training run recorded.

    Attributes:
        config: the run's settings.
        loss: ``(steps,)`` loss on each step's batch of training sentences.
        spread: ``(steps + 1,)`` :func:`head_spread` before each step and after the last.
        eval_steps, test_loss: ``(k,)`` every ``EVAL_EVERY`` steps (and at the end),
            the loss on the test sentences.
        snapshots: ``{step: (h, MAX_LEN)}`` every head's row for the verb of :data:`SHOW`.
        metrics: final loss and subject/object accuracy on the training and test sentences.
        roles: ``(h, 3)`` mean weight each head's verb row puts on subject, object and
            everything else, over the test sentences, after training.
        roles_before: the same before training.
        model: the trained model.
    """

    config: RunConfig
    loss: Tensor
    spread: Tensor
    eval_steps: Tensor
    test_loss: Tensor
    snapshots: dict[int, Tensor] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)
    roles: Tensor | None = None
    roles_before: Tensor | None = None
    model: HeadsModel | None = None


def build(config: RunConfig) -> HeadsModel:
    """The model a run starts from."""
    model = HeadsModel(config.h, config.seed)
    if config.init in ("symmetric", "perturbed"):
        make_symmetric(model)
    if config.init == "perturbed":
        perturb(model, head=1 if config.h > 1 else 0, eps=config.eps, seed=config.seed)
    elif config.init not in ("random", "symmetric"):
        raise ValueError(f"init must be 'random', 'symmetric' or 'perturbed', got {config.init!r}")
    return model


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


def _show_progress() -> bool:
    """Progress bars only where a reader watches: a kernel started by Jupyter's server.

    JupyterLab and Notebook start kernels with ``JPY_SESSION_NAME`` set; the
    book's build (nbclient) and pytest do not, so their bars stay silent.
    ``MHA_PROGRESS=1`` or ``=0`` overrides.
    """
    flag = os.environ.get("MHA_PROGRESS")
    return flag == "1" if flag in ("0", "1") else "JPY_SESSION_NAME" in os.environ


@contextlib.contextmanager
def _one_thread() -> Iterator[None]:
    """Run torch on one thread: faster for tensors this small, and the same sums every run."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def train(config: RunConfig, progress: bool | None = None, keep_model: bool = True) -> Run:
    """Train one model with Adam on batches of training sentences.

    Args:
        config: the run's settings; equal configs give equal runs.
        progress: show a progress bar (default: only in a live Jupyter kernel).
        keep_model: keep the trained model in ``Run.model``.
    """
    train_set, test_set = split()
    model = build(config)
    opt = torch.optim.Adam(model.parameters(), lr=config.lr, foreach=True)
    order = _gen(config.seed, 555)  # which sentences each step sees
    losses, spreads, evals, snaps = [], [], {}, {}
    roles_before = role_weights(model, test_set)
    show = _show_progress() if progress is None else progress
    label = f"h={config.h} seed={config.seed} {config.init}"
    with _one_thread():
        for step in tqdm(range(config.steps + 1), desc=label, disable=not show, leave=False):
            snapshot = step in SNAPSHOT_STEPS or step == config.steps
            if snapshot:
                snaps[step] = show_rows(model)
            if snapshot or step % EVAL_EVERY == 0:
                evals[step] = evaluate(model, test_set)["loss"]
            spreads.append(head_spread(model))
            if step == config.steps:
                break  # after the last step we only measure
            batch = train_set.take(torch.randint(len(train_set), (config.batch,), generator=order))
            logits, _ = model(batch)  # (batch, 2, nouns)
            loss = loss_fn(logits, batch)
            losses.append(loss.item())
            opt.zero_grad()
            loss.backward()
            opt.step()
        metrics = {f"train_{k}": v for k, v in evaluate(model, train_set).items()}
        metrics |= {f"test_{k}": v for k, v in evaluate(model, test_set).items()}
        roles = role_weights(model, test_set)
    return Run(
        config=config,
        loss=torch.tensor(losses, dtype=torch.float64),
        spread=torch.tensor(spreads, dtype=torch.float64),
        eval_steps=torch.tensor(list(evals)),
        test_loss=torch.tensor(list(evals.values()), dtype=torch.float64),
        snapshots=snaps,
        metrics=metrics,
        roles=roles,
        roles_before=roles_before,
        model=model if keep_model else None,
    )


@functools.lru_cache(maxsize=8)
def cached_run(config: RunConfig) -> Run:
    """:func:`train` once per config per process (runs are deterministic)."""
    return train(config, progress=False, keep_model=False)


def role_of(roles: Tensor) -> list[str]:
    """For ``(h, 3)`` role weights, the role each head weighs most."""
    return [ROLES[int(i)] for i in roles.argmax(-1)]


# ------------------------------------------------------------ slider over training


def steps_html(run: Run, step: int) -> str:
    """One view: every head's row for the verb of :data:`SHOW` at ``step``."""
    rows = run.snapshots[step]  # (h, n)
    c = run.config
    words = [f"{w} ({p})" if SHOW.count(w) > 1 else w for p, w in enumerate(SHOW)]
    blocks = "".join(
        f'<div class="mha-head"><h4>head {i + 1}: {html.escape(SHOW[SHOW_VERB])} → …</h4>'
        f"{render.bars(rows[i], words, f'r{i}')}</div>"
        for i in range(rows.shape[0])
    )
    loss = render.number("loss", float(run.test_loss[run.eval_steps == step][0]), 3)
    return (
        f'<div class="mha-view" data-view="training-steps" data-h="{c.h}" '
        f'data-seed="{c.seed}" data-steps="{c.steps}" data-lr="{c.lr}" data-init="{c.init}" '
        f'data-batch="{c.batch}" '
        f'data-step="{step}"><p class="mha-note">after {step} steps; loss on the test sentences '
        f"{loss}</p>"
        f'<div class="mha-heads">{blocks}</div></div>'
    )


@mw.register_expected("training-steps")
def expected_steps(**attrs: str) -> dict[str, float]:
    """Numbers a ``training-steps`` view shows, recomputed by re-running the training."""
    config = RunConfig(
        h=int(attrs["h"]),
        seed=int(attrs["seed"]),
        steps=int(attrs["steps"]),
        lr=float(attrs["lr"]),
        batch=int(attrs["batch"]),
        init=attrs.get("init", "random"),
    )
    run, step = cached_run(config), int(attrs["step"])
    rows = run.snapshots[step]  # (h, n)
    out = {f"r{i}-{j}": float(rows[i, j]) for i in range(rows.shape[0]) for j in range(MAX_LEN)}
    out["loss"] = float(run.test_loss[run.eval_steps == step][0])
    return out


def steps_slider(run: Run):  # -> ipywidgets.VBox
    """A slider over the run's snapshot steps; every view is precomputed."""
    import ipywidgets as widgets

    steps = sorted(run.snapshots)
    control = mw.slider("training step", steps, steps[-1])
    views = mw.switch([control], lambda key: steps_html(run, steps[key[0]]))
    return widgets.VBox([widgets.HTML(render.STYLE), control, views])


def with_steps(config: RunConfig, steps: int) -> RunConfig:
    """``config`` with a different number of steps."""
    return replace(config, steps=steps)


# ------------------------------------------------------------------------- tables


def results_table(runs: list[Run]) -> str:
    """A Markdown table of the final loss and accuracy of each run."""
    lines = [
        "| h | d_k | seed | train loss | test loss | subject acc. | object acc. | both right |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for run in runs:
        m, c = run.metrics, run.config
        lines.append(
            f"| {c.h} | {D_MODEL // c.h} | {c.seed} | {m['train_loss']:.4f} | "
            f"{m['test_loss']:.4f} | {m['test_subject']:.3f} | {m['test_object']:.3f} | "
            f"{m['test_both']:.3f} |"
        )
    return "\n".join(lines)


def roles_table(runs: list[Run]) -> str:
    """A Markdown table: per run, the role each head's verb row weighs most, and how much.

    Each cell reads ``role (subject / object / other weight)``, averaged over the
    test sentences.
    """
    h = runs[0].config.h
    head_cols = " | ".join(f"head {i + 1}" for i in range(h))
    lines = [f"| seed | {head_cols} |", "|---:|" + ":---|" * h]
    for run in runs:
        assert run.roles is not None
        cells = [
            f"**{role}** ({' / '.join(f'{x:.2f}' for x in run.roles[i].tolist())})"
            for i, role in enumerate(role_of(run.roles))
        ]
        lines.append(f"| {run.config.seed} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
