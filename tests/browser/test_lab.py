"""The chapters read cleanly in JupyterLab, as ``make lab`` opens them, after Run All.

One JupyterLab server (the repository's settings and workspace) and one chromium page
for the module. For every chapter, in a fresh kernel:

* every code cell runs without an error;
* no rendered markdown cell shows raw MyST (a role, a directive fence);
* every number the prose computes (``{eval}``) shows the value the code computed: the
  values JupyterLab's kernel returned equal, in order, those on the built page (except
  wall-clock measurements, from cells tagged ``timing``), and each appears in the text;
* every figure shows its caption (the figure cell's ``mystnb: figure: caption``) right below
  it, numbered as the built page numbers it ("Figure 7: ..."), its image with the alt text
  of the figure cell's metadata (JupyterLab's own PNG output has none), and every reference
  to a figure reads "Figure N" with that number: no rendered markdown shows a figure's label
  (``fig-...``);
* every citation reads as author and year (``Vaswani2017``), never as another citation key
  of ``book/references.bib``;
* every slider, moved by keyboard, changes the view it drives;
* chapter 6's mask view, the heads views, the trained explorer (chapters 2 and 5) and chapter
  1's exercise (anywidgets) show mha's numbers, before and after a keyboard move that changes
  them;
* the first cell, above the title, says to run the cells first (it is not empty-looking);
* no label of a control that is shown is cut short ("your sent…").

And opening a chapter does not mark it modified (●) before anything has run.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import re
import warnings
from html.parser import HTMLParser

import pytest
from myst_nb.core.read import read_myst_markdown_notebook
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from pybtex.database import parse_file

from mha.views.captions import run_first
from tests.browser import expected, harness
from tests.browser.lab import (
    KERNEL_METADATA_JS,
    open_and_run_all,
    open_app,
    open_chapter,
    serve_lab,
)

CHAPTERS = [
    "book/intro.md",
    *sorted(p.relative_to(harness.ROOT).as_posix() for p in harness.ROOT.glob("notebooks/*.md")),
]
RAW_MYST = re.compile(r"\{glue|\{numref\}|\{eq\}|\{doc\}|\{eval\}|\{cite\}|:::\{|```\{")
FIGURE_LABEL = re.compile(r"\bfig-[a-z0-9][a-z0-9-]*")
CITE_ROLE = re.compile(r"\{cite(?::\w+)?\}`([^`]+)`")
BIBLIOGRAPHY = harness.ROOT / "book" / "references.bib"
# Limits on waiting (never measures of speed): generous, since the machine may be busy.
# Limits on waiting, never a measure of speed. Chapter 5's Run All trains models: about 5 min on
# a fresh kernel with the 2 cores to itself, and it passed 600 s (all 51 cells ran, the kernel
# still busy with the markdown's expressions) on the same machine at a load average of 11.
RUN_TIMEOUT_S = 1800  # Run All of one chapter
RENDER_TIMEOUT_S = 300  # the markdown showing the kernel's values after Run All

# The open notebook: its path, kernel state, cells, errors and markdown cells' expressions.
STATE_JS = """
() => {
  const w = window.jupyterapp.shell.currentWidget;
  if (!w || !w.content || !w.content.model) return null;
  const kernel = w.sessionContext.session && w.sessionContext.session.kernel;
  const cells = Array.from(w.content.model.cells);
  const code = cells.filter((c) => c.type === 'code');
  return {
    path: w.context.path,
    kernel: kernel ? kernel.status : 'none',
    ran: code.filter((c) => c.executionCount !== null).length,
    code: code.length,
    errors: code.flatMap((c) => c.outputs.toJSON()).filter((o) => o.output_type === 'error')
      .map((o) => `${o.ename}: ${o.evalue}`),
    expressions: cells.filter((c) => c.type === 'markdown'
                              && !(c.getMetadata('tags') || []).includes('remove-cell'))
      .flatMap((c) => c.getMetadata('user_expressions') || [])
      .map((e) => [e.expression, e.result && e.result.status === 'ok'
                                  ? e.result.data['text/plain'] : `error in ${e.expression}`]),
  };
}
"""

RENDERED_JS = """
() => {
  const node = window.jupyterapp.shell.currentWidget.node;
  // Folded blocks (a dropdown admonition) count: the reader opens them with one click.
  const folded = node.querySelectorAll('.jp-MarkdownCell .myst details:not([open])');
  folded.forEach((d) => { d.open = true; });
  return Array.from(node.querySelectorAll('.jp-MarkdownCell .myst')).map((e) => e.innerText);
}
"""

# Every figure that the markdown renders: its id, its caption's text, whether it and an image in
# the code cell right above it are on screen (have a size), and that image's alt text.
FIGURES_JS = """
() => Array.from(window.jupyterapp.shell.currentWidget.node
    .querySelectorAll('.jp-MarkdownCell .myst figure[id]')).map((f) => {
  const above = f.closest('.jp-Cell').previousElementSibling;
  const image = above && above.classList.contains('jp-CodeCell')
    ? above.querySelector('.jp-OutputArea-output img') : null;
  const caption = f.querySelector('figcaption');
  const shown = (e) => !!e && e.getBoundingClientRect().height > 0;
  return {id: f.id, caption: caption ? caption.innerText : '',
          shown: shown(caption), image: shown(image),
          alt: image ? image.getAttribute('alt') : null};
})
"""

# What the kernel answered for the caption expression of figure ``name`` (the cell's
# user_expressions metadata, written by jupyterlab-myst): to tell a caption whose answer never
# came from one whose expression failed.
CAPTION_ANSWER_JS = """
(name) => Array.from(window.jupyterapp.shell.currentWidget.content.model.cells)
  .filter((c) => c.type === 'markdown' && c.sharedModel.getSource().includes(`caption("${name}")`))
  .map((c) => JSON.stringify(c.getMetadata('user_expressions') || 'no user_expressions'))
