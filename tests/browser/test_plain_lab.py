"""The site's plain notebooks read cleanly in a real front end that knows no MyST.

JupyterLab with jupyterlab-myst disabled (in the test server's own config folder: ``make lab``
and the learner's settings are left alone) renders markdown cells as Colab, VS Code and
Notebook 7 do: CommonMark, then MathJax. A copy of chapter 1's notebook from the built site
(``_build/html/_sources``, what the download button and Colab offer) is opened, in a
temporary folder, as a Notebook, before any cell runs. Every markdown cell of the file must
be rendered, show no MyST markup, have every formula of its source typeset by MathJax (the
source's ``$…$``/``$$…$$`` counted by markdown-it-py's dollarmath, an independent parser),
no MathJax error, and fold its solutions in closed ``<details>``.

Why an earlier version of this test found no rendered markdown cell: a notebook panel starts
with one empty code cell and gets the file's cells only when its context is ready, so waiting
for "the panel has a cell" returned before the file was read (measured with chromium's CPU
slowed six times: 0.6 s after ``docmanager:open`` the panel held 1 cell and 0 markdown cells),
and its check that no rendered cell was empty held vacuously. This test waits for the
file's own cell count and for every markdown cell's rendered text.

``python -m tests.browser.test_plain_lab`` takes the README's screenshot.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import jupytext
import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser import harness
from tests.browser.lab import KERNEL_METADATA_JS, serve_lab

NOTEBOOK = harness.SITE / "_sources" / "notebooks" / "01_one_budget.ipynb"
SCREENSHOT = harness.ROOT / "book" / "images" / "plain-notebook-lab.png"
# A limit on waiting (never a measure of speed): generous, the machine may be busy.
WAIT_MS = 180_000
TYPESET_MS = 60_000

OPEN_JS = """
(path) => window.jupyterapp.commands.execute('docmanager:open', {path, factory: 'Notebook'})
  .then(() => null)
"""
# Whether the notebook ``path`` is open with the file's ``n`` cells, every markdown cell
# rendered (its text there).
READY_JS = """
([path, n]) => {
  const w = window.jupyterapp.shell.currentWidget;
  if (!w || !w.context || w.context.path !== path || !w.context.isReady) return false;
  const cells = w.content.widgets;
  if (cells.length !== n) return false;
  const md = cells.filter((c) => c.model.type === 'markdown');
  const rendered = md.filter((c) => c.rendered
    && c.node.querySelector('.jp-RenderedMarkdown') !== null
    && c.node.querySelector('.jp-RenderedMarkdown').innerText.trim() !== '');
  return rendered.length === md.length;
}
"""
# Whether MathJax has typeset at least ``m`` formulas in the markdown cells.
TYPESET_JS = """
(m) => window.jupyterapp.shell.currentWidget.node
  .querySelectorAll('.jp-MarkdownCell mjx-container').length >= m
"""
# Every markdown cell as shown, in order: its text without the typeset formulas, how many
# formulas MathJax typeset, its MathJax errors, whether jupyterlab-myst rendered it, its
# <details> and those open, its code blocks (a solution's code) and those outside a <details>.
# The text leaves code blocks out: Python's f-strings hold braces that read as MyST roles.
CELLS_JS = """
() => window.jupyterapp.shell.currentWidget.content.widgets
  .filter((c) => c.model.type === 'markdown').map((c) => {
    const out = c.node.querySelector('.jp-RenderedMarkdown');
    const copy = out.cloneNode(true);
    copy.querySelectorAll('mjx-container, pre').forEach((e) => e.remove());
    copy.querySelectorAll('details').forEach((e) => e.setAttribute('open', ''));
    document.body.appendChild(copy);
    const text = copy.innerText;
    copy.remove();
    return {
      text,
      typeset: out.querySelectorAll('mjx-container').length,
      errors: Array.from(out.querySelectorAll('mjx-merror, [data-mjx-error]'))
        .map((e) => e.getAttribute('data-mjx-error') || e.textContent),
      myst: c.node.querySelector('.myst') !== null,
      details: out.querySelectorAll('details').length,
      open: out.querySelectorAll('details[open]').length,
      code: out.querySelectorAll('pre').length,
      unfolded: out.querySelectorAll('pre:not(details pre)').length,
    };
  })
