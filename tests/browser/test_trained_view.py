"""The trained explorer of chapters 2 and 5, computed in the reader's browser (an anywidget).

On the built site served over http AND opened from ``file://``:

* (that the page loads from the site alone, logs no error, hands every static first view
  over exactly, and shows its views before any script runs, controls inert: one test
  for every widget page, test_static_views.py)
* by keyboard alone: the setting (radio buttons, every setting, in order, labels whole),
  the seed (range: its end, its start, a neighbour), a typed sentence (Enter), an unknown
  word (a one-line message naming the vocabulary, over the last sentence that could be
  read), the word, and a head switched off (Space)
  each change the view, and every number shown, the read-out's answer included, equals what
  tests/oracles.py's expected_trained_rows/metrics compute in torch (heads off by zeroing
  their rows of W_o);
* a permalink opens the view at its settings, and the link follows the controls;
* with six heads the view is taller than the window, and its controls stay in sight;
* the page holds the weights of the setting its view opens at only: another setting's file
  loads when it is picked (saying so meanwhile), and no other;
* in chapter 2, a word picked in the heads view above it is picked in this view, and back,
  when the other view's sentence has it (view_link.mjs's shareWord, matched by label).
(axe-core runs on every page in test_pages.py.)
"""

from __future__ import annotations

import pytest

from mha.training import SETTINGS
from mha.views.trained import setting_label, vocabulary_list
from tests.browser import expected, harness

PAGES = {  # page: the sentence and word its view opens at
    "notebooks/02_run_it_again.html": ("the cat chased the mouse", "2"),
    "notebooks/05_what_heads_learn.html": ("the grey cat chased the small mouse", "3"),
}
HOST = ".mha-trained-view"
VIEWS = {"trained-rows", "trained-metrics"}


def _problems(page, rel: str) -> tuple[list[str], list[dict]]:
    """(mismatches between the views' numbers and torch's, the views' attributes)."""
    return expected.view_problems(page, rel, VIEWS)


# (rel, page, log, left): a chapter loaded over http or from file://, widgets live.
chapter = harness.chapter_fixture(PAGES)


def _rows(page) -> dict:
    return next(a for a in _problems(page, "")[1] if a["view"] == "trained-rows")


def _loaded(page, setting: tuple[int, int]) -> None:
    """Wait until the view shows ``setting`` (h, d_k), its weights loaded (on demand)."""
    page.wait_for_function(
        "([h, dk]) => { const v = document.querySelector"
        f"('{HOST} [data-view=trained-rows]');"
        " return !!v && v.dataset.h === h && v.dataset.dk === dk; }",
        arg=list(map(str, setting)),
        timeout=harness.TIMEOUT_MS,
    )


