"""Measure the built book's widgets in chromium: first render, and key press -> view change.

Importable from the repository's root (``benchmarks/run.py`` does)::

    from tests.browser.site_metrics import measure_site, measure_widgets
    result = measure_site()               # every page: weights; widget pages: timings
    result = measure_widgets()            # first widget page of the build
    result = measure_widgets("notebooks/01_one_budget.html", presses=20)

or run ``python -m tests.browser.site_metrics [PAGE | --site]`` from the root (prints
JSON). Times are taken inside the page with ``performance.now()`` (so no Playwright round
trip is counted):

* ``first_view_ms``: navigation start -> the first frame painted after a complete
  ``.mha-view`` was visible: the view is in the DOM entirely (a node after it exists, so
  the HTML parser has passed its end), not hidden by ``display``, ``visibility`` or
  ``opacity``, and then a frame has been rendered (a ``requestAnimationFrame`` callback
  and the task after it, so the frame's paint is done); and never before the page's
  first contentful paint. The view may be the static first view that
  ``book/_ext/static_widgets.py`` writes into the page (the same HTML as the widget's);
* ``all_widgets_ms``: navigation start -> every saved widget view is rendered by the site's
  anywidget host, live (no static first view left);
* ``key_to_view_ms``: for each key press on a slider (a live native range input of a view
  computed in the browser), the ``keydown`` event's time stamp -> the first DOM change inside
  a view (a MutationObserver: it runs once the handlers that recomputed and redrew it
  returned);
* ``key_to_paint_ms``: the same time stamp -> the next frame painted after that change
  (a ``requestAnimationFrame`` callback, then the task after it), what the reader waits;
* ``step_work_ms``: compute + draw, the issue's "one control step": ``key_to_view_ms`` plus
  that frame's own work (its ``requestAnimationFrame`` callback -> painted: style, layout,
  paint), without the idle wait for the frame to start;
* ``throttled_all_widgets_ms``: ``all_widgets_ms`` again, in loads of the page with
  the CPU slowed 4x by DevTools (``Emulation.setCPUThrottlingRate``), as on a mid-range phone;
* both are the median of three loads of the page (``loads``): one load's time varies by a
  third on this 2-core machine;
* ``page_bytes``: the page and everything it loaded (uncompressed, as served);
* ``page_gzip_bytes``: the same files gzip-compressed (level 6), as a static host that
  compresses its responses would transfer them;
* ``module_repeated_bytes``: the view-module text a page carries more than once (issue 37's
  goal is 0): the page's view modules are every widget's ``_esm`` string in its widget state
  (one per widget) and every JavaScript file it loaded from the site that is an ES module (a
  line starting ``export``); a line (stripped, 20 characters or more) found in k of them
  counts k - 1 times. Line-based: repeats inside one minified line are not seen.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import statistics
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

from tests.browser import harness

INIT_JS = """
(() => {
  window.__mha = {firstSeen: null, firstView: null, allWidgets: null, presses: []};
  const complete = (v) => {  // the parser has gone past the view's end tag
    for (let e = v; e; e = e.parentElement) if (e.nextSibling) return true;
    return document.readyState !== 'loading';
  };
  const shown = (v) => v.checkVisibility({visibilityProperty: true, opacityProperty: true});
  const isView = (n) => n.nodeType === 1
      && (n.matches('.mha-view') || !!n.querySelector('.mha-view'));
  const inView = (n) => { const e = n.nodeType === 1 ? n : n.parentElement;
                          return !!(e && e.closest('.mha-view')); };
  const touches = (r) => inView(r.target) || Array.from(r.addedNodes).some(isView);
  const check = (records) => {
    const m = window.__mha;
    if (m.firstSeen === null && document.querySelector('.mha-view')
        && Array.from(document.querySelectorAll('.mha-view')).some(
            (v) => complete(v) && shown(v))) {
      m.firstSeen = performance.now();
      requestAnimationFrame(() => {
        const after = new MessageChannel();
        after.port1.onmessage = () => { m.firstView = performance.now(); };
        after.port2.postMessage(null);
      });
    }
    if (m.allWidgets === null) {
      const views = document.querySelectorAll(
          'script[type="application/vnd.jupyter.widget-view+json"]');
      if (views.length && !document.querySelector('.mha-static-widget')
          && Array.from(views).every((s) => s.previousElementSibling
          && s.previousElementSibling.classList.contains('widget-subarea')
          && s.previousElementSibling.childElementCount > 0)) m.allWidgets = performance.now();
    }
    // A press: its view has changed (the handler has run: observers run after it) ...
    const p = m.presses[m.presses.length - 1];
    if (p && p.changed === null && records.some(touches)) {
      p.changed = performance.now();
      requestAnimationFrame(() => {  // ... and the next frame starts, then is painted
        p.frame = performance.now();
        const after = new MessageChannel();
        after.port1.onmessage = () => { p.painted = performance.now(); };
        after.port2.postMessage(null);
      });
    }
  };
  new MutationObserver(check).observe(document, {subtree: true, childList: true,
                                                 attributes: true, characterData: true});
  document.addEventListener('keydown', (e) => {
    window.__mha.presses.push({t0: e.timeStamp, changed: null, frame: null, painted: null});
  }, true);
})();
"""


# The sliders a reader moves: the native range inputs of the views computed in the browser,
# once live (not in a static first view).
SLIDERS = ".widget-subarea:not(.mha-static-widget) input[type=range]:not(:disabled)"
# (value, min, max) of one.
POSITION_JS = "(e) => [e.value, e.min || '0', e.max || '100']"


def _live_ms(ctx, base: str, rel: str, rate: float = 1) -> float | None:
    """``all_widgets_ms`` of one more load of ``rel``, the CPU slowed ``rate`` times (DevTools)."""
    page = ctx.new_page()
    try:
        if rate != 1:
            cdp = ctx.new_cdp_session(page)
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
        page.add_init_script(INIT_JS)
        page.goto(base + rel, wait_until="load")
        harness.settle(page)
        return page.evaluate("() => window.__mha.allWidgets")
    finally:
        page.close()


def _first_widget_page(site: Path) -> str:
    for rel in harness.book_pages(site):
        if "mha-view" in (site / rel).read_text(encoding="utf-8"):
            return rel
    raise RuntimeError(f"no page of {site} has widget views")


VIEWPORT = {"width": 1280, "height": 900}

WEIGHT_JS = """
() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  const res = performance.getEntriesByType('resource')
      .map((r) => [r.name.replace(location.origin, ''), r.encodedBodySize]);
  return {doc: nav.encodedBodySize, res, fcp: fcp ? fcp.startTime : null};
}
"""


def gzip_bytes(site: Path, urls: list[str]) -> int:
    """Bytes of the site's files at ``urls`` (paths on the server) after gzip level 6."""
    total = 0
    for url in urls:
        path = site / unquote(urlsplit(url).path.lstrip("/"))
        if path.is_file():  # a request the site could not answer (favicon.ico) sent nothing
            total += len(gzip.compress(path.read_bytes(), compresslevel=6))
    return total


