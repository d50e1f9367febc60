"""The small views of chapters 1, 3 and 5, computed in the reader's browser (anywidgets).

The tilt and scaling views of chapter 1 (budget_view.mjs, scaling_view.mjs), the key/value
groups of chapter 3 (groups_view.mjs) and the training steps of chapter 5 (steps_view.mjs), on
the built site served over http AND opened from ``file://``:

* (that the page loads from the site alone, logs no error, hands every static first view
  over exactly, and shows its views before any script runs, controls inert: one test
  for every widget page, test_static_views.py)
* every control moved by keyboard (each range to its end, its start and one step; each radio
  group to its other position) changes the numbers, which stay mha's (budget.py's,
  scaling.py's, grouped.py's and training.py's expected functions, through expected.py);
* the ranges are at least 200 by 24 px, announce the shown value, and show a focus ring;
* a permalink opens a view at its setting and follows it; it holds every view moved, and
  round-trips; a permalink opened in the same tab applies (hashchange).
(axe-core runs on every page in test_pages.py.)
"""

from __future__ import annotations

import pytest

from tests.browser import expected, harness

PAGES = {  # page: the views it shows, in order
    "notebooks/01_one_budget.html": ["budget", "scaling"],
    "notebooks/03_splitting_the_cost.html": ["grouped-cost"],
    "notebooks/05_what_heads_learn.html": ["training-steps"],
}
HOSTS = ".mha-budget-view, .mha-scaling-view, .mha-groups-view, .mha-steps-view"
VIEWS = {v for views in PAGES.values() for v in views}


def _problems(page, rel: str) -> tuple[list[str], list[str]]:
    """(mismatches between every visible view's numbers and mha's, the view types seen)."""
    problems, seen = expected.view_problems(page, rel, VIEWS)
    return problems, [a["view"] for a in seen]


# (rel, page, log, left): a chapter loaded over http or from file://, widgets rendered.
chapter = harness.chapter_fixture(PAGES)


def test_every_control_moves_the_numbers_as_mha_computes_them(chapter):
    rel, page, log, left = chapter
    problems, _ = _problems(page, rel)
    ranges = page.locator(f":is({HOSTS}) input[type=range]")
    assert ranges.count() == len(PAGES[rel])
    for i in range(ranges.count()):
        r = ranges.nth(i)
        top = int(r.get_attribute("max"))
        start = int(r.input_value())
        keys = ("Home", "End", "ArrowLeft") if start == top else ("End", "Home", "ArrowRight")
        for key in keys:
            harness.press(page, r, key)
            want = {"End": top, "Home": 0, "ArrowRight": 1, "ArrowLeft": top - 1}[key]
            assert r.input_value() == str(want), (key, r.input_value())
            shown = r.get_attribute("aria-valuetext")
            assert shown == r.locator("xpath=following-sibling::output").inner_text()
            problems += _problems(page, rel)[0]
    radios = page.locator(f":is({HOSTS}) input[type=radio]:checked")
    for i in range(radios.count()):
        radio = radios.nth(i)
        host = radio.locator("xpath=ancestor::fieldset/..")
        before = host.locator(".mha-view").get_attribute("data-scaled")
        harness.press(page, radio, "ArrowRight")  # the other position of the toggle
        assert host.locator(".mha-view").get_attribute("data-scaled") != before
        problems += _problems(page, rel)[0]
    assert problems == [], "\n".join(problems[:20])
    assert log.problems() == [] and left == [], [*log.problems(), *left]


