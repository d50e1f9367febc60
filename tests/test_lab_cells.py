"""The cells that only JupyterLab shows: each figure's caption and the chapter's numbering.

jupyterlab-myst renders markdown cells only, so a figure cell's caption (its metadata) and
its label reach JupyterLab through a markdown cell tagged ``remove-cell`` (which the book's
build drops) right below it: a ``figure`` whose caption the kernel reads from the figure
cell (``mha.views.captions``). A chapter's first markdown cell, also dropped from the book,
numbers its figures from the book's number and says to run the cells first (before Run All
JupyterLab shows the code of each ``{eval}`` in its place). ``tests/browser/test_lab.py``
checks what JupyterLab shows; this checks the sources, fast.

jupyterlab-myst cannot resolve citations (it shows the key), so the bibliography's keys
are the first author's surname and the year, which read as a citation.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from myst_nb.core.read import read_myst_markdown_notebook
from pybtex.database import parse_file

from mha.views.captions import Caption, caption, lab_figure, lab_first_cell
from tests.test_publishing import toc_pages

ROOT = Path(__file__).resolve().parents[1]
PAGES = [
    p
    for d in toc_pages(yaml.safe_load((ROOT / "_toc.yml").read_text()))
    if (p := ROOT / f"{d}.md").is_file() and "kernelspec" in p.read_text()
]
IMPORT = "# JupyterLab shows each figure's caption and alt text (mha.views.captions).\n"
IMPORT += "from mha.views.captions import caption, describe_figures\n\ndescribe_figures()"


def read(path: Path):
    return read_myst_markdown_notebook(path.read_text(encoding="utf-8"))


def lab_only(cell) -> bool:
    return "remove-cell" in cell.metadata.get("tags", [])


def figures(path: Path) -> dict[str, str]:
    """{name: caption} of the page's figure cells, as myst-nb reads them."""
    found = [c.metadata.get("mystnb", {}).get("figure") for c in read(path).cells]
    return {f["name"]: f["caption"] for f in found if f}


def test_the_book_has_chapters_with_figures() -> None:
    assert len(PAGES) == 7 and sum(len(figures(p)) for p in PAGES) > 10


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_every_figure_cell_has_its_jupyterlab_caption_below(path: Path) -> None:
    cells = read(path).cells
    for i, cell in enumerate(cells):
        name = cell.metadata.get("mystnb", {}).get("figure", {}).get("name")
        if name is None:
            continue
        below = cells[i + 1] if i + 1 < len(cells) else None
        assert below is not None and below.cell_type == "markdown" and lab_only(below), name
        assert below.source == lab_figure(name), f"{path.name}: below {name}: {below.source!r}"
        assert ":name: fig-" in below.source and f'caption("{name}")' in below.source


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_jupyterlab_only_cells_are_captions_numbering_and_one_import(path: Path) -> None:
    cells = read(path).cells
    lab = [c for c in cells if lab_only(c)]
    captions = {lab_figure(name) for name in figures(path)}
    code = [c.source for c in lab if c.cell_type == "code"]
    assert code == ([IMPORT] if captions else [])
    first_code = next(i for i, c in enumerate(cells) if c.cell_type == "code")
    if captions:
        assert cells[first_code + 1].source == IMPORT, "the import follows the first code cell"
    markdown = [c.source for c in lab if c.cell_type == "markdown"][1:]  # (the first cell's
    # text is checked below)
    other = [s for s in markdown if s not in captions]
    assert other == [], f"{path.name}: markdown only JupyterLab shows: {other}"


def test_jupyterlab_numbers_each_chapters_figures_from_the_books_number() -> None:
    """The book numbers figures through the whole book, in the order of _toc.yml."""
    first = 1
    for path in PAGES:
        cell = next(c for c in read(path).cells if c.cell_type == "markdown")
        front = re.match(r"---\n(.*?)\n---\n", cell.source, re.S) if lab_only(cell) else None
        start = yaml.safe_load(front[1])["numbering"]["figure"]["start"] if front else 1
        assert start == first, f"{path.name}: figures numbered from {start}, the book's {first}"
        first += len(figures(path))


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_first_cell_says_to_run_the_cells_first(path: Path) -> None:
    """Above the title, for JupyterLab only: the figures' numbering (a page with figures) and
    the notice that the numbers appear once the cells have run; never an empty-looking cell."""
    cells = read(path).cells
    title = next(i for i, c in enumerate(cells) if c.source.startswith("# "))
    assert title == 1, f"{path.name}: {title} cells above the title"
    first = cells[0]
    assert first.cell_type == "markdown" and lab_only(first)
    front = re.match(r"---\n.*?start: (\d+)\n---\n", first.source, re.S)
    assert first.source == lab_first_cell(int(front[1]) if front else None)
    assert bool(front) == bool(figures(path)), f"{path.name}: numbering without figures"
    assert "Run All" in first.source and ("captions" in first.source) == bool(figures(path))


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_caption_reads_each_figure_cells_caption(path: Path) -> None:
    for name, text in figures(path).items():
        got = caption(name, path.parent)
        assert isinstance(got, Caption) and got == text
        shown = text.replace("*", "")  # no quotes, no emphasis marks (no other "*" is typed)
        assert repr(got) == " " + shown and not hasattr(got, "_repr_markdown_")


def test_caption_of_a_label_no_figure_has_is_an_error() -> None:
    with pytest.raises(LookupError, match="fig-none"):
        caption("fig-none", ROOT / "notebooks")


def test_caption_reads_the_notebook_again_when_it_changes(tmp_path: Path) -> None:
    page = ROOT / "notebooks" / "02_run_it_again.md"
    copy = tmp_path / page.name
    copy.write_text(page.read_text(encoding="utf-8"), encoding="utf-8")
    before = caption("fig-whole-layer", tmp_path)
    copy.write_text(copy.read_text().replace("three designed heads", "the designed heads"))
    after = caption("fig-whole-layer", tmp_path)
    assert "three designed heads" in before and "the designed heads" in after


def test_citation_keys_read_as_first_author_and_year() -> None:
    """jupyterlab-myst shows a citation as its key: the key reads as author and year."""
    entries = parse_file(str(ROOT / "book" / "references.bib")).entries
    for key, entry in entries.items():
        surname = "".join(entry.persons["author"][0].last_names)
        want = re.sub(r"[^A-Za-z]", "", surname) + entry.fields["year"]
        assert key == want, f"{key}: JupyterLab shows this key; name it {want}"