"""

# Every link of the rendered markdown to a figure, outside the figures' own captions (the text
# of links in folded solutions too).
FIGURE_REFS_JS = """
() => Array.from(window.jupyterapp.shell.currentWidget.node
    .querySelectorAll('.jp-MarkdownCell .myst a[href^="#fig-"]'))
  .filter((a) => !a.closest('figcaption')).map((a) => [a.getAttribute('href'), a.textContent])
"""

# The text of every citation the markdown renders: resolved (<cite>) or not (jupyterlab-myst
# marks a citation it cannot resolve "Citation Not Found" and shows its key).
CITES_JS = """
() => Array.from(window.jupyterapp.shell.currentWidget.node.querySelectorAll(
    '.jp-MarkdownCell .myst cite, .jp-MarkdownCell .myst [title="Citation Not Found"]'))
  .map((e) => e.textContent)  // a folded block's citations too
"""

# Each slider handle of the open notebook with the text of the views of its widget output.
SLIDERS_JS = """
() => Array.from(window.jupyterapp.shell.currentWidget.node
    .querySelectorAll('.jp-OutputArea-output [role="slider"],'
        + ' .jp-OutputArea-output input[type=range]:not(:disabled)'))
"""
VIEWS_TEXT_JS = """
(handle) => {
  const out = handle.closest('.jp-OutputArea-output');
  return Array.from(out.querySelectorAll('.mha-view'))
    .filter((v) => v.offsetParent !== null).map((v) => v.innerText).join('\\n');
}
"""

# The first cell of the open notebook: its rendered text and height.
FIRST_CELL_JS = """
() => { const c = window.jupyterapp.shell.currentWidget.content.widgets[0];
  return {type: c.model.type, text: c.node.innerText,
          height: c.node.getBoundingClientRect().height}; }
"""
# The text of every label of a widget that is shown and cut short (its text wider than it).
CUT_LABELS_JS = """
() => Array.from(window.jupyterapp.shell.currentWidget.node
    .querySelectorAll('.jp-OutputArea-output .widget-label'))
  .filter((e) => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)
  .map((e) => `${e.textContent} (${e.clientWidth} of ${e.scrollWidth} px)`)
