"""Save a screenshot of a chapter's widget (sliders and the view they drive) for the README.

    python -m tests.browser.screenshot [PAGE] [--out book/images/screenshot-chapter.png]

Without PAGE, the widget with the most controls among all pages with widget views is
taken (then the one showing the most heads; the first on ties); with PAGE, the same choice
on that page. The
picture is that cell output (the controls plus the views they drive), taken from the built site in
chromium with no kernel, as a reader sees it. Re-run after the chapters change.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tests.browser import harness

OUT = harness.ROOT / "book" / "images" / "screenshot-chapter.png"


def widget_pages(site: Path = harness.SITE) -> list[str]:
    found = [
        rel
        for rel in harness.book_pages(site)
        if "mha-view" in (site / rel).read_text(encoding="utf-8")
    ]
    if not found:
        raise SystemExit(f"no page of {site} has widget views: build the book first (make book)")
    return found


# Per widget output: [number of controls, number of visible heads (.mha-head) it shows].
COUNT_JS = """els => els.map((e) => [
    e.querySelectorAll('.widget-slider, .widget-dropdown, .widget-toggle-buttons, '
                       + '.widget-radio-box').length,
    Array.from(e.querySelectorAll('.mha-head')).filter((h) => h.checkVisibility()).length])"""
# For the picture: no sticky header over the widget (visibility: the layout stays as it is).
SHOT_CSS = """
.bd-header, .bd-header-article, .header-article { visibility: hidden !important; }
"""


def screenshot(rel: str | None = None, out: Path = OUT, site: Path = harness.SITE) -> Path:
    from playwright.sync_api import sync_playwright

    candidates = [rel] if rel else widget_pages(site)
    with (
        harness.serve(site) as base,
        sync_playwright() as pw,
        harness.browser_context(
            pw, viewport={"width": 1200, "height": 900}, device_scale_factor=2
        ) as ctx,
    ):
        harness.guard(ctx)
        # The widget with the most controls, then the most heads shown (the first, on ties).
        best = ([0, 0], "", 0)
        for cand in candidates:
            page = ctx.new_page()
            page.goto(base + cand, wait_until="load")
            harness.settle(page)
            counts = page.locator(".cell_output:has(.widget-subarea)").evaluate_all(COUNT_JS)
            if counts and max(counts) > best[0]:
                best = (max(counts), cand, counts.index(max(counts)))
            page.close()
        if best[0][0] == 0:
            raise SystemExit(f"{candidates}: no widget with a control")
        _, rel, index = best
        page = ctx.new_page()
        log = harness.watch(page)
        page.goto(base + rel, wait_until="load")
        harness.settle(page)
        area = page.locator(".cell_output:has(.widget-subarea)").nth(index)
        page.add_style_tag(content=SHOT_CSS)
        # Tall widgets: make the viewport tall enough to hold all of it, with a margin.
        height = int(area.bounding_box()["height"]) + 200
        if height > 900:
            page.set_viewport_size({"width": 1200, "height": height})
        area.evaluate("e => e.scrollIntoView({block: 'center'})")
        page.wait_for_timeout(300)  # fonts and MathJax in labels
        box = area.bounding_box()
        pad = 12
        out.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(
            path=str(out),
            clip={
                "x": max(box["x"] - pad, 0),
                "y": max(box["y"] - pad, 0),
                "width": box["width"] + 2 * pad,
                "height": box["height"] + 2 * pad,
            },
        )
        if log.problems():
            raise SystemExit(f"{rel}: " + "; ".join(log.problems()))
    print(f"{rel}: widget {index + 1} of the page, {best[0][0]} controls", file=sys.stderr)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("page", nargs="?", help="page of the built site, e.g. notebooks/01_x.html")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    print(screenshot(args.page, args.out))


if __name__ == "__main__":
    main()
