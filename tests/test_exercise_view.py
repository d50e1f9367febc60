"""Chapter 1's exercise view (mha.views.exercise_view), its module run in Node.

The widget's ES module, as it travels in the widget state (``_esm``: exercise_view.mjs with
mha_views.mjs and view_html.mjs inlined), computes *chased*'s query, keys, scores and row of
weights (``exerciseRow``) and says which goals the row meets. Here, for many settings of the
six controls (random ones, the corners, the solutions of mha.exercise.search), its row must
equal PyTorch's (mha.exercise.chased_row: mha.attention.single_head on weights built in
torch) within 1e-12, and every number and goal status the drawn view shows must equal
expected_exercise's (torch). A broken formula in the module (no softmax, a wrong feature, a
missing key weight, a sign) changes the row by far more than 1e-12 at these settings. The
browser side is tests/browser/test_exercise_view.py.
"""

from __future__ import annotations

import itertools
import json
import random
import subprocess
from pathlib import Path

import pytest
import torch

from mha import exercise, toy
from mha.views.exercise_view import exercise_view
from tests.browser import expected
from tests.test_heads_view import call
from tests.test_mask_view import draw

MODULE = "exercise_view.mjs"
VIEW_LINK = Path(__file__).parents[1] / "src/mha/views/static/view_link.mjs"
_pick = random.Random(1)


def _settings() -> list[exercise.Setting]:
    V = exercise.VALUES
    rand = [
        exercise.Setting(_pick.choice(V), tuple(_pick.choice(V) for _ in range(5)))
        for _ in range(300)
    ]
    corners = [
        exercise.Setting(q, k)
        for q in (V[0], V[-1])
        for k in itertools.product((V[0], V[-1]), repeat=5)
    ]
    one_each = [  # one weight at a time: each feature's effect on its own
        exercise.Setting(1.0, tuple(v if f == i else 0.0 for f in range(5)))
        for i in range(5)
        for v in (-2.0, 2.5)
    ]
    found = [s.nearest for s in exercise.search() if s.nearest]
    return rand + corners + one_each + found


def _state(base: dict, s: exercise.Setting) -> dict:
    return {**base, "q_verb": s.q_verb, "k": list(s.k)}


@pytest.mark.slow
def test_the_modules_row_is_torchs_for_many_settings():
    base = exercise_view().get_state()
    settings = _settings()
    got = call("exerciseRow", [[_state(base, s)] for s in settings], MODULE)
    worst = 0.0
    for s, r in zip(settings, got, strict=True):
        want = exercise.chased_row(s)  # (5,) torch
        W_q, W_k = exercise.head(s)  # (9, 1) each
        keys = (toy.X @ W_k)[:, 0]  # (5,)
        q = float((toy.X @ W_q)[toy.CHASED, 0])
        worst = max(worst, float((torch.tensor(r["row"], dtype=torch.float64) - want).abs().max()))
        assert r["q"] == q and torch.allclose(
            torch.tensor(r["keys"], dtype=torch.float64), keys, atol=1e-15
        )
        assert torch.allclose(torch.tensor(r["scores"], dtype=torch.float64), q * keys, atol=1e-13)
    assert worst <= 1e-12, worst
    rows = torch.tensor([r["row"] for r in got], dtype=torch.float64)  # (S, 5)
    assert rows[:, toy.MOUSE].max() > 0.99 and rows[:, toy.MOUSE].min() < 0.01  # settings vary


@pytest.mark.slow
def test_the_goals_status_is_torchs_and_each_goal_is_seen_met_and_not():
    base = exercise_view().get_state()
    settings = _settings()
    hook, seen = expected.hook(), set()
    for s, html in zip(settings, draw([_state(base, s) for s in settings]), strict=True):
        ((attrs, cells),) = expected.parse_views(html)
        assert (
            attrs["qverb"] == str(s.q_verb).removesuffix(".0") or float(attrs["qverb"]) == s.q_verb
        )
        want = hook(attrs)
        assert (
            cells.keys() == want.keys() and expected.compare("exercise", attrs, cells, want) == []
        )
        row = exercise.chased_row(s)  # (5,)
        for i, g in enumerate(exercise.GOALS):
            met = bool((row[list(g.words)] >= g.at_least).all())  # by hand, not exercise.met
            assert cells[f"goal-{i}"] == ("met" if met else "not met"), (s, i)
            seen.add((i, met))
        status = " ".join(f"Goal {i + 1} {cells[f'goal-{i}']}." for i in range(len(exercise.GOALS)))
        assert f'aria-live="polite">{status}</p>' in html
    assert seen == {(0, True), (0, False), (1, True), (1, False), (2, False)}


