"""Every page reflows on small screens (WCAG 1.4.10): a 390-px-wide phone and a desktop
window at 200 % zoom (a11y.SMALL_SCREENS says how each is emulated).

At both, the page body never scrolls sideways, and whatever is wider than the screen
(tables, widget views, code blocks, figures, display math) scrolls inside its own box,
which fits the screen: nothing sticks out of the viewport or is cut off by it.
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
            problems += [f"{name} ({width} px): {p}" for p in found + log.problems()]
        finally:
            harness.forget(page)
            page.close()
    assert problems == [], f"{rel}:\n" + "\n".join(problems)
