"""Every chapter runs top to bottom in a fresh kernel and prints the same numbers as the build.

``make test`` builds the book first, which executes every notebook and keeps each
executed notebook in ``_build/jupyter_execute``. Here each notebook runs once more,
in a new kernel, as the site publishes it (``_build/html/_sources/<page>.ipynb``: the plain
``.ipynb`` that readers download and open on Colab, whose code cells must be the page's, after a
Colab set-up cell that does nothing here; a solution's code is folded into its text), and
every other cell's text output must equal the built one:
the notebooks are deterministic, and the book shows what the code prints.

Cells tagged ``timing`` measure wall-clock time; their outputs are allowed to differ.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import nbformat
import pytest
from myst_nb.core.read import read_myst_markdown_notebook
from nbclient import NotebookClient

from tests.book_ext import publish

pytestmark = pytest.mark.build  # reads _build and executes every notebook again

ROOT = Path(__file__).resolve().parents[1]
BUILT = ROOT / "_build" / "jupyter_execute"
PUBLISHED = ROOT / "_build" / "html" / publish.NOTEBOOKS_DIR
NOTEBOOKS = [ROOT / "book" / "intro.md", *sorted((ROOT / "notebooks").glob("*.md"))]
WIDGET = "application/vnd.jupyter.widget-view+json"
TEXT = ("text/plain", "text/html", "text/markdown", "application/papermill.record/text/plain")


def read(path: Path) -> nbformat.NotebookNode:
    """The notebook as myst-nb reads it for the build."""
    return read_myst_markdown_notebook(path.read_text())


def lab_only(cell: nbformat.NotebookNode) -> bool:
    """A cell for JupyterLab only, which the site and its notebooks leave out."""
    return "remove-cell" in cell.metadata.get("tags", [])


def outside_solutions(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    """The notebook's cells but the code cells of its solutions (between ```{solution-start}
    and ```{solution-end}), whose code the published notebook folds into the solution's text."""
    cells, inside = [], False
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for marker in re.findall(r"^```\{solution-(start|end)\}", cell.source, re.M):
                inside = marker == "start"
        elif inside:
            continue
        cells.append(cell)
    return cells


def lines(text: str) -> str:
    """``text``'s lines without trailing spaces and blank lines. When myst-nb joins a cell's
    printed pieces it strips the whitespace at the end of each piece, and where the pieces
    split differs from run to run, so a blank line can be there in one run and not in another."""
    return "\n".join(line.rstrip() for line in text.splitlines() if line.strip())


def shown(nb: nbformat.NotebookNode, merged_in_place: bool = False) -> list[list[str]]:
    """Per code cell, the text it shows: streams and text outputs (widgets left out).

    A kernel sends what a cell prints in one or more pieces, as it comes. A fresh run keeps
    every piece, and they are joined here. ``merged_in_place``: the notebook is the one the build
    saved. To show a cell, myst-nb (``nb_merge_streams``) joins its pieces into the first piece,
    in place, and saves the notebook with every piece still in it; the page shows the first
    piece only, so only that one is read (checked by
    :func:`test_myst_nb_merges_a_cells_streams_into_the_first_in_place`).
    """
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if "timing" in cell.metadata.get("tags", []):
            cells.append(["<timing cell>"])
            continue
        texts = []
        streams = {"stdout": "", "stderr": ""}  # how a stream is chunked varies from run to run
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                if not (merged_in_place and streams[out.name]):
                    streams[out.name] += out.text
            elif out.output_type == "error":
                texts.append(f"error: {out.ename}: {out.evalue}")
            elif WIDGET not in out.get("data", {}):
                texts.extend(f"{m}: {out['data'][m]}" for m in TEXT if m in out.get("data", {}))
        cells.append([f"{k}: {lines(v)}" for k, v in streams.items() if v] + texts)
    return cells


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_reruns_identically(path: Path) -> None:
    nb = read(path)
    executed = BUILT / path.relative_to(ROOT).with_suffix(".ipynb")
    if not executed.is_file():
        pytest.fail(f"no executed notebook at {executed}: build the book first (make book)")
    built = nbformat.read(executed, as_version=4)
    published = PUBLISHED / path.relative_to(ROOT).with_suffix(".ipynb")
    if not published.is_file():
        pytest.fail(f"no published notebook at {published}: build the book first (make book)")
    run = nbformat.read(published, as_version=4)
    [colab] = [c for c in run.cells if c.get("id") == publish.COLAB_CELL_ID]
    # The page's code cells, executed in place below; the published notebook's markdown is
    # plain CommonMark (tests/test_plain_notebooks.py), and JupyterLab-only cells are left out.
    cells = [c for c in run.cells if c is not colab and c.cell_type == "code"]
    page = [c for c in outside_solutions(nb) if c.cell_type == "code" and not lab_only(c)]
    assert [c.source for c in cells] == [c.source for c in page], (
        f"{published.name} does not hold the code cells of {path.name}"
    )

    start = time.perf_counter()
    NotebookClient(
        run, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    seconds = time.perf_counter() - start
    print(f"{path.name}: executed in {seconds:.1f} s")

    assert colab.outputs == [], "the Colab set-up cell printed something outside Colab"
    site = [c for c in outside_solutions(built) if not lab_only(c)]
    again, before = (
        shown(nbformat.v4.new_notebook(cells=cells)),
        shown(nbformat.v4.new_notebook(cells=site), merged_in_place=True),
    )
    assert len(again) == len(before)
    for i, (a, b) in enumerate(zip(again, before, strict=True)):
        assert a == b, f"{path.name}: code cell {i} printed something else than in the build"


def test_myst_nb_merges_a_cells_streams_into_the_first_in_place() -> None:
    """What :func:`shown` assumes of the saved notebook: after myst-nb shows a cell printed in
    two pieces, the first piece holds both and the second is still there. If a new myst-nb stops
    merging in place, this fails, and :func:`shown` must join the pieces again."""
    from myst_nb.core.utils import coalesce_streams

    first = nbformat.v4.new_output("stream", name="stdout", text="t* = -0.6020\n")
    second = nbformat.v4.new_output("stream", name="stdout", text="fine search\n")
    pieces = [first, second]
    page = coalesce_streams(pieces)
    assert page == [first]
    assert pieces == [first, second]
    assert first.text == "t* = -0.6020\nfine search\n"
