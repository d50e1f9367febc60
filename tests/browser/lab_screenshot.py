"""Save a screenshot of a chapter in JupyterLab after Run All, for the README.

    python -m tests.browser.lab_screenshot [CHAPTER] [--out book/images/screenshot-lab.png]

JupyterLab is started as ``make lab`` starts it (``tests.browser.lab``); the chapter
(default: chapter 2) runs in a fresh kernel, and the picture shows the first paragraph
whose numbers the code computed, with the cells around it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from tests.browser import harness
from tests.browser.lab import open_and_run_all, open_app, serve_lab

OUT = harness.ROOT / "book" / "images" / "screenshot-lab.png"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapter", nargs="?", default="notebooks/02_run_it_again.md")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with (
        serve_lab() as lab,
        sync_playwright() as pw,
        harness.launch(pw) as browser,
        harness.browser_context(browser, viewport={"width": 1280, "height": 860}) as ctx,
    ):
        page = ctx.new_page()
        open_app(page, lab)
        open_and_run_all(page, args.chapter)
        page.wait_for_function(
            "() => { const w = window.jupyterapp.shell.currentWidget;"
            " const code = Array.from(w.content.model.cells).filter((c) => c.type === 'code');"
            " return code.every((c) => c.executionCount !== null)"
            " && w.sessionContext.session.kernel.status === 'idle'; }",
            timeout=180_000,
        )
        page.wait_for_timeout(1500)
        page.evaluate(
            "() => { const cells = Array.from(document.querySelectorAll("
            "'.jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell'));"
            " const c = cells.find((e) => /head 1 gives/i.test(e.innerText)) || cells[3];"
            " c.scrollIntoView({block: 'start'}); return null; }"
        )
        page.wait_for_timeout(500)
        page.screenshot(path=str(args.out))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
