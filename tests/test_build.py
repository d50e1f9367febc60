"""The build is never stale: changing a module of the package re-executes exactly the pages
that import it, on the next ``jupyter-book build``, with no ``make clean``.

Runs on a copy of the project whose table of contents holds two pages: the intro, which
does not draw masks, and chapter 6, which does (``mha.figures.mask``). The copy's kernels
import the copy's ``src/mha`` (``PYTHONPATH``), so the edit below is what they run. Last,
a change to the build's own code (``book/_ext``) writes the pages again without executing.

The copy's site is also a site built by ``make book`` alone: it links no PDF; once the PDF is
in the site (as ``make pdf`` copies it), the next build writes every page again with a link to
it, again without executing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser import harness
from tests.browser.test_links import PDF_NAME, pdf_links

pytestmark = pytest.mark.build  # builds a small book with jupyter-book

ROOT = Path(__file__).resolve().parents[1]
JB = Path(sys.executable).parent / "jupyter-book"
TOC = """format: jb-book
root: book/intro
chapters:
  - file: notebooks/06_what_comes_next
"""


def _copy_project(dest: Path) -> None:
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    for rel in tracked:
        if (ROOT / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, dest / rel)
    (dest / "node_modules").symlink_to(ROOT / "node_modules")
    # esbuild's bundles of the views (make builds them; git keeps none): chapter 6's widget
    # needs them in the kernel (src/mha/views/dist) and on the page (mha-views.js).
    for built in (
        *(ROOT / "src/mha/views/dist").glob("*.js"),
        ROOT / "book/_ext/static/mha-views.js",
    ):
        (dest / built.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, dest / built.relative_to(ROOT))
    (dest / "_toc.yml").write_text(TOC)


def _build(project: Path) -> tuple[set[str], str]:
    """Build the copy; return the pages executed and chapter 6's HTML."""
    env = {**os.environ, "PYTHONPATH": str(project / "src")}
    out = subprocess.run(
        [str(JB), "build", str(project)],  # not -W: the two-page book has dangling links
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    executed = set(re.findall(r"(\S+)\.md: Executed notebook", out.stdout + out.stderr))
    html = (project / "_build" / "html" / "notebooks" / "06_what_comes_next.html").read_text()
    return {Path(p).name for p in executed}, html


def test_editing_a_module_reexecutes_exactly_the_pages_that_import_it(tmp_path: Path) -> None:
    _copy_project(tmp_path)
    executed, before = _build(tmp_path)
    assert executed == {"intro", "06_what_comes_next"}
    report = json.loads((tmp_path / "_build" / "execution.json").read_text())
    assert report.keys() == {"book/intro", "notebooks/06_what_comes_next"}
    assert all(page["ok"] for page in report.values())

    executed, unchanged = _build(tmp_path)  # nothing changed: nothing executes
    assert executed == set()
    assert unchanged == before

    mask = tmp_path / "src" / "mha" / "figures" / "mask.py"
    text = mask.read_text()
    assert 'hatch="///"' in text
    mask.write_text(text.replace('hatch="///"', 'hatch="xxx"'))  # forbidden cells drawn anew
    executed, after = _build(tmp_path)
    assert executed == {"06_what_comes_next"}  # the intro does not import mha.figures.mask
    figures = re.compile(r'src="[^"]*_images/[^"]+\.png"')
    assert figures.findall(after) != figures.findall(before)  # the masked figure was redrawn

    # The build's own code changed (a style sheet of book/_ext): every page is written again,
    # with the sheet's new checksum in its link, and nothing is executed.
    css = tmp_path / "book" / "_ext" / "static" / "mha-book.css"
    css.write_text(css.read_text() + "\n/* edited */\n")
    link = re.compile(r"mha-book\.css\?v=[0-9a-f]+")
    executed, restyled = _build(tmp_path)
    assert executed == set()
    assert link.findall(restyled) and link.findall(restyled) != link.findall(after)

    # The PDF: not linked by a site built without it; linked from every page's download menu
    # once the site holds it (book/_ext/pdf.py), the pages written again, nothing executed.
    site = tmp_path / "_build" / "html"
    pages = harness.book_pages(site)
    assert not (site / PDF_NAME).exists()
    assert {p: pdf_links(site, p) for p in pages} == {p: [] for p in pages}
    (site / PDF_NAME).write_bytes(b"%PDF-1.4\n")  # (make pdf copies the real one)
    executed, _ = _build(tmp_path)
    assert executed == set()
    menus = [p for p in pages if "dropdown-download-buttons" in (site / p).read_text()]
    assert "notebooks/06_what_comes_next.html" in menus
    for p in menus:
        [link] = pdf_links(site, p)
        assert (site / p).parent.joinpath(link).resolve() == (site / PDF_NAME).resolve(), p
