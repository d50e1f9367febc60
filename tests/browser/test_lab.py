"""The chapters read cleanly in JupyterLab, as ``make lab`` opens them, after Run All.

One JupyterLab server (the repository's settings and workspace) and one chromium page
for the module. For every chapter, in a fresh kernel:

* every code cell runs without an error;
* no rendered markdown cell shows raw MyST (a role, a directive fence);
* every number the prose computes (``{eval}``) shows the value the code computed: the
  values JupyterLab's kernel returned equal, in order, those on the built page (except
  wall-clock measurements, from cells tagged ``timing``), and each appears in the text;
* every slider, moved by keyboard, changes the view it drives.
"""

from __future__ import annotations

import ast
import re
import time
from html.parser import HTMLParser

import pytest
from myst_nb.core.read import read_myst_markdown_notebook

from tests.browser import harness
from tests.browser.lab import open_and_run_all, open_app, serve_lab

CHAPTERS = [
    "book/intro.md",
    *sorted(p.relative_to(harness.ROOT).as_posix() for p in harness.ROOT.glob("notebooks/*.md")),
]
RAW_MYST = re.compile(r"\{glue|\{numref\}|\{eq\}|\{doc\}|\{eval\}|\{cite\}|:::\{|```\{")
RUN_TIMEOUT_S = 180

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
    expressions: cells.filter((c) => c.type === 'markdown')
      .flatMap((c) => c.getMetadata('user_expressions') || [])
      .map((e) => [e.expression, e.result && e.result.status === 'ok'
                                  ? e.result.data['text/plain'] : `error in ${e.expression}`]),
  };
}
"""

RENDERED_JS = """
() => Array.from(window.jupyterapp.shell.currentWidget.node
    .querySelectorAll('.jp-MarkdownCell .myst')).map((e) => e.innerText)
"""

# Each slider handle of the open notebook with the text of the views of its widget output.
SLIDERS_JS = """
() => Array.from(window.jupyterapp.shell.currentWidget.node
    .querySelectorAll('.jp-OutputArea-output [role="slider"]'))
"""
VIEWS_TEXT_JS = """
(handle) => {
  const out = handle.closest('.jp-OutputArea-output');
  return Array.from(out.querySelectorAll('.mha-view'))
    .filter((v) => v.offsetParent !== null).map((v) => v.innerText).join('\\n');
}
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


@pytest.fixture(scope="module")
def lab_page(site):
    harness.ensure_chromium()
    from playwright.sync_api import sync_playwright

    with (
        serve_lab() as lab,
        sync_playwright() as pw,
        harness.browser_context(pw, viewport={"width": 1280, "height": 900}) as ctx,
    ):
        page = ctx.new_page()
        open_app(page, lab)
        yield page


def test_lab_opens_on_the_intro_without_questions(lab_page) -> None:
    page = lab_page
    page.wait_for_timeout(3000)  # first-run questions and toasts appear after start-up
    state = page.evaluate(STATE_JS)
    assert state is not None and state["path"] == "book/intro.md"
    dialogs = page.locator(".jp-Dialog").all_inner_texts()
    assert dialogs == [], dialogs
    toasts = page.locator(".Toastify__toast").all_inner_texts()
    assert toasts == [], toasts
    assert page.locator(".jp-MarkdownCell .myst").count() > 0, "markdown is not MyST-rendered"


@pytest.mark.parametrize("path", CHAPTERS)
def test_chapter_reads_cleanly_after_run_all(lab_page, path: str) -> None:
    page = lab_page
    open_and_run_all(page, path)
    start = time.monotonic()
    while True:
        state = page.evaluate(STATE_JS)
        done = state["ran"] == state["code"] and state["kernel"] == "idle"
        if done or state["errors"] or time.monotonic() - start > RUN_TIMEOUT_S:
            break
        page.wait_for_timeout(500)
    assert state["errors"] == [], f"{path}: {state['errors']}"
    assert done, f"{path}: {state['ran']} of {state['code']} cells ran in {RUN_TIMEOUT_S} s"
    page.wait_for_timeout(1000)  # the last markdown cells render their expressions
    state = page.evaluate(STATE_JS)

    raw = [
        (i, m.group(0), text[max(0, m.start() - 40) : m.end() + 40])
        for i, text in enumerate(page.evaluate(RENDERED_JS))
        for m in RAW_MYST.finditer(text)
    ]
    assert raw == [], f"{path}: raw MyST in rendered markdown: {raw}"

    lab_values, site = [v for _, v in state["expressions"]], site_values(path)
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

    sliders = [h.as_element() for h in page.evaluate_handle(SLIDERS_JS).get_properties().values()]
    source = (harness.ROOT / path).read_text(encoding="utf-8")
    if re.search(r"Explorer\(|budget_switch\(|steps_slider\(", source):
        assert sliders, f"{path}: its widgets show no slider in JupyterLab"
    for handle in sliders:
        before = page.evaluate(VIEWS_TEXT_JS, handle)
        now = handle.get_attribute("aria-valuenow")
        at_end = now is not None and now == handle.get_attribute("aria-valuemax")
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
    page.evaluate(
        "() => { const w = window.jupyterapp.shell.currentWidget;"
        " return w.sessionContext.shutdown().then(() => { w.context.model.dirty = false;"
        " w.dispose(); return null; }); }"
    )