"""
# MyST markup that must not reach the reader: a role, a directive fence, a label line, a
# displayed equation's label or fence, any dollar sign MathJax left (an untypeset formula).
RAW = {
    "role": re.compile(r"\{[a-z][\w:-]*\}"),
    "colon fence": re.compile(r":::"),
    "backtick directive": re.compile(r"```\{"),
    "label line": re.compile(r"(?m)^\s*\([\w-]+\)=\s*$"),
    "dollar": re.compile(r"(?<!\\)\$"),
}
_MARKDOWN = MarkdownIt("commonmark").use(dollarmath_plugin)


def _math_tokens(tokens) -> int:
    return sum(t.type.startswith("math") + _math_tokens(t.children or []) for t in tokens)


def source_cells(path: Path) -> list[dict]:
    """The notebook file's cells: each markdown cell with its formulas (markdown-it-py) and
    its ``<details>`` blocks counted from the source."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = []
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        entry = {"type": cell["cell_type"], "source": source}
        if cell["cell_type"] == "markdown":
            entry["formulas"] = _math_tokens(_MARKDOWN.parse(source))
            entry["details"] = source.count("<details>")
        cells.append(entry)
    return cells


@contextlib.contextmanager
def plain_notebook_page(browser, width: int = 1280) -> Iterator[object]:
    """A page of ``browser`` (harness.launch) on JupyterLab (jupyterlab-myst disabled) with a
    copy of chapter 1's plain notebook open, its file read and every markdown cell rendered
    and typeset."""
    cells = source_cells(NOTEBOOK)
    formulas = sum(c.get("formulas", 0) for c in cells)
    with (
        tempfile.TemporaryDirectory(prefix="mha-plain-") as folder,
        serve_lab(root=Path(folder), myst=False) as lab,
        harness.browser_context(browser, viewport={"width": width, "height": 900}) as ctx,
    ):
        shutil.copy(NOTEBOOK, folder)
        page = ctx.new_page()
        page.goto(lab.page("lab"))
        page.wait_for_function("() => window.jupyterapp && window.jupyterapp.started")
        page.evaluate("() => window.jupyterapp.restored.then(() => null)")
        page.evaluate(OPEN_JS, NOTEBOOK.name)
        page.wait_for_function(
            READY_JS, arg=[NOTEBOOK.name, len(cells)], timeout=WAIT_MS, polling=500
        )
        with contextlib.suppress(PlaywrightTimeout):  # (the test counts them, cell by cell)
            page.wait_for_function(TYPESET_JS, arg=formulas, timeout=TYPESET_MS, polling=500)
        yield page