STATE_RE = re.compile(
    r'<script type="application/vnd\.jupyter\.widget-state\+json">(.*?)</script>', re.S
)
ES_MODULE = re.compile(r"^export ", re.M)


def _esm_strings(value) -> list[str]:
    """Every string under an ``_esm`` key of a widget state (nested dicts and lists)."""
    if isinstance(value, dict):
        return [
            s
            for k, v in value.items()
            for s in ([v] if k == "_esm" and isinstance(v, str) else _esm_strings(v))
        ]
    return [s for v in value for s in _esm_strings(v)] if isinstance(value, list) else []


def page_modules(site: Path, rel: str, urls: list[str]) -> list[str]:
    """The view modules of page ``rel``: its widgets' ``_esm`` strings, then the ES-module
    JavaScript files among ``urls`` (paths on the server) that the site holds."""
    html = (site / rel).read_text(encoding="utf-8")
    texts = [s for state in STATE_RE.findall(html) for s in _esm_strings(json.loads(state))]
    for url in urls:
        path = site / unquote(urlsplit(url).path.lstrip("/"))
        if path.suffix in {".js", ".mjs"} and path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            if ES_MODULE.search(text):
                texts.append(text)
    return texts


def repeated_bytes(texts: list[str], shortest: int = 20) -> int:
    """Bytes of the lines (stripped, ``shortest`` characters or more) that are in more than
    one of ``texts``: a line in k texts counts k - 1 times."""
    seen: dict[str, int] = {}
    for text in texts:
        for line in {x.strip() for x in text.splitlines()}:
            if len(line) >= shortest:
                seen[line] = seen.get(line, 0) + 1
    return sum((k - 1) * len(line.encode()) for line, k in seen.items())


