"""The book as published: its notebooks, its buttons and the Colab cell.

Static checks of the built site (``make test`` builds it first) against ``_config.yml``, which
names the repository. Every link and button must lead to something that exists once the
repository is pushed:

* the footer's two links (``html.extra_footer``) to the repository and to its issues;
* on a notebook page, the download menu's ``.ipynb`` to ``_sources/<page>.ipynb`` in the site:
  the page's code without outputs, the Colab cell first; its ``.md`` is named as the source;
* its Binder button (the theme's) to the page's ``.md`` in the repository's branch, which
  Binder's JupyterLab opens as a notebook (lab/install), and its Colab button to the plain
  notebook in the branch that the workflow pushes the site's ``_sources/**/*.ipynb`` to.

Also: the Colab cell, run in a kernel, starts pip only on Colab when mha is missing. (CI's
workflow and Binder's files: test_ci.py.)
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
import yaml
from myst_nb.core.read import read_myst_markdown_notebook
from nbclient import NotebookClient

from tests.book_ext import ROOT, publish
from tests.browser import harness
from tests.test_notebooks import outside_solutions

SITE = harness.SITE
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
REPOSITORY = CONFIG["repository"]  # url: https://github.com/<owner>/<name>, branch
OWNER, NAME = REPOSITORY["url"].removeprefix("https://github.com/").split("/")
LAUNCH = CONFIG["launch_buttons"]
NOTEBOOKS_BRANCH = CONFIG["sphinx"]["config"]["mha_notebooks_branch"]
BINDER = re.compile(re.escape(LAUNCH["binderhub_url"]) + "/")


def front_matter(path: Path) -> dict:
    """The YAML front matter of a MyST page ({} without one)."""
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        return {}
    return yaml.safe_load(text[4 : text.index("\n---", 4)]) or {}


def toc_pages(toc: dict) -> list[str]:
    """The docnames of a Jupyter Book ``_toc.yml``: its root, then every ``file`` entry."""
    found = [toc["root"]] if "root" in toc else []
    for value in toc.values():
        for item in value if isinstance(value, list) else []:
            if isinstance(item, dict):
                found += ([item["file"]] if "file" in item else []) + toc_pages(item)
    return found


PAGES = [d for d in toc_pages(TOC) if (ROOT / f"{d}.md").is_file()]
NOTEBOOK_PAGES = [d for d in PAGES if "kernelspec" in front_matter(ROOT / f"{d}.md")]
OTHER_PAGES = [d for d in PAGES if d not in NOTEBOOK_PAGES]


class _Links(HTMLParser):
    """A page's links: the header buttons by label (their ``btn-<label>`` class) with their
    text, and all."""

    def __init__(self) -> None:
        super().__init__()
        self.buttons: dict[str, list[str]] = {}
        self.texts: dict[str, str] = {}
        self.hrefs: list[str] = []
        self._in: str | None = None  # the label of the button being read

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag != "a" or not a.get("href"):
            return
        self.hrefs.append(a["href"])
        for cls in (a.get("class") or "").split():
            if cls.startswith("btn-") and cls != "btn-sm":
                self._in = cls.removeprefix("btn-")
                self.buttons.setdefault(self._in, []).append(a["href"])

    def handle_data(self, data: str) -> None:
        if self._in is not None:
            self.texts[self._in] = self.texts.get(self._in, "") + data

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self._in = None


def links_in(html: str) -> _Links:
    parser = _Links()
    parser.feed(html)
    return parser


def links(page: Path) -> _Links:
    return links_in(page.read_text(encoding="utf-8"))


def built(page: str) -> Path:
    path = SITE / f"{page}.html"
    if not path.is_file():
        pytest.fail(f"{path} is missing: build the book first (make book)", pytrace=False)
    return path


def assert_links_the_repository(html: Path) -> None:
    """The page's footer links the repository and its issues (``_config.yml``'s
    ``html.extra_footer``, which must name the same repository as ``repository.url``), and no
    icon of Font Awesome's brands font is on the page, so the page does not load that font."""
    text = html.read_text(encoding="utf-8")
    footer = text[text.index('<div class="extra_footer">') :]
    footer_links = links_in(footer[: footer.index("</div>")]).hrefs
    assert footer_links == [REPOSITORY["url"], f"{REPOSITORY['url']}/issues"], footer_links
    assert not re.search(r'class="[^"]*\b(fab|fa-brands)\b', text), "a brands icon is on the page"


