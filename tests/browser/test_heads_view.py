"""The heads views of chapters 1 to 4, computed in the reader's browser (an anywidget).

On the built site served over http AND opened from ``file://`` (book/_ext/static_widgets.py):

* (that the page loads from the site alone, logs no error, hands every static first view
  over exactly, and shows its views before any script runs, controls inert: one test
  for every widget page, test_static_views.py)
* moving each control by keyboard (every range control to a neighbour, its end and its start;
  the word select; the seed box, when the module draws random heads for any seed) changes the
  numbers, and every number shown equals what ``mha`` computes in torch for the view's data-*
  attributes (tests/oracles.py's expected_rows/heads/concat/cost, through
  expected.py), in every panel;
* the controls have visible labels, announce their values (aria-valuetext) and show a focus ring;
* chapter 2's h x d_k view, set through its controls to random settings (h, d_k, seed, word,
  and the designed heads), shows every head's row and every cost figure as the book's PyTorch
  code computes them here (mha.attention.all_heads, mha.cost.layer_cost: not the view's
  JavaScript, nor mha's registry of expected values); and on a phone it stays inside the page.
(axe-core runs on every page in test_pages.py.)
"""

from __future__ import annotations

import json
import math
import os
import random

import pytest

from mha import toy
from mha.attention import all_heads
from mha.cost import layer_cost
from tests.browser import expected, harness

PAGES = {  # page: the panels its heads views show, in order
    "notebooks/01_one_budget.html": ["rows", "heads"],
    "notebooks/02_run_it_again.html": ["rows", "cost"],
    "notebooks/03_splitting_the_cost.html": ["cost", "cost"],
    "notebooks/04_putting_heads_back_together.html": ["concat"],
}
HOST = ".mha-heads-view"
SIGNATURE_JS, CHANGED_JS = harness.VIEWS_SIGNATURE_JS, harness.VIEWS_CHANGED_JS
PANELS = {"rows", "heads", "concat", "cost"}


def _problems(page, rel: str) -> tuple[list[str], list[str]]:
    """(mismatches between every visible view's numbers and mha's, the view types seen)."""
    problems, seen = expected.view_problems(page, rel, PANELS)
    return problems, [a["view"] for a in seen]


# (rel, page, log, left): a chapter loaded over http or from file://, widgets rendered.
chapter = harness.chapter_fixture(PAGES)


def _attrs(page) -> list[dict]:
    return page.evaluate(
        "() => Array.from(document.querySelectorAll('.mha-heads-view .mha-view')).map((v) =>"
        " Object.fromEntries(Array.from(v.attributes).filter((a) => a.name.startsWith('data-'))"
        ".map((a) => [a.name.slice(5), a.value])))"
    )


def test_every_control_moves_the_numbers_as_mha_computes_them(chapter):
    rel, page, log, left = chapter
    problems, _ = _problems(page, rel)
    ranges = page.locator(f"{HOST} input[type=range]")
    assert ranges.count() >= 1
    moved = set()
    for i in range(ranges.count()):
        r = ranges.nth(i)
        name, top = r.get_attribute("data-control"), int(r.get_attribute("max"))
        for key in ("End", "Home", "ArrowRight"):
            before = _attrs(page)
            harness.press(page, r, key)
            after = _attrs(page)
            assert after != before, f"{rel}: {key} on {name} left {before}"
            want = {"End": top, "Home": 0, "ArrowRight": 1}[key]
            assert r.input_value() == str(want), (name, key, r.input_value())
            shown = r.get_attribute("aria-valuetext")
            out = r.locator("xpath=following-sibling::output").inner_text()
            assert shown == out and any(a.get(name.replace("_", "")) == shown for a in after)
            problems += _problems(page, rel)[0]
            moved.add((name, key))
    select = page.locator(f"{HOST} select[data-control=word]")
    if select.count():
        harness.press(page, select, "ArrowDown")  # chased -> the (2nd)
        assert _attrs(page)[0]["word"] == "3"
        before = page.evaluate(SIGNATURE_JS)
        select.select_option(label="cat")
        page.wait_for_function(CHANGED_JS, arg=before, timeout=15_000, polling="raf")
        assert _attrs(page)[0]["word"] == "1"
        problems += _problems(page, rel)[0]
    seed = page.locator(f"{HOST} input[data-control=seed]")
    if seed.count():  # random heads for any seed (mha_views.mjs's randomHeads)
        for value in ("7", "123456"):
            before = page.evaluate(SIGNATURE_JS)
            seed.fill(value)
            seed.press("Enter")
            page.wait_for_function(CHANGED_JS, arg=before, timeout=15_000, polling="raf")
            assert {a.get("seed") for a in _attrs(page) if "seed" in a} == {value}
            problems += _problems(page, rel)[0]
    assert problems == [], "\n".join(problems[:20])
    assert log.problems() == [] and left == [], [*log.problems(), *left]


