"""The book as one PDF (``make pdf``): Jupyter Book's LaTeX builder, from the site's own cache.

Stands in for: a bare ``jupyter-book build --builder pdflatex``, which would show no widget
and write the solutions inline.

Loaded by jupyter-book through ``sphinx: local_extensions`` in ``_config.yml``, for every
build, so that the HTML and the LaTeX builds read the pages with the same configuration and
share one Sphinx environment (``_build/.doctrees``): the PDF executes nothing that
``make book`` has executed.

* Figures: the build's kernels draw every matplotlib figure as PNG (the site; a palette PNG,
  ``mha.figures.png``) and as PDF (vector, which myst-nb prefers for LaTeX), through an
  IPython profile written into ``_build`` (:func:`kernel_profile`).
* Widgets: LaTeX cannot show a live slider. ``python -m tests.browser.widget_stills`` takes a
  picture of each widget's default view on the built site and records its controls;
  :class:`WidgetStills` puts that picture in the widget's place, with a caption that names the
  settings it shows and the page where it is live. A widget without a picture stops the
  build; its text form (``VBox(...)``) never reaches the PDF.
* Solutions: :class:`SolutionsAtEnd` moves each chapter's solutions into a last section of
  that chapter, so that the exercises can be tried before the answers are seen.
* Print: figures stay where the text refers to them (``figure_align``), and the class is
  Sphinx's own ``manual`` plus a short preamble (:data:`PREAMBLE`), which needs only the TeX
  Live packages that ``tests/browser/ensure-texlive`` installs.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging

logger = logging.getLogger(__name__)

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
# Written by tests/browser/widget_stills.py: <model id>.png and stills.json.
STILLS_DIR = Path("_build") / "widget-stills"
IPYTHON_DIR = Path("_build") / "ipython"
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


def kernel_profile(app: Sphinx) -> None:
    """Point the build's kernels at an IPython profile that draws figures as PDF and as palette
    PNG (the IPython extension ``mha.figures.png``)."""
    profile = Path(app.srcdir) / IPYTHON_DIR / "profile_default"
    profile.mkdir(parents=True, exist_ok=True)
    config = profile / "ipython_kernel_config.py"
    text = (
        "c.InlineBackend.figure_formats = {'png', 'pdf'}\n"
        "c.InteractiveShellApp.extensions = ['mha.figures.png']\n"
    )
    if not config.is_file() or config.read_text() != text:
        config.write_text(text)
    # Kernels started by this process and its parallel readers inherit the variable.
    os.environ["IPYTHONDIR"] = str(profile.parent)


def note_kernel_extension(app: Sphinx, docname: str, source: list[str]) -> None:
    """Every page is executed again when the module its kernel loads at start changes."""
    app.env.note_dependency(str(Path(app.srcdir) / "src" / "mha" / "figures" / "png.py"))


def configure_latex(app: Sphinx, config: Config) -> None:
    """After sphinx-jupyterbook-latex's own settings: Sphinx's class, figures in place."""
    config.latex_theme = "manual"
    elements = dict(config.latex_elements or {})
    elements["preamble"] = PREAMBLE + elements.get("preamble", "")
    elements["figure_align"] = "H"
    elements["sphinxsetup"] = ", ".join(filter(None, [SPHINXSETUP, elements.get("sphinxsetup")]))
    config.latex_elements = elements


# A widget picture is printed as wide as it is on the page (TEXT_COLUMN_PX of the page's text
# column to \linewidth: 6.5 in for 750 CSS px, 0.624 pt a pixel, so 12 px text prints at
# 7.5 pt): a tall view comes in slices (tests/browser/widget_stills.py), each within
# MAX_HEIGHT of a page at that scale, which \mhaImagesUpTo allows for these pictures (the
# book's other pictures keep the cap of 0.8 \textheight). A slice that is still too tall
# is printed smaller, at MAX_HEIGHT. tests/test_pdf.py measures in the PDF that every
# picture's smallest text prints at 7 pt or more.
MAX_HEIGHT = 0.95
TALL = rf"\mhaImagesUpTo{{{MAX_HEIGHT}}}"
SHORT = r"\mhaImagesUpTo{0.8}"  # back to the cap that PREAMBLE sets for every picture


def print_size(width_fraction: float, aspect: float) -> tuple[str, str]:
    """("width", "0.83\\linewidth") or ("height", "0.950\\textheight") for a picture
    ``width_fraction`` of the text column wide and ``aspect`` (height / width)."""
    if width_fraction * aspect * TEXT_ASPECT > MAX_HEIGHT:
        return "height", f"{MAX_HEIGHT:.3f}\\textheight"
    return "width", f"{width_fraction:.3f}\\linewidth"


def stills(app: Sphinx) -> dict[str, Any]:
    """The widget pictures' index (``stills.json``), read once per build."""
    if not hasattr(app, "_mha_stills"):
        index = Path(app.srcdir) / STILLS_DIR / "stills.json"
        if not index.is_file():
            raise ExtensionError(
                f"{index} is missing: the PDF needs a picture of each widget, taken from the "
                "built site by `python -m tests.browser.widget_stills` (make pdf runs it)"
            )
        app._mha_stills = json.loads(index.read_text(encoding="utf-8"))
    return app._mha_stills


def setting_text(controls: list[list[str]]) -> str:
    """``[["tilt", "0"], ["", "scores"]]`` -> ``tilt: 0; scores`` (labels as the page shows)."""
    return "; ".join(f"{label}: {value}" if label else value for label, value in controls)


