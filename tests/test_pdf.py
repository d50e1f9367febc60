"""The book as one PDF (``make pdf``, which ``make test`` runs first), read back with poppler.

* every page of the table of contents is in it, in the site's order, under its own title;
* no unresolved reference (``??``) and no Python text form of a widget (``VBox(...)``) or a
  figure (``<Figure size ...>``);
* each widget of the site is one picture in the PDF, with a caption that names its settings;
* the figures are vector drawings (PDF files), the widget pictures the only PNGs;
* every figure's smallest text, and every widget picture's, prints at 7 pt or more;
* the figures carry the same numbers in the PDF, on the site and in the plain notebooks;
* no page ends with a heading;
* each chapter's solutions come after its exercises, in a last "Solutions" section;
* the site offers the PDF in the download menu of every page that has one (every chapter).
"""

from __future__ import annotations

import html
import json
import math
import re
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from pdfminer.pdfdevice import PDFTextDevice
from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
from pdfminer.pdfpage import PDFPage
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


class _FigureText(PDFTextDevice):
    """pdfminer's text device that records, for each form drawn on a page's own content (each
    figure's PDF, which LaTeX places as one form), the printed size in pt of every glyph in it:
    the font size times the scale of the text matrix and of every transformation around it
    (the figure's placement included)."""

    def __init__(self, resources: PDFResourceManager) -> None:
        super().__init__(resources)
        self.depth = 0
        self.glyphs: list[float] = []
        self.forms: list[list[float]] = []  # one list of glyph sizes per form with text

    def begin_figure(self, name: str, bbox: object, matrix: object) -> None:
        if self.depth == 0:
            self.glyphs = []
        self.depth += 1

    def end_figure(self, name: str) -> None:
        self.depth -= 1
        if self.depth == 0 and self.glyphs:
            self.forms.append(self.glyphs)

    def render_char(self, matrix, font, fontsize, scaling, rise, cid, ncs, graphicstate) -> float:
        if self.depth:
            a, b, c, d, _, _ = matrix
            self.glyphs.append(fontsize * math.sqrt(abs(a * d - b * c)))
        return font.char_width(cid) * fontsize * scaling


def _figure_labels(tex: str) -> list[str]:
    """Each figure PDF that the LaTeX includes, in order, named by its figure's label."""
    found = re.findall(
        r"\\sphinxincludegraphics(?:\[[^\]]*\])?\{\{([^}]*)\}\.pdf\}"
        r"(.*?)(?=\\sphinxincludegraphics|\\end\{figure\}|\Z)",
        tex,
        re.S,
    )
    labels = []
    for name, after in found:
        label = re.search(r"\\label\{\\detokenize\{([^}]*)\}\}", after)
        labels.append(label.group(1) if label else name)
    return labels


def test_every_figure_prints_its_smallest_text_at_7_pt_or_more(pdf: Path) -> None:
    """Measured in the PDF: each figure is a vector drawing whose text is text, so each glyph's
    printed size is its font size scaled as LaTeX placed the figure (pdfminer)."""
    labels = _figure_labels(TEX.read_text(encoding="utf-8"))
    resources = PDFResourceManager()
    device = _FigureText(resources)
    interpreter = PDFPageInterpreter(resources, device)
    with pdf.open("rb") as f:
        for page in PDFPage.get_pages(f):
            interpreter.process_page(page)
    assert len(device.forms) == len(labels) >= 20, (len(device.forms), labels)
    smallest = {label: round(min(g), 2) for label, g in zip(labels, device.forms, strict=True)}
    small = {label: pt for label, pt in smallest.items() if pt < 7.0}
    assert small == {}, f"figures whose smallest text prints below 7 pt: {small}"


