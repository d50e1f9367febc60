"""The book as published: its notebooks, its buttons, the Colab cell, Binder's files and CI.

Static checks of the built site (``make test`` builds it first) against ``_config.yml``, the one
place that names the repository. Every button must lead to something that exists once the
repository is pushed:

* the repository and issue buttons to the repository;
* on a notebook page, the download button to ``_notebooks/<page>.ipynb`` in the site: the page's
  source without outputs, the Colab cell first;
* its Binder button to the same file in the repository's branch, where ``binder/postBuild``
  writes it, and its Colab button to the same file in the branch that the workflow pushes
  ``_build/html/_notebooks`` to.

Also: the Colab cell, run in a kernel, starts pip only on Colab when mha is missing; a copy of
the book without a repository URL renders no repository, issue or launch button. (CI's
workflow and Binder's files: test_ci.py.)
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
import yaml
from myst_nb.core.read import read_myst_markdown_notebook
from nbclient import NotebookClient

from tests.book_ext import ROOT, notebook_files
from tests.browser import harness

SITE = harness.SITE
BIN = Path(sys.executable).parent
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
REPOSITORY = CONFIG["repository"]  # url: https://github.com/<owner>/<name>, branch
OWNER, NAME = REPOSITORY["url"].removeprefix("https://github.com/").split("/")
LAUNCH = CONFIG["launch_buttons"]
NOTEBOOKS_BRANCH = CONFIG["sphinx"]["config"]["mha_notebooks_branch"]
# Labels (btn-<label> classes) of the header buttons that leave the site.
REPOSITORY_BUTTONS = {"source-repository-button", "source-issues-button"}
LAUNCH_BUTTONS = {"launch-binder-button", "launch-colab-button"}
OUTSIDE = re.compile(r"https://(github\.com|mybinder\.org|colab\.research\.google\.com)/")


def front_matter(path: Path) -> dict:
    """The YAML front matter of a MyST page ({} without one)."""
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        return {}
    return yaml.safe_load(text[4 : text.index("\n---", 4)]) or {}


PAGES = [d for d in notebook_files.toc_pages(TOC) if (ROOT / f"{d}.md").is_file()]
NOTEBOOK_PAGES = [d for d in PAGES if "kernelspec" in front_matter(ROOT / f"{d}.md")]
OTHER_PAGES = [d for d in PAGES if d not in NOTEBOOK_PAGES]


class _Links(HTMLParser):
    """A page's links: the header buttons by label (their ``btn-<label>`` class), and all."""

    def __init__(self) -> None:
        super().__init__()
        self.buttons: dict[str, list[str]] = {}
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag != "a" or not a.get("href"):
            return
        self.hrefs.append(a["href"])
        for cls in (a.get("class") or "").split():
            if cls.startswith("btn-") and cls != "btn-sm":
                self.buttons.setdefault(cls.removeprefix("btn-"), []).append(a["href"])


def links(page: Path) -> _Links:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def built(page: str) -> Path:
    path = SITE / f"{page}.html"
    if not path.is_file():
        pytest.fail(f"{path} is missing: build the book first (make book)", pytrace=False)
    return path


@pytest.fixture(scope="session")
def binder_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What binder/postBuild's ``python book/_ext/notebook_files.py`` writes (here elsewhere)."""
    out = tmp_path_factory.mktemp("binder")
    script = ROOT / "book" / "_ext" / "notebook_files.py"
    subprocess.run([sys.executable, script, "--book", ROOT, "--out", out], check=True, cwd=ROOT)
    return out


def test_the_book_has_notebook_pages_and_other_pages() -> None:
    assert len(NOTEBOOK_PAGES) >= 7 and "book/intro" in NOTEBOOK_PAGES
    assert OTHER_PAGES, "the appendix pages are not notebooks"