def test_controls_are_big_enough_announce_values_and_show_focus(chapter):
    _, page, _, _ = chapter
    for r in page.locator(f":is({HOSTS}) input[type=range]").all():
        box = r.bounding_box()
        assert box["width"] >= 200 and box["height"] >= 24, box
        label = r.evaluate("(e) => e.closest('label').textContent")
        assert r.get_attribute("aria-valuetext") in label  # the <output> shows the value
    r = page.locator(f":is({HOSTS}) input[type=range]").first
    r.focus()
    page.keyboard.press("Home")  # a keyboard move: :focus-visible applies
    ring = page.evaluate(
        "() => { const s = getComputedStyle(document.activeElement);"
        " return [s.outlineStyle, parseFloat(s.outlineWidth)]; }"
    )
    assert ring[0] == "solid" and ring[1] >= 3, ring
    for radio in page.locator(f":is({HOSTS}) input[type=radio]").all():
        box = radio.evaluate("(e) => e.closest('label').getBoundingClientRect().height")
        assert box >= 24, box


@pytest.mark.parametrize("scheme", ["http", "file"])
def test_permalinks_open_the_view_at_its_settings_and_follow_it(browser, base_url, site, scheme):
    rel = "notebooks/01_one_budget.html"
    link = "#budget-1:tilt=+2.5"
    with harness.confined_page(browser, base_url, site, rel, scheme, link) as (page, log, left):
        harness.live_view(page, ".mha-budget-view .mha-view", "tilt", "2.5")
        assert _problems(page, rel)[0] == []
        harness.link_stays(page, link)  # not rewritten by reading it
        harness.press(page, page.locator(".mha-budget-view input[data-control=tilt]"), "ArrowRight")
        harness.link_becomes(page, "#budget-1:tilt=+3.0")
        scaling = page.locator(".mha-scaling-view input[data-control=d_k]")
        harness.press(page, scaling, "End")
        both = "#budget-1:tilt=+3.0&scaling-1:dk=1024,scaled=1"  # every view moved, in order
        harness.link_becomes(page, both)
        assert log.problems() == [] and left == [], [*log.problems(), *left]
    # the link of both views round-trips: a new tab opened on it shows both settings
    with harness.confined_page(browser, base_url, site, rel, scheme, both) as (page, log, _):
        harness.live_view(page, ".mha-budget-view .mha-view", "tilt", "3")
        harness.live_view(page, ".mha-scaling-view .mha-view", "dk", "1024")
        assert _problems(page, rel)[0] == [] and log.problems() == []
        harness.link_stays(page, both)


def test_a_permalink_opened_in_the_same_tab_applies_without_a_reload(browser, base_url, site):
    """hashchange: a new fragment in a tab that shows the page sets the views it names and
    puts back the views it does not; a fragment that names no view (a section) moves none."""
    rel = "notebooks/01_one_budget.html"
    with harness.confined_page(browser, base_url, site, rel, "http") as (page, log, left):
        harness.live_view(page, ".mha-budget-view .mha-view", "tilt", "0")
        page.evaluate("() => { window.__sameTab = true; }")  # gone if the page reloads
        page.evaluate("() => { location.hash = '#budget-1:tilt=-1.5&scaling-1:dk=64,scaled=0'; }")
        harness.live_view(page, ".mha-budget-view .mha-view", "tilt", "-1.5")
        harness.live_view(page, ".mha-scaling-view .mha-view", "dk", "64")
        assert page.locator(".mha-scaling-view .mha-view").get_attribute("data-scaled") == "0"
        assert _problems(page, rel)[0] == []
        page.evaluate("() => { location.hash = '#scaling-1:dk=16,scaled=1'; }")
        harness.live_view(page, ".mha-scaling-view .mha-view", "dk", "16")
        harness.live_view(page, ".mha-budget-view .mha-view", "tilt", "0")  # not named: back
        page.evaluate("() => { location.hash = '#top'; }")  # not a permalink
        page.wait_for_timeout(300)
        assert page.locator(".mha-scaling-view .mha-view").get_attribute("data-dk") == "16"
        assert page.evaluate("() => window.__sameTab === true"), "the page was reloaded"
        assert _problems(page, rel)[0] == []
        assert log.problems() == [] and left == [], [*log.problems(), *left]