class _Figures(HTMLParser):
    """The site's figures in a page, in order: (id, number in its caption)."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.numbers: list[str] = []
        self.in_number = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attrs = dict(attrs)
        if tag == "figure" and attrs.get("id"):
            self.ids.append(attrs["id"])
        self.in_number = tag == "span" and attrs.get("class") == "caption-number"

    def handle_data(self, data: str) -> None:
        if self.in_number and self.ids and len(self.numbers) < len(self.ids):
            self.numbers.append(data.strip())
        self.in_number = False


def test_figure_numbers_agree_across_site_notebooks_and_pdf(text: str) -> None:
    """One numbering: "Figure 6" on the site, in the plain notebooks and in the PDF, for the
    same figure (the PDF's figures are the site's, in the same order: their labels)."""
    site_ids, site_numbers, notebook_numbers = [], [], []
    for docname in _toc_docnames():
        parser = _Figures()
        parser.feed((harness.SITE / f"{docname}.html").read_text(encoding="utf-8"))
        site_ids += parser.ids
        site_numbers += parser.numbers
        notebook = harness.SITE / "_sources" / f"{docname}.ipynb"  # the plain notebook
        if notebook.is_file():
            cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
            for cell in cells:
                if cell["cell_type"] == "markdown":
                    source = "".join(cell["source"])
                    notebook_numbers += re.findall(r"^\*\*(Figure \d+)\.\*\*", source)
    assert len(site_numbers) == len(site_ids) >= 20
    assert all(re.fullmatch(r"Figure \d+", n) for n in site_numbers), site_numbers
    labels = _figure_labels(TEX.read_text(encoding="utf-8"))
    assert [label.split(":")[-1] for label in labels] == site_ids
    pdf_numbers = re.findall(r"(Fig(?:ure|\.) [\d.]+): ", _flat(text))
    assert pdf_numbers == site_numbers
    assert notebook_numbers == site_numbers


class _Headings(HTMLParser):
    """The text of a page's headings (h1 to h4), without their permalink sign."""

    def __init__(self) -> None:
        super().__init__()
        self.depth, self.current, self.found = 0, [], []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in ("h1", "h2", "h3", "h4"):
            self.depth, self.current = 1, []
        elif self.depth and tag == "a" and dict(attrs).get("class") == "headerlink":
            self.depth = 0  # the permalink "#" closes the heading's text

    def handle_endtag(self, tag: str) -> None:
        if tag in ("h1", "h2", "h3", "h4") and self.current:
            self.found.append(" ".join("".join(self.current).split()))
            self.current = []
        if tag in ("h1", "h2", "h3", "h4"):
            self.depth = 0

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.current.append(data)


# The running head of a page ends above HEAD and its foot (the page number, and the chapter or
# section name) starts below FOOT, in pt from the top of a letter page.
HEAD, FOOT = 60.0, 730.0


def test_no_heading_ends_a_page(pdf: Path) -> None:
    """The last line of each page's text block is not a heading of the site's pages (in the
    PDF a section heading carries its number: "2.8 Summary"). The front matter (the contents,
    whose lines are headings), numbered in roman, is left out."""
    headings = set()
    for docname in _toc_docnames():
        parser = _Headings()
        parser.feed((harness.SITE / f"{docname}.html").read_text(encoding="utf-8"))
        headings |= {h.casefold() for h in parser.found}
    assert {"notation", "summary"} <= headings
    out = subprocess.run(
        [_poppler("pdftotext"), "-bbox-layout", str(pdf), "-"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    line = re.compile(r'<line xMin="[\d.]+" yMin="([\d.]+)"[^>]*>(.*?)</line>', re.S)
    ending, checked = [], 0
    for n, page in enumerate(out.stdout.split("<page ")[1:], 1):
        body, foot = [], []
        for y, words in line.findall(page):
            text = " ".join(html.unescape(w) for w in re.findall(r">([^<]*)</word>", words))
            if HEAD < float(y) < FOOT:
                body.append((float(y), text))
            elif float(y) >= FOOT:
                foot += text.split()
        if not body or any(re.fullmatch(r"[ivxlc]+", w) for w in foot):
            continue
        checked += 1
        last = max(body)[1]
        if re.sub(r"^[A-Z\d]+(\.\d+)*\s+", "", last).casefold() in headings:
            ending.append((n, last))
    assert checked > 100
    assert ending == [], f"pages whose text ends with a heading: {ending}"


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