def _measure_page(
    ctx, base: str, rel: str, presses: int, site: Path = harness.SITE, loads: int = 3
) -> dict:
    """Load ``rel``; time its widgets' first render and ``presses`` key presses per slider;
    the time until its widgets are live, plain and with the CPU slowed 4x: the median of
    ``loads`` loads each."""
    page = ctx.new_page()
    try:
        log = harness.watch(page)
        page.add_init_script(INIT_JS)
        page.goto(base + rel, wait_until="load")
        harness.settle(page)
        w = page.evaluate(WEIGHT_JS)
        handles = page.locator(SLIDERS)
        for i in range(handles.count()) if presses else []:
            handle = handles.nth(i)
            if not handle.is_visible():
                continue
            handle.focus()
            key = "ArrowRight"
            for _ in range(presses):
                now, low, high = handle.evaluate(POSITION_JS)
                if now == high:
                    key = "ArrowLeft"
                elif now == low:
                    key = "ArrowRight"
                page.keyboard.press(key)
                page.wait_for_function(
                    "() => { const p = window.__mha.presses.at(-1);"
                    " return p && p.painted !== null; }",
                    timeout=5000,
                )
        m = page.evaluate("() => window.__mha")
    finally:
        page.close()
    done = [p for p in m["presses"] if p["painted"] is not None]
    lat = [p["changed"] - p["t0"] for p in done]
    paint = [p["painted"] - p["t0"] for p in done]
    # compute + draw: until the view changed, then the frame's own work (style, layout,
    # paint), without the wait for that frame to start
    work = [(p["changed"] - p["t0"]) + (p["painted"] - p["frame"]) for p in done]
    # The load times vary from load to load on a shared machine: the median of ``loads``.
    live = throttled = None
    if m["allWidgets"] is not None:
        live = statistics.median(
            [m["allWidgets"], *(_live_ms(ctx, base, rel) for _ in range(loads - 1))]
        )
        throttled = statistics.median([_live_ms(ctx, base, rel, rate=4) for _ in range(loads)])
    resources = sorted(w["res"], key=lambda r: -r[1])
    return {
        "page": rel,
        "first_view_ms": None if m["firstView"] is None else max(m["firstView"], w["fcp"] or 0),
        "first_contentful_paint_ms": w["fcp"],
        "all_widgets_ms": live,
        "throttled_all_widgets_ms": throttled,
        "key_to_view_ms": lat,
        "key_to_view_median_ms": statistics.median(lat) if lat else None,
        "key_to_view_max_ms": max(lat) if lat else None,
        "key_to_paint_ms": paint,
        "step_work_ms": work,
        "page_bytes": w["doc"] + sum(r[1] for r in resources),
        "page_gzip_bytes": gzip_bytes(site, ["/" + rel, *(url for url, _ in resources)]),
        "module_repeated_bytes": repeated_bytes(
            page_modules(site, rel, [url for url, _ in resources])
        ),
        "requests": 1 + len(resources),
        "largest_assets": resources[:5],
        "problems": log.problems(),
    }