def test_every_control_by_keyboard_moves_the_numbers_as_torch_computes_them(chapter):
    rel, page, log, left = chapter
    problems = _problems(page, rel)[0]
    # the setting: every label whole, in the stored order; arrows move through them
    labels = page.locator(f"{HOST} input[data-control=setting]").evaluate_all(
        "(rs) => rs.map((r) => r.parentElement.textContent)"
    )
    assert labels == [setting_label(h, d_k) for h, d_k in SETTINGS]
    start = SETTINGS.index((int(_rows(page)["h"]), int(_rows(page)["dk"])))
    for step in range(start + 1, len(SETTINGS)):
        harness.press(
            page, page.locator(f"{HOST} input[data-control=setting]:checked"), "ArrowRight"
        )
        _loaded(page, SETTINGS[step])
        h, d_k = SETTINGS[step]
        assert (_rows(page)["h"], _rows(page)["dk"]) == (str(h), str(d_k))
        problems += _problems(page, rel)[0]
    harness.press(page, page.locator(f"{HOST} input[data-control=setting]:checked"), "ArrowRight")
    _loaded(page, SETTINGS[0])
    assert (_rows(page)["h"], _rows(page)["dk"]) == tuple(map(str, SETTINGS[0]))  # round
    # the seed: its end, its start, a neighbour
    seed = page.locator(f"{HOST} input[data-control=seed]")
    for key, want in (("End", "9"), ("Home", "0"), ("ArrowRight", "1")):
        harness.press(page, seed, key)
        assert _rows(page)["seed"] == want == seed.get_attribute("aria-valuetext")
        problems += _problems(page, rel)[0]
    harness.press(page, page.locator(f"{HOST} input[data-control=setting][value='2']"), "Space")
    # a typed sentence, then the word
    text = page.locator(f"{HOST} input[data-control=text]")
    text.focus()
    text.press("Control+a")
    text.type("the dog bit the hen")
    harness.press(page, text, "Enter")
    assert (_rows(page)["sentence"], _rows(page)["word"]) == ("the dog bit the hen", "2")
    problems += _problems(page, rel)[0]
    harness.press(page, page.locator(f"{HOST} select[data-control=word]"), "ArrowDown")
    assert _rows(page)["word"] == "3"
    # heads off, one at a time and together: the answer is torch's with those heads off
    for i in range(3):
        harness.press(page, page.locator(f"{HOST} input[data-control=head][value='{i}']"), "Space")
        assert _rows(page)["off"] == " ".join(map(str, range(i + 1)))
        problems += _problems(page, rel)[0]
    assert page.locator(f"{HOST} .mha-off").count() == 6  # 3 heads' bars and tables
    # an unknown word: one line naming the vocabulary, over the last readable sentence's rows
    text.focus()
    text.press("Control+a")
    text.type("the unicorn chased the dog")
    text.press("Enter")  # the views' numbers stay: the message comes over them
    page.locator(f"{HOST} .mha-problem").wait_for(timeout=harness.TIMEOUT_MS)
    message = page.locator(f"{HOST} .mha-problem").inner_text()
    assert "“unicorn”" in message and vocabulary_list() in message and "\n" not in message
    assert ".." not in message and message.endswith("“.”.")
    # the last sentence that could be read stays under the message, its menu too
    rows = _rows(page)
    assert (rows["sentence"], rows["word"], rows["off"]) == ("the dog bit the hen", "3", "0 1 2")
    menu = page.locator(f"{HOST} select[data-control=word] option").all_inner_texts()
    assert menu == ["the (1st)", "dog", "bit", "the (2nd)", "hen"]
    problems += _problems(page, rel)[0]
    assert problems == [], "\n".join(problems[:20])
    assert log.problems() == [] and left == [], [*log.problems(), *left]


def test_controls_are_named_sized_and_stay_in_sight(chapter):
    rel, page, _, _ = chapter
    # the vocabulary beside the sentence box, the full stop named
    vocab = page.locator(f"{HOST} .mha-vocab").inner_text()
    assert vocab == f"Its words: {vocabulary_list()}." and ".." not in vocab
    for role, name in (("slider", "seed"), ("textbox", "sentence"), ("combobox", "row of")):
        assert page.locator(HOST).get_by_role(role, name=name).count() == 1, (rel, name)
    assert page.locator(HOST).get_by_role("radio", name=setting_label(2, 12)).count() == 1
    seed = page.locator(f"{HOST} input[data-control=seed]")
    box = seed.bounding_box()
    assert box["width"] >= 200 and box["height"] >= 24, box
    seed.focus()
    page.keyboard.press("ArrowRight")
    ring = page.evaluate(
        "() => { const s = getComputedStyle(document.activeElement);"
        " return [s.outlineStyle, parseFloat(s.outlineWidth)]; }"
    )
    assert ring[0] == "solid" and ring[1] >= 3, ring
    # six heads: taller than the window; scrolled to its last table, the controls still show
    harness.press(page, page.locator(f"{HOST} input[data-control=setting][value='4']"), "Space")
    _loaded(page, SETTINGS[4])
    height = page.locator(HOST).evaluate("(e) => e.getBoundingClientRect().height")
    assert height > 900, height
    page.locator(f"{HOST} table.mha-heat").last.scroll_into_view_if_needed()
    controls = page.locator(f"{HOST} fieldset.mha-controls").bounding_box()
    assert controls["y"] >= 0 and controls["y"] + controls["height"] <= 900, controls
    on_top = page.evaluate(  # nothing (the site's header) covers the seed slider
        "() => { const s = document.querySelector('.mha-trained-view input[data-control=seed]');"
        " const r = s.getBoundingClientRect();"
        " return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === s; }"
    )
    assert on_top


