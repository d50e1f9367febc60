"""Every page reflows on small screens (WCAG 1.4.10): a 390-px-wide phone and a desktop
window at 200 % zoom (a11y.SMALL_SCREENS says how each is emulated).

At both, the page body never scrolls sideways, and whatever is wider than the screen
(tables, widget views, code blocks, figures, display math) scrolls inside its own box,
which fits the screen: nothing sticks out of the viewport or is cut off by it. At both,
axe-core finds no serious or critical violation (a box that scrolls must take the keyboard's
focus: scrollable-region-focusable; test_pages.py runs axe on a desktop). A link to a
heading lands on it.
"""

from __future__ import annotations

import pytest

from tests.browser import a11y, harness

PAGES = harness.or_missing(harness.book_pages())


@pytest.mark.parametrize("rel", PAGES)
def test_page_fits_a_phone_and_200_percent_zoom(rel, site, base_url, small_screens):
    problems = []
    for name, ctx in small_screens.items():
        page = ctx.new_page()
        try:
            log = harness.watch(page)
            harness.goto(page, base_url, rel, site)
            width = a11y.SMALL_SCREENS[name]["viewport"]["width"]
            found = a11y.reflow_problems(page, width)
            found += [f"axe: {v}" for v in a11y.axe_violations(page)]
            problems += [f"{name} ({width} px): {p}" for p in found + log.problems()]
        finally:
            harness.forget(page)
            page.close()
    assert problems == [], f"{rel}:\n" + "\n".join(problems)


# Small pages for the check itself: what it must find, and what it must let pass.
WIDE = '<div style="width:600px;height:10px;background:#000"></div>'
CASES = {
    "sticks out of the page": (WIDE, ["the page"]),
    "cut off by a box that hides overflow": (
        f'<div style="overflow:hidden;width:300px">{WIDE}</div>',
        ["(overflow-x hidden)"],
    ),
    "scrolls inside a box that fits": (f'<div style="overflow-x:auto">{WIDE}</div>', []),
    # a clipping box that holds the wide content whole, inside a scrolling box that fits
    # (MathJax draws a stretched delimiter as an svg of its own inside the formula's box)
    "held whole by a clipping box that scrolls with its container": (
        f'<div style="overflow-x:auto"><div style="overflow:hidden;width:600px">{WIDE}</div></div>',
        [],
    ),
}


def _on_small_page(browser, html: str, width: int, read):
    """``read(page)`` on a page of ``html`` alone, in a window ``width`` CSS px wide."""
    with harness.browser_context(browser, viewport={"width": width, "height": 600}) as ctx:
        page = ctx.new_page()
        page.set_content(f"<!doctype html><body style='margin:0'>{html}</body>")
        return read(page)


@pytest.mark.parametrize("case", CASES)
def test_the_reflow_check_finds_what_sticks_out_and_passes_what_scrolls(case, browser):
    html, wanted = CASES[case]
    found = _on_small_page(browser, html, 390, lambda p: p.evaluate(a11y.REFLOW_JS)["outside"])
    assert [w for w in wanted if not any(w in f for f in found)] == [], found
    assert bool(found) == bool(wanted), found


# Every section a link can name, once per id, and shown (not inside a closed solution).
SECTION_IDS_JS = """() => {
  const ids = Array.from(document.querySelectorAll('.bd-article section[id]'), (s) => s.id);
  return ids.filter((id) => ids.indexOf(id) === ids.lastIndexOf(id)
      && document.getElementById(id).checkVisibility());
}"""
TOP_JS = "(id) => document.getElementById(id).getBoundingClientRect().top"


@pytest.mark.parametrize("rel", [p for p in PAGES if "notebooks/" in str(p)])
def test_a_link_to_a_heading_lands_on_it(rel, site, base_url, browser):
    """A link to a section of a chapter, followed from elsewhere (a fresh load of page#id),
    shows that section's heading at the top of the window, under the theme's header, once
    the page has loaded. Three sections a page: the first, the middle one and the last.
    Where a heading lands depends on what is above it, so the last one is moved by
    anything above it that changes size after the load (a live view taking over, an image,
    a font)."""
    with harness.browser_context(browser, viewport={"width": 1280, "height": 900}) as ctx:
        page = ctx.new_page()
        harness.goto(page, base_url, rel, site)
        ids = page.evaluate(SECTION_IDS_JS)
        page.close()
        assert len(ids) >= 3, f"{rel}: sections {ids}"
        missed = []
        for section in (ids[0], ids[len(ids) // 2], ids[-1]):
            page = ctx.new_page()
            page.goto(f"{base_url}{rel}#{section}", wait_until="load")
            harness.settle(page)
            page.evaluate(harness.PAINTED_JS)
            top = page.evaluate(TOP_JS, section)
            if not 0 <= top <= 120:
                missed.append(f"#{section}: its top at {top:.0f} px")
            page.close()
    assert missed == [], f"{rel}: " + "; ".join(missed)
