"""The training-step slider: every head's row for the verb of one sentence, step by step.

An anywidget (:class:`StepsView`) whose module, ``static/steps_view.mjs``, draws the view in
the reader's browser from the run's stored snapshots, sent as a trait; the test
oracle ``expected_steps`` (tests/oracles.py) recomputes its numbers by training again.
"""

from __future__ import annotations

import traitlets

from mha.training import SHOW, SHOW_VERB, Run, RunConfig
from mha.views.anywidgets import View
from mha.views.trained import position_labels


def _config(c: RunConfig) -> dict[str, object]:
    """The run's settings the view's root names (its data-* attributes)."""
    keys = ("h", "d_k", "seed", "steps", "lr", "batch", "init", "eps")
    return {k: getattr(c, k) for k in keys}


class StepsView(View, module="steps_view", link="steps"):
    """The training-step view (``static/steps_view.mjs``): every head's row for the verb of
    :data:`SHOW` at the saved ``step`` the reader picks. Inputs: the words and their
    ``labels`` (:func:`mha.views.trained.position_labels`), ``verb`` (its index); the run's
    ``config``; ``saved_steps`` and, for each, ``rows`` ``(h, n)`` and the held-out loss
    (``losses``): the stored snapshots, as data."""

    words = traitlets.List(traitlets.Unicode()).tag(sync=True)
    labels = traitlets.List(traitlets.Unicode()).tag(sync=True)
    verb = traitlets.Int(SHOW_VERB).tag(sync=True)
    config = traitlets.Dict().tag(sync=True)
    saved_steps = traitlets.List(traitlets.Int()).tag(sync=True)
    rows = traitlets.List().tag(sync=True)
    losses = traitlets.List(traitlets.Float()).tag(sync=True)
    step = traitlets.Int().tag(sync=True)


def steps_slider(run: Run) -> StepsView:
    """A slider over the run's snapshot steps, starting at the last; a widget for a page."""
    steps = sorted(run.snapshots)
    return StepsView(
        words=list(SHOW),
        labels=position_labels(SHOW),  # as the trained explorer: the (1st), the (2nd)
        config=_config(run.config),
        saved_steps=steps,
        rows=[run.snapshots[st].tolist() for st in steps],  # (S, h, n)
        losses=[float(run.test_loss[run.eval_steps == st][0]) for st in steps],
        step=steps[-1],
    )