def test_a_weight_just_below_a_threshold_is_not_printed_as_the_threshold():
    got = call(
        "weightText", [[0.49999999999859, 0.5], [0.4999, 0.5], [0.52, 0.5], [0.3996, 0.4]], MODULE
    )
    assert got == ["0.499999999999", "0.4999", "0.520", "0.3996"]


def test_a_weight_prints_one_way_against_every_goals_threshold():
    """0.49996 is under goal 1's 0.5 and over goal 2's 0.4: printed against both thresholds
    it reads 0.49996 in every line, never 0.500 in one and 0.49996 in the next."""
    got = call(
        "weightText", [[0.49996, [0.5, 0.4, 0.5]], [0.49996, 0.4], [0.41, [0.5, 0.4]]], MODULE
    )
    assert got == ["0.49996", "0.500", "0.410"]


def test_the_progress_line_remembers_the_goals_met():
    state = exercise_view().get_state()
    row = [0.2] * 5  # meets no goal
    cases = [
        [False, False, False],
        [True, False, False],
        [True, True, False],
        [True, True, True],
    ]
    got = call("progressText", [[{**state, "met": met}, row] for met in cases], MODULE)
    assert got == [
        "Met so far: none.",
        "Met so far: goal 1.",
        "Goals 1 and 2 met: the exercise is done once you have tried goal 3 and said why it"
        " turns out as it does.",
        "Every goal met: the exercise is done.",
    ]


def _view_link(calls: list) -> list:
    """[name, args] calls of view_link.mjs's exports, in Node, on the module's own file."""
    script = (
        f"import * as m from {json.dumps(VIEW_LINK.as_uri())};"
        "import { readFileSync } from 'node:fs';"
        "const calls = JSON.parse(readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(calls.map(([f, a]) => m[f](...a))));"
    )
    run = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        input=json.dumps(calls),
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_the_fragment_holds_one_part_per_view_and_round_trips():
    """view_link.mjs: a fragment of several views' parts; one view's part replaced, added or
    dropped leaves the others as they were; a section's fragment is no view's."""
    calls = [
        ["#budget-1:tilt=+2.5&scaling-1:dk=4,scaled=1", "scaling-1", "dk=8,scaled=1"],
        ["#budget-1:tilt=+2.5", "exercise-1", "q=1"],
        ["#budget-1:tilt=+2.5&exercise-1:q=1", "budget-1", None],
        ["#budget-1:tilt=+2.5", "budget-1", None],
        ["#a-section", "budget-1", "tilt=+1.0"],
    ]
    got = _view_link([["withPart", c] for c in calls])
    assert got == [
        "#budget-1:tilt=+2.5&scaling-1:dk=8,scaled=1",
        "#budget-1:tilt=+2.5&exercise-1:q=1",
        "#exercise-1:q=1",
        "",
        "#budget-1:tilt=+1.0",
    ]
    texts = [[got[0], "scaling-1"], [got[0], "budget-1"], [got[0], "exercise-1"], ["#x", "x"]]
    assert _view_link([["linkText", t] for t in texts]) == [
        "dk=8,scaled=1",
        "tilt=+2.5",
        None,
        None,
    ]
    # a part is decoded as a whole (an encoded comma separates, as a comma does)
    parts = _view_link([["linkPairs", ["#a:x=1%2Cy=2&b:z=2", "a"]], ["linkPairs", ["#s", "a"]]])
    assert parts == [[["x", "1"], ["y", "2"]], None]


def test_permalinks_read_valid_settings_and_write_them():
    state = exercise_view(link="exercise-1").get_state()
    hashes = [
        "#exercise-1:q=1,prey=1.5",
        "#exercise-1:q=7,noun=-2.5,agent=0.25,x=1",  # q 7 and 0.25 not offered
        "#heads-1:dk=3",
    ]
    read = call("readExerciseLink", [[h, state] for h in hashes], MODULE)
    assert read == [{"q_verb": 1, "k": [0, 0, 0, 0, 1.5]}, {"k": [0, -2.5, 0, 0, 0]}, None]
    moved = {**state, "q_verb": -1.5, "k": [0, 2, 0, 0, 3]}
    (link,) = call("exerciseLinkOf", [[moved]], MODULE)
    assert link == "#exercise-1:q=-1.5,determiner=0,noun=2,verb=0,agent=0,prey=3"
    assert call("readExerciseLink", [[link, state]], MODULE) == [
        {"q_verb": -1.5, "k": [0, 2, 0, 0, 3]}
    ]


def test_the_first_view_has_six_inert_sliders_that_announce_values():
    html = draw([exercise_view(exercise.Setting(1.0, (0, 0, 0, 0, 1.5))).get_state()])[0]
    assert html.count('type="range"') == 6 and "<fieldset" in html and " inert" in html
    assert "<noscript>" in html  # with JavaScript off: one line says the controls need it
    assert 'data-control="k_4" min="0" max="12" step="1" value="9" aria-valuetext="1.5"' in html
