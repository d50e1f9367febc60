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
# A view taller than this (CSS px) is printed in slices, cut between its blocks, so that the
# PDF prints it as wide as on the page (0.62 pt a pixel: 12 px text at 7.5 pt) with each
# slice within a page's height (0.95 of 9 in at that scale is about 990 px).
SLICE_PX = 900
# Rows (y, CSS px from the widget's top) where a cut splits no block: not inside a table row,
# a head's box, a heading, a paragraph, a control group or a picture.
CUTS_JS = """(root) => {
  const top = root.getBoundingClientRect().top;
  const blocks = Array.from(root.querySelectorAll(
      'tr, .mha-head, h3, h4, p, fieldset, label, li, img, svg, canvas, .mha-note'))
    .filter((e) => e.checkVisibility())
    .map((e) => { const r = e.getBoundingClientRect(); return [r.top - top, r.bottom - top]; });
  const ends = [...new Set(blocks.map(([, b]) => Math.ceil(b) + 1))].sort((a, b) => a - b);
  return ends.filter((y) => !blocks.some(([t, b]) => t < y && y < b));
}"""


def slices(height: float, cuts: list[float], most: float = SLICE_PX) -> list[tuple[float, float]]:
    """(top, bottom) of each slice of a view ``height`` tall, cut at some of ``cuts``, each at
    most ``most`` tall where a cut allows it (else up to the next cut)."""
    out, start = [], 0.0
    while height - start > most:
        inside = [c for c in cuts if start < c <= start + most]
        after = [c for c in cuts if c > start and c < height]
        cut = max(inside) if inside else (min(after) if after else height)
        out.append((start, cut))
        start = cut
    if start < height:
        out.append((start, height))
    return out


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
  // The native controls of the views computed in the browser (view_html.mjs): a labelled
  // range, select or number box (label.mha-control), and a radio group.
  for (const c of root.querySelectorAll('label.mha-control')) {
    if (!c.checkVisibility()) continue;
    const input = c.querySelector('input, select');
    const label = (c.querySelector('.mha-control-label') || {textContent: ''}).textContent;
    let value = input.value;
    if (input.tagName === 'SELECT') value = input.options[input.selectedIndex].textContent;
    else if (input.type === 'range') value = input.getAttribute('aria-valuetext') || value;
    controls.push([label.trim(), value.trim()]);
  }
  for (const g of root.querySelectorAll('[role=radiogroup]')) {
    const on = g.querySelector('input:checked');
    if (on && g.checkVisibility()) {
      controls.push([g.getAttribute('aria-label') || '', on.parentElement.textContent.trim()]);
    }
  }
  // The smallest text drawn (CSS px), which the PDF must print at 7 pt or more.
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  let smallest = Infinity;
  for (let t = walk.nextNode(); t; t = walk.nextNode()) {
    const e = t.parentElement;
    if (t.data.trim() && e.checkVisibility() && !e.closest('style')) {
      smallest = Math.min(smallest, parseFloat(getComputedStyle(e).fontSize));
    }
  }
  return {model_id: JSON.parse(s.textContent).model_id, controls,
          width: root.getBoundingClientRect().width, smallest_text_px: smallest};
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
                cuts = area.evaluate(CUTS_JS)
                parts = []
                for n, (top, bottom) in enumerate(slices(box["height"], cuts)):
                    name = widget["model_id"] + (f"-{n + 1}" if n else "") + ".png"
                    part = {**box, "y": box["y"] + top, "height": bottom - top}
                    shoot_box(page, part, out / name, pad=8)
                    parts.append({"file": name, "aspect": part["height"] / part["width"]})
                index[widget["model_id"]] = {
                    "page": rel,
                    "controls": widget["controls"],
                    "width_fraction": min(1.0, widget["width"] / TEXT_COLUMN_PX),
                    "aspect": box["height"] / box["width"],
                    "parts": parts,  # the picture, or its slices, top to bottom
                    "smallest_text_px": widget["smallest_text_px"],
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
