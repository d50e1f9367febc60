"""Chapter 1's exercise: an anywidget in which the reader sets one head's query and key
weights, and the page says which goals *chased*'s row meets.

The head and the goals are :mod:`mha.exercise`'s: one column (``d_k = 1``), ``W^Q`` on the
*verb* feature and ``W^K`` on the five named features, each a range control over
:data:`mha.exercise.VALUES`. The view (``static/exercise_view.mjs``) computes *chased*'s
query, every word's key, *chased*'s scores and row in the reader's browser with
``static/mha_views.mjs``, and lists the goals with their status in words ("met", "not met"),
announced to screen readers when one changes. The test oracle ``expected_exercise``
(tests/oracles.py) recomputes every number it shows, and each goal's status, in torch
(:func:`mha.attention.single_head`), from the view's ``data-*`` attributes.
book/_ext/static_widgets.py says how the site loads the module, and draws its first view in
Node.
"""

from __future__ import annotations

import traitlets

from mha import exercise, toy
from mha.views.anywidgets import View


class ExerciseView(View, module="exercise_view", link="exercise"):
    """The exercise view. Inputs: X ``(n, d_model)``, its word labels, the named
    ``features`` (X's first columns), the controls' ``values``, the ``goals``
    (``[{words, at_least}]``), the query ``word``; the reader's settings: ``q_verb`` and
    ``k`` (five weights); ``link``, the view's name in the URL fragment."""

    X = traitlets.List().tag(sync=True)
    words = traitlets.List(traitlets.Unicode()).tag(sync=True)
    features = traitlets.List(traitlets.Unicode()).tag(sync=True)
    values = traitlets.List(traitlets.Float()).tag(sync=True)
    goals = traitlets.List().tag(sync=True)
    word = traitlets.Int(toy.CHASED).tag(sync=True)
    q_verb = traitlets.Float(exercise.START).tag(sync=True)
    k = traitlets.List(traitlets.Float(), [exercise.START] * exercise.N_FEATURES).tag(sync=True)


def exercise_view(setting: exercise.Setting | None = None, link: str | None = None) -> ExerciseView:
    """The exercise over the toy sentence, starting at ``setting`` (default: every weight
    :data:`mha.exercise.START`); ``link``: its name in permalinks (default ``exercise-N``)."""
    s = setting or exercise.Setting(exercise.START, (exercise.START,) * exercise.N_FEATURES)
    if s.q_verb not in exercise.VALUES or not set(s.k) <= set(exercise.VALUES):
        raise ValueError(f"setting {s}: every weight must be among {exercise.VALUES}")
    return ExerciseView(
        X=toy.X.tolist(),  # (5, 9)
        words=list(toy.WORD_LABELS),
        features=list(exercise.FEATURES),
        values=list(exercise.VALUES),
        goals=[{"words": list(g.words), "at_least": g.at_least} for g in exercise.GOALS],
        q_verb=s.q_verb,
        k=list(s.k),
        link=link,
    )
