"""Chapter 6's mask view, computed in the reader's browser by an anywidget module.

On the built site served over http AND opened from ``file://`` (book/_ext/static_widgets.py:
the site's own anywidget host imports the view's module from the page itself):

* (that the page loads from the site alone, logs no error, hands every static first view
  over exactly, and shows its views before any script runs, controls inert: one test
  for every widget page, test_static_views.py)
* moving each control by keyboard (the mask's radio buttons, the window's width, the
  number of filler words) changes the numbers, and every number shown equals what ``mha``
  computes in torch for the view's data-* attributes (``mha.views.mask_view.
  expected_mask_view``, through expected.py), for every mask kind;
* the controls have accessible names, and the focused one shows a visible focus ring;
* a permalink (#mask-1:mask=window,window=3) opens the view at its settings, and the
  fragment follows every move of a control.
"""

from __future__ import annotations

import json

import pytest

from tests.browser import expected, harness

REL = "notebooks/06_what_comes_next.html"
VIEW = ".mha-view[data-view=mask]"


def _problems(page) -> list[str]:
    """Mismatches between every visible mask view's numbers and mha's."""
    hook, problems = expected.hook(), []
    for v in harness.visible_views(page):
        if v["attrs"].get("view") != "mask":
            continue
        attrs = {expected.attr_name("data-" + k): val for k, val in v["attrs"].items()}
        cells = {c["key"]: c["value"] for c in v["cells"]}
        want = hook(attrs)
        assert want and cells, f"{attrs}: nothing to compare"
        problems += expected.compare(REL, attrs, cells, want)
    return problems


# (rel, page, log, left): chapter 6 loaded over http or from file://, widgets rendered; its
# log of errors; ``left``, the requests that left the site.
chapter6 = harness.chapter_fixture([REL])


def _attrs(page) -> dict:
    return page.evaluate(
        f"() => Object.fromEntries(Array.from(document.querySelector('{VIEW}').attributes)"
        ".filter((a) => a.name.startsWith('data-')).map((a) => [a.name.slice(5), a.value]))"
    )


def test_every_control_moves_the_numbers_as_mha_computes_them(chapter6):
    _, page, log, left = chapter6
    radio = f"{VIEW} input[type=radio]"
    steps = [  # (control, key, the view's data-* attributes after the key)
        (f"{radio}[value=causal]", "ArrowUp", {"mask": "none"}),
        (f"{radio}[value=none]", "ArrowDown", {"mask": "causal"}),
        (f"{radio}[value=causal]", "ArrowDown", {"mask": "window", "radius": "1"}),
        (f"{VIEW} input[data-control=radius]", "ArrowRight", {"mask": "window", "radius": "2"}),
        (f"{VIEW} input[data-control=radius]", "End", {"radius": "4"}),
        (f"{VIEW} input[data-control=radius]", "Home", {"radius": "0"}),
        (f"{radio}[value=window]", "ArrowDown", {"mask": "padding", "npad": "2"}),
        (f"{VIEW} input[data-control=n_pad]", "ArrowLeft", {"mask": "padding", "npad": "1"}),
        (f"{VIEW} input[data-control=n_pad]", "End", {"npad": "3"}),
    ]
    seen, problems = set(), _problems(page)
    for selector, key, want in steps:
        harness.press(page, page.locator(selector), key)
        attrs = _attrs(page)
        assert {k: attrs[k] for k in want} == want, f"{key} on {selector}: {attrs}"
        seen.add(attrs["mask"])
        problems += _problems(page)
    assert seen == {"none", "causal", "window", "padding"}
    assert problems == [], "\n".join(problems[:20])
    assert log.problems() == [] and left == [], [*log.problems(), *left]


def test_controls_are_named_and_show_focus(chapter6):
    _, page, _, _ = chapter6
    for name in ("none", "causal", "sliding window", "padding"):
        assert page.get_by_role("radio", name=name, exact=True).count() == 1, name
    for name in ("window: words on each side", "filler words"):
        assert page.get_by_role("slider", name=name).count() == 1, name
    page.locator(f"{VIEW} input[type=radio][value=causal]").focus()
    page.keyboard.press("ArrowUp")  # a keyboard move: :focus-visible applies
    ring = page.evaluate(
        "() => { const s = getComputedStyle(document.activeElement);"
        " return [document.activeElement.value, s.outlineStyle, parseFloat(s.outlineWidth)]; }"
    )
    assert ring[0] == "none" and ring[1] == "solid" and ring[2] >= 2, ring
    assert json.loads(page.evaluate(harness.VIEWS_SIGNATURE_JS)), "no view"


@pytest.mark.parametrize("scheme", ["http", "file"])
def test_permalinks_open_the_view_at_its_settings_and_follow_it(browser, base_url, site, scheme):
    link = "#mask-1:mask=window,window=3"
    with harness.confined_page(browser, base_url, site, REL, scheme, link) as (page, log, left):
        harness.live_view(page, VIEW, "radius", "3")
        assert {k: _attrs(page)[k] for k in ("mask", "radius")} == {"mask": "window", "radius": "3"}
        radius = page.locator(f"{VIEW} input[data-control=radius]")
        assert radius.input_value() == "3" and not radius.is_disabled()
        assert page.locator(f"{VIEW} input[type=radio]:checked").get_attribute("value") == "window"
        assert _problems(page) == []
        harness.link_stays(page, link)  # not rewritten by reading it
        harness.press(page, radius, "ArrowLeft")
        harness.link_becomes(page, "#mask-1:mask=window,window=2")
        harness.press(page, page.locator(f"{VIEW} input[type=radio][value=window]"), "ArrowDown")
        harness.link_becomes(page, "#mask-1:mask=padding,filler=2")
        harness.press(page, page.locator(f"{VIEW} input[data-control=n_pad]"), "End")
        harness.link_becomes(page, "#mask-1:mask=padding,filler=3")
        assert _attrs(page)["npad"] == "3" and _problems(page) == []
        assert log.problems() == [] and left == [], [*log.problems(), *left]