def test_controls_are_named_announce_values_and_show_focus(chapter):
    rel, page, _, _ = chapter
    names = {"rows": ["head width d_k", "row of"], "cost": ["heads h", "head width d_k"]}
    first = PAGES[rel][0]
    for name in names.get(first, ["heads h", "head width d_k"]):
        role = "combobox" if name == "row of" else "slider"
        assert page.get_by_role(role, name=name).count() >= 1, (rel, name)
    r = page.locator(f"{HOST} input[type=range]").first
    width = r.evaluate("(e) => e.getBoundingClientRect().width")
    height = r.evaluate("(e) => e.getBoundingClientRect().height")
    assert width >= 200 and height >= 24, (width, height)
    r.focus()
    page.keyboard.press("ArrowRight")  # a keyboard move: :focus-visible applies
    ring = page.evaluate(
        "() => { const e = document.activeElement, s = getComputedStyle(e);"
        " return [e.getAttribute('aria-valuetext'), e.value, s.outlineStyle,"
        " parseFloat(s.outlineWidth)]; }"
    )
    assert ring[2] == "solid" and ring[3] >= 2, ring
    assert json.loads(page.evaluate(SIGNATURE_JS)), "no view"


@pytest.mark.parametrize("scheme", ["http", "file"])
def test_permalinks_open_the_view_at_its_settings_and_follow_it(browser, base_url, site, scheme):
    rel = "notebooks/01_one_budget.html"
    link = "#heads-1:dk=27,seed=7,word=4"
    with harness.confined_page(browser, base_url, site, rel, scheme, link) as (page, log, left):
        harness.live_view(page, ".mha-heads-view .mha-view", "dk", "27")
        attrs = _attrs(page)
        assert [(a["view"], a["dk"]) for a in attrs] == [("rows", "27"), ("heads", "27")]
        assert attrs[0]["word"] == "4" and {a["seed"] for a in attrs} == {"7"}
        assert _problems(page, rel)[0] == []
        harness.link_stays(page, link)  # not rewritten by reading it
        harness.press(page, page.locator(f"{HOST} input[data-control=d_k]"), "ArrowRight")
        harness.link_becomes(page, "#heads-1:dk=81,seed=7,word=4")
        assert log.problems() == [] and left == [], [*log.problems(), *left]


# Per concat view: does any table stick out of it, and the closest two numbers of a row (px
# between the inked text of neighbouring cells).
CONCAT_FIT_JS = """
() => Array.from(document.querySelectorAll('.mha-heads-view .mha-view[data-view=concat]'))
  .map((v) => {
    const box = v.getBoundingClientRect();
    const out = Array.from(v.querySelectorAll('table'))
      .filter((t) => t.getBoundingClientRect().right > box.right + 0.5).length;
    let closest = Infinity;
    for (const tr of v.querySelectorAll('tbody tr')) {
      const ink = Array.from(tr.querySelectorAll('td')).map((td) => {
        const r = document.createRange(); r.selectNodeContents(td);
        return r.getBoundingClientRect();
      });
      for (let i = 1; i < ink.length; i++) {
        closest = Math.min(closest, ink[i].left - ink[i - 1].right);
      }
    }
    return {out, closest, scrolls: v.scrollWidth > v.clientWidth + 1};
  })
"""