@pytest.mark.parametrize("scheme", ["http", "file"])
def test_permalinks_open_the_view_at_its_settings_and_follow_it(browser, base_url, site, scheme):
    rel = "notebooks/05_what_heads_learn.html"
    link = "#trained-1:h=2,dk=12,seed=7,text=the+dog+bit+the+hen,word=4,off=2"
    with harness.confined_page(browser, base_url, site, rel, scheme, link) as (page, log, left):
        harness.live_view(page, ".mha-trained-view [data-view=trained-rows]", "seed", "7")
        rows = _rows(page)
        assert (rows["h"], rows["dk"], rows["sentence"]) == ("2", "12", "the dog bit the hen")
        assert (rows["word"], rows["off"]) == ("4", "1")
        assert _problems(page, rel)[0] == []
        harness.link_stays(page, link)  # not rewritten by reading it
        harness.press(page, page.locator(f"{HOST} input[data-control=head][value='1']"), "Space")
        want = "#trained-1:h=2,dk=12,seed=7,text=the+dog+bit+the+hen,word=4,off="
        harness.link_becomes(page, want)
        assert log.problems() == [] and left == [], [*log.problems(), *left]


STATE_JS = """() => Object.values(JSON.parse(document.querySelector(
  'script[type="application/vnd.jupyter.widget-state+json"]').textContent).state)
  .map((m) => m.state).find((s) => s._mha_lazy)"""