"""


class _EvalSpans(HTMLParser):
    """The text of every ``<span class="output text_plain">`` (an ``{eval}`` result)."""

    def __init__(self) -> None:
        super().__init__()
        self.values: list[str] = []
        self._open = False

    def handle_starttag(self, tag, attrs):
        self._open = tag == "span" and dict(attrs).get("class") == "output text_plain"
        if self._open:
            self.values.append("")

    def handle_endtag(self, tag):
        self._open = False

    def handle_data(self, data):
        if self._open:
            self.values[-1] += data


QUOTES = str.maketrans("‘’“”", "''\"\"")  # jupyterlab-myst, like the site, curls quotes


def plain(text: str) -> str:
    """``text`` with straight quotes and single spaces (the browser's nbsp included)."""
    return " ".join(text.translate(QUOTES).split())


def figure_captions(path: str) -> dict[str, str]:
    """{name: caption} of the chapter's figure cells, the caption as read: emphasis unmarked."""
    nb = read_myst_markdown_notebook((harness.ROOT / path).read_text(encoding="utf-8"))
    figures = [c.metadata.get("mystnb", {}).get("figure") for c in nb.cells]
    return {f["name"]: plain(f["caption"].replace("*", "")) for f in figures if f}


def figure_alts(path: str) -> dict[str, str]:
    """{name: alt text} of the chapter's figure cells (``mystnb: image: alt``), as read."""
    nb = read_myst_markdown_notebook((harness.ROOT / path).read_text(encoding="utf-8"))
    found = [c.metadata.get("mystnb", {}) for c in nb.cells]
    return {m["figure"]["name"]: m["image"]["alt"] for m in found if "alt" in m.get("image", {})}


def site_figure_numbers(path: str) -> dict[str, str]:
    """{figure id: its number} on the built page of chapter ``path`` ("Figure 7" gives "7")."""
    page = harness.SITE / (path.removesuffix(".md") + ".html")
    html = page.read_text(encoding="utf-8")
    found = re.findall(
        r'(?s)<figure[^>]*\bid="(fig-[\w-]+)".*?caption-number">Figure\s*(\d+)', html
    )
    return dict(found)


def cited_keys(path: str) -> list[str]:
    """The keys of the chapter's citations, in order, from the markdown the site shows."""
    nb = read_myst_markdown_notebook((harness.ROOT / path).read_text(encoding="utf-8"))
    shown = [
        c.source
        for c in nb.cells
        if c.cell_type == "markdown" and "remove-cell" not in c.metadata.get("tags", [])
    ]
    return [k.strip() for src in shown for m in CITE_ROLE.finditer(src) for k in m[1].split(",")]


@functools.cache
def author_year(key: str) -> tuple[str, str]:
    """The first author's surname and the year of the bibliography's entry ``key``."""
    entry = parse_file(str(BIBLIOGRAPHY)).entries[key]
    return " ".join(entry.persons["author"][0].last_names), entry.fields["year"]


def reads_as_author_year(text: str, key: str) -> bool:
    """Whether ``text`` (letters and digits only) is the surname, maybe more words, the year."""
    surname, year = author_year(key)
    letters = re.sub(r"[^\w]", "", text)
    return letters.startswith(re.sub(r"[^\w]", "", surname)) and letters.endswith(year)


def names_in(code: str) -> set[str]:
    """The variable names that ``code`` reads or assigns."""
    return {n.id for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Name)}


def timing_names(path: str) -> set[str]:
    """Names assigned in the chapter's cells tagged ``timing`` (wall-clock measurements)."""
    nb = read_myst_markdown_notebook((harness.ROOT / path).read_text(encoding="utf-8"))
    timed = [c.source for c in nb.cells if "timing" in c.metadata.get("tags", [])]
    return set().union(*(names_in(src) for src in timed)) if timed else set()


def site_values(path: str) -> list[str]:
    """The ``{eval}`` results on the built page of chapter ``path``, in order."""
    page = harness.SITE / (path.removesuffix(".md") + ".html")
    parser = _EvalSpans()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.values


