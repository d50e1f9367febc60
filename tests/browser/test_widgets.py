"""Widgets with no kernel: every control, moved by keyboard, changes the visible view.

The chapters' widgets are ipywidgets whose controls are jslink-ed to nested
``widgets.Stack``s of precomputed ``widgets.HTML`` views; the HTML manager renders them from
the widget state saved in the page. For every widget page, every visible control (slider
handle, dropdown, toggle buttons, radio buttons) is moved with the keyboard to a neighbour,
to its last and to its first position; each move must change the visible ``.mha-view``.
The numbers of every view seen are compared with what ``mha`` computes (expected.py).
Every slider and dropdown is announced by its description and with the value it shows,
also after a key press moves it.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.browser import a11y, expected, harness

STATE_RE = re.compile(
    r'<script type="application/vnd\.jupyter\.widget-state\+json">(.*?)</script>', re.S
)


def _widget_pages() -> list[str]:
    return [
        p
        for p in harness.book_pages()
        if "application/vnd.jupyter.widget-state+json"
        in (harness.SITE / p).read_text(encoding="utf-8")
    ]


WIDGET_PAGES = harness.or_missing(_widget_pages(), "page with widget state")
# Pages whose widgets are ipywidgets controls over stored views (widgets.HTML in Stacks);
# views computed in the browser by an anywidget module are tested in test_mask_view.py.
STORED_VIEW_PAGES = harness.or_missing(
    [p for p in _widget_pages() if '"model_name": "HTMLModel"' in (harness.SITE / p).read_text()],
    "page with stored views",
)

# Descriptors of the visible controls of a page, in document order.
CONTROLS_JS = """
() => {
  const out = [];
  const visible = (e) => e.checkVisibility();
  document.querySelectorAll('.widget-slider .noUi-handle').forEach((h, i) => {
    if (!visible(h)) return;
    out.push({kind: 'slider', i, label: h.closest('.widget-slider').innerText.trim(),
              now: +h.getAttribute('aria-valuenow'), min: +h.getAttribute('aria-valuemin'),
              max: +h.getAttribute('aria-valuemax')});
  });
  document.querySelectorAll('.widget-dropdown select').forEach((s, i) => {
    if (!visible(s)) return;
    out.push({kind: 'select', i, label: s.closest('.widget-dropdown').innerText.trim(),
              now: s.selectedIndex, min: 0, max: s.options.length - 1});
  });
  document.querySelectorAll('.widget-toggle-buttons').forEach((g, i) => {
    if (!visible(g)) return;
    const bs = Array.from(g.querySelectorAll('button'));
    out.push({kind: 'toggles', i, label: g.innerText.trim(),
              now: bs.findIndex((b) => b.classList.contains('mod-active')),
              min: 0, max: bs.length - 1});
  });
  document.querySelectorAll('.widget-radio-box').forEach((g, i) => {
    if (!visible(g)) return;
    const rs = Array.from(g.querySelectorAll('input[type=radio]'));
    out.push({kind: 'radio', i, label: g.innerText.trim(),
              now: rs.findIndex((r) => r.checked), min: 0, max: rs.length - 1});
  });
  return out;
}
"""

SIGNATURE_JS, CHANGED_JS = harness.VIEWS_SIGNATURE_JS, harness.VIEWS_CHANGED_JS


def _position(page, c) -> int:
    return next(
        d["now"] for d in page.evaluate(CONTROLS_JS) if d["kind"] == c["kind"] and d["i"] == c["i"]
    )


def _press_towards(page, c: dict, target: int, now: int) -> str:
    """Send the key(s) that move control ``c`` from ``now`` to ``target``; describe them."""
    if c["kind"] in ("slider", "select", "radio"):
        selector = {
            "slider": ".widget-slider .noUi-handle",
            "select": ".widget-dropdown select",
            "radio": ".widget-radio-box",
        }[c["kind"]]
        el = page.locator(selector).nth(c["i"])
        if c["kind"] == "radio":
            el = el.locator("input[type=radio]").nth(now)
        el.focus()
        fwd, back = (
            ("ArrowRight", "ArrowLeft") if c["kind"] == "slider" else ("ArrowDown", "ArrowUp")
        )
        if target == c["max"] and abs(target - now) > 1 and c["kind"] != "radio":
            key = "End"
        elif target == c["min"] and abs(target - now) > 1 and c["kind"] != "radio":
            key = "Home"
        else:
            key = fwd if target > now else back
        page.keyboard.press(key)
        return key
    button = page.locator(".widget-toggle-buttons").nth(c["i"]).locator("button").nth(target)
    button.focus()
    page.keyboard.press("Space")
    return f"Space on button {target}"


def _check_numbers(rel, page, hook, seen: set[str]) -> list[str]:
    problems = []
    for v in harness.visible_views(page):
        sig = json.dumps(v, sort_keys=True)
        if sig in seen:
            continue
        seen.add(sig)
        attrs = {expected.attr_name("data-" + k): val for k, val in v["attrs"].items()}
        cells = {c["key"]: c["value"] for c in v["cells"]}
        problems += expected.compare(rel, attrs, cells, hook(attrs))
    return problems


def test_book_has_widget_pages():
    assert _widget_pages(), "no page of the built book holds widget state"


@pytest.mark.parametrize("rel", STORED_VIEW_PAGES)
def test_every_control_changes_the_view_by_keyboard(rel, open_page):
    loaded = open_page(rel)
    page = loaded.page
    controls = page.evaluate(CONTROLS_JS)
    assert controls, f"{rel}: widget state but no visible control"
    hook = expected.hook()
    seen: set[str] = set()
    numbers = _check_numbers(rel, page, hook, seen)
    failures, moves = [], 0
    for c in controls:
        start = c["now"]
        targets = [start + 1 if start < c["max"] else start - 1, c["max"], c["min"]]
        for target in targets:
            now = _position(page, c)
            if target == now:
                continue
            before = page.evaluate(SIGNATURE_JS)
            key = _press_towards(page, c, target, now)
            try:  # (a generous limit: the machine may be busy; a view that changes, changes)
                page.wait_for_function(CHANGED_JS, arg=before, timeout=15_000, polling="raf")
            except Exception:
                failures.append(
                    f"{c['kind']} {c['label']!r}: {key} ({now} -> {target}) left the view as it was"
                )
                continue
            moves += 1
            numbers += _check_numbers(rel, page, hook, seen)
    assert failures == [], f"{rel}:\n" + "\n".join(failures)
    assert loaded.log.problems() == [], "\n".join(loaded.log.problems())
    assert numbers == [], "\n".join(numbers[:20])
    assert moves, f"{rel}: no control could be moved"


@pytest.mark.parametrize("rel", STORED_VIEW_PAGES)
def test_every_precomputed_view_matches_mha(rel, site):
    """All views saved in the page (not just those reached above) show what mha computes."""
    hook = expected.hook()
    html = (site / rel).read_text(encoding="utf-8")
    problems, count = [], 0
    for block in STATE_RE.findall(html):
        for model_id, model in json.loads(block)["state"].items():
            value = model.get("state", {}).get("value")
            if model.get("model_name") != "HTMLModel" or not isinstance(value, str):
                continue
            for attrs, cells in expected.parse_views(value):
                count += 1
                problems += expected.compare(f"{rel} {model_id}", attrs, cells, hook(attrs))
    assert count, f"{rel}: widget state holds no .mha-view"
    assert problems == [], "\n".join(problems[:20])


# Slider handles and dropdowns of a page, visible ones, as (CSS selector, index) for
# a11y.ax_node; with the description and the value they show.
ANNOUNCED_JS = """
() => {
  const out = [];
  const text = (e) => (e ? e.textContent.trim() : null);
  document.querySelectorAll('.widget-slider .noUi-handle').forEach((h, i) => {
    if (!h.checkVisibility()) return;
    const w = h.closest('.widget-slider');
    out.push({kind: 'slider', selector: '.widget-slider .noUi-handle', i,
              label: text(w.querySelector('.widget-label')),
              shown: text(w.querySelector('.widget-readout')),
              valuetext: h.getAttribute('aria-valuetext')});
  });
  document.querySelectorAll('.widget-dropdown select').forEach((s, i) => {
    if (!s.checkVisibility()) return;
    const w = s.closest('.widget-dropdown');
    out.push({kind: 'select', selector: '.widget-dropdown select', i,
              label: text(w.querySelector('.widget-label')),
              shown: text(s.options[s.selectedIndex])});
  });
  return out;
}
"""


def _announcement_problems(page, control: dict) -> list[str]:
    """How the accessible name or value of ``control`` differs from what the page shows."""
    node = a11y.ax_node(page, control["selector"], control["i"])
    said = node.value if control["kind"] == "select" else control["valuetext"]
    where = f"{control['kind']} {control['label']!r}"
    problems = []
    if not control["label"] or node.name != control["label"]:
        problems.append(f"{where}: accessible name {node.name!r}")
    if not control["shown"] or said != control["shown"]:
        problems.append(f"{where}: announces {said!r} while showing {control['shown']!r}")
    return problems


@pytest.mark.parametrize("rel", STORED_VIEW_PAGES)
def test_controls_are_announced_with_the_value_they_show(rel, open_page):
    """Each slider handle and dropdown has its description as accessible name (chromium's
    accessibility tree) and announces the value shown in its readout, at load and after
    keyboard moves to the end, the start and one step on."""
    page = open_page(rel).page
    controls = page.evaluate(ANNOUNCED_JS)
    assert any(c["kind"] == "slider" for c in controls), f"{rel}: no visible slider"
    problems = []
    for c in controls:
        problems += _announcement_problems(page, c)
        page.locator(c["selector"]).nth(c["i"]).focus()
        shown = {}
        for key in ("End", "Home", "ArrowRight" if c["kind"] == "slider" else "ArrowDown"):
            page.keyboard.press(key)
            now = page.evaluate(ANNOUNCED_JS)
            moved = next(d for d in now if d["kind"] == c["kind"] and d["i"] == c["i"])
            shown[key] = moved["shown"]
            problems += [f"after {key}: {p}" for p in _announcement_problems(page, moved)]
        end, home, step = shown.values()
        if home in (end, step):  # (every control shown has two positions or more)
            problems.append(f"{c['kind']} {c['label']!r}: the keys did not move it: {shown}")
    assert problems == [], f"{rel}:\n" + "\n".join(problems)