@pytest.mark.build
@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_a_notebook_page_offers_its_notebook_and_launches_it(page: str, binder_tree: Path) -> None:
    html = built(page)
    buttons = links(html).buttons
    notebook = SITE / notebook_files.NOTEBOOKS_DIR / f"{page}.ipynb"

    # Download: the site's copy, a plain notebook (tests/test_plain_notebooks.py checks its
    # markdown): the page's code cells, JupyterLab-only ones aside, without outputs, after the
    # Colab cell.
    [download] = buttons["download-notebook-button"]
    assert (html.parent / download).resolve() == notebook.resolve()
    nb = nbformat.read(notebook, as_version=4)
    nbformat.validate(nb)
    assert nb.cells[0].id == notebook_files.COLAB_CELL_ID
    source = read_myst_markdown_notebook((ROOT / f"{page}.md").read_text())
    page_code = [
        c.source
        for c in source.cells
        if c.cell_type == "code" and "remove-cell" not in c.metadata.get("tags", [])
    ]
    code = [c for c in nb.cells[1:] if c.cell_type == "code"]
    assert [c.source for c in code] == page_code
    assert all(c.outputs == [] and c.execution_count is None for c in nb.cells[0:1] + code)

    # Binder: the repository's branch, binder/postBuild writes the same file at that path.
    ui = {"jupyterlab": "lab/tree", "classic": "tree"}[LAUNCH["notebook_interface"]]
    repo = f"{OWNER}/{NAME}/{REPOSITORY['branch']}"
    assert buttons["launch-binder-button"] == [
        f"{LAUNCH['binderhub_url']}/v2/gh/{repo}?urlpath={ui}/{page}.ipynb"
    ]
    # Binder opens the MyST notebook, which its JupyterLab renders with jupyterlab-myst: the
    # page's cells, all of them, after the same Colab cell.
    binder = nbformat.read(binder_tree / f"{page}.ipynb", as_version=4)
    assert binder.cells[0].source == nb.cells[0].source
    assert [(c.cell_type, c.source) for c in binder.cells[1:]] == [
        (c.cell_type, c.source) for c in source.cells
    ]

    # Colab: the same file in the branch that CI fills with _build/html/_notebooks.
    assert buttons["launch-colab-button"] == [
        f"{LAUNCH['colab_url']}/github/{OWNER}/{NAME}/blob/{NOTEBOOKS_BRANCH}/{page}.ipynb"
    ]

    assert buttons["source-repository-button"] == [REPOSITORY["url"]]
    [issues] = buttons["source-issues-button"]
    assert issues.startswith(f"{REPOSITORY['url']}/issues/new?")


@pytest.mark.build
@pytest.mark.parametrize("page", OTHER_PAGES)
def test_another_page_links_the_repository_and_launches_nothing(page: str) -> None:
    buttons = links(built(page)).buttons
    assert buttons["source-repository-button"] == [REPOSITORY["url"]]
    assert not (LAUNCH_BUTTONS | {"download-notebook-button"}) & buttons.keys()
    assert not (SITE / notebook_files.NOTEBOOKS_DIR / f"{page}.ipynb").exists()


# The Colab cell runs in a kernel where mha is importable (this environment). An audit hook
# records every process the kernel starts, and stops it: nothing can be installed.
PROBE = """\
import importlib.util, json, sys, types

started = []
enabled = []  # calls of the stand-in google.colab.output.enable_custom_widget_manager

def _record(event, args):
    if event in ("subprocess.Popen", "os.system", "os.posix_spawn", "os.exec", "os.spawn"):
        started.append([event, [str(a) for a in args[1]] if event == "subprocess.Popen"
                        else [str(a) for a in args]])
        raise PermissionError(f"the test stopped {event}")

sys.addaudithook(_record)
"""
SCENARIO = """\
started.clear()
enabled.clear()
sys.modules.pop("google.colab", None)
if sys.modules.get("mha", "") is None:
    del sys.modules["mha"]
if {colab}:
    sys.modules["google.colab"] = colab = types.ModuleType("google.colab")
    google = sys.modules.setdefault("google", types.ModuleType("google"))
    google.colab = colab
    if {widgets}:  # google.colab.output.enable_custom_widget_manager, as on Colab
        colab.output = types.SimpleNamespace(enable_custom_widget_manager=lambda: enabled.append(1))
if not {mha}:
    sys.modules["mha"] = None  # import mha now fails, as where it is not installed
"""
REPORT = """\
print(json.dumps({"started": started, "python": sys.executable,
                  "mha": importlib.util.find_spec("mha") is not None,
                  "widget_manager": len(enabled)}))
"""


@pytest.mark.build
def test_the_colab_cell_installs_mha_only_on_colab_and_only_when_missing() -> None:
    cells = [
        nbformat.read(SITE / notebook_files.NOTEBOOKS_DIR / f"{p}.ipynb", as_version=4).cells[0]
        for p in NOTEBOOK_PAGES
    ]
    colab = cells[0]
    assert all(c.source == colab.source for c in cells), "every notebook starts with one cell"
    lines = colab.source.splitlines()
    assert len(lines) <= 18 and lines[0].startswith("# "), "one short, commented cell"

    # (colab, mha, Colab's custom widget manager)
    scenarios = [(False, True, True), (True, True, True), (False, False, True), (True, False, True)]
    scenarios.append((True, True, False))
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(PROBE))
    for on_colab, has_mha, widgets in scenarios:
        setup = SCENARIO.format(colab=on_colab, mha=has_mha, widgets=widgets)
        nb.cells += [
            nbformat.v4.new_code_cell(setup),
            nbformat.v4.new_code_cell(colab.source),
            nbformat.v4.new_code_cell(REPORT),
        ]
    NotebookClient(nb, timeout=60, kernel_name="python3", allow_errors=True).execute()

    for i, (on_colab, has_mha, widgets) in enumerate(scenarios):
        setup, cell, report = nb.cells[1 + 3 * i : 4 + 3 * i]
        assert setup.outputs == []
        seen = json.loads(report.outputs[0].text)
        assert seen["mha"] == has_mha
        if has_mha or not on_colab:
            assert seen["started"] == [], f"the cell started {seen['started']} (colab={on_colab})"
            assert seen["widget_manager"] == (1 if on_colab and widgets else 0), scenarios[i]
            if on_colab and not widgets:  # one line that says what is missing
                [line] = [o.text for o in cell.outputs if o.output_type == "stream"]
                assert line.count("\n") == 1 and "interactive views" in line, line
            else:
                assert cell.outputs == [], scenarios[i]
        else:  # what it would run: pip, from the configured repository's branch
            [error] = cell.outputs
            assert error.ename == "PermissionError"
            package = f"mha @ git+{REPOSITORY['url']}@{REPOSITORY['branch']}"
            pip = [seen["python"], "-m", "pip", "install", "--quiet", package]
            assert seen["started"] == [["subprocess.Popen", pip]]