def figure_and_citation_problems(page, path: str, rendered: str) -> list[str]:
    """What is wrong with the figures, figure references and citations of the open chapter."""
    problems = []
    captions, numbers = figure_captions(path), site_figure_numbers(path)
    if set(numbers) != set(captions):
        problems.append(f"figures {sorted(captions)}, on the built page {sorted(numbers)}")
    shown = {f["id"]: f for f in page.evaluate(FIGURES_JS)}
    for name, caption in captions.items():
        want = f"Figure {numbers.get(name, '?')}: {caption}"
        if name not in shown:
            problems.append(f"{name}: no caption in JupyterLab, want {want!r}")
            continue
        if plain(shown[name]["caption"]) != want:
            answer = page.evaluate(CAPTION_ANSWER_JS, name)
            problems.append(
                f"{name}: caption {shown[name]['caption']!r}, want {want!r}; kernel: {answer}"
            )
        if not (shown[name]["shown"] and shown[name]["image"]):
            problems.append(f"{name}: the caption or the image of the cell above is not shown")
        alt = figure_alts(path).get(name)
        if alt is not None and plain(shown[name]["alt"] or "") != plain(alt):
            problems.append(f"{name}: image alt {shown[name]['alt']!r}, want {alt!r}")
    for href, text in page.evaluate(FIGURE_REFS_JS):
        want = f"Figure {numbers.get(href.removeprefix('#'), '?')}"
        if plain(text) != want:
            problems.append(f"reference to {href} reads {text!r}, want {want!r}")
    problems += [
        f"figure label shown: {rendered[max(0, m.start() - 40) : m.end() + 20]!r}"
        for m in FIGURE_LABEL.finditer(rendered)
    ]
    keys, cites = cited_keys(path), page.evaluate(CITES_JS)
    if len(cites) != len(keys):
        problems.append(f"{len(cites)} citations shown for {len(keys)} keys cited: {keys}")
    problems += [
        f"citation of {key} reads {text!r}, not as author and year {author_year(key)}"
        for key, text in zip(keys, cites, strict=False)  # a count that differs is reported above
        if not reads_as_author_year(text, key)
    ]
    return problems


# JupyterLab's first view once it has started: the workspace restored, the intro's markdown
# rendered by jupyterlab-myst, no request pending (settings, news, the kernel's start) for half
# a second, so a question or toast that start-up brings is there; and what that view shows.
MYST_SHOWN_JS = "() => document.querySelectorAll('.jp-MarkdownCell .myst').length > 0"
FIRST_VIEW_JS = (
    "() => ({state: (" + STATE_JS + ")(),"
    " dialogs: Array.from(document.querySelectorAll('.jp-Dialog')).map((e) => e.innerText),"
    " toasts: Array.from(document.querySelectorAll('.Toastify__toast')).map((e) => e.innerText),"
    " myst: document.querySelectorAll('.jp-MarkdownCell .myst').length})"
)


@pytest.fixture(scope="module")
def lab_session(site, browser):
    """(page, first view): one JupyterLab and one chromium page for the module. The first view
    is recorded as soon as the app has started, before any test opens a chapter, so that the
    test that checks it does not depend on running first. The page is in a context of the
    session's chromium (conftest.py)."""
    with (
        serve_lab() as lab,
        harness.browser_context(browser, viewport={"width": 1280, "height": 900}) as ctx,
    ):
        page = ctx.new_page()
        requests = harness.Requests(page)
        open_app(page, lab)
        page.evaluate("() => window.jupyterapp.restored.then(() => null)")
        with contextlib.suppress(PlaywrightTimeout):  # (if not, the test says so)
            page.wait_for_function(MYST_SHOWN_JS, timeout=60_000)
        requests.wait_quiet(page)
        yield page, page.evaluate(FIRST_VIEW_JS)


@pytest.fixture
def lab_page(lab_session):
    return lab_session[0]


def test_lab_opens_on_the_intro_without_questions(lab_session) -> None:
    first = lab_session[1]
    assert first["state"] is not None and first["state"]["path"] == "book/intro.md"
    assert first["dialogs"] == [], first["dialogs"]
    assert first["toasts"] == [], first["toasts"]
    assert first["myst"] > 0, "markdown is not MyST-rendered"


