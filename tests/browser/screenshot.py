"""Save a screenshot of a chapter's widget (sliders and the view they drive) for the README.

    python -m tests.browser.screenshot [PAGE] [--out book/images/screenshot-chapter.png]
    python -m tests.browser.screenshot --phone [PAGE] [--out book/images/screenshot-phone.png]

Without PAGE, the widget with the most controls among all pages with widget views is
taken (then the one showing the most heads; the first on ties); with PAGE, the same choice
on that page. The
picture is that cell output (the controls plus the views they drive), taken from the built site in
chromium with no kernel, as a reader sees it. With ``--phone``, the page is laid out on a
390 x 844 phone (a11y.SMALL_SCREENS) and the picture is one screen of it, header included,
scrolled to that widget. Re-run after the chapters change.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tests.browser import a11y, harness

OUT = harness.ROOT / "book" / "images" / "screenshot-chapter.png"
PHONE_OUT = harness.ROOT / "book" / "images" / "screenshot-phone.png"
DESKTOP = {"viewport": {"width": 1200, "height": 900}, "device_scale_factor": 2}
# The phone of the reflow test, drawn at 2 device pixels per CSS pixel (not its 3), which is
# sharp enough for the README and keeps the file small.
PHONE = {**a11y.SMALL_SCREENS["phone"], "device_scale_factor": 2}


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
# For the picture: no sticky header over the widget, and no skip link (the theme's, and the one
# to the first view that a11y_html.py puts in the article: fixed above the window, they can
# show in a picture of a view taller than the window) (visibility: the layout stays as it is).
SHOT_CSS = (
    ".bd-header, .bd-header-article, .header-article, .skip-link "
    "{ visibility: hidden !important; }\n"
)


def _best_widget(ctx, base: str, candidates: list[str]) -> tuple[str, int, int]:
    """(page, index of its widget output, controls) of the widget with the most controls,
    then the most heads shown (the first, on ties)."""
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
    return best[1], best[2], best[0][0]


def fit_viewport(page, area, margin: int) -> None:
    """Tall elements: make the viewport tall enough to hold all of ``area``, with a margin."""
    height = int(area.bounding_box()["height"]) + margin
    if height > page.viewport_size["height"]:
        page.set_viewport_size({"width": page.viewport_size["width"], "height": height})


def shoot_box(page, box: dict, out: Path, pad: int) -> None:
    """Save the part of the page inside ``box`` (a bounding box) and ``pad`` pixels around it."""
    page.screenshot(
        path=str(out),
        clip={
            "x": max(box["x"] - pad, 0),
            "y": max(box["y"] - pad, 0),
            "width": box["width"] + 2 * pad,
            "height": box["height"] + 2 * pad,
        },
    )


def _shoot_widget(page, area, out: Path) -> None:
    """The widget output ``area`` alone, with a margin, the page's header hidden."""
    page.add_style_tag(content=SHOT_CSS)
    fit_viewport(page, area, margin=200)
    area.evaluate("e => e.scrollIntoView({block: 'center'})")
    harness.painted(page)  # fonts
    shoot_box(page, area.bounding_box(), out, pad=12)


def _shoot_screen(page, area, out: Path) -> None:
    """One screen of the page as a reader sees it, scrolled to the widget output ``area``."""
    # The theme's scroll-padding-top keeps the top of the widget clear of its sticky header.
    area.evaluate("e => e.scrollIntoView({block: 'start', behavior: 'instant'})")
    harness.painted(page)  # fonts
    page.screenshot(path=str(out))


def screenshot(
    rel: str | None = None,
    out: Path | None = None,
    site: Path = harness.SITE,
    phone: bool = False,
) -> Path:
    """Save the picture of the chosen widget (``--phone``: a phone's screen) to ``out``."""
    out = out or (PHONE_OUT if phone else OUT)
    candidates = [rel] if rel else widget_pages(site)
    with harness.site_browser(site, **(PHONE if phone else DESKTOP)) as (ctx, base):
        rel, index, controls = _best_widget(ctx, base, candidates)
        page = ctx.new_page()
        log = harness.watch(page)
        harness.goto(page, base, rel, site)
        area = page.locator(".cell_output:has(.widget-subarea)").nth(index)
        out.parent.mkdir(parents=True, exist_ok=True)
        (_shoot_screen if phone else _shoot_widget)(page, area, out)
        if log.problems():
            raise SystemExit(f"{rel}: " + "; ".join(log.problems()))
    print(f"{rel}: widget {index + 1} of the page, {controls} controls", file=sys.stderr)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("page", nargs="?", help="page of the built site, e.g. notebooks/01_x.html")
    ap.add_argument("--phone", action="store_true", help="one screen of a 390-px-wide phone")
    ap.add_argument("--out", type=Path, help=f"default {OUT.name}, or {PHONE_OUT.name}")
    args = ap.parse_args()
    print(screenshot(args.page, args.out, phone=args.phone))


if __name__ == "__main__":
    main()