@pytest.mark.parametrize("width", [390, 1280])
def test_the_concatenation_wraps_by_head_and_its_numbers_stay_apart(browser, base_url, width):
    """At h = 4, d_k = 9 (36 columns), on a phone and on a desktop: no head's block sticks out
    of the view or makes it scroll, and neighbouring numbers are at least 4 px apart (more than a
    space of the view's 11.5-13 px type: two numbers, not one subtraction)."""
    rel = "notebooks/04_putting_heads_back_together.html"
    with harness.browser_context(browser, viewport={"width": width, "height": 900}) as ctx:
        page = ctx.new_page()
        page.goto(base_url + rel + "#heads-1:h=4,dk=9", wait_until="load")
        harness.settle(page)
        harness.live_view(page, ".mha-heads-view .mha-view", "dk", "9")
        fits = page.evaluate(CONCAT_FIT_JS)
    assert len(fits) == 1, fits
    assert fits[0]["out"] == 0 and not fits[0]["scrolls"], fits
    assert 4 <= fits[0]["closest"] < 1e9, fits


# ---------------------------------------------------------------- chapter 2: the h x d_k view
CH2 = "notebooks/02_run_it_again.html"
CH2_H = CH2_DK = tuple(range(1, 10))  # the sliders' positions (the chapter's heads_view call)
COSTS = ("params_without_out", "params_total", "projection", "scoring", "blending", "macs_total")

# What the view shows, read from the page: the root's data-* attributes, the sliders, and per
# head its title, words and numbers (data-value and the text shown); per cost row its label
# and the three cells' text, with the data-value of the first.
SHOWN_JS = """
() => {
  const host = document.querySelector('.mha-heads-view');
  const data = (v) => v && Object.fromEntries(Array.from(v.attributes)
    .filter((a) => a.name.startsWith('data-')).map((a) => [a.name.slice(5), a.value]));
  const rows = host.querySelector('.mha-view[data-view=rows]');
  const cost = host.querySelector('.mha-view[data-view=cost]');
  const sliders = Object.fromEntries(Array.from(host.querySelectorAll('input[type=range]'))
    .map((r) => [r.dataset.control, [r.getAttribute('aria-valuetext'),
      r.parentElement.querySelector('output').textContent, r.disabled]]));
  return {
    rows: data(rows), cost: data(cost), sliders,
    source: (host.querySelector('input[type=radio]:checked') || {}).value,
    seed: host.querySelector('input[data-control=seed]').value,
    word: host.querySelector('select[data-control=word]').selectedOptions[0].text,
    heads: Array.from(rows.querySelectorAll('.mha-head')).map((b) => ({
      title: b.querySelector('h3').textContent,
      words: Array.from(b.querySelectorAll('.mha-bar-word')).map((w) => w.textContent),
      cells: Array.from(b.querySelectorAll('[data-key]')).map((c) =>
        [c.dataset.key, c.dataset.value, c.textContent]),
    })),
    costs: Array.from(cost.querySelectorAll('tbody tr')).map((tr) => ({
      label: tr.querySelector('th').textContent,
      key: tr.querySelector('[data-key]').dataset.key,
      value: tr.querySelector('[data-key]').dataset.value,
      text: Array.from(tr.querySelectorAll('td')).map((td) => td.textContent),
    })),
  };
}
"""


def _torch_rows(source: str, h: int, d_k: int, seed: int, word: int) -> list[list[float]]:
    """Each head's row for ``word``, ``(h, 5)``, by the book's PyTorch code."""
    heads = toy.designed_heads() if source == "designed" else toy.random_heads(h, d_k, seed)
    _, weights = all_heads(toy.X, *heads)  # (h, 5, 5)
    return weights[:, word].tolist()  # (h, 5)