# Whether Run All has finished (every code cell ran, the kernel idle) or stopped on an error.
# A code cell's execution count is set once its request is done (the kernel's reply and its
# "idle" status for that request both arrived), so every count set means every cell finished.
# The kernel's status indicator is not waited for: in 2 of 4 runs of chapter 5 at a load
# average of about 10 it still read "busy" 30 min after all 51 cells had finished, while in the
# other runs it read "idle" within seconds (cause not established; the indicator shows the
# last status message received, so one lost "idle" leaves it at "busy"). The test warns then.
RAN_JS = "() => { const s = (" + STATE_JS + ")(); return s.errors.length > 0 || s.ran === s.code; }"
# Whether the markdown shows its expressions' values (at least ``n`` of them, each in the
# rendered text) and every figure its caption's text after "Figure N:".
RENDERED_ALL_JS = (
    "(n) => { const s = (" + STATE_JS + ")();"
    " const shown = (" + RENDERED_JS + ")().join('\\n');"
    " const values = s.expressions.map((e) => e[1]);"
    " const captions = (" + FIGURES_JS + ")().map((f) => f.caption);"
    " return values.length >= n && values.every((v) => shown.includes(v))"
    " && captions.every((c) => c.split(':').slice(1).join(':').trim() !== ''); }"
)


MASK_VIEW = ".jp-OutputArea-output .mha-view[data-view=mask]"


def mask_view_problems(page) -> list[str]:
    """Chapter 6's mask view (an anywidget, computed in the browser): it shows mha's numbers,
    and a keyboard move of its mask control changes the mask and the numbers, still mha's."""
    view = page.locator(MASK_VIEW)
    if view.count() != 1:
        return [f"{view.count()} mask views"]
    hook, problems = expected.hook(), []

    def check() -> None:
        for v in harness.visible_views(page):
            if v["attrs"].get("view") == "mask":
                attrs = {expected.attr_name("data-" + k): x for k, x in v["attrs"].items()}
                cells = {c["key"]: c["value"] for c in v["cells"]}
                problems.extend(expected.compare("lab", attrs, cells, hook(attrs)))

    check()
    start = view.get_attribute("data-mask")
    view.locator("input[type=radio]:checked").focus()
    page.keyboard.press("ArrowUp")
    page.wait_for_function(
        f"(start) => document.querySelector('{MASK_VIEW}').getAttribute('data-mask') !== start",
        arg=start,
        timeout=10_000,
    )
    check()
    return problems


HEADS_VIEW = ".jp-OutputArea-output .mha-heads-view"
HEADS_PANELS = ("rows", "heads", "concat", "cost")


def heads_view_problems(page) -> list[str]:
    """The heads views of chapters 1 to 4 (anywidgets, computed in the browser): each shows
    mha's numbers, and a keyboard move of its first range control changes them, still mha's."""
    hosts = page.locator(HEADS_VIEW)
    if hosts.count() == 0:
        return ["no heads view"]
    hook, problems = expected.hook(), []

    def check() -> None:
        for v in harness.visible_views(page):
            if v["attrs"].get("view") in HEADS_PANELS:
                attrs = {expected.attr_name("data-" + k): x for k, x in v["attrs"].items()}
                cells = {c["key"]: c["value"] for c in v["cells"]}
                problems.extend(expected.compare("lab", attrs, cells, hook(attrs)))

    check()
    for i in range(hosts.count()):
        before = hosts.nth(i).inner_text()
        first = hosts.nth(i).locator("input[type=range]").first
        at_end = first.evaluate("(e) => e.value === e.max")  # the sliders' check moved it
        first.focus()
        page.keyboard.press("ArrowLeft" if at_end else "ArrowRight")
        page.wait_for_function(
            f"([i, before]) => document.querySelectorAll('{HEADS_VIEW}')[i].innerText !== before",
            arg=[i, before],
            timeout=10_000,
        )
    check()
    return problems


# The word pickers of the heads view and the trained explorer (chapter 2), in a notebook.
HEADS_WORD = ".jp-OutputArea-output .mha-heads-view select[data-control=word]"
TRAINED_WORD = ".jp-OutputArea-output .mha-trained-view select[data-control=word]"
PICKED_JS = "(e) => e.selectedOptions[0].text"


