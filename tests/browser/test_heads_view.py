"""The heads views of chapters 1, 3 and 4, computed in the reader's browser (an anywidget).

On the built site served over http AND opened from ``file://`` (book/_ext/widget_loader.py):

* the page makes no request that leaves the site, logs no error, and every heads view is live
  (the static first view handed over exactly);
* the views show before any script runs (JavaScript off), with mha's numbers;
* moving each control by keyboard (every range control to a neighbour, its end and its start;
  the word select; the seed box, when the module draws random heads for any seed) changes the
  numbers, and every number shown equals what ``mha`` computes in torch for the view's data-*
  attributes (tests/oracles.py's expected_rows/heads/concat/cost, through
  expected.py), in every panel;
* the controls have visible labels, announce their values (aria-valuetext) and show a focus ring.
(axe-core runs on every page in test_pages.py.)
"""

from __future__ import annotations

import json

import pytest

from tests.browser import expected, harness

PAGES = {  # page: the panels its heads views show, in order
    "notebooks/01_one_budget.html": ["rows", "heads"],
    "notebooks/03_splitting_the_cost.html": ["cost", "cost"],
    "notebooks/04_putting_heads_back_together.html": ["concat"],
}
HOST = ".mha-heads-view"
SIGNATURE_JS, CHANGED_JS = harness.VIEWS_SIGNATURE_JS, harness.VIEWS_CHANGED_JS
PANELS = {"rows", "heads", "concat", "cost"}


def _problems(page, rel: str) -> tuple[list[str], list[str]]:
    """(mismatches between every visible view's numbers and mha's, the view types seen)."""
    problems, seen = expected.view_problems(page, rel, PANELS)
    return problems, [a["view"] for a in seen]


# (rel, page, log, left): a chapter loaded over http or from file://, widgets rendered.
chapter = harness.chapter_fixture(PAGES)


def test_loads_from_the_site_alone_and_renders_live(chapter):
    rel, page, log, left = chapter
    assert left == [], f"requests leaving the site: {left}"
    assert log.problems() == [], "\n".join(log.problems())
    handover = harness.takeovers(page, HOST)
    assert handover == ["exact"] * len(handover) and handover, f"handed over by {handover}"
    problems, seen = _problems(page, rel)
    assert seen == PAGES[rel] and problems == [], problems[:10]


@pytest.mark.parametrize("rel", PAGES)
def test_the_views_show_before_scripts_run(playwright, base_url, rel):
    with harness.browser_context(playwright, java_script_enabled=False) as ctx:
        harness.guard(ctx)
        page = ctx.new_page()
        page.goto(base_url + rel, wait_until="load")
        problems, seen = _problems(page, rel)
        assert seen == PAGES[rel] and problems == [], problems[:10]
        n = page.locator(f"{HOST} fieldset").count()
        inert = page.locator(f"{HOST} fieldset[inert]").count()
        assert n and inert == n, "static controls not inert"


def _attrs(page) -> list[dict]:
    return page.evaluate(
        "() => Array.from(document.querySelectorAll('.mha-heads-view .mha-view')).map((v) =>"
        " Object.fromEntries(Array.from(v.attributes).filter((a) => a.name.startsWith('data-'))"
        ".map((a) => [a.name.slice(5), a.value])))"
    )


def test_every_control_moves_the_numbers_as_mha_computes_them(chapter):
    rel, page, log, left = chapter
    problems, _ = _problems(page, rel)
    ranges = page.locator(f"{HOST} input[type=range]")
    assert ranges.count() >= 1
    moved = set()
    for i in range(ranges.count()):
        r = ranges.nth(i)
        name, top = r.get_attribute("data-control"), int(r.get_attribute("max"))
        for key in ("End", "Home", "ArrowRight"):
            before = _attrs(page)
            harness.press(page, r, key)
            after = _attrs(page)
            assert after != before, f"{rel}: {key} on {name} left {before}"
            want = {"End": top, "Home": 0, "ArrowRight": 1}[key]
            assert r.input_value() == str(want), (name, key, r.input_value())
            shown = r.get_attribute("aria-valuetext")
            out = r.locator("xpath=following-sibling::output").inner_text()
            assert shown == out and any(a.get(name.replace("_", "")) == shown for a in after)
            problems += _problems(page, rel)[0]
            moved.add((name, key))
    select = page.locator(f"{HOST} select[data-control=word]")
    if select.count():
        harness.press(page, select, "ArrowDown")  # chased -> the (2nd)
        assert _attrs(page)[0]["word"] == "3"
        before = page.evaluate(SIGNATURE_JS)
        select.select_option(label="cat")
        page.wait_for_function(CHANGED_JS, arg=before, timeout=15_000, polling="raf")
        assert _attrs(page)[0]["word"] == "1"
        problems += _problems(page, rel)[0]
    seed = page.locator(f"{HOST} input[data-control=seed]")
    if seed.count():  # random heads for any seed (mha_views.mjs's randomHeads)
        for value in ("7", "123456"):
            before = page.evaluate(SIGNATURE_JS)
            seed.fill(value)
            seed.press("Enter")
            page.wait_for_function(CHANGED_JS, arg=before, timeout=15_000, polling="raf")
            assert {a.get("seed") for a in _attrs(page) if "seed" in a} == {value}
            problems += _problems(page, rel)[0]
    assert problems == [], "\n".join(problems[:20])
    assert log.problems() == [] and left == [], [*log.problems(), *left]