def test_the_book_has_notebook_pages_and_other_pages() -> None:
    assert len(NOTEBOOK_PAGES) >= 7 and "book/intro" in NOTEBOOK_PAGES
    assert OTHER_PAGES, "the appendix pages are not notebooks"


@pytest.mark.build
@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_a_notebook_page_offers_its_notebook_and_launches_it(page: str) -> None:
    html = built(page)
    parsed = links(html)
    buttons = parsed.buttons
    notebook = SITE / publish.NOTEBOOKS_DIR / f"{page}.ipynb"

    # Download: the site's copy, a plain notebook (tests/test_plain_notebooks.py checks its
    # markdown): the page's code cells, JupyterLab-only ones and those of solutions (folded
    # into their solution's text) aside, without outputs, after the Colab cell.
    [download] = buttons["download-notebook-button"]
    assert (html.parent / download).resolve() == notebook.resolve()
    nb = nbformat.read(notebook, as_version=4)
    nbformat.validate(nb)
    assert nb.cells[0].id == publish.COLAB_CELL_ID
    source = read_myst_markdown_notebook((ROOT / f"{page}.md").read_text())
    page_code = [
        c.source
        for c in outside_solutions(source)
        if c.cell_type == "code" and "remove-cell" not in c.metadata.get("tags", [])
    ]
    code = [c for c in nb.cells[1:] if c.cell_type == "code"]
    assert [c.source for c in code] == page_code
    assert all(c.outputs == [] and c.execution_count is None for c in nb.cells[0:1] + code)
    # The .md in the menu is named for what it is: the MyST source, not the notebook.
    [md] = buttons["download-source-button"]
    assert md.endswith(f"_sources/{page}.md")
    assert ".md (MyST source)" in parsed.texts["download-source-button"]

    # Binder: the repository's branch, the page's MyST source, which Binder's JupyterLab opens
    # as a notebook (lab/install, as make lab).
    ui = {"jupyterlab": "lab/tree", "classic": "tree"}[LAUNCH["notebook_interface"]]
    repo = f"{OWNER}/{NAME}/{REPOSITORY['branch']}"
    binder = [h for h in parsed.hrefs if BINDER.match(h)]
    assert binder == [f"{LAUNCH['binderhub_url']}/v2/gh/{repo}?urlpath={ui}/{page}.md"]
    assert (ROOT / f"{page}.md").is_file()

    # Colab: the plain notebook in the branch that CI fills with the site's _sources/**/*.ipynb.
    assert buttons["launch-colab-button"] == [
        f"{LAUNCH['colab_url']}/github/{OWNER}/{NAME}/blob/{NOTEBOOKS_BRANCH}/{page}.ipynb"
    ]

    assert_links_the_repository(html)


@pytest.mark.build
@pytest.mark.parametrize("page", OTHER_PAGES)
def test_another_page_links_the_repository_and_launches_nothing(page: str) -> None:
    buttons = links(built(page)).buttons
    assert_links_the_repository(built(page))
    assert not {"launch-colab-button", "download-notebook-button"} & buttons.keys()
    assert not [h for h in links(built(page)).hrefs if BINDER.match(h)]
    assert not (SITE / publish.NOTEBOOKS_DIR / f"{page}.ipynb").exists()


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
        nbformat.read(SITE / publish.NOTEBOOKS_DIR / f"{p}.ipynb", as_version=4).cells[0]
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