def shared_word_problems(page) -> list[str]:
    """A word picked in the heads view is picked in the trained explorer of the same notebook
    too (view_link.mjs, shareWord), as on the site (test_trained_view)."""
    heads, trained = page.locator(HEADS_WORD), page.locator(TRAINED_WORD)
    if heads.count() != 1 or trained.count() != 1:
        return [f"{heads.count()} heads view and {trained.count()} trained view word pickers"]
    if trained.evaluate(PICKED_JS) == "mouse":
        return ["the trained view shows mouse before the pick"]
    heads.select_option(label="mouse")
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(
            "(e) => e.selectedOptions[0].text === 'mouse'",
            arg=trained.element_handle(),
            timeout=10_000,
        )
    picked = trained.evaluate(PICKED_JS)
    return [] if picked == "mouse" else [f"the trained view kept {picked!r} after mouse was picked"]


# The views computed in the browser that a chapter shows in JupyterLab, beyond the heads and
# mask views above: what the chapter's source calls, the view's host, the range control a key
# moves, and the view types whose numbers mha recomputes (expected.view_problems).
MOVED_VIEWS = {
    "trained_view(": (".mha-trained-view", "seed", {"trained-rows", "trained-metrics"}),
    "exercise_view(": (".mha-exercise-view", "q_verb", {"exercise"}),
}

# The numbers (data-key, data-value) of every visible view of the given types, in page order.
NUMBERS_JS = (
    "(views) => (" + harness.VISIBLE_VIEWS_JS + ")(null)"
    ".filter((v) => views.includes(v.attrs.view)).map((v) => v.cells)"
)


def moved_view_problems(page, host: str, control: str, views: set[str]) -> list[str]:
    """The one view ``host`` (an anywidget computed in the browser) in the open notebook: it
    shows mha's numbers for its data-* attributes, and a keyboard move of its range ``control``
    (one step, back from its end) changes the numbers shown, which stay mha's."""
    where = f".jp-OutputArea-output {host}"
    if page.locator(where).count() != 1:
        return [f"{page.locator(where).count()} views {host}"]
    problems, seen = expected.view_problems(page, "lab", views)
    if not seen:
        problems.append(f"{host}: no view of {sorted(views)} shown")
    before = page.evaluate(NUMBERS_JS, sorted(views))
    r = page.locator(f"{where} input[type=range][data-control={control}]")
    at_end = r.evaluate("(e) => e.value === e.max")
    r.focus()
    page.keyboard.press("ArrowLeft" if at_end else "ArrowRight")
    page.wait_for_function(
        "([views, before]) => JSON.stringify((" + NUMBERS_JS + ")(views))"
        " !== JSON.stringify(before)",
        arg=[sorted(views), before],
        timeout=10_000,
    )
    after, seen = expected.view_problems(page, "lab", views)
    return problems + after + ([] if seen else [f"{host}: no view after the move"])