@pytest.mark.usefixtures("site")
def test_chapter_1_plain_notebook_reads_cleanly_without_myst(browser) -> None:
    expected = [c for c in source_cells(NOTEBOOK) if c["type"] == "markdown"]
    with plain_notebook_page(browser) as page:
        shown = page.evaluate(CELLS_JS)
    assert len(shown) == len(expected) > 20, f"{len(shown)} markdown cells, {len(expected)} in file"
    assert not any(c["myst"] for c in shown), "jupyterlab-myst rendered a cell: not disabled"
    problems = []
    for i, (cell, source) in enumerate(zip(shown, expected, strict=True)):
        where = f"markdown cell {i} ({source['source'][:60]!r})"
        problems += [
            f"{where}: raw {name}: {cell['text'][max(0, m.start() - 40) : m.end() + 40]!r}"
            for name, pattern in RAW.items()
            for m in pattern.finditer(cell["text"])
        ]
        if cell["typeset"] != source["formulas"]:
            problems.append(f"{where}: {cell['typeset']} formulas typeset of {source['formulas']}")
        if cell["errors"]:
            problems.append(f"{where}: MathJax errors {cell['errors']}")
        if (cell["details"], cell["open"]) != (source["details"], 0):
            problems.append(f"{where}: {cell['details']} <details> ({cell['open']} open)")
        if cell["unfolded"]:
            problems.append(f"{where}: {cell['unfolded']} code blocks outside a <details>")
    assert problems == [], "\n".join(problems)
    # What the conversion must have produced, so the checks above had something to check.
    assert sum(c["formulas"] for c in expected) > 50
    assert sum(c["code"] for c in shown) >= 7, "chapter 1's 7 solutions' code, folded"
    assert sum(c["details"] for c in expected) >= 5
    texts = [c["text"] for c in shown]
    assert any(re.match(r"Figure \d+\.", t) for t in texts), "no numbered figure caption"
    assert any(re.search(r"\bExercise \d+\.", t) for t in texts), "no numbered exercise"


@pytest.mark.usefixtures("site")
def test_opening_the_plain_notebook_does_not_mark_it_modified(browser) -> None:
    """As Binder opens it (its server reads the same lab/jupyter_server_config.json): the
    file holds no language_info, which JupyterLab writes as soon as the kernel answers."""
    assert "language_info" not in json.loads(NOTEBOOK.read_text(encoding="utf-8"))["metadata"]
    with plain_notebook_page(browser) as page:
        state = page.evaluate(KERNEL_METADATA_JS, WAIT_MS)
    assert state == {"dirty": False}, f"{NOTEBOOK.name} is marked modified after opening: {state}"


# The notebook panel open at ``path``, once its file is read: its number of cells, or null.
OPENED_JS = """
(path) => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  if (!w || !w.context || w.context.path !== path || !w.context.isReady) return null;
  return w.content && w.content.widgets ? w.content.widgets.length : -1;
}
"""


@pytest.mark.usefixtures("site")
def test_the_binder_button_opens_the_chapter_as_a_notebook(browser) -> None:
    """The theme's Binder button opens ``lab/tree/<page>.md``; with make lab's settings
    (lab/install, which Binder's postBuild runs) JupyterLab opens that MyST file as a
    notebook, with the chapter's cells, not as a text file."""
    html = (harness.SITE / "notebooks" / "01_one_budget.html").read_text(encoding="utf-8")
    [urlpath] = set(re.findall(r'"https://mybinder\.org/v2/gh/[^"?]+\?urlpath=([^"]+)"', html))
    path = urlpath.removeprefix("lab/tree/")
    cells = len(jupytext.read(harness.ROOT / path).cells)
    with serve_lab() as lab, harness.browser_context(browser) as ctx:
        page = ctx.new_page()
        page.goto(lab.page(urlpath))
        opened = page.wait_for_function(OPENED_JS, arg=path, timeout=WAIT_MS, polling=500)
        assert opened.json_value() == cells > 20, f"{path} opened as {opened.json_value()}"


def main() -> int:
    """Take the README's screenshot: the top of chapter 1's plain notebook, as a small
    palette PNG."""
    from PIL import Image
    from playwright.sync_api import sync_playwright

    harness.ensure_chromium()
    with (
        sync_playwright() as pw,
        harness.launch(pw) as browser,
        plain_notebook_page(browser, width=1100) as page,
    ):
        page.evaluate(
            "() => { const n = window.jupyterapp.shell.currentWidget.content;"
            " n.activeCellIndex = 1; n.scrollToItem(1, 'start'); }"
        )
        harness.painted(page)
        page.screenshot(path=str(SCREENSHOT))
    Image.open(SCREENSHOT).convert("RGB").quantize(colors=128).save(SCREENSHOT, optimize=True)
    print(SCREENSHOT, SCREENSHOT.stat().st_size, "bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
