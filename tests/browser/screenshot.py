"""Save a screenshot of a chapter's widget (sliders and the view they drive) for the README.

    python tests/browser/screenshot.py [PAGE] [--out book/images/screenshot-chapter.png]

PAGE defaults to the first page of the build with widget views. The picture is the cell
output with the most controls (the controls plus the views they drive), taken from the built site in
chromium with no kernel, as a reader sees it. Re-run after the chapters change.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # after the path set-up above, for running as a script

OUT = harness.ROOT / "book" / "images" / "screenshot-chapter.png"


def first_widget_page(site: Path = harness.SITE) -> str:
    for rel in harness.book_pages(site):
        if "mha-view" in (site / rel).read_text(encoding="utf-8"):
            return rel
    raise SystemExit(f"no page of {site} has widget views: build the book first (make book)")


def screenshot(rel: str | None = None, out: Path = OUT, site: Path = harness.SITE) -> Path:
    from playwright.sync_api import sync_playwright

    rel = rel or first_widget_page(site)
    with (
        harness.serve(site) as base,
        sync_playwright() as pw,
        harness.browser_context(
            pw, viewport={"width": 1200, "height": 900}, device_scale_factor=2
        ) as ctx,
    ):
        harness.guard(ctx)
        page = ctx.new_page()
        log = harness.watch(page)
        page.goto(base + rel, wait_until="load")
        harness.settle(page)
        # The widget with the most controls (sliders, dropdowns, toggle buttons).
        outputs = page.locator(".cell_output:has(.widget-subarea)")
        counts = outputs.evaluate_all(
            """els => els.map((e) => e.querySelectorAll(
                '.widget-slider, .widget-dropdown, .widget-toggle-buttons').length)"""
        )
        if not counts or max(counts) == 0:
            raise SystemExit(f"{rel}: no widget with a control")
        area = outputs.nth(counts.index(max(counts)))
        area.scroll_into_view_if_needed()
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
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("page", nargs="?", help="page of the built site, e.g. notebooks/01_x.html")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    print(screenshot(args.page, args.out))


if __name__ == "__main__":
    main()
