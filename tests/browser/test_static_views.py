"""Every widget's first view is in the page's HTML (book/_ext/static_widgets.py): it shows with
no JavaScript, its numbers are right, it is the view the live widget then shows, and the
live widget replaces it with no visible change.

* Without JavaScript, each widget view script of a page has a static copy before it, whose
  visible views are the page's (VIEWS) and show the numbers that ``mha`` recomputes
  (expected.py), every control inert and hidden under a line saying the view needs
  JavaScript; and those views and controls are the ones the live
  widgets show once our host has drawn them (same data-* attributes and numbers, in the
  same order), at the settings OPENS_AT lists.
* With JavaScript, over http and from ``file://``, the page makes no request that leaves the
  site (over http: none but to 127.0.0.1; from file://: none but file:, data: and blob:),
  logs no error, and every static copy hands over to its live widget and they match
  (``data-mha-takeover="exact"``, set by static/mha-anywidget-host.js).
* Pixels: each widget output, screenshotted while the static copy shows and after the live
  widget replaced it, in the same page load (the host's renderer held back until the
  first pictures are taken; nothing on the page sticky), is the same image, in light and
  dark mode and on a phone.
"""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from tests.browser import a11y, expected, harness
from tests.browser.test_widgets import WIDGET_PAGES

VIEWS_JS = (
    "() => JSON.stringify((" + harness.VISIBLE_VIEWS_JS + ")(null).map((v) => [v.attrs, v.cells]))"
)
COPIES_JS = """
() => Array.from(document.querySelectorAll(
    'script[type="application/vnd.jupyter.widget-view+json"]')).map((s) => {
  const copy = s.previousElementSibling;
  return copy && copy.classList.contains('mha-static-widget')
      && copy.getAttribute('data-model-id') === JSON.parse(s.textContent).model_id;
})
"""


# Every widget page: the views it shows, in page order (their data-view), and the attributes
# some open at. Each view's own test file moves its controls.
VIEWS = {
    "notebooks/01_one_budget.html": ["budget", "rows", "heads", "scaling", "exercise"],
    "notebooks/02_run_it_again.html": ["rows", "cost", "trained-metrics", "trained-rows"],
    "notebooks/03_splitting_the_cost.html": ["cost", "cost", "grouped-cost"],
    "notebooks/04_putting_heads_back_together.html": ["concat"],
    "notebooks/05_what_heads_learn.html": ["trained-metrics", "trained-rows", "training-steps"],
    "notebooks/06_what_comes_next.html": ["mask"],
}
OPENS_AT = {  # page: {view: the data-* attributes it opens with}
    "notebooks/02_run_it_again.html": {
        "trained-rows": {"sentence": "the cat chased the mouse", "word": "2"}
    },
    "notebooks/05_what_heads_learn.html": {
        "trained-rows": {"sentence": "the grey cat chased the small mouse", "word": "3"}
    },
    "notebooks/06_what_comes_next.html": {"mask": {"mask": "causal"}},
}
# Every control of the widgets, in page order: (tag, type, data-control, value, whether an
# inert element holds it). (A radio group's name is made unique per page: not compared.)
CONTROLS_JS = """
() => Array.from(document.querySelectorAll(
    '.widget-subarea :is(input, select, button, textarea)')).map((e) => [
  e.tagName, e.type || '', e.dataset.control || '', e.value, !!e.closest('[inert]'),
  e.checkVisibility(), /need JavaScript/.test(
    e.closest('.widget-subarea').querySelector('noscript p')?.textContent ?? '')])
"""


@pytest.fixture(scope="module")
def without_js(browser, base_url):
    """without_js(rel) -> (static copies found, views, controls, the views' mismatches with
    mha's numbers) of page ``rel`` loaded with JavaScript off; each page is loaded once for
    the module."""
    seen: dict[str, tuple] = {}
    with harness.browser_context(
        browser, viewport={"width": 1280, "height": 900}, java_script_enabled=False
    ) as ctx:
        harness.guard(ctx)

        def load(rel: str) -> tuple:
            if rel not in seen:
                page = ctx.new_page()  # (chromium refuses its scripts: no log to check)
                try:
                    page.goto(base_url + rel, wait_until="load")
                    views = json.loads(page.evaluate(VIEWS_JS))
                    problems, _ = expected.view_problems(
                        page, rel, {attrs["view"] for attrs, _ in views}
                    )
                    copies, controls = page.evaluate(COPIES_JS), page.evaluate(CONTROLS_JS)
                    seen[rel] = (copies, views, controls, problems)
                finally:
                    page.close()
            return seen[rel]

        yield load


