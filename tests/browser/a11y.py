"""Accessibility checks of the built book in chromium, shared by the browser tests and
``benchmarks/run.py``.

* :func:`axe_violations`: axe-core (npm, pinned in package-lock.json; injected into the page
  from ``node_modules``, never part of the site) run on a loaded page; the serious and
  critical violations, one per offending element.
* :func:`low_contrast_cells`: numbers on coloured cells (``data-key`` elements of every view
  the page shows or stores) whose WCAG contrast with their background, from computed
  styles, is below AA's 4.5; :func:`low_contrast_text`: any text of a widget output below
  a given ratio. Both use :data:`CONTRAST_JS`.
* :func:`reflow_problems`: the page scrolls sideways, or content sticks out of the viewport
  other than inside a box that scrolls (``overflow-x: auto``) and fits. :data:`SMALL_SCREENS`
  are the viewports it is run at: a phone and 200 % zoom.
* :func:`ax_node`: a control's accessible role, name and value in chromium's accessibility
  tree.
* :func:`axe_site`: the axe violations of every page of a build at each of
  :data:`AXE_SCREENS`, a desktop and a phone (``make bench``).

Run ``python -m tests.browser.a11y`` from the root to print every page's violations.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.browser import harness

AXE_JS = harness.ROOT / "node_modules" / "axe-core" / "axe.min.js"
# The impacts that fail a page (axe's others are "moderate" and "minor").
BLOCKING = ("serious", "critical")
# WCAG 2.x AA contrast for normal-size text (1.4.3).
AA_CONTRAST = 4.5

# Reflow (WCAG 1.4.10): context arguments of the small screens every page must fit.
# "zoom200" is a 1280 x 900 desktop window at 200 % zoom: browser zoom divides the CSS
# viewport by the zoom factor and multiplies devicePixelRatio by it, so the page lays out
# in a 640 x 450 CSS-pixel viewport at device scale 2, media queries included. (The CSS
# ``zoom`` property would not do that: it scales the page inside an unchanged viewport.)
# "phone" is a 390 x 844 phone (an iPhone 12 to 14) in mobile emulation: the meta viewport
# applies, and a page too wide for it makes the browser widen the layout viewport, so
# ``window.innerWidth`` is checked against the width asked for as well.
SMALL_SCREENS: dict[str, dict] = {
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "device_scale_factor": 3,
        "is_mobile": True,
        "has_touch": True,
    },
    "zoom200": {"viewport": {"width": 640, "height": 450}, "device_scale_factor": 2},
}

# The windows axe-core checks every page in: a desktop, and the phone. Some violations exist at
# one width only: at 390 px, equations and tables too wide for the screen scroll sideways
# (axe: scrollable-region-focusable), which none did at 1280 px (issue 38: 27 nodes on a
# phone, 0 on a desktop). test_pages.py runs axe on the desktop, test_reflow.py on the small
# screens.
AXE_SCREENS: dict[str, dict] = {
    "desktop": {"viewport": {"width": 1280, "height": 900}},
    "phone": SMALL_SCREENS["phone"],
}


@dataclass(frozen=True)
class Violation:
    """One element that fails one axe rule."""

    rule: str
    impact: str
    help: str
    target: str

    def __str__(self) -> str:
        return f"{self.rule} ({self.impact}): {self.target} -- {self.help}"


# axe.run on the whole document; the violating elements of the blocking impacts. Per-element
# impacts are used (a rule's impact is the highest of its elements').
AXE_RUN_JS = """
async (blocking) => {
  const r = await axe.run(document, {resultTypes: ['violations']});
  const out = [];
  for (const v of r.violations) {
    for (const n of v.nodes) {
      const impact = n.impact || v.impact;
      if (blocking.includes(impact)) {
        out.push({rule: v.id, impact, help: v.help, target: n.target.join(' ')});
      }
    }
  }
  return out;
}
"""


def axe_violations(page) -> list[Violation]:
    """The serious and critical axe-core violations of ``page`` (loaded), one per element."""
    if not AXE_JS.is_file():
        raise RuntimeError(f"{AXE_JS} is missing: run `npm ci` (make book does)")
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE_JS))
    return [Violation(**v) for v in page.evaluate(AXE_RUN_JS, list(BLOCKING))]


# WCAG 2.x contrast in the page: colours of computed styles, relative luminance, and the
# background an element is seen on (its own and its ancestors', translucent ones composited
# over those under them, down to the first opaque one; white if none).
CONTRAST_JS = """
  const rgba = (s) => (s.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (c) => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const bgOf = (e) => {
    const layers = [];
    for (; e; e = e.parentElement) {
      const [r, g, b, a = 1] = rgba(getComputedStyle(e).backgroundColor);
      if (a > 0) layers.push([r, g, b, a]);
      if (a >= 1) break;
    }
    let bg = [255, 255, 255];
    for (const [r, g, b, a] of layers.reverse()) {
      bg = [r, g, b].map((c, i) => a * c + (1 - a) * bg[i]);
    }
    return bg;
  };
  const contrast = (fg, bg) => {
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    return (a + 0.05) / (b + 0.05);
  };
"""

# The numbers (data-key elements) of every view the page stores, with a coloured background:
# [key, text colour, background, ratio] of those below ``min``, and how many were checked.
# "Coloured" is any background but white.
LOW_CONTRAST_CELLS_JS = (
    "(min) => {"
    + CONTRAST_JS
    + """
  const low = [];
  let coloured = 0;
  const check = (root) => {
    for (const e of root.querySelectorAll('.mha-view [data-key]')) {
      const bg = bgOf(e);
      if (bg.every((c) => c > 254.5)) continue;
      coloured += 1;
      const fg = rgba(getComputedStyle(e).color).slice(0, 3);
      const ratio = contrast(fg, bg);
      if (ratio < min) {
        low.push([e.dataset.key, fg.join(','), bg.map(Math.round).join(','), +ratio.toFixed(2)]);
      }
    }
  };
  check(document);
  return {coloured, low};
}
"""
)

# Text inside widget outputs whose contrast with its background is below ``min``, as
# [text, colour, background, ratio].
LOW_CONTRAST_TEXT_JS = (
    "(min) => {"
    + CONTRAST_JS
    + """
  const out = [];
  for (const e of document.querySelectorAll('.cell_output .widget-subarea *')) {
    const text = Array.from(e.childNodes).filter((n) => n.nodeType === 3)
        .map((n) => n.textContent.trim()).join('');
    if (!text || !e.checkVisibility()) continue;
    const fg = rgba(getComputedStyle(e).color).slice(0, 3), bg = bgOf(e);
    const ratio = contrast(fg, bg);
    if (ratio < min) {
      out.push([text.slice(0, 40), fg.join(','), bg.map(Math.round).join(','), +ratio.toFixed(2)]);
    }
  }
  return out;
}
"""
)


def low_contrast_text(page, minimum: float = 3.0) -> list:
    """Widget output text whose contrast with its background is below ``minimum``."""
    return page.evaluate(LOW_CONTRAST_TEXT_JS, minimum)


def low_contrast_cells(page, minimum: float = AA_CONTRAST) -> tuple[int, list]:
    """(number of numbers on coloured cells checked, those with contrast below ``minimum``),
    over the views shown and every view stored in the page's widget state."""
    r = page.evaluate(LOW_CONTRAST_CELLS_JS, minimum)
    return r["coloured"], r["low"]


