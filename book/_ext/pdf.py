"""The book as one PDF (``make pdf``): Jupyter Book's LaTeX builder, from the site's own cache.

Stands in for: a bare ``jupyter-book build --builder pdflatex``, which would show no widget
and write the solutions inline. Loaded for every build, so that the HTML and LaTeX builds
share one Sphinx environment (``_build/.doctrees``): the PDF executes nothing again.

* Figures: printed as the vector PDFs that the build's kernels draw beside each PNG
  (``execution.py``).
* Widgets: :class:`WidgetStills` puts in each widget's place its picture, taken from the built
  site by ``python -m tests.browser.widget_stills``, with a caption naming the settings shown
  and the page where it is live; a widget without a picture stops the build.
* Solutions: :class:`SolutionsAtEnd` moves each chapter's solutions to its last section.
* Print: figures stay in place (``figure_align``); Sphinx's ``manual`` class and a short
  preamble (:data:`PREAMBLE`) need only the TeX Live packages of ``tests/browser/ensure-texlive``.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx_exercise.nodes import solution_node, solution_start_node

logger = logging.getLogger(__name__)

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
# Written by tests/browser/widget_stills.py: <model id>.png and stills.json.
STILLS_DIR = Path("_build") / "widget-stills"
# The PDF's file name (latex_documents' targetname in _config.yml), in _build/latex and, copied
# by make pdf, at the root of _build/html.
PDF_NAME = "multi-head-attention.pdf"
# \textwidth / \textheight of Sphinx's manual class on letter paper (6.5 in by 9 in).
TEXT_ASPECT = 6.5 / 9.0

# Sphinx's manual class with the two environments that sphinx-jupyterbook-latex wraps code
# cells in (its own class needs the bbm fonts, which Debian ships only in a 500 MB package).
PREAMBLE = r"""
\usepackage{changepage}
\newenvironment{sphinxVerbatimInput}{\begin{adjustwidth}{0pt}{}}{\end{adjustwidth}}
\newenvironment{sphinxVerbatimOutput}{\begin{adjustwidth}{12pt}{}}{\end{adjustwidth}}
\usepackage{etoolbox}
% The bibliography is the References appendix itself: no page, heading or contents line of
% its own after that appendix's title.
\makeatletter
\renewenvironment{sphinxthebibliography}[1]{\begin{thebibliography}{#1}}{\end{thebibliography}}
\patchcmd{\thebibliography}{\chapter*{\bibname}}{}{}{}
\patchcmd{\thebibliography}{\@mkboth{\MakeUppercase\bibname}{\MakeUppercase\bibname}}{}{}{}
\makeatother
% No picture taller than 80 % of the page, so that a caption always fits under its figure;
% a widget's picture, whose caption is a paragraph after it, may take 95 % (\mhaImagesUpTo).
\makeatletter\AtBeginDocument{\spx@image@maxheight=0.8\textheight}
\newcommand{\mhaImagesUpTo}[1]{\spx@image@maxheight=#1\textheight}\makeatother
% The introduction, between the contents and chapter 1, has no chapter name in its headers.
\apptocmd{\sphinxtableofcontents}{\markboth{}{}}{}{}
% The introduction's headings are line blocks (sphinx-jupyterbook-latex sets the root page's
% headings so), which LaTeX does not keep with what follows: none starts in the last six
% lines of a page (needspace, loaded by Sphinx), nor ends one.
\AtBeginEnvironment{DUlineblock}{\needspace{6\baselineskip}}
\AfterEndEnvironment{DUlineblock}{\nopagebreak}
"""

# Sphinx's LaTeX box settings (latex_elements["sphinxsetup"]): code cells' colours.
SPHINXSETUP = "VerbatimColor={RGB}{247,247,247}, VerbatimBorderColor={RGB}{204,204,204}"


def configure_latex(app: Sphinx, config: Config) -> None:
    """After sphinx-jupyterbook-latex's own settings: Sphinx's class, figures in place."""
    config.latex_theme = "manual"
    elements = dict(config.latex_elements or {})
    elements["preamble"] = PREAMBLE + elements.get("preamble", "")
    elements["figure_align"] = "H"
    elements["sphinxsetup"] = ", ".join(filter(None, [SPHINXSETUP, elements.get("sphinxsetup")]))
    config.latex_elements = elements


# A widget picture prints as wide as on the page (750 CSS px of text column to \linewidth: 12 px
# text at 7.5 pt; tests/test_pdf.py checks >= 7 pt); a tall view comes in slices, each at most
# MAX_HEIGHT of a page (\mhaImagesUpTo), or printed smaller to fit.
MAX_HEIGHT = 0.95
TALL = rf"\mhaImagesUpTo{{{MAX_HEIGHT}}}"
SHORT = r"\mhaImagesUpTo{0.8}"  # back to the cap that PREAMBLE sets for every picture


def print_size(width_fraction: float, aspect: float) -> tuple[str, str]:
    """("width", "0.83\\linewidth") or ("height", "0.950\\textheight") for a picture
    ``width_fraction`` of the text column wide and ``aspect`` (height / width)."""
    if width_fraction * aspect * TEXT_ASPECT > MAX_HEIGHT:
        return "height", f"{MAX_HEIGHT:.3f}\\textheight"
    return "width", f"{width_fraction:.3f}\\linewidth"


class WidgetStills(SphinxPostTransform):
    """In the LaTeX build, each widget output becomes its picture, with a caption."""

    default_priority = 3  # before myst-nb chooses one output per bundle (SelectMimeType, 4)
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        index = Path(self.app.srcdir) / STILLS_DIR / "stills.json"
        if not index.is_file():
            raise ExtensionError(
                f"{index} is missing: the PDF needs a picture of each widget, taken from the "
                "built site by `python -m tests.browser.widget_stills` (make pdf runs it)"
            )
        stills = json.loads(index.read_text(encoding="utf-8"))
        for bundle in list(self.document.findall(nodes.container)):
            widget = [c for c in bundle.children if c.get("mime_type") == WIDGET_MIME]
            if bundle.get("nb_element") != "mime_bundle" or not widget:
                continue
            match = re.search(r'"model_id":\s*"([0-9a-f]+)"', widget[0].astext())
            still = stills.get(match.group(1)) if match else None
            if still is None:
                raise ExtensionError(
                    f"no picture of the widget at {bundle.source}:{bundle.line}: "
                    "run `python -m tests.browser.widget_stills` on the current build"
                )
            bundle.replace_self(self.figure(still))

    def figure(self, still: dict[str, Any]) -> nodes.container:
        """The widget's picture (its slices, top to bottom) and its caption, not numbered:
        the figures keep the numbers they have on the site."""
        out = Path(self.app.outdir) / "widget-stills"
        out.mkdir(exist_ok=True)
        parts = still["parts"]
        images: list[nodes.Node] = [nodes.raw("", TALL, format="latex")]
        for n, part in enumerate(parts):
            shutil.copyfile(Path(self.app.srcdir) / STILLS_DIR / part["file"], out / part["file"])
            uri = f"widget-stills/{part['file']}"
            image = nodes.image(uri=uri, candidates={"*": uri})
            image["alt"] = still["alt"] + (f", part {n + 1} of {len(parts)}" if n else "")
            key, size = print_size(still["width_fraction"], part["aspect"])
            image[key] = size
            images.append(image)
        images.append(nodes.raw("", SHORT, format="latex"))
        note = nodes.paragraph(classes=["mha-widget-caption"])
        settings = "; ".join(f"{k}: {v}" if k else v for k, v in still["controls"])
        shown = f"at its default setting ({settings})" if settings else "as the page first shows it"
        note += nodes.emphasis("", f"In print, this interactive view is shown {shown}; ")
        where = self.config.html_baseurl.rstrip("/") + "/" + still["page"]
        note += nodes.emphasis("", "where the text asks you to move it, do so on the site: ")
        note += nodes.reference(where, where, refuri=where)
        return nodes.container("", *images, note, classes=["mha-widget-still"])


class SolutionsAtEnd(SphinxPostTransform):
    """In the LaTeX build, each chapter's solutions move to a last section of that chapter."""

    default_priority = 30  # after sphinx-exercise has titled the solutions (20-22)
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        for chapter in list(self.document.findall(addnodes.start_of_file)):
            found = list(self._solutions(chapter))
            if not found:
                continue
            top = next(iter(chapter.findall(nodes.section)))
            section = nodes.section(ids=[f"{chapter['docname'].replace('/', '-')}-solutions"])
            section += nodes.title("", "Solutions")
            for parent, solution in found:
                parent.remove(solution)
                section += solution
            top += section

    @classmethod
    def _solutions(cls, node: nodes.Element) -> Iterator[tuple[nodes.Element, nodes.Node]]:
        """(parent, solution) for each solution (gated ones are solution_start_nodes) of
        ``node``'s page, not of the pages it includes. Walked from the top: some transforms
        leave children whose ``parent`` is out of date."""
        for child in node.children:
            if isinstance(child, (solution_node, solution_start_node)):
                yield node, child
            elif isinstance(child, nodes.Element) and not isinstance(child, addnodes.start_of_file):
                yield from cls._solutions(child)


class Appendix(SphinxPostTransform):
    """In the LaTeX build, the pages of the table of contents' "Appendix" part are appendices
    (lettered A, B, ...), as they are listed apart on the site."""

    default_priority = 31
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        parts = self.config.external_site_map.root.subtrees  # sphinx-external-toc's _toc.yml
        appendix = [str(d) for part in parts if part.caption == "Appendix" for d in part.items]
        for chapter in self.document.findall(addnodes.start_of_file):
            if appendix and chapter["docname"] == appendix[0]:
                chapter.parent.insert(
                    chapter.parent.index(chapter), nodes.raw("", "\\appendix\n", format="latex")
                )
                return


def pdf_in_site(app: Sphinx, config: Config) -> None:
    """Whether the site offers the PDF: only when ``make pdf`` has copied it into the site. An
    ``html`` setting: when the PDF appears or goes, every page is written again."""
    config.mha_pdf_in_site = (Path(app.outdir) / PDF_NAME).is_file()


def offer_pdf(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """The download menu offers the book's PDF when the site holds it, in place of the theme's
    "print this page" button (generated pages, genindex and search, may have no menu)."""
    if not app.config.mha_pdf_in_site:
        return
    for group in context.get("header_buttons", []):
        if group.get("label") != "download-buttons":
            continue
        buttons = [b for b in group["buttons"] if b.get("label") != "download-pdf-button"]
        buttons.append(
            {
                "type": "link",
                "url": context["pathto"](PDF_NAME, 1),
                "text": "PDF of the book",
                "tooltip": "Download the whole book as one PDF",
                "icon": "fas fa-file-pdf",
                "label": "download-book-pdf-button",
            }
        )
        group["buttons"] = buttons
        return
    if pagename in app.env.found_docs:
        logger.warning(f"pdf: {pagename}: no download menu for the PDF (theme changed?)")


def setup(app: Sphinx) -> dict:
    app.add_config_value("mha_pdf_in_site", False, "html", bool)
    app.connect("config-inited", configure_latex, priority=900)
    app.connect("config-inited", pdf_in_site)
    app.add_post_transform(WidgetStills)
    app.add_post_transform(SolutionsAtEnd)
    app.add_post_transform(Appendix)
    # After the theme's own buttons (priority 501), so that its download menu exists.
    app.connect("html-page-context", offer_pdf, priority=503)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