# (rel, page, log, left): a widget page loaded over http or from file://, widgets live.
chapter = harness.chapter_fixture(WIDGET_PAGES)


def test_first_views_show_without_javascript_and_are_the_live_ones(chapter, without_js):
    """Without JavaScript, the page holds the views listed in VIEWS, with mha's numbers and
    their controls inert; over http and from file://, the page makes no request that leaves
    the site and logs no error, every static copy hands over exactly, and the live views
    and controls are the static ones, at the settings OPENS_AT lists."""
    rel, page, log, left = chapter
    assert rel in VIEWS, f"{rel}: a widget page that VIEWS does not list"
    copies, static, controls, problems = without_js(rel)
    assert copies and all(copies), f"{rel}: widget views without a static copy: {copies}"
    assert [attrs["view"] for attrs, _ in static] == VIEWS[rel], static
    assert problems == [], "\n".join(problems[:20])
    assert controls and all(c[4] for c in controls), f"{rel}: controls not inert"
    # with JavaScript off the controls, which would do nothing, are hidden, and each view
    # says in one line that they need JavaScript (its <noscript>)
    assert not any(c[5] for c in controls), f"{rel}: controls shown without JavaScript"
    assert all(c[6] for c in controls), f"{rel}: a view does not say it needs JavaScript"

    assert left == [], f"requests leaving the site: {left}"
    assert log.problems() == [], "\n".join(log.problems())
    takeovers = page.evaluate(
        "() => Array.from(document.querySelectorAll('.widget-subarea'))"
        ".map((e) => e.getAttribute('data-mha-takeover'))"
    )
    assert len(takeovers) == len(copies) and set(takeovers) == {"exact"}, takeovers
    live = json.loads(page.evaluate(VIEWS_JS))
    assert static == live, f"{rel}: the first views without JavaScript are not the live ones"
    live_controls = [c[:4] for c in page.evaluate(CONTROLS_JS)]
    assert live_controls == [c[:4] for c in controls], f"{rel}: the live controls differ"
    for view, attrs in OPENS_AT.get(rel, {}).items():
        (first, *_) = [a for a, _ in live if a["view"] == view]
        assert {k: first.get(k) for k in attrs} == attrs, f"{rel} {view}: opens at {first}"


SCREENS = {
    "light": {"viewport": {"width": 1280, "height": 900}, "color_scheme": "light"},
    "dark": {"viewport": {"width": 1280, "height": 900}, "color_scheme": "dark"},
    "phone": a11y.SMALL_SCREENS["phone"],
}


# Every page with widgets loads our anywidget host (book/_ext/static_widgets.py) in its head,
# and the host draws each view as soon as the parser has read it (a MutationObserver), the
# rest at "DOMContentLoaded". As it is served to the test, the host is wrapped so that it
# draws nothing until the test says so: while it sets itself up, its MutationObserver is one
# that watches nothing, and the one "DOMContentLoaded" listener it registers (which draws
# every view) is kept in window.__mhaRenderWidgets, which runs it when the test calls it. The
# rest of the host (its answer to a press on a static copy) runs as usual.
HOST_JS = "**/_static/mha-anywidget-host.js*"
HOLD_HOST_BEFORE = """
(function () {
  var add = document.addEventListener;
  window.__mhaObserver = window.MutationObserver;
  window.MutationObserver = function () {
    var none = function () {};
    return { observe: none, disconnect: none, takeRecords: function () { return []; } };
  };
  Object.defineProperty(document, "readyState", { value: "loading", configurable: true });
  document.addEventListener = function (type, listener, options) {
    if (type !== "DOMContentLoaded") return add.call(this, type, listener, options);
    document.addEventListener = add;
    window.__mhaRenderWidgets = function () { setTimeout(listener, 0); };
  };
})();
"""
HOLD_HOST_AFTER = "\n;delete document.readyState; MutationObserver = window.__mhaObserver;\n"
AREAS = ".cell_output:has(> .widget-subarea)"