def test_controls_are_named_announce_values_and_show_focus(chapter):
    rel, page, _, _ = chapter
    names = {"rows": ["head width d_k", "row of"], "cost": ["heads h", "head width d_k"]}
    first = PAGES[rel][0]
    for name in names.get(first, ["heads h", "head width d_k"]):
        role = "combobox" if name == "row of" else "slider"
        assert page.get_by_role(role, name=name).count() >= 1, (rel, name)
    r = page.locator(f"{HOST} input[type=range]").first
    width = r.evaluate("(e) => e.getBoundingClientRect().width")
    height = r.evaluate("(e) => e.getBoundingClientRect().height")
    assert width >= 200 and height >= 24, (width, height)
    r.focus()
    page.keyboard.press("ArrowRight")  # a keyboard move: :focus-visible applies
    ring = page.evaluate(
        "() => { const e = document.activeElement, s = getComputedStyle(e);"
        " return [e.getAttribute('aria-valuetext'), e.value, s.outlineStyle,"
        " parseFloat(s.outlineWidth)]; }"
    )
    assert ring[2] == "solid" and ring[3] >= 2, ring
    assert json.loads(page.evaluate(SIGNATURE_JS)), "no view"


@pytest.mark.parametrize("scheme", ["http", "file"])
def test_permalinks_open_the_view_at_its_settings_and_follow_it(playwright, base_url, site, scheme):
    rel = "notebooks/01_one_budget.html"
    link = "#heads-1:dk=27,seed=7,word=4"
    with harness.confined_page(playwright, base_url, site, rel, scheme, link) as (page, log, left):
        harness.live_view(page, ".mha-heads-view .mha-view", "dk", "27")
        attrs = _attrs(page)
        assert [(a["view"], a["dk"]) for a in attrs] == [("rows", "27"), ("heads", "27")]
        assert attrs[0]["word"] == "4" and {a["seed"] for a in attrs} == {"7"}
        assert _problems(page, rel)[0] == []
        harness.link_stays(page, link)  # not rewritten by reading it
        harness.press(page, page.locator(f"{HOST} input[data-control=d_k]"), "ArrowRight")
        harness.link_becomes(page, "#heads-1:dk=81,seed=7,word=4")
        assert log.problems() == [] and left == [], [*log.problems(), *left]


# Per concat view: does any table stick out of it, and the closest two numbers of a row (px
# between the inked text of neighbouring cells).
CONCAT_FIT_JS = """
() => Array.from(document.querySelectorAll('.mha-heads-view .mha-view[data-view=concat]'))
  .map((v) => {
    const box = v.getBoundingClientRect();
    const out = Array.from(v.querySelectorAll('table'))
      .filter((t) => t.getBoundingClientRect().right > box.right + 0.5).length;
    let closest = Infinity;
    for (const tr of v.querySelectorAll('tbody tr')) {
      const ink = Array.from(tr.querySelectorAll('td')).map((td) => {
        const r = document.createRange(); r.selectNodeContents(td);
        return r.getBoundingClientRect();
      });
      for (let i = 1; i < ink.length; i++) {
        closest = Math.min(closest, ink[i].left - ink[i - 1].right);
      }
    }
    return {out, closest, scrolls: v.scrollWidth > v.clientWidth + 1};
  })
"""


@pytest.mark.parametrize("width", [390, 1280])
def test_the_concatenation_wraps_by_head_and_its_numbers_stay_apart(playwright, base_url, width):
    """At h = 4, d_k = 9 (36 columns), on a phone and on a desktop: no head's block sticks out
    of the view or makes it scroll, and neighbouring numbers are at least 4 px apart (more than a
    space of the view's 11.5-13 px type: two numbers, not one subtraction)."""
    rel = "notebooks/04_putting_heads_back_together.html"
    with harness.browser_context(playwright, viewport={"width": width, "height": 900}) as ctx:
        page = ctx.new_page()
        page.goto(base_url + rel + "#heads-1:h=4,dk=9", wait_until="load")
        harness.settle(page)
        harness.live_view(page, ".mha-heads-view .mha-view", "dk", "9")
        fits = page.evaluate(CONCAT_FIT_JS)
    assert len(fits) == 1, fits
    assert fits[0]["out"] == 0 and not fits[0]["scrolls"], fits
    assert 4 <= fits[0]["closest"] < 1e9, fits
