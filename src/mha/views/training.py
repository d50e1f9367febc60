"""The training-step slider: every head's row for the verb of one sentence, step by step."""

from __future__ import annotations

import ipywidgets as widgets

from mha.training import SHOW, SHOW_VERB, Run, RunConfig, cached_run
from mha.views.html import bars, head_box, note, number, view
from mha.views.switch import panel, register_expected, slider, switch


def _labels() -> list[str]:
    """The words of :data:`SHOW`, numbered where a word occurs twice."""
    return [f"{w} ({p})" if SHOW.count(w) > 1 else w for p, w in enumerate(SHOW)]


def steps_html(run: Run, step: int) -> str:
    """One view: every head's row ``(h, n)`` for the verb of :data:`SHOW` after ``step`` steps."""
    rows = run.snapshots[step]  # (h, n)
    c = run.config
    blocks = "".join(
        head_box(f"head {i + 1}: {SHOW[SHOW_VERB]} → …", bars(rows[i], _labels(), f"r{i}"))
        for i in range(rows.shape[0])
    )
    loss = number("loss", float(run.test_loss[run.eval_steps == step][0]), spec=".2g")
    body = note(f"after {step} steps; loss on the held-out sentences {loss}")
    body += f'<div class="mha-heads">{blocks}</div>'
    return view(
        "training-steps",
        body,
        h=c.h,
        d_k=c.d_k,
        seed=c.seed,
        steps=c.steps,
        lr=c.lr,
        batch=c.batch,
        init=c.init,
        eps=c.eps,
        step=step,
    )


@register_expected("training-steps")
def expected_steps(**attrs: str) -> dict[str, float]:
    """Numbers a ``training-steps`` view shows, recomputed by training again from its settings."""
    config = RunConfig(
        h=int(attrs["h"]),
        d_k=int(attrs["dk"]),
        seed=int(attrs["seed"]),
        steps=int(attrs["steps"]),
        lr=float(attrs["lr"]),
        batch=int(attrs["batch"]),
        init=attrs["init"],
        eps=float(attrs["eps"]),
    )
    run, step = cached_run(config), int(attrs["step"])
    rows = run.snapshots[step]  # (h, n)
    out = {f"r{i}-{j}": float(rows[i, j]) for i in range(rows.shape[0]) for j in range(len(SHOW))}
    out["loss"] = float(run.test_loss[run.eval_steps == step][0])
    return out


def steps_slider(run: Run) -> widgets.VBox:
    """A slider over the run's snapshot steps; every view is precomputed."""
    steps = sorted(run.snapshots)
    control = slider("training step", steps, steps[-1])
    views = switch([control], lambda key: steps_html(run, steps[key[0]]))
    return panel([control], views)