@pytest.mark.parametrize("scheme", ["http", "file"])
def test_a_settings_weights_load_once_the_view_needs_them(browser, base_url, site, scheme):
    """The page holds the weights of the setting its view opens at, and requests no other
    setting's file; picking a setting loads its file alone, the view saying so meanwhile, and
    its numbers are then torch's; a setting seen before loads nothing again."""
    rel = "notebooks/05_what_heads_learn.html"
    with harness.confined_page(browser, base_url, site, rel, scheme) as (page, log, left):
        state = page.evaluate(STATE_JS)  # the page's saved state of the view
        files, opened = state["_mha_files"]["weights"], state["setting"]
        assert [f is None for f in files] == [i == opened for i in range(len(SETTINGS))]
        assert [w is None for w in state["weights"]] == [f is not None for f in files]

        def loaded() -> list[str]:
            return [u.rsplit("/", 1)[1] for u in log.requests.urls if "/mha-data/" in u]

        assert loaded() == []
        held = []  # each file's request, answered once the view says that it is loading
        page.route("**/mha-data/*", lambda route: held.append(route))
        picks = [i for i in (5, 0) if i != opened]
        for n, i in enumerate(picks, 1):
            page.locator(f"{HOST} input[data-control=setting][value='{i}']").check()
            loading = page.locator(f"{HOST} .mha-loading")
            loading.wait_for(timeout=harness.TIMEOUT_MS)
            assert loading.inner_text() == "Loading this setting's weights…"
            assert page.locator(f"{HOST} [data-view=trained-rows]").count() == 0
            for _ in range(harness.TIMEOUT_MS // 50):  # until the request reaches the route
                if held:
                    break
                page.wait_for_timeout(50)
            held.pop().fallback()
            _loaded(page, SETTINGS[i])
            assert loaded() == [f"{files[j]}.js" for j in picks[:n]]
            assert (_rows(page)["h"], _rows(page)["dk"]) == tuple(map(str, SETTINGS[i]))
            assert _problems(page, rel)[0] == []
        for i in (opened, picks[0]):
            page.locator(f"{HOST} input[data-control=setting][value='{i}']").check()
            _loaded(page, SETTINGS[i])
            assert _problems(page, rel)[0] == []
        assert loaded() == [f"{files[j]}.js" for j in picks] and held == []
        assert log.problems() == [] and left == [], [*log.problems(), *left]


SHARED = "notebooks/02_run_it_again.html"  # a heads view (designed/random), then this view
HEADS_WORD = ".mha-heads-view select[data-control=word]"
TRAINED_WORD = f"{HOST} select[data-control=word]"
# The row each view shows: [heads view's data-word, trained view's data-word].
WORDS_JS = """
() => ['.mha-heads-view [data-view=rows]', '.mha-trained-view [data-view=trained-rows]']
  .map((s) => { const v = document.querySelector(s);
                return v && !v.closest('.mha-static-widget') ? v.dataset.word : null; })
"""


def _pick(page, select: str, label: str) -> None:
    """Pick ``label`` in the word select ``select``; wait until the views have redrawn."""
    before = page.evaluate(harness.VIEWS_SIGNATURE_JS)
    page.locator(select).select_option(label=label)
    page.wait_for_function(harness.VIEWS_CHANGED_JS, arg=before, timeout=15_000, polling="raf")
    page.evaluate(harness.PAINTED_JS)  # two frames: any view that follows has redrawn


def test_a_word_picked_in_one_view_is_picked_in_the_other(browser, base_url, site):
    """Chapter 2: a word picked in the heads view is picked in the trained view, and back,
    when the other view's sentence has that word (matched by label: "the (2nd)", not by
    index); the URL holds both views, and opening it shows both at that word; the numbers
    stay mha's."""
    with harness.confined_page(browser, base_url, site, SHARED, "http") as (page, log, left):
        views = {"rows", "heads", "trained-rows", "trained-metrics"}
        assert page.evaluate(WORDS_JS) == ["2", "2"]  # both open on chased
        _pick(page, HEADS_WORD, "mouse")
        assert page.evaluate(WORDS_JS) == ["4", "4"]
        assert page.locator(TRAINED_WORD).evaluate("(e) => e.selectedOptions[0].text") == "mouse"
        harness.link_becomes(page, "#heads-1:", prefix=True)
        _pick(page, TRAINED_WORD, "the (2nd)")
        assert page.evaluate(WORDS_JS) == ["3", "3"]
        # the link holds both views the pick moved, and opens both at that word again
        page.wait_for_function("() => /&trained-1:.*word=3/.test(location.hash)")
        page.wait_for_function("() => /^#heads-1:[^&]*word=3/.test(location.hash)")
        both = page.evaluate("() => location.hash")
        with harness.confined_page(browser, base_url, site, SHARED, "http", both) as (p2, _, _):
            harness.live_view(p2, ".mha-trained-view [data-view=trained-rows]", "word", "3")
            assert p2.evaluate(WORDS_JS) == ["3", "3"]
        problems = expected.view_problems(page, SHARED, views)[0]
        # a sentence in which "the (2nd)" is the 5th word (the 4th in the heads view's) and
        # "cat" is missing
        text = page.locator(f"{HOST} input[data-control=text]")
        text.focus()
        text.press("Control+a")
        text.type("the small dog bit the hen")
        harness.press(page, text, "Enter")
        _pick(page, TRAINED_WORD, "the (1st)")
        assert page.evaluate(WORDS_JS) == ["0", "0"]
        _pick(page, HEADS_WORD, "the (2nd)")
        assert page.evaluate(WORDS_JS) == ["3", "4"]
        _pick(page, HEADS_WORD, "cat")  # not in the trained view's sentence: it stays
        assert page.evaluate(WORDS_JS) == ["1", "4"]
        _pick(page, TRAINED_WORD, "hen")  # not in the heads view's sentence
        assert page.evaluate(WORDS_JS) == ["1", "5"]
        problems += expected.view_problems(page, SHARED, views)[0]
        assert problems == [], "\n".join(problems[:10])
        assert log.problems() == [] and left == [], [*log.problems(), *left]