# An element as a selector-like name in the checks' messages: tag#id.class (3 classes at most).
NAME_JS = """
  const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
      + Array.from(e.classList).slice(0, 3).map((c) => '.' + c).join('');
"""


# The page's horizontal overflow at the current viewport: documentElement.scrollWidth against
# innerWidth, and every visible element that sticks out of the viewport and is not inside a
# box that scrolls sideways (overflow-x auto/scroll) and itself fits (boxes that hold it whole
# are passed over: they clip nothing of it). Not content: fixed
# elements that lie outside the viewport (off-canvas drawers) and absolute ones clipped to
# nothing (text for screen readers only, such as MathJax's assistive MathML), and their
# descendants.
REFLOW_JS = (
    """
() => {"""
    + NAME_JS
    + """
  const vw = window.innerWidth;
  const fits = (r) => r.left >= -1 && r.right <= vw + 1;
  const notShown = (e) => {  // in an off-canvas drawer, or visually hidden (screen readers')
    for (; e; e = e.parentElement) {
      const st = getComputedStyle(e);
      if (st.position === 'fixed' && !fits(e.getBoundingClientRect())) return true;
      if (st.position === 'absolute' && st.clip !== 'auto') return true;
    }
    return false;
  };
  const out = [];
  for (const e of document.body.querySelectorAll('*')) {
    const r = e.getBoundingClientRect();
    if (fits(r) || r.width === 0 || !e.checkVisibility() || notShown(e)) continue;
    // the nearest box that clips e: overflow other than visible, and e not wholly inside it
    // (a box that holds e whole clips nothing of it, such as MathJax's svg of one stretched
    // delimiter inside its formula's scrolling container)
    const inside = (b) => r.left >= b.left - 1 && r.right <= b.right + 1;
    let box = e.parentElement;
    while (box && (getComputedStyle(box).overflowX === 'visible'
                   || inside(box.getBoundingClientRect()))) box = box.parentElement;
    const ox = box ? getComputedStyle(box).overflowX : 'visible';
    if (box && ['auto', 'scroll'].includes(ox) && fits(box.getBoundingClientRect())) continue;
    const where = box ? `${name(box)} (overflow-x ${ox})` : 'the page';
    out.push(`${name(e)} spans ${Math.round(r.left)}..${Math.round(r.right)} px in ${where}`);
  }
  return {scrollWidth: document.documentElement.scrollWidth, innerWidth: vw, outside: out};
}
"""
)