def _ch2_problems(shown: dict, setting: tuple) -> tuple[list[str], float]:
    """Whatever chapter 2's view shows that differs from the book's PyTorch code at
    ``setting`` (source, h, d_k, seed, word), and the largest |shown - torch| of a weight."""
    source, h, d_k, seed, word = setting
    where, problems, worst = f"{setting}", [], 0.0
    want_attrs = {"h": str(h), "dk": str(d_k), "word": str(word), "source": source}
    if {k: shown["rows"][k] for k in want_attrs} != want_attrs:
        problems.append(f"{where}: rows view at {shown['rows']}")
    if shown["sliders"] != {"h": [str(h), str(h), False], "d_k": [str(d_k), str(d_k), False]}:
        problems.append(f"{where}: sliders {shown['sliders']}")
    if shown["source"] != source or shown["word"] != toy.WORD_LABELS[word]:
        problems.append(f"{where}: shows {shown['source']} heads, word {shown['word']}")
    if source == "random" and (shown["seed"], shown["rows"]["seed"]) != (str(seed),) * 2:
        problems.append(f"{where}: seed {shown['seed']}, view's {shown['rows']['seed']}")
    rows = _torch_rows(source, h, d_k, seed, word)
    if len(shown["heads"]) != len(rows):
        return [*problems, f"{where}: {len(shown['heads'])} heads shown, torch has {h}"], worst
    for i, (head, row) in enumerate(zip(shown["heads"], rows, strict=True)):
        if head["title"] != f"head {i + 1}: {toy.WORD_LABELS[word]} → …":
            problems.append(f"{where}: head {i + 1} titled {head['title']!r}")
        if head["words"] != list(toy.WORD_LABELS):
            problems.append(f"{where}: head {i + 1} labels {head['words']}")
        want = {f"r{i}-{j}": v for j, v in enumerate(row)} | {f"sum{i}": math.fsum(row)}
        cells = {k: (float(v), text) for k, v, text in head["cells"]}
        if cells.keys() != want.keys():
            problems.append(f"{where}: head {i + 1} shows {sorted(cells)}")
            continue
        for k, v in want.items():
            value, text = cells[k]
            worst = max(worst, abs(value - v))
            # the text is the value to 2 decimals (half a unit, and float round-off, apart)
            if abs(value - v) > 1e-6 or abs(float(text) - v) > 0.005 + 1e-9 or len(text) != 4:
                problems.append(f"{where}: {k} shows {text} ({value}), torch {v}")
    c, one = layer_cost(5, toy.D_MODEL, h, d_k), layer_cost(5, toy.D_MODEL, 1, toy.D_MODEL)
    want_cost = {"n": "5", "dmodel": str(toy.D_MODEL), "h": str(h), "dk": str(d_k)}
    if {k: shown["cost"].get(k) for k in want_cost} != want_cost:
        problems.append(f"{where}: cost view at {shown['cost']}")
    if [r["key"] for r in shown["costs"]] != list(COSTS):
        problems.append(f"{where}: cost rows {[r['key'] for r in shown['costs']]}")
    for r in shown["costs"]:
        a, b = getattr(c, r["key"]), getattr(one, r["key"])
        want = [f"{a:,}", f"{b:,}", f"×{a / b:.2f}"]
        if r["value"] != str(a) or r["text"] != want:
            problems.append(f"{where}: {r['label']} shows {r['text']} ({r['value']}), {want}")
        if not ("parameters" in r["label"] or "multiply-adds" in r["label"]):
            problems.append(f"{where}: cost row named {r['label']!r}")
    return problems, worst


def _slide(page, name: str, values: tuple, want: int) -> None:
    """Move slider ``name`` to the value ``want`` by arrow keys, waiting for each redraw."""
    r = page.locator(f"{HOST} input[type=range][data-control={name}]")
    at, to = int(r.input_value()), values.index(want)
    for _ in range(abs(to - at)):
        harness.press(page, r, "ArrowRight" if to > at else "ArrowLeft")


def _pick(page, control: str, act) -> None:
    """Run ``act`` on the view's control ``control``; wait for the views to change."""
    before = page.evaluate(SIGNATURE_JS)
    act(page.locator(f"{HOST} [data-control={control}]"))
    page.wait_for_function(CHANGED_JS, arg=before, timeout=15_000, polling="raf")


# Random settings (h, d_k, seed, word), drawn anew on every run; a failure names the seed
# that drew them, and MHA_SETTINGS_SEED=that seed draws them again.
SETTINGS_SEED = int(os.environ.get("MHA_SETTINGS_SEED") or random.randrange(2**32))
N_SETTINGS = 12