def _hold_host(route) -> None:
    response = route.fetch()
    route.fulfill(response=response, body=HOLD_HOST_BEFORE + response.text() + HOLD_HOST_AFTER)


def _open_held(page, url: str) -> None:
    """Load ``url`` with the host's renderer held back (HOLD_HOST_BEFORE): every script runs,
    but the static copies stay until :func:`_release`."""
    page.route(HOST_JS, _hold_host)
    page.goto(url, wait_until="load")
    held = page.evaluate("() => typeof window.__mhaRenderWidgets === 'function'")
    assert held, f"{url}: the host's renderer was not held back"


def _release(page) -> None:
    """Let the held host draw, and wait until the live views replaced every static copy."""
    page.evaluate("() => window.__mhaRenderWidgets()")
    page.wait_for_function(
        "() => !document.querySelector('.mha-static-widget')", timeout=harness.TIMEOUT_MS
    )


# For the pictures, nothing on the page sticks or floats over it: the trained explorer's
# controls (drawn again at the takeover, so held by a style rule) and the theme's sticky
# header become static; the theme's fixed elements (the skip link, the back-to-top button)
# are hidden. An element screenshot of a view taller than the window scrolls the page by
# itself, and where it scrolls decides what those parts cover: in CI's first run on a fresh
# clone, chapter 2's explorer came out with its controls over its bars in one picture and
# under its tables in the other, though its HTML was the same; on a phone the skip link
# showed over a view in one picture of two.
STILL_CSS = ".mha-controls { position: static !important; } "
STILL_JS = """() => {
  for (const e of document.querySelectorAll("body *")) {
    const position = getComputedStyle(e).position;
    if (position === "sticky") e.style.setProperty("position", "static", "important");
    if (position === "fixed") e.style.setProperty("visibility", "hidden", "important");
  }
}"""


def _shots(page) -> list[bytes]:
    """A picture of every widget output of ``page``, each taken from the top of the page:
    the same layout gives the same scroll position, so the same pixels."""
    areas = page.locator(AREAS)
    shots = []
    for i in range(areas.count()):
        page.evaluate("() => window.scrollTo(0, 0)")
        shots.append(areas.nth(i).screenshot(animations="disabled"))
    return shots


def _static_then_live(ctx, url: str) -> tuple[list[bytes], list[bytes], list[str | None]]:
    """Pictures of the widget outputs of ``url`` while their static copies show, then after the
    live widgets replaced them, in ONE page load, so that nothing but the widgets can differ
    (two loads can lay the page out at different sub-pixel offsets). The page loads as usual,
    all its scripts run, but the host's renderer is held back (HOLD_HOST_BEFORE) until
    the first pictures are taken. Also the takeover of each live widget
    (``data-mha-takeover``)."""
    page = ctx.new_page()
    try:
        log = harness.watch(page)
        _open_held(page, url)
        page.add_style_tag(content=STILL_CSS)
        page.evaluate(STILL_JS)
        harness.painted(page)
        copies = page.locator(".mha-static-widget").count()
        assert copies and copies == page.locator(AREAS).count(), f"{url}: {copies} static copies"
        before = _shots(page)
        page.evaluate("() => window.__mhaRenderWidgets()")
        harness.settle(page)
        harness.painted(page)
        after = _shots(page)
        takeovers = page.evaluate(
            "() => Array.from(document.querySelectorAll('.widget-subarea'))"
            ".map((e) => e.getAttribute('data-mha-takeover'))"
        )
        assert log.problems() == [], "\n".join(log.problems())
        return before, after, takeovers
    finally:
        page.close()