@pytest.mark.parametrize("path", CHAPTERS)
def test_chapter_reads_cleanly_after_run_all(lab_page, path: str) -> None:
    page = lab_page
    open_and_run_all(page, path)
    try:
        with contextlib.suppress(PlaywrightTimeout):  # the asserts below say what is missing
            page.wait_for_function(RAN_JS, timeout=RUN_TIMEOUT_S * 1000, polling=500)
        state = page.evaluate(STATE_JS)
        assert state["errors"] == [], f"{path}: {state['errors']}"
        assert state["ran"] == state["code"], (
            f"{path}: {state['ran']} of {state['code']} cells ran in {RUN_TIMEOUT_S} s"
        )
        # The markdown cells render their expressions after the kernel has answered: on a
        # busy machine that takes seconds, so wait until every number and caption is there.
        site = site_values(path)
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(
                RENDERED_ALL_JS, arg=len(site), timeout=RENDER_TIMEOUT_S * 1000, polling=500
            )
        state = page.evaluate(STATE_JS)
        if state["kernel"] != "idle":  # (see RAN_JS)
            warnings.warn(f"{path}: all cells ran; kernel shown {state['kernel']}", stacklevel=1)

        raw = [
            (i, m.group(0), text[max(0, m.start() - 40) : m.end() + 40])
            for i, text in enumerate(page.evaluate(RENDERED_JS))
            for m in RAW_MYST.finditer(text)
        ]
        assert raw == [], f"{path}: raw MyST in rendered markdown: {raw}"

        lab_values = [v for _, v in state["expressions"]]
        assert len(lab_values) == len(site), f"{path}: {len(lab_values)} vs {len(site)} numbers"
        timed = timing_names(path)  # wall-clock measurements differ from run to run
        differ = [
            (expr, got, want)
            for (expr, got), want in zip(state["expressions"], site, strict=True)
            if got != want and not names_in(expr) & timed
        ]
        assert differ == [], f"{path}: prose numbers differ from the built page: {differ}"
        rendered = "\n".join(page.evaluate(RENDERED_JS))
        missing = [v for v in lab_values if v not in rendered]
        assert missing == [], f"{path}: values not shown in the prose: {missing}"

        problems = figure_and_citation_problems(page, path, rendered)
        assert problems == [], f"{path}: " + "\n".join(problems)

        first = page.evaluate(FIRST_CELL_JS)
        notice = run_first(figures=bool(figure_captions(path))).removeprefix("> ")
        assert first["type"] == "markdown" and first["height"] > 0, f"{path}: {first}"
        assert plain(first["text"]) == plain(notice.replace("*", "")), f"{path}: {first}"
        cut = page.evaluate(CUT_LABELS_JS)
        assert cut == [], f"{path}: labels cut short: {cut}"

        sliders = [
            h.as_element() for h in page.evaluate_handle(SLIDERS_JS).get_properties().values()
        ]
        source = (harness.ROOT / path).read_text(encoding="utf-8")
        if re.search(r"Explorer\(|budget_view\(|steps_slider\(", source):
            assert sliders, f"{path}: its widgets show no slider in JupyterLab"
        for handle in sliders:
            before = page.evaluate(VIEWS_TEXT_JS, handle)
            now = handle.get_attribute("aria-valuenow")
            at_end = now is not None and now == handle.get_attribute("aria-valuemax")
            if handle.get_attribute("type") == "range":  # a native range (anywidget views)
                at_end = handle.evaluate("(e) => e.value === e.max")
            handle.focus()
            page.keyboard.press("ArrowLeft" if at_end else "ArrowRight")
            page.wait_for_function(
                "([h, before]) => { const out = h.closest('.jp-OutputArea-output');"
                " return Array.from(out.querySelectorAll('.mha-view'))"
                ".filter((v) => v.offsetParent !== null).map((v) => v.innerText).join('\\n')"
                " !== before; }",
                arg=[handle, before],
                timeout=10_000,
            )
        if "mask_view(" in source:
            assert mask_view_problems(page) == [], path
        if "heads_view(" in source:
            assert heads_view_problems(page) == [], path
        if "heads_view(" in source and "trained_view(" in source:
            assert shared_word_problems(page) == [], path
        for call, (host, control, views) in MOVED_VIEWS.items():
            if call in source:
                assert moved_view_problems(page, host, control, views) == [], path
    finally:  # the next chapter starts with no kernel of this one left running
        page.evaluate(
            "() => { const w = window.jupyterapp.shell.currentWidget;"
            " return w.sessionContext.shutdown().then(() => { w.context.model.dirty = false;"
            " w.dispose(); return null; }); }"
        )


def test_opening_a_chapter_does_not_mark_it_modified(lab_page) -> None:
    page, path = lab_page, "notebooks/01_one_budget.md"
    open_chapter(page, path)
    try:
        state = page.evaluate(KERNEL_METADATA_JS, 60_000)
        assert state == {"dirty": False}, f"{path} is marked modified after opening: {state}"
    finally:
        page.evaluate(
            "() => { const w = window.jupyterapp.shell.currentWidget;"
            " return w.sessionContext.shutdown().then(() => { w.context.model.dirty = false;"
            " w.dispose(); return null; }); }"
        )