def test_chapter_2_view_shows_torchs_rows_and_costs_at_random_settings(browser, base_url, site):
    pick = random.Random(SETTINGS_SEED)
    settings = [
        (pick.choice(CH2_H), pick.choice(CH2_DK), pick.randrange(2**32), pick.randrange(5))
        for _ in range(N_SETTINGS)
    ]
    where = f"settings seed {SETTINGS_SEED}"
    with harness.confined_page(browser, base_url, site, CH2, "http") as (page, log, left):
        harness.live_view(page, f"{HOST} .mha-view", "source", "designed")
        problems, worst = _ch2_problems(page.evaluate(SHOWN_JS), ("designed", 3, 3, 0, 2))
        # a slider moved while the designed heads show: random heads, from h = 3, d_k = 3
        harness.press(page, page.locator(f"{HOST} input[data-control=d_k]"), "ArrowRight")
        more, w = _ch2_problems(page.evaluate(SHOWN_JS), ("random", 3, 4, 0, 2))
        problems, worst = problems + more, max(worst, w)
        seed, word = 0, 2
        for h, d_k, new_seed, new_word in settings:
            _slide(page, "h", CH2_H, h)
            _slide(page, "d_k", CH2_DK, d_k)
            if new_seed != seed:
                _pick(page, "seed", lambda box, v=new_seed: (box.fill(str(v)), box.press("Enter")))
            if new_word != word:
                _pick(page, "word", lambda sel, v=new_word: sel.select_option(str(v)))
            seed, word = new_seed, new_word
            more, w = _ch2_problems(page.evaluate(SHOWN_JS), ("random", h, d_k, seed, word))
            problems, worst = problems + more, max(worst, w)
        # back to the designed heads: the sliders stand at theirs, the word stays
        word = (word + 1) % 5
        _pick(page, "word", lambda sel: sel.select_option(str(word)))
        before = page.evaluate(SIGNATURE_JS)
        page.locator(f"{HOST} input[type=radio][value=designed]").check()
        page.wait_for_function(CHANGED_JS, arg=before, timeout=15_000, polling="raf")
        more, w = _ch2_problems(page.evaluate(SHOWN_JS), ("designed", 3, 3, seed, word))
        problems, worst = problems + more, max(worst, w)
        assert log.problems() == [] and left == [], [*log.problems(), *left]
    print(f"{where}: {N_SETTINGS + 3} settings, largest |shown - torch| {worst:.2e}")
    assert problems == [], f"{where}:\n" + "\n".join(problems[:20])
    assert worst <= 1e-6, (where, worst)


@pytest.mark.parametrize("scheme", ["http", "file"])
def test_chapter_2_permalink_holds_every_setting(browser, base_url, site, scheme):
    link = "#heads-1:source=random,h=7,dk=2,seed=41,word=4"
    with harness.confined_page(browser, base_url, site, CH2, scheme, link) as (page, log, left):
        harness.live_view(page, f"{HOST} .mha-view", "h", "7")
        problems, _ = _ch2_problems(page.evaluate(SHOWN_JS), ("random", 7, 2, 41, 4))
        harness.link_stays(page, link)
        page.locator(f"{HOST} input[type=radio][value=designed]").check()
        harness.link_becomes(page, "#heads-1:source=designed,h=7,dk=2,seed=41,word=4")
        problems += _ch2_problems(page.evaluate(SHOWN_JS), ("designed", 3, 3, 41, 4))[0]
        harness.press(page, page.locator(f"{HOST} input[data-control=h]"), "ArrowLeft")
        harness.link_becomes(page, "#heads-1:source=random,h=2,dk=3,seed=41,word=4")
        assert problems == [] and log.problems() == [] and left == [], problems


