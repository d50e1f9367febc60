"""Where the first widget view's time goes: a chromium performance trace per widget page.

Not a test and not a benchmark figure: a tool for finding what to make faster. For each
widget page (or the pages named), load it ``--runs`` times in one chromium (pages
interleaved, so that the machine's load falls on all of them alike) with a performance
trace, and print, per page, medians over the runs of

* ``first_view``: site_metrics' ``first_view_ms`` (navigation start -> a ``.mha-view`` is
  visible), measured by the same script;
* ``html``: the page's HTML received (``responseEnd``) and parsed (``domInteractive``);
* ``dcl``: DOMContentLoaded (deferred scripts have run);
* for the big scripts (our own widget scripts): main-thread compile +
  evaluate time;
* ``busy``: main-thread CPU time (trace ``tdur``: thread time, not wall time, so less
  inflated by other processes on the machine) of all tasks before the first view, and the
  part of it spent in style, layout and paint;
* ``load``: the 1-minute load average when the page was measured.

Run from the repository's root::

    python -m tests.browser.render_profile [--runs 5] [PAGE ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections import defaultdict

from tests.browser import harness, site_metrics

CATEGORIES = [
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "blink.user_timing",
    "v8",
    "loading",
]

NAV_JS = """
() => {
  const n = performance.getEntriesByType('navigation')[0];
  const res = {};
  for (const r of performance.getEntriesByType('resource')) {
    res[r.name.split('/').pop().split('?')[0]] = [r.startTime, r.responseEnd];
  }
  return {responseEnd: n.responseEnd, domInteractive: n.domInteractive,
          dcl: n.domContentLoadedEventStart, dclEnd: n.domContentLoadedEventEnd,
          load: n.loadEventStart, firstView: window.__mha.firstView,
          firstSeen: window.__mha.firstSeen,
          fcp: (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime,
          allWidgets: window.__mha.allWidgets, marks: performance.getEntriesByType('mark')
          .map((m) => [m.name, m.startTime]), res};
}
"""

BIG_SCRIPTS = ("mha-anywidget-host.js",)
RENDERING = {"UpdateLayoutTree", "Layout", "Paint", "PrePaint", "Layerize", "RecalculateStyles"}


def _trace(ctx, url: str) -> tuple[list[dict], dict]:
    page = ctx.new_page()
    try:
        page.add_init_script(site_metrics.INIT_JS)
        cdp = ctx.new_cdp_session(page)
        events: list[dict] = []
        done = []
        cdp.on("Tracing.dataCollected", lambda p: events.extend(p["value"]))
        cdp.on("Tracing.tracingComplete", lambda p: done.append(True))
        cdp.send(
            "Tracing.start",
            {"traceConfig": {"includedCategories": CATEGORIES}, "transferMode": "ReportEvents"},
        )
        page.goto(url, wait_until="load")
        harness.settle(page)
        nav = page.evaluate(NAV_JS)
        cdp.send("Tracing.end")
        t0 = time.monotonic()
        while not done and time.monotonic() - t0 < 30:
            page.wait_for_timeout(50)
    finally:
        page.close()
    return events, nav


def _summarise(events: list[dict], nav: dict) -> dict:
    # The renderer main thread: the one that ran the navigation's ParseHTML.
    parse = [e for e in events if e.get("name") == "ParseHTML"]
    pid, tid = parse[0]["pid"], parse[0]["tid"]
    starts = [
        e["ts"]
        for e in events
        if e.get("name") == "navigationStart" and e.get("pid") == pid and "args" in e
    ]
    origin = starts[-1] if starts else min(e["ts"] for e in parse)
    first_view = max(nav["firstView"] or 0.0, nav["fcp"] or 0.0)
    end_us = origin + first_view * 1000
    main = [
        e
        for e in events
        if e.get("pid") == pid and e.get("tid") == tid and e.get("ph") == "X" and "dur" in e
    ]
    tasks = [e for e in main if e["name"] in ("RunTask", "ThreadControllerImpl::RunTask")]
    busy = sum(e.get("tdur", e["dur"]) for e in tasks if origin <= e["ts"] < end_us) / 1000
    busy_wall = sum(e["dur"] for e in tasks if origin <= e["ts"] < end_us) / 1000
    rendering = (
        sum(
            e.get("tdur", e["dur"])
            for e in main
            if e["name"] in RENDERING and origin <= e["ts"] < end_us
        )
        / 1000
    )
    per_script: dict[str, float] = defaultdict(float)
    for e in main:
        if e["name"] not in ("EvaluateScript", "v8.compile", "v8.compileModule"):
            continue
        data = e.get("args", {}).get("data", {}) or e.get("args", {}).get("fileName", {})
        url = data.get("url", "") if isinstance(data, dict) else ""
        name = url.split("/")[-1].split("?")[0]
        if name in BIG_SCRIPTS:
            per_script[name] += e.get("tdur", e["dur"]) / 1000
    parse_ms = sum(e.get("tdur", e["dur"]) for e in parse if e["pid"] == pid) / 1000
    return {
        "first_view": first_view,
        "first_view_in_dom": nav["firstSeen"],
        "first_contentful_paint": nav["fcp"],
        "all_widgets": nav["allWidgets"],
        "html_received": nav["responseEnd"],
        "html_parsed": nav["domInteractive"],
        "parse_html_cpu": parse_ms,
        "dcl": nav["dcl"],
        "dcl_end": nav["dclEnd"],
        "load_event": nav["load"],
        **{f"eval+compile {k}": v for k, v in per_script.items()},
        **{f"fetched {k}": nav["res"].get(k, [None, None])[1] for k in BIG_SCRIPTS},
        "busy_cpu_before_first_view": busy,
        "busy_wall_before_first_view": busy_wall,
        "style_layout_paint_cpu": rendering,
        "marks": nav["marks"],
    }


def profile(pages: list[str], runs: int) -> dict:
    site = harness.SITE
    out: dict[str, list[dict]] = defaultdict(list)
    with harness.site_browser(site, viewport=site_metrics.VIEWPORT) as (ctx, base):
        for _ in range(runs):
            for rel in pages:
                events, nav = _trace(ctx, base + rel)
                s = _summarise(events, nav)
                s["load"] = os.getloadavg()[0]
                out[rel].append(s)
    summary = {}
    for rel, rows in out.items():
        keys = [k for k in rows[0] if k != "marks"]
        summary[rel] = {
            k: round(statistics.median(r[k] for r in rows if r.get(k) is not None), 1)
            for k in keys
            if any(r.get(k) is not None for r in rows)
        }
        summary[rel]["first_view_runs"] = [round(r["first_view"] or -1) for r in rows]
        summary[rel]["marks"] = rows[-1]["marks"]
    return summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pages", nargs="*")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    pages = args.pages or [
        rel
        for rel in harness.book_pages()
        if "mha-view" in (harness.SITE / rel).read_text(encoding="utf-8")
    ]
    print(json.dumps(profile(pages, args.runs), indent=1))


if __name__ == "__main__":
    main()
