"""Take a picture of every widget of the built site, for the PDF (``make pdf``).

    python -m tests.browser.widget_stills [--out _build/widget-stills]

Each widget output of each page, rendered in chromium with no kernel as a reader first sees
it (every control at its default), is saved as ``<model id>.png``; ``stills.json`` maps the
model id to its page, the settings of its visible controls (label and value, as the page
shows them) and its width. ``book/_ext/pdf.py`` puts the picture where the widget was, with a
caption made from those settings. The model ids are the ones of the site's own build (one
Sphinx environment serves both), so the pictures must be taken again after each
``make book`` that re-executed a page: ``make pdf`` does.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from tests.browser import harness
from tests.browser.screenshot import SHOT_CSS, fit_viewport, shoot_box, widget_pages

OUT = harness.ROOT / "_build" / "widget-stills"
# Drawn at 2 device pixels per CSS pixel; a view as wide as the page's text column (about
# 750 CSS pixels at this viewport) is printed as wide as the PDF's text.
CONTEXT = {"viewport": {"width": 1200, "height": 900}, "device_scale_factor": 2}
TEXT_COLUMN_PX = 750

# For each widget output of the page, in order: its model id and its visible controls.
WIDGETS_JS = """() => Array.from(document.querySelectorAll(
    'script[type="application/vnd.jupyter.widget-view+json"]')).map((s) => {
  const root = s.previousElementSibling;
  const controls = Array.from(root.querySelectorAll(
      '.widget-slider, .widget-dropdown, .widget-toggle-buttons, .widget-text, '
      + '.widget-checkbox')).filter((c) => c.checkVisibility()).map((c) => {
    const label = (c.querySelector('.widget-label') || {textContent: ''}).textContent.trim();
    let value = '';
    if (c.matches('.widget-slider')) value = c.querySelector('.widget-readout').textContent;
    else if (c.matches('.widget-dropdown')) {
      const sel = c.querySelector('select');
      value = sel.options[sel.selectedIndex].textContent;
    } else if (c.matches('.widget-toggle-buttons')) {
      value = (c.querySelector('button.mod-active') || {textContent: ''}).textContent;
    } else if (c.matches('.widget-text')) value = c.querySelector('input').value;
    else value = c.querySelector('input').checked ? 'on' : 'off';
    return [label, value.trim()];
  });
  return {model_id: JSON.parse(s.textContent).model_id, controls,
          width: root.getBoundingClientRect().width};
})"""


def take(out: Path = OUT, site: Path = harness.SITE) -> dict[str, dict]:
    """Save every widget's picture into ``out`` (emptied first); return stills.json's data."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    index: dict[str, dict] = {}
    with harness.site_browser(site, **CONTEXT) as (ctx, base):
        for rel in widget_pages(site):
            page = ctx.new_page()
            log = harness.watch(page)
            harness.goto(page, base, rel, site)
            page.add_style_tag(content=SHOT_CSS)
            widgets = page.evaluate(WIDGETS_JS)
            areas = page.locator(".cell_output:has(> script[type*='widget-view'])")
            if areas.count() != len(widgets):
                raise SystemExit(f"{rel}: {areas.count()} outputs for {len(widgets)} widgets")
            for k, widget in enumerate(widgets):
                area = areas.nth(k).locator(".widget-subarea")
                fit_viewport(page, area, margin=100)
                area.scroll_into_view_if_needed()
                box = area.bounding_box()
                if not box or box["height"] < 10:
                    raise SystemExit(f"{rel}: widget {k + 1} shows an empty box")
                shoot_box(page, box, out / f"{widget['model_id']}.png", pad=8)
                index[widget["model_id"]] = {
                    "page": rel,
                    "controls": widget["controls"],
                    "width_fraction": min(1.0, widget["width"] / TEXT_COLUMN_PX),
                    "aspect": box["height"] / box["width"],
                    "alt": f"Picture of the interactive view number {k + 1} on {rel}",
                }
            if log.problems():
                raise SystemExit(f"{rel}: " + "; ".join(log.problems()))
            page.close()
    (out / "stills.json").write_text(json.dumps(index, indent=1), encoding="utf-8")
    return index


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT, help=f"default {OUT}")
    args = ap.parse_args()
    index = take(args.out)
    print(f"{len(index)} widget pictures in {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
