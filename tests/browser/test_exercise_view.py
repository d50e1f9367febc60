"""Chapter 1's exercise (mha.views.exercise_view), computed in the reader's browser.

On the built site served over http AND opened from ``file://``:

* (that the page loads from the site alone, logs no error, hands every static first view
  over exactly, and shows its views before any script runs, controls inert: one test
  for every widget page, test_static_views.py)
* it opens with no goal met;
* driven by keyboard only (arrow keys on the native sliders) to the setting that the chapter's
  hidden solution gives for goal 1 and for goal 2 (mha.exercise.search), each goal is reported
  met, in words and in the aria-live line, and one arrow press back from it (a setting that
  misses) reports it not met: at every setting on the way, every number the view shows and
  every goal's status equal what torch computes for the view's data-* attributes
  (expected_exercise: mha.attention.single_head);
* the goals met are remembered when the sliders move on, and the view says when the exercise
  is done; a weight prints the same in every line that shows it;
* the sliders have visible names, announce their values and show a focus ring; a permalink
  opens the view at its setting and follows it; axe-core finds no serious or critical
  violation with the view live.
"""

from __future__ import annotations

import pytest

from mha import exercise, toy
from tests.browser import a11y, expected, harness

REL = "notebooks/01_one_budget.html"
HOST = ".mha-exercise-view"
STEP = exercise.VALUES[1] - exercise.VALUES[0]


def _view(page) -> tuple[dict, dict]:
    """(attrs, cells) of the exercise view shown."""
    (v,) = [v for v in harness.visible_views(page) if v["attrs"].get("view") == "exercise"]
    attrs = {expected.attr_name("data-" + k): val for k, val in v["attrs"].items()}
    return attrs, {c["key"]: c["value"] for c in v["cells"]}


def _problems(page) -> list[str]:
    problems, seen = expected.view_problems(page, REL, {"exercise"})
    return problems if len(seen) == 1 else [*problems, f"{len(seen)} exercise views shown"]


# (rel, page, log, left): chapter 1 loaded over http or from file://, widgets live.
chapter = harness.chapter_fixture([REL])


def _slider(page, name: str):
    return page.locator(f"{HOST} input[data-control={name}]")


def _drive(page, name: str, value: float) -> list[str]:
    """Arrow keys on slider ``name`` until it shows ``value``; the problems seen on the way."""
    r, problems = _slider(page, name), []
    for _ in range(len(exercise.VALUES)):
        now = float(r.get_attribute("aria-valuetext"))
        if now == value:
            return problems
        harness.press(page, r, "ArrowRight" if value > now else "ArrowLeft")
        problems += _problems(page)
    raise AssertionError(f"{name} never reached {value}")


def _setting(page, s: exercise.Setting) -> list[str]:
    problems = _drive(page, "q_verb", s.q_verb)
    for i, v in enumerate(s.k):
        problems += _drive(page, f"k_{i}", v)
    return problems


def _status(page) -> tuple[list[str], str]:
    """(each goal's status in the view, the aria-live line)."""
    _, cells = _view(page)
    line = page.locator(f"{HOST} [aria-live=polite]")
    # in view, as a reader sees it
    harness.box_in_view(line)
    live = line.inner_text()
    return [cells[f"goal-{i}"] for i in range(len(exercise.GOALS))], live


def _by_torch(s: exercise.Setting) -> list[str]:
    row = exercise.chased_row(s)  # (5,) by single_head
    return [
        "met" if all(float(row[j]) >= g.at_least for j in g.words) else "not met"
        for g in exercise.GOALS
    ]


def test_the_goals_are_reported_met_exactly_when_torch_says_so(chapter):
    _, page, log, left = chapter
    # at its opening setting, no goal is met
    assert _status(page) == (["not met"] * 3, "Goal 1 not met. Goal 2 not met. Goal 3 not met.")
    found = exercise.search()
    problems = []
    for g, f in enumerate(found[:2]):  # the solution's settings for goals 1 and 2
        s = f.nearest
        problems += _setting(page, s)
        shown, live = _status(page)
        assert shown == _by_torch(s) and shown[g] == "met", (s, shown)
        assert live == " ".join(f"Goal {i + 1} {v}." for i, v in enumerate(shown))
        assert page.locator(f"{HOST} .mha-goal-met").count() == shown.count("met")
        # one step back on the weight that brought the goal words up: the goal is missed
        name = "q_verb"
        miss = s._replace(q_verb=s.q_verb - STEP)
        problems += _drive(page, name, miss.q_verb)
        shown, live = _status(page)
        assert shown == _by_torch(miss) and shown[g] == "not met", (miss, shown)
        assert f"Goal {g + 1} not met." in live
        problems += _drive(page, name, s.q_verb)
        problems += _setting(page, exercise.Setting(0.0, (0.0,) * 5))  # back to the start
    assert problems == [], problems[:10]
    assert log.problems() == [] and left == [], [*log.problems(), *left]