# A stand-in notebook page: the test builds it, not the chapters, so that it runs in seconds.
STAND_IN = """\
---
jupytext:
  text_representation:
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# A notebook page

```{code-cell} python
1 + 1
```
"""


@pytest.mark.build  # builds a one-page book twice
@pytest.mark.parametrize("url", [None, REPOSITORY["url"]], ids=["no-url", "with-url"])
def test_without_a_repository_url_no_button_leads_out(tmp_path: Path, url: str | None) -> None:
    """The real _config.yml with ``repository.url`` deleted (Jupyter Book then fills in its
    own repository's URL) builds a page with no repository, issue or launch button; with the
    URL (the control) the same page has them all."""
    config = copy.deepcopy(CONFIG)
    config["execute"]["execute_notebooks"] = "off"
    if url is None:
        del config["repository"]["url"]
    (tmp_path / "_config.yml").write_text(yaml.safe_dump(config))
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: book/intro\n")
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "intro.md").write_text(STAND_IN)
    for shared in ("_ext", "references.bib"):
        (tmp_path / "book" / shared).symlink_to(ROOT / "book" / shared)
    build = subprocess.run(
        [BIN / "jupyter-book", "build", tmp_path, "-W", "--keep-going"],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]

    site = tmp_path / "_build" / "html"
    page = links(site / "book" / "intro.html")
    assert "download-notebook-button" in page.buttons  # a notebook page: launchers would show
    notebook = nbformat.read(site / notebook_files.NOTEBOOKS_DIR / "book" / "intro.ipynb", 4)
    has_colab_cell = notebook.cells[0].get("id") == notebook_files.COLAB_CELL_ID
    leaving = [h for h in page.hrefs if OUTSIDE.match(h)]
    if url is None:
        assert not (REPOSITORY_BUTTONS | LAUNCH_BUTTONS) & page.buttons.keys()
        assert leaving == []
        assert not has_colab_cell  # nothing to install from
    else:
        assert page.buttons.keys() >= REPOSITORY_BUTTONS | LAUNCH_BUTTONS
        assert all(h.startswith(url) or NAME in h for h in leaving), leaving
        assert has_colab_cell


@pytest.mark.slow
def test_the_notebook_command_writes_every_notebook_page(binder_tree: Path) -> None:
    written = sorted(p.relative_to(binder_tree).as_posix() for p in binder_tree.rglob("*.ipynb"))
    assert written == sorted(f"{p}.ipynb" for p in NOTEBOOK_PAGES)


def test_the_notebooks_are_written_beside_the_pages_and_awaited(monkeypatch, tmp_path) -> None:
    # In a parallel build the notebooks are written by a forked process while Sphinx writes
    # the pages; the build's end waits for it, and a failure there fails the build.
    import os
    from types import SimpleNamespace

    from sphinx.errors import SphinxParallelError

    from tests.book_ext import publish

    app = SimpleNamespace(parallel=2, builder=SimpleNamespace(format="html"))
    out = tmp_path / "writer"

    def write(app, exception) -> None:
        import time

        time.sleep(0.5)  # still writing when the build reaches its end
        out.write_text(str(os.getpid()))

    monkeypatch.setattr(publish, "write_notebooks", write)
    publish.start_notebooks(app, app.builder)
    publish.finish_notebooks(app, None)
    assert out.read_text() not in ("", str(os.getpid()))  # another process

    def fail(app, exception) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(publish, "write_notebooks", fail)
    publish.start_notebooks(app, app.builder)
    with pytest.raises(SphinxParallelError, match="disk full"):
        publish.finish_notebooks(app, None)

    serial = SimpleNamespace(parallel=1, builder=SimpleNamespace(format="html"))
    out.unlink()
    monkeypatch.setattr(publish, "write_notebooks", write)
    publish.start_notebooks(serial, serial.builder)
    assert not out.exists()  # a serial build writes them at its end
    publish.finish_notebooks(serial, None)
    assert out.read_text() == str(os.getpid())
