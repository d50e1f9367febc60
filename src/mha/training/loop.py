"""Training runs: settings, the loop (Adam on batches of training sentences), what it records.

Everything is float64 and seeded: the same :class:`RunConfig` gives the same
numbers on every run. A run records the loss curve, the largest difference
between heads at every step, and snapshots of every head's row for the verb of
one fixed sentence.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import torch
from torch import Tensor
from tqdm.auto import tqdm

from mha.seeds import generator
from mha.training.data import D_MODEL, split
from mha.training.model import (
    HeadsModel,
    TiedValuesModel,
    head_spread,
    loss_fn,
    make_symmetric,
    perturb,
)
from mha.training.probe import evaluate, role_weights, show_rows


@dataclass(frozen=True)
class RunConfig:
    """Everything that determines a training run (and so its numbers)."""

    h: int = 3
    seed: int = 0
    steps: int = 400
    lr: float = 0.03
    batch: int = 128  # sentences per step, drawn from generator (order seed, 555)
    init: str = "random"  # "random", "symmetric" or "perturbed"
    eps: float = 1e-6  # size of the perturbation for init="perturbed"
    d_k: int | None = None  # width of each head; None: D_MODEL / h (set on creation)
    tied_dv: int | None = None  # None: every head its own values; a width: TiedValuesModel
    # Seeds the order in which training sentences are drawn; None: ``seed``, so that one
    # seed fixes both the starting weights and the sentence order (every stored run).
    order_seed: int | None = None

    def __post_init__(self) -> None:
        if self.d_k is None:
            if self.h < 1 or D_MODEL % self.h:
                raise ValueError(f"h = {self.h} must be a positive divisor of {D_MODEL}")
            object.__setattr__(self, "d_k", D_MODEL // self.h)


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
        test_both: ``(k,)`` at the same steps, the share of test sentences whose subject
            and object are both named right (from the same evaluation as ``test_loss``).
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
    test_both: Tensor
    snapshots: dict[int, Tensor] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)
    roles: Tensor | None = None
    roles_before: Tensor | None = None
    model: HeadsModel | None = None


def sentence_order_seed(config: RunConfig) -> int:
    """The seed of the order in which ``config``'s run draws its training sentences."""
    return config.seed if config.order_seed is None else config.order_seed


def build(config: RunConfig) -> HeadsModel:
    """The model a run starts from."""
    if config.tied_dv is not None:
        if config.init != "random":
            msg = f"tied-values heads start from init='random' only, not {config.init!r}"
            raise ValueError(msg)
        return TiedValuesModel(config.h, config.seed, d_k=config.d_k, d_v=config.tied_dv)
    model = HeadsModel(config.h, config.seed, d_k=config.d_k)
    if config.init in ("symmetric", "perturbed"):
        make_symmetric(model)
    if config.init == "perturbed":
        perturb(model, head=1 if config.h > 1 else 0, eps=config.eps, seed=config.seed)
    elif config.init not in ("random", "symmetric"):
        raise ValueError(f"init must be 'random', 'symmetric' or 'perturbed', got {config.init!r}")
    return model


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
    order = generator(sentence_order_seed(config), 555)  # which sentences each step sees
    losses, spreads, evals, snaps = [], [], {}, {}
    roles_before = role_weights(model, test_set)
    show = _show_progress() if progress is None else progress
    label = f"h={config.h} d_k={config.d_k} seed={config.seed} {config.init}"
    with _one_thread():
        for step in tqdm(range(config.steps + 1), desc=label, disable=not show, leave=False):
            snapshot = step in SNAPSHOT_STEPS or step == config.steps
            if snapshot:
                snaps[step] = show_rows(model)
            if snapshot or step % EVAL_EVERY == 0:
                evals[step] = evaluate(model, test_set)  # loss and accuracies
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
        test_loss=torch.tensor([e["loss"] for e in evals.values()], dtype=torch.float64),
        test_both=torch.tensor([e["both"] for e in evals.values()], dtype=torch.float64),
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


def with_steps(config: RunConfig, steps: int) -> RunConfig:
    """``config`` with a different number of steps."""
    return replace(config, steps=steps)