def _weights_shown(page) -> dict[str, set[str]]:
    """Each word's weight as the view prints it, in every place it prints it (the bars
    r-J and every goal line gG-J): word index -> the set of texts."""
    texts = page.evaluate(
        "(host) => Array.from(document.querySelectorAll(host + ' [data-key]'))"
        ".map((e) => [e.dataset.key, e.textContent])",
        HOST,
    )
    shown: dict[str, set[str]] = {}
    for key, text in texts:
        if key.startswith("r-") or (key.startswith("g") and "-" in key and key[1].isdigit()):
            shown.setdefault(key.split("-")[1], set()).add(text)
    return shown


def test_goals_met_are_remembered_and_each_weight_prints_one_way(chapter):
    """Goal 1 met, then the sliders moved on to goal 2: goal 1 still reads met (before), and
    once goals 1 and 2 are met the view says the exercise is done but for trying goal 3. At
    every setting each word's weight prints the same in the bars and in every goal line."""
    _, page, _, _ = chapter
    progress = page.locator(f"{HOST} .mha-progress")
    assert progress.inner_text() == "Met so far: none."
    goal1, goal2 = (f.nearest for f in exercise.search()[:2])
    problems = _setting(page, goal1)
    assert all(len(t) == 1 for t in _weights_shown(page).values()), _weights_shown(page)
    assert progress.inner_text() == "Met so far: goal 1."
    problems += _setting(page, goal2)
    assert all(len(t) == 1 for t in _weights_shown(page).values()), _weights_shown(page)
    shown, _ = _status(page)
    assert shown[1] == "met"
    if shown[0] == "not met":  # goal 2's setting misses goal 1: it is still shown as met
        assert "met before" in page.locator(f"{HOST} [data-key=goal-0]").inner_text()
    assert progress.inner_text().startswith("Goals 1 and 2 met: the exercise is done once")
    problems += _setting(page, exercise.Setting(0.0, (0.0,) * 5))
    assert progress.inner_text().startswith("Goals 1 and 2 met"), "forgotten at the start"
    assert problems == [], problems[:10]


def test_sliders_are_named_announce_values_and_show_focus(chapter):
    _, page, _, _ = chapter
    for name in ["query · verb", *(f"key · {f}" for f in exercise.FEATURES)]:
        assert page.get_by_role("slider", name=name).count() == 1, name
    r = _slider(page, "k_4")
    box = r.bounding_box()
    assert box["width"] >= 200 and box["height"] >= 24, box
    r.focus()
    page.keyboard.press("ArrowRight")
    ring = r.evaluate(
        "(e) => { const s = getComputedStyle(e);"
        " return [s.outlineStyle, parseFloat(s.outlineWidth)]; }"
    )
    assert ring[0] == "solid" and ring[1] >= 3, ring
    shown = r.locator("xpath=following-sibling::output").inner_text()
    assert r.get_attribute("aria-valuetext") == shown == "0.5"
    assert [str(v) for v in a11y.axe_violations(page)] == []


@pytest.mark.parametrize("scheme", ["http", "file"])
def test_a_permalink_opens_the_view_at_its_setting(browser, base_url, site, scheme):
    link = "#exercise-1:q=1,prey=1.5"
    with harness.confined_page(browser, base_url, site, REL, scheme, link) as (page, log, left):
        harness.live_view(page, f"{HOST} .mha-view", "kprey", "1.5")
        attrs, cells = _view(page)
        assert attrs["qverb"] == "1" and cells["goal-0"] == "met" and _problems(page) == []
        assert float(cells[f"r-{toy.MOUSE}"]) >= 0.5
        _drive(page, "k_1", 0.5)  # noun
        want = "#exercise-1:q=1,determiner=0,noun=0.5,verb=0,agent=0,prey=1.5"
        harness.link_becomes(page, want)
        assert log.problems() == [] and left == [], [*log.problems(), *left]