class WidgetStills(SphinxPostTransform):
    """In the LaTeX build, each widget output becomes its picture, with a caption."""

    default_priority = 3  # before myst-nb chooses one output per bundle (SelectMimeType, 4)
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        index = stills(self.app)
        for bundle in list(self.document.findall(nodes.container)):
            if bundle.get("nb_element") != "mime_bundle":
                continue
            widget = [c for c in bundle.children if c.get("mime_type") == WIDGET_MIME]
            if not widget:
                continue
            match = re.search(r'"model_id":\s*"([0-9a-f]+)"', widget[0].astext())
            still = index.get(match.group(1)) if match else None
            if still is None:
                raise ExtensionError(
                    f"no picture of the widget at {bundle.source}:{bundle.line}: "
                    "run `python -m tests.browser.widget_stills` on the current build"
                )
            bundle.replace_self(self.figure(match.group(1), still))

    def figure(self, model_id: str, still: dict[str, Any]) -> nodes.container:
        out = Path(self.app.outdir) / "widget-stills"
        out.mkdir(exist_ok=True)
        parts = still.get("parts") or [{"file": f"{model_id}.png", "aspect": still["aspect"]}]
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
        # Not a numbered figure: the figures keep the numbers they have on the site.
        note = nodes.paragraph(classes=["mha-widget-caption"])
        settings = setting_text(still["controls"])
        note += nodes.emphasis(
            "",
            f"In print, this interactive view is shown at its default setting ({settings}); "
            if settings
            else "In print, this interactive view is shown as the page first shows it; ",
        )
        base = self.config.html_baseurl
        where = base.rstrip("/") + "/" + still["page"] if base else None
        if where:
            note += nodes.emphasis("", "where the text asks you to move it, do so on the site: ")
            note += nodes.reference(where, where, refuri=where)
        else:
            page = still["page"]
            note += nodes.emphasis("", f"where the text asks you to move it, open {page}.")
        return nodes.container("", *images, note, classes=["mha-widget-still"])


class SolutionsAtEnd(SphinxPostTransform):
    """In the LaTeX build, each chapter's solutions move to a last section of that chapter."""

    default_priority = 30  # after sphinx-exercise has titled the solutions (20-22)
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        # A gated solution (solution-start ... solution-end) stays a solution_start_node.
        from sphinx_exercise.nodes import solution_node, solution_start_node

        def is_solution(node: nodes.Node) -> bool:
            return isinstance(node, (solution_node, solution_start_node))

        for chapter in list(self.document.findall(addnodes.start_of_file)):
            found = list(self._solutions(chapter, is_solution))
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
    def _solutions(
        cls, node: nodes.Element, is_solution: Callable[[nodes.Node], bool]
    ) -> Iterator[tuple[nodes.Element, nodes.Node]]:
        """(parent, solution) for each solution of ``node``'s page, not of the pages it includes.
        Walked from the top: some transforms leave children whose ``parent`` is out of date."""
        for child in node.children:
            if is_solution(child):
                yield node, child
            elif isinstance(child, nodes.Element) and not isinstance(child, addnodes.start_of_file):
                yield from cls._solutions(child, is_solution)


class Appendix(SphinxPostTransform):
    """In the LaTeX build, the pages of the table of contents' "Appendix" part are appendices
    (lettered A, B, ...), as they are listed apart on the site."""

    default_priority = 31
    formats = ("latex",)

    def run(self, **kwargs: Any) -> None:
        sitemap = getattr(self.config, "external_site_map", None)
        parts = sitemap.root.subtrees if sitemap is not None else []
        appendix = [str(d) for part in parts if part.caption == "Appendix" for d in part.items]
        for chapter in self.document.findall(addnodes.start_of_file):
            if appendix and chapter["docname"] == appendix[0]:
                chapter.parent.insert(
                    chapter.parent.index(chapter), nodes.raw("", "\\appendix\n", format="latex")
                )
                return


def pdf_in_site(app: Sphinx, config: Config) -> None:
    """Whether the site offers the PDF: only when ``make pdf`` has put it in the output folder.

    ``mha_pdf_in_site`` is an ``html`` setting, so the site's build information changes with it:
    when the PDF appears (or goes), the next HTML build writes every page again, with (or
    without) the link, and reads or executes nothing again. ``make pdf`` runs that build after
    copying the PDF; a site built by ``make book`` alone has no link to a PDF it lacks."""
    config.mha_pdf_in_site = (Path(app.outdir) / PDF_NAME).is_file()


def offer_pdf(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    """Every page's download menu offers the whole book's PDF, when the site holds it
    (:func:`pdf_in_site`), in place of the theme's "print this page" button. ``make pdf`` puts
    the file next to the site's root page. (Generated pages, genindex and search, may have no
    download menu.)"""
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
    kernel_profile(app)
    app.add_config_value("mha_pdf_in_site", False, "html", bool)
    app.connect("config-inited", configure_latex, priority=900)
    app.connect("config-inited", pdf_in_site)
    app.connect("source-read", note_kernel_extension)
    app.add_post_transform(WidgetStills)
    app.add_post_transform(SolutionsAtEnd)
    app.add_post_transform(Appendix)
    # After the theme's own buttons (priority 501), so that its download menu exists.
    app.connect("html-page-context", offer_pdf, priority=503)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