def measure_widgets(rel: str | None = None, presses: int = 10, site: Path = harness.SITE) -> dict:
    """Time first widget render and key press -> view change on every slider of ``rel``."""
    rel = rel or _first_widget_page(site)
    with harness.site_browser(site, viewport=VIEWPORT) as (ctx, base):
        return _measure_page(ctx, base, rel, presses, site)


def _spread(key: str, values: list[float]) -> dict:
    """``key``'s median, p95 and max over ``values`` (sorted), as ``key_median`` etc."""
    if not values:
        return {f"{key}_{k}": None for k in ("median", "p95", "max")}
    return {
        f"{key}_median": statistics.median(values),
        f"{key}_p95": values[int(0.95 * (len(values) - 1))],
        f"{key}_max": values[-1],
    }


def measure_site(site: Path = harness.SITE, presses: int = 6) -> dict:
    """Every page of the build: weights; widget pages: first render and slider switch times.

    Flat numbers for a benchmark table (bytes as the browser received them from
    http.server, i.e. uncompressed), plus ``per_page`` details.
    """
    site = Path(site)
    load_before = os.getloadavg()[0]
    with harness.site_browser(site, viewport=VIEWPORT) as (ctx, base):
        per_page = [
            _measure_page(ctx, base, rel, presses if "mha-view" in text else 0, site)
            for rel in harness.book_pages(site)
            if rel != "index.html"  # the root only redirects
            for text in [(site / rel).read_text(encoding="utf-8")]
        ]
    switches = sorted(x for p in per_page for x in p["key_to_view_ms"])
    paints = sorted(x for p in per_page for x in p["key_to_paint_ms"])
    works = sorted(x for p in per_page for x in p["step_work_ms"])
    renders = [p["first_view_ms"] for p in per_page if p["first_view_ms"] is not None]
    live = [p["all_widgets_ms"] for p in per_page if p["all_widgets_ms"] is not None]
    slow = [p["throttled_all_widgets_ms"] for p in per_page if p["throttled_all_widgets_ms"]]
    heaviest = max(per_page, key=lambda p: p["page_bytes"])
    return {
        "pages": len(per_page),
        "widget_pages": len(renders),
        "static_switches": len(switches),
        **_spread("static_switch_ms", switches),
        **_spread("key_to_paint_ms", paints),
        **_spread("step_work_ms", works),
        "first_render_s": statistics.median(renders) / 1000 if renders else None,
        "first_render_s_max": max(renders) / 1000 if renders else None,
        "all_widgets_live_s": statistics.median(live) / 1000 if live else None,
        "all_widgets_live_s_max": max(live) / 1000 if live else None,
        "throttled_live_s_max": max(slow) / 1000 if slow else None,
        # The machine's 1-minute load average before and after (2 cores shared: wall times
        # grow with it).
        "load_avg_1min": [load_before, os.getloadavg()[0]],
        "max_page_bytes": heaviest["page_bytes"],
        "max_page_gzip_bytes": max(p["page_gzip_bytes"] for p in per_page),
        # What a page loads only when the reader asks (the trained explorer's other settings,
        # _static/mha-data/: book/_ext/static_widgets.py): every such file, gzip.
        "on_demand_gzip_bytes": gzip_bytes(
            site, [f"/{p.relative_to(site)}" for p in sorted(site.glob("_static/mha-data/*.js"))]
        ),
        "module_repeated_bytes_max": max(p["module_repeated_bytes"] for p in per_page),
        "max_page": heaviest["page"],
        "max_page_largest_assets": heaviest["largest_assets"],
        "problems": [f"{p['page']}: {x}" for p in per_page for x in p["problems"]],
        "per_page": per_page,
    }


if __name__ == "__main__":
    arg = sys.argv[1] if len(sys.argv) > 1 else None
    result = measure_site() if arg == "--site" else measure_widgets(arg)
    print(json.dumps(result, indent=2))
