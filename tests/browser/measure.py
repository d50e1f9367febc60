"""Measure the built book's widgets in chromium: first render, and key press -> view change.

Importable by a benchmark script::

    import sys; sys.path.insert(0, "tests/browser")
    from measure import measure_widgets
    result = measure_widgets()            # first widget page of the build
    result = measure_widgets("notebooks/01_one_budget.html", presses=20)

or run ``python tests/browser/measure.py [PAGE]`` (prints JSON). Times are taken inside the
page with ``performance.now()`` (so no Playwright round trip is counted):

* ``first_view_ms``: navigation start -> the first ``.mha-view`` is visible;
* ``all_widgets_ms``: navigation start -> every saved widget view is rendered;
* ``key_to_view_ms``: for each key press on a slider handle, the ``keydown`` event -> the
  DOM mutation after which the visible views differ (a MutationObserver).
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # after the path set-up above, for running as a script

INIT_JS = """
(() => {
  const sig = () => JSON.stringify(Array.from(document.querySelectorAll('.mha-view'))
      .filter((v) => v.checkVisibility()).map((v) => v.outerHTML.length + v.getAttributeNames()
      .filter((n) => n.startsWith('data-')).map((n) => n + '=' + v.getAttribute(n)).join()));
  window.__mha = {firstView: null, allWidgets: null, presses: []};
  const check = () => {
    const m = window.__mha;
    if (m.firstView === null && document.querySelector('.mha-view')
        && Array.from(document.querySelectorAll('.mha-view')).some((v) => v.checkVisibility())) {
      m.firstView = performance.now();
    }
    if (m.allWidgets === null) {
      const views = document.querySelectorAll(
          'script[type="application/vnd.jupyter.widget-view+json"]');
      if (views.length && Array.from(views).every((s) => s.previousElementSibling
          && s.previousElementSibling.classList.contains('widget-subarea')
          && s.previousElementSibling.childElementCount > 0)) m.allWidgets = performance.now();
    }
    const p = m.presses[m.presses.length - 1];
    if (p && p.changed === null && sig() !== p.before) p.changed = performance.now();
  };
  new MutationObserver(check).observe(document, {subtree: true, childList: true,
                                                 attributes: true, characterData: true});
  document.addEventListener('keydown', () => {
    window.__mha.presses.push({t0: performance.now(), before: sig(), changed: null});
  }, true);
})();
"""


def _first_widget_page(site: Path) -> str:
    for rel in harness.book_pages(site):
        if "mha-view" in (site / rel).read_text(encoding="utf-8"):
            return rel
    raise RuntimeError(f"no page of {site} has widget views")


def measure_widgets(rel: str | None = None, presses: int = 10, site: Path = harness.SITE) -> dict:
    """Time first widget render and slider key press -> view change on page ``rel``."""
    from playwright.sync_api import sync_playwright

    rel = rel or _first_widget_page(site)
    with (
        harness.serve(site) as base,
        sync_playwright() as pw,
        harness.browser_context(pw, viewport={"width": 1280, "height": 900}) as ctx,
    ):
        harness.guard(ctx)
        page = ctx.new_page()
        log = harness.watch(page)
        page.add_init_script(INIT_JS)
        page.goto(base + rel, wait_until="load")
        harness.settle(page)
        handle = page.locator(".widget-slider .noUi-handle").first
        handle.focus()
        key = "ArrowRight"
        for _ in range(presses):
            if handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax"):
                key = "ArrowLeft"
            elif handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemin"):
                key = "ArrowRight"
            page.keyboard.press(key)
            page.wait_for_function(
                "() => { const p = window.__mha.presses.at(-1); return p && p.changed !== null; }",
                timeout=5000,
            )
        m = page.evaluate("() => window.__mha")
    lat = [p["changed"] - p["t0"] for p in m["presses"] if p["changed"] is not None]
    return {
        "page": rel,
        "first_view_ms": m["firstView"],
        "all_widgets_ms": m["allWidgets"],
        "key_to_view_ms": lat,
        "key_to_view_median_ms": statistics.median(lat) if lat else None,
        "key_to_view_max_ms": max(lat) if lat else None,
        "problems": log.problems(),
    }


if __name__ == "__main__":
    print(json.dumps(measure_widgets(sys.argv[1] if len(sys.argv) > 1 else None), indent=2))
