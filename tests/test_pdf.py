"""The book as one PDF (``make pdf``, which ``make test`` runs first), read back with poppler.

* every page of the table of contents is in it, in the site's order, under its own title;
* no unresolved reference (``??``) and no Python text form of a widget (``VBox(...)``) or a
  figure (``<Figure size ...>``);
* each widget of the site is one picture in the PDF, with a caption that names its settings;
* the figures are vector drawings (PDF files), the widget pictures the only PNGs;
* each chapter's solutions come after its exercises, in a last "Solutions" section;
* the site offers the PDF in the download menu of every page that has one (every chapter).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from PIL import Image

from tests.book_ext import ROOT
from tests.browser import harness

pytestmark = pytest.mark.pdf  # reads the PDF, its TeX and the built site

LATEX = ROOT / "_build" / "latex"
PDF = LATEX / "multi-head-attention.pdf"
TEX = LATEX / "multi-head-attention.tex"
STILLS = ROOT / "_build" / "widget-stills"
WIDGET_SCRIPT = re.compile(
    r'<script type="application/vnd\.jupyter\.widget-view\+json">(\{.*?\})</script>'
)


def _poppler(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.fail(f"{tool} is missing: run tests/browser/ensure-texlive (poppler-utils)")
    return path


@pytest.fixture(scope="module")
def pdf() -> Path:
    if not PDF.is_file():
        pytest.fail(f"{PDF} is missing: run `make pdf` (make test builds it)")
    built = ROOT / "_build" / ".built"
    if built.is_file() and PDF.stat().st_mtime < built.stat().st_mtime:
        pytest.fail("the PDF is older than the site's last build: run `make pdf`")
    return PDF


@pytest.fixture(scope="module")
def text(pdf: Path) -> str:
    out = subprocess.run([_poppler("pdftotext"), str(pdf), "-"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _toc_docnames() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    return [toc["root"]] + [c["file"] for part in toc["parts"] for c in part["chapters"]]


class _H1(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.depth, self.parts = 0, []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "h1" and not self.parts:
            self.depth = 1
        elif self.depth and tag in ("a", "span"):
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth and (tag == "h1" or tag in ("a", "span")):
            self.depth = 0 if tag == "h1" else self.depth - 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.parts.append(data)


def _site_title(docname: str) -> str:
    parser = _H1()
    parser.feed((harness.SITE / f"{docname}.html").read_text(encoding="utf-8"))
    return " ".join("".join(parser.parts).replace("#", "").split())


def _flat(s: str) -> str:
    return " ".join(s.split())


def test_every_page_is_a_chapter_in_the_sites_order(text: str) -> None:
    titles = [_site_title(d) for d in _toc_docnames()[1:]]  # the intro opens the book untitled
    assert all(titles), titles
    flat = _flat(text).casefold()  # chapter headings are set in capitals
    titles = [t.casefold() for t in titles]
    body = flat[flat.index(titles[0], flat.index(titles[-1]) + 1) :]  # after the contents
    positions = [body.find(t) for t in titles]
    assert -1 not in positions, dict(zip(titles, positions, strict=True))
    assert positions == sorted(positions), "chapters out of the site's order"


def test_no_unresolved_reference_and_no_python_text_form(text: str) -> None:
    assert "??" not in text
    for raw in ("VBox(", "HBox(", "Stack(", "<Figure size", "Output()", "<IPython.core"):
        assert raw not in text, raw


def _site_widgets() -> list[str]:
    ids = []
    for rel in harness.book_pages():
        html = (harness.SITE / rel).read_text(encoding="utf-8")
        ids += [json.loads(m)["model_id"] for m in WIDGET_SCRIPT.findall(html)]
    return ids


def test_one_picture_with_its_settings_for_each_widget(pdf: Path, text: str) -> None:
    widgets = _site_widgets()
    assert widgets, "the site has no widget"
    stills = json.loads((STILLS / "stills.json").read_text(encoding="utf-8"))
    assert sorted(stills) == sorted(widgets)
    # One caption per widget, each naming the settings of that widget's controls.
    note = r"In print, this interactive view is shown (.*?)where the text"
    captions = re.findall(note, _flat(text))
    assert len(captions) == len(widgets)
    for caption, model_id in zip(captions, widgets, strict=True):
        for label, value in stills[model_id]["controls"]:
            assert _flat(f"{label}: {value}" if label else value) in caption, (caption, label)

    # The PDF holds each picture once, pixel for pixel.
    def pixels(path: Path) -> bytes:
        with Image.open(path) as im:
            return im.convert("RGB").tobytes()

    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([_poppler("pdfimages"), "-png", str(pdf), f"{tmp}/i"], check=True)
        in_pdf = [pixels(p) for p in sorted(Path(tmp).glob("i-*.png"))]
    for model_id in widgets:
        for part in stills[model_id]["parts"]:  # the picture, or its slices
            assert in_pdf.count(pixels(STILLS / part["file"])) == 1, part["file"]


def test_every_widget_picture_prints_its_smallest_text_at_7_pt_or_more(pdf: Path) -> None:
    """Measured in the PDF: each picture's placed resolution (pdfimages -list, x-ppi) gives the
    points a CSS pixel of the view prints at (the stills are drawn at 2 device pixels per CSS
    pixel); times the smallest text of the view (stills.json, from the browser)."""
    stills = json.loads((STILLS / "stills.json").read_text(encoding="utf-8"))
    listing = subprocess.run(
        [_poppler("pdfimages"), "-list", str(pdf)], capture_output=True, text=True, check=True
    ).stdout.splitlines()[2:]
    placed: dict[tuple[int, int], list[float]] = {}
    for line in listing:
        cols = line.split()
        placed.setdefault((int(cols[3]), int(cols[4])), []).append(float(cols[12]))  # x-ppi
    small = []
    for still in stills.values():
        for part in still["parts"]:
            with Image.open(STILLS / part["file"]) as im:
                ppis = placed.get(im.size)
            assert ppis, f"{part['file']}: picture {im.size} not found in the PDF"
            for ppi in ppis:
                pt = still["smallest_text_px"] * 2 * 72 / ppi
                if pt < 7.0:
                    small.append((still["page"], part["file"], round(pt, 1)))
    assert small == [], f"widget pictures whose smallest text prints below 7 pt: {small}"


def test_figures_are_vector_and_widget_pictures_the_only_pngs() -> None:
    tex = TEX.read_text(encoding="utf-8")
    included = re.findall(r"\\sphinxincludegraphics(?:\[[^\]]*\])?\{\{([^}]*)\}(\.\w+)\}", tex)
    figures = [name for name, ext in included if ext == ".pdf"]
    pngs = [name for name, ext in included if ext == ".png"]
    assert len(figures) >= 20, included
    assert pngs and all(name.startswith("widget-stills/") for name in pngs), pngs
    stills = json.loads((STILLS / "stills.json").read_text(encoding="utf-8"))
    assert len(pngs) == sum(len(s["parts"]) for s in stills.values()) >= len(_site_widgets())


def test_solutions_follow_the_exercises_of_their_chapter() -> None:
    tex = TEX.read_text(encoding="utf-8")
    chapters = re.split(r"\\chapter\{", tex)[1:]
    with_exercises = 0
    for chapter in chapters:
        # The exercises' and solutions' own boxes, not references to them (\hyperref[...]{...}).
        box = r"\\begin\{sphinxadmonition\}\{note\}\{"
        exercises = [m.start() for m in re.finditer(box + r"Exercise \d+", chapter)]
        solutions = [m.start() for m in re.finditer(box + r"Solution to Exercise \d+", chapter)]
        assert len(exercises) == len(solutions)
        if not exercises:
            continue
        with_exercises += 1
        start = chapter.index(r"\section{Solutions}")
        assert max(exercises) < start < min(solutions)
    assert with_exercises == 6


def test_every_page_offers_the_pdf(pdf: Path) -> None:
    copy = harness.SITE / PDF.name
    assert copy.read_bytes() == pdf.read_bytes()
    chapters = {f"{d}.html" for d in _toc_docnames()}
    for rel in harness.book_pages():
        html = (harness.SITE / rel).read_text(encoding="utf-8")
        if "dropdown-download-buttons" not in html:
            assert rel not in chapters, f"{rel}: no download menu"
            continue  # the root's redirect, genindex, search
        hrefs = re.findall(r'href="([^"]*multi-head-attention\.pdf)"', html)
        assert len(hrefs) == 1, rel
        assert (harness.SITE / Path(rel).parent / hrefs[0]).resolve() == copy.resolve(), rel


def test_a_tall_view_is_cut_between_its_blocks_into_slices_of_at_most_900_px() -> None:
    from tests.browser.widget_stills import slices

    assert slices(800, [300]) == [(0, 800)]  # short enough: one picture
    assert slices(2000, [300, 850, 1200, 1900]) == [(0, 850), (850, 1200), (1200, 2000)]
    assert slices(2000, [1500]) == [(0, 1500), (1500, 2000)]  # no cut within 900: the next one
    assert slices(2000, []) == [(0, 2000)]  # nowhere to cut: whole
