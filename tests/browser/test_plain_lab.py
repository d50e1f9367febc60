"""The site's plain notebooks read cleanly in a front end that knows no MyST.

JupyterLab with jupyterlab-myst switched off renders markdown cells as CommonMark with
MathJax, as Colab, VS Code and Notebook 7 do. It opens chapter 1's notebook from the built
site (``_build/html/_notebooks``, what the download button and Colab offer), before any cell
runs, and checks every markdown cell: no raw MyST (``{role}``, ``:::``, a ``$$`` that was not
typeset), every formula typeset, every exercise's solution folded. The screenshot for the
README is taken by ``python -m tests.browser.test_plain_lab``.
"""

from __future__ import annotations

import contextlib
import sys

import pytest

from tests.browser import harness
from tests.browser.lab import open_app, serve_lab

NOTEBOOK = "_build/html/_notebooks/notebooks/01_one_budget.ipynb"
SCREENSHOT = harness.ROOT / "book" / "images" / "screenshot-plain-notebook.png"

OPEN_JS = """
(path) => window.jupyterapp.commands.execute('docmanager:open',
    {path, factory: 'Notebook'}).then(() => null)
"""
# Every markdown cell as shown: its text, how many formulas MathJax typeset, whether MyST
# rendered it, its folded solutions. Cells are rendered when scrolled to, so the test scrolls.
CELLS_JS = """
() => {
  const w = window.jupyterapp.shell.currentWidget;
  return Array.from(w.node.querySelectorAll('.jp-MarkdownCell .jp-RenderedMarkdown'))
    .map((e) => ({
      text: e.innerText,
      typeset: e.querySelectorAll('mjx-container').length,
      myst: e.closest('.jp-MarkdownCell').querySelector('.myst') !== null,
      details: e.querySelectorAll('details').length,
      open: e.querySelectorAll('details[open]').length,
    }));
}
"""
RAW = ("{eval}", "{numref}", "{doc}", "{cite}", "{eq}", ":::", "```{", "$$")


@contextlib.contextmanager
def plain_notebook_page(width: int = 1280):
    """chromium on JupyterLab (no jupyterlab-myst) with chapter 1's plain notebook open."""
    harness.ensure_chromium()
    from playwright.sync_api import sync_playwright

    with (
        serve_lab(myst=False) as lab,
        sync_playwright() as pw,
        harness.browser_context(pw, viewport={"width": width, "height": 900}) as ctx,
    ):
        page = ctx.new_page()
        open_app(page, lab)
        page.evaluate(OPEN_JS, NOTEBOOK)
        page.wait_for_function(
            "(p) => { const w = window.jupyterapp.shell.currentWidget;"
            " return w && w.context && w.context.path === p && w.content"
            " && w.content.widgets.length > 0; }",
            arg=NOTEBOOK,
            timeout=180_000,  # (a limit on waiting: generous, the machine may be busy)
        )
        yield page


def rendered_cells(page) -> list[dict]:
    """Every markdown cell, scrolled into view one by one so that each is rendered."""
    count = page.evaluate("() => window.jupyterapp.shell.currentWidget.content.widgets.length")
    for i in range(count):
        page.evaluate(
            "(i) => { const n = window.jupyterapp.shell.currentWidget.content;"
            " n.scrollToItem(i); }",
            i,
        )
    page.wait_for_function(
        "() => document.querySelectorAll('.jp-MarkdownCell .MathJax_Processing,"
        " .jp-MarkdownCell .jp-RenderedMarkdown:empty').length === 0",
        timeout=60_000,
    )
    return page.evaluate(CELLS_JS)


@pytest.mark.usefixtures("site")
def test_chapter_1_reads_cleanly_without_myst() -> None:
    with plain_notebook_page() as page:
        cells = rendered_cells(page)
    assert len(cells) > 20, f"only {len(cells)} markdown cells rendered"
    assert not any(c["myst"] for c in cells), "jupyterlab-myst rendered a cell: not switched off"
    for c in cells:
        raw = [r for r in RAW if r in c["text"]]
        assert not raw, f"raw markup {raw} in: {c['text'][:200]}"
    typeset = sum(c["typeset"] for c in cells)
    assert typeset >= 50, f"only {typeset} formulas typeset"
    dollars = [c["text"][:120] for c in cells if "$" in c["text"].replace("\\$", "")]
    assert not dollars, f"untypeset $ in: {dollars}"
    assert sum(c["details"] for c in cells) >= 5 and not any(c["open"] for c in cells)
    assert any("Figure 2." in c["text"] for c in cells), "no numbered caption"
    assert any(c["text"].startswith("Exercise 1") or "Exercise 1." in c["text"] for c in cells)


def main() -> int:
    """Take the README's screenshot: the top of chapter 1's plain notebook."""
    with plain_notebook_page(width=1100) as page:
        rendered_cells(page)
        page.evaluate("() => window.jupyterapp.shell.currentWidget.content.scrollToItem(0)")
        harness.painted(page)
        page.screenshot(path=str(SCREENSHOT))
    print(SCREENSHOT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