def reflow_problems(page, width: int) -> list[str]:
    """What does not reflow on ``page``, laid out in a viewport ``width`` CSS px wide."""
    r = page.evaluate(REFLOW_JS)
    problems = []
    if r["innerWidth"] > width:
        problems.append(f"the browser widened the {width} px viewport to {r['innerWidth']} px")
    if r["scrollWidth"] > r["innerWidth"]:
        problems.append(f"the page scrolls sideways: {r['scrollWidth']} > {r['innerWidth']} px")
    found = r["outside"]
    elided = len(found) - 10
    problems += found[:10] + ([f"... and {elided} more"] if elided > 0 else [])
    return problems


@dataclass(frozen=True)
class AXNode:
    """What chromium's accessibility tree exposes for one element."""

    role: str
    name: str
    value: str


def ax_node(page, selector: str, index: int = 0) -> AXNode:
    """The accessible role, name and value of the ``index``-th match of ``selector``.

    Read over the DevTools protocol (``Accessibility.getPartialAXTree``): chromium's own
    computation (e.g. a name from ``aria-labelledby`` or a ``<label for>``), not the
    element's attributes. For a ``<select>`` the value is the selected option's text. For
    an ARIA slider it is ``aria-valuenow``: the protocol does not report ``aria-valuetext``
    (its "valuetext" property is empty for every ARIA slider in chromium 156), so what a
    slider announces as its value is read from that attribute.
    """
    cdp = page.context.new_cdp_session(page)
    try:
        found = cdp.send(
            "Runtime.evaluate",
            {"expression": f"document.querySelectorAll({json.dumps(selector)})[{index}]"},
        )
        object_id = found["result"].get("objectId")
        if object_id is None:
            raise LookupError(f"no element {index} matches {selector!r}")
        tree = cdp.send(
            "Accessibility.getPartialAXTree", {"objectId": object_id, "fetchRelatives": False}
        )
    finally:
        cdp.detach()
    node = tree["nodes"][0]

    def text(field: str) -> str:
        return str(node.get(field, {}).get("value", ""))

    return AXNode(role=text("role"), name=text("name"), value=text("value"))


def axe_site(site: Path = harness.SITE) -> dict:
    """axe-core on every page of the build (the root's redirect aside) at each of
    :data:`AXE_SCREENS`: the total number of serious and critical violating elements over
    pages and screens, ``axe_violations``, the number of pages, and the violations by page and
    screen (``"rel (phone)"``)."""
    per_page: dict[str, list[str]] = {}
    pages: set[str] = set()
    for screen, context_args in AXE_SCREENS.items():
        with harness.site_browser(site, **context_args) as (ctx, base):
            for rel in harness.book_pages(site):
                if harness.is_redirect(site, rel):
                    continue
                page = ctx.new_page()
                try:
                    harness.goto(page, base, rel, site)
                    per_page[f"{rel} ({screen})"] = [str(v) for v in axe_violations(page)]
                    pages.add(rel)
                finally:
                    page.close()
    return {
        "axe_violations": sum(len(v) for v in per_page.values()),
        "pages": len(pages),
        "per_page": per_page,
    }


if __name__ == "__main__":
    site = Path(sys.argv[1]) if len(sys.argv) > 1 else harness.SITE
    print(json.dumps(axe_site(site), indent=2))