@pytest.fixture(scope="module")
def screens(browser):
    """{screen: its chromium context} for SCREENS, each opened once for the module."""
    with contextlib.ExitStack() as stack:
        contexts = {
            name: stack.enter_context(harness.browser_context(browser, **args))
            for name, args in SCREENS.items()
        }
        for ctx in contexts.values():
            harness.guard(ctx)
        yield contexts


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("rel", WIDGET_PAGES)
def test_the_live_widget_replaces_its_static_copy_pixel_for_pixel(
    rel, screen, base_url, screens, tmp_path
):
    from PIL import Image, ImageChops

    before, after, takeovers = _static_then_live(screens[screen], base_url + rel)
    assert before and len(before) == len(after), f"{rel}: {len(before)} vs {len(after)} widgets"
    assert set(takeovers) == {"exact"}, f"{rel} ({screen}): takeovers {takeovers}"
    for i, (a, b) in enumerate(zip(before, after, strict=True)):
        ia, ib = (Image.open(io.BytesIO(x)).convert("RGB") for x in (a, b))
        assert ia.size == ib.size, f"{rel} widget {i} ({screen}): {ia.size} then {ib.size}"
        box = ImageChops.difference(ia, ib).getbbox()
        if box is not None:
            for name, im in (("static", ia), ("live", ib)):
                im.save(tmp_path / f"widget-{i}-{name}.png")
        assert box is None, f"{rel} widget {i} ({screen}): pixels change in {box} ({tmp_path})"


NOTICE = ".mha-waiting[role=status]"


@pytest.mark.parametrize("rel", WIDGET_PAGES)
def test_a_press_on_a_control_that_is_not_live_yet_is_answered(rel, base_url, browser):
    """With the renderer held back, a click on a static copy's control shows the status line
    "The controls are starting"; once the live widgets have replaced every copy it reads
    "ready", then goes. A click elsewhere on the page shows nothing."""
    with harness.browser_context(browser, viewport={"width": 1280, "height": 900}) as ctx:
        harness.guard(ctx)
        page = ctx.new_page()
        log = harness.watch(page)
        _open_held(page, base_url + rel)
        page.locator("main p:visible").first.click()
        assert page.locator(NOTICE).count() == 0, "a notice for a click outside the widgets"
        box = harness.box_in_view(page.locator(".mha-static-widget legend").first)
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        notice = page.locator(NOTICE)
        assert notice.is_visible() and "starting" in notice.text_content(), rel
        _release(page)
        assert "ready" in notice.text_content()
        notice.wait_for(state="detached", timeout=harness.TIMEOUT_MS)
        assert log.problems() == [], log.problems()


def test_a_press_before_the_view_is_live_takes_effect_once_it_is(base_url, browser):
    """With the renderer held back, the reader moves chapter 1's tilt slider by keyboard (End)
    and the scaling toggle by a click on the static first views: the copies' controls move
    (their inert is gone once the page is read). Once live, the views show those settings,
    computed (mha's numbers), the focus is on the live slider, and the permalink holds them."""
    rel = "notebooks/01_one_budget.html"
    with harness.browser_context(browser, viewport={"width": 1280, "height": 900}) as ctx:
        harness.guard(ctx)
        page = ctx.new_page()
        log = harness.watch(page)
        _open_held(page, base_url + rel)
        toggle = page.locator(
            ".mha-static-widget .mha-scaling-view input[type=radio]:not(:checked)"
        )
        toggle.first.click()
        tilt = page.locator(".mha-static-widget .mha-budget-view input[data-control=tilt]")
        tilt.focus()
        page.keyboard.press("End")
        top = tilt.get_attribute("max")
        assert tilt.input_value() == top  # the copy's slider moved; its view did not
        assert (
            page.locator(".mha-static-widget .mha-budget-view .mha-view").get_attribute("data-tilt")
            == "0"
        )
        _release(page)
        harness.live_view(page, ".mha-budget-view .mha-view", "tilt", "4")
        harness.live_view(page, ".mha-scaling-view .mha-view", "scaled", "0")
        live = page.locator(".mha-budget-view input[data-control=tilt]")
        assert live.input_value() == top and live.get_attribute("aria-valuetext") == "+4.0"
        assert page.evaluate("() => document.activeElement.dataset.control") == "tilt"
        problems, seen = expected.view_problems(page, rel, {"budget", "scaling"})
        assert problems == [] and len(seen) == 2, problems[:5]
        harness.link_becomes(page, "#budget-1:tilt=+4.0&scaling-1:dk=16,scaled=0")
        page.keyboard.press("ArrowLeft")  # the next press goes to the live slider
        harness.live_view(page, ".mha-budget-view .mha-view", "tilt", "3.5")
        assert log.problems() == [], log.problems()