# On a phone: does anything of a heads view stick out of it (a sideways scroll), and does each
# slider sit on the line of its label (their vertical centres, px apart)?
PHONE_FIT_JS = """
() => {
  const mid = (r) => (r.top + r.bottom) / 2;
  const views = Array.from(document.querySelectorAll('.mha-heads-view')).map((host) => {
    const box = host.getBoundingClientRect();
    const out = Array.from(host.querySelectorAll('*')).filter((e) => {
      const r = e.getBoundingClientRect();
      return r.width && (r.right > box.right + 0.5 || r.left < box.left - 0.5);
    }).map((e) => e.tagName + '.' + e.className);
    const sliders = Array.from(host.querySelectorAll('input[type=range]')).map((r) => {
      const label = r.parentElement.querySelector('.mha-control-label').getBoundingClientRect();
      const s = r.getBoundingClientRect();
      return {name: r.dataset.control, apart: Math.abs(mid(label) - mid(s)), width: s.width};
    });
    return {out, sliders};
  });
  const page = document.documentElement;
  return {views, scrolls: page.scrollWidth > page.clientWidth};
}
"""


@pytest.mark.parametrize(
    ("rel", "link", "key", "value"),
    [
        (CH2, "#heads-1:source=random,h=9,dk=9", "h", "9"),  # the most heads, the widest
        ("notebooks/03_splitting_the_cost.html", "#heads-2:h=16,dk=512", "dk", "512"),
    ],
)
def test_heads_views_fit_a_phone(browser, base_url, rel, link, key, value):
    """At 390 px, at the settings with the most to show (chapter 2's most heads, chapter 3's
    largest counts): nothing of a heads view sticks out of it or makes the page scroll
    sideways, and each slider is on its label's line, at least 100 px long."""
    viewport = {"width": 390, "height": 844}
    with harness.browser_context(browser, viewport=viewport, has_touch=True) as ctx:
        page = ctx.new_page()
        page.goto(base_url + rel + link, wait_until="load")
        harness.settle(page)
        view = "[data-view=rows]" if rel == CH2 else "[data-view=cost]:not([data-n='5'])"
        harness.live_view(page, f"{HOST} .mha-view{view}", key, value)
        fit = page.evaluate(PHONE_FIT_JS)
    assert fit["views"] and not fit["scrolls"], fit
    for v in fit["views"]:
        assert v["out"] == [] and [s["name"] for s in v["sliders"]] == ["h", "d_k"], fit
        assert all(s["apart"] <= 2 and s["width"] >= 100 for s in v["sliders"]), fit


SEED_RULE = "a whole number from 0 to 4294967295"


def test_a_seed_box_refuses_what_is_not_a_seed_and_says_why(browser, base_url, site):
    """Chapter 2's seed box: "-1", "1.5", "1e3" and a 16-digit seed are refused, each with the
    one-line rule in red under the box and the text left as typed (never silently changed or
    cut); the view keeps its seed. A whole number in range is taken, and the rule is plain
    again."""
    with harness.confined_page(browser, base_url, site, CH2, "http") as (page, log, left):
        harness.live_view(page, f"{HOST} .mha-view", "source", "designed")
        box = page.locator(f"{HOST} input[data-control=seed]")
        rule = page.locator(f"{HOST} .mha-seed-rule")
        assert rule.inner_text() == f"A seed is {SEED_RULE}."
        seeds = {a["seed"] for a in _attrs(page) if "seed" in a}
        for text in ("-1", "1.5", "1e3", "1234567890123456"):
            box.fill(text)
            box.press("Enter")
            page.wait_for_function(
                "(t) => document.querySelector('.mha-seed-rule').textContent.includes(t)", arg=text
            )
            assert rule.inner_text() == f"Not a seed: “{text}”. A seed is {SEED_RULE}."
            assert box.input_value() == text and box.get_attribute("aria-invalid") == "true"
            assert "mha-refused" in rule.get_attribute("class")
            assert {a["seed"] for a in _attrs(page) if "seed" in a} == seeds
        _pick(page, "seed", lambda b: (b.fill("4294967295"), b.press("Enter")))
        assert {a["seed"] for a in _attrs(page) if "seed" in a} == {"4294967295"}
        assert (
            rule.inner_text() == f"A seed is {SEED_RULE}."
            and box.get_attribute("aria-invalid") is None
        )
        assert log.problems() == [] and left == [], [*log.problems(), *left]
