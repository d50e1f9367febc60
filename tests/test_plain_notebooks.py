"""The plain notebooks the site offers for download and Colab (book/_ext/plain_notebooks.py).

The first tests turn a small MyST notebook, written here, into a plain one. The others read
the notebooks that ``make book`` wrote into ``_build/html/_sources`` and fail when there are
none: every markdown cell is CommonMark with no MyST left in it, every number that a page's
prose quotes is in its notebook's prose. (That every one runs from a fresh kernel and prints
what the build printed is tests/test_notebooks.py's check.)
"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import nbformat
import pytest
from bs4 import BeautifulSoup
from markdown_it import MarkdownIt
from nbconvert import HTMLExporter

from tests.book_ext import ROOT, plain_notebooks, publish
from tests.test_notebooks import outside_solutions

SITE = ROOT / "_build" / "html"
NOTEBOOKS_DIR = publish.NOTEBOOKS_DIR  # where the site keeps them
NOTEBOOKS = sorted((SITE / NOTEBOOKS_DIR).rglob("*.ipynb"))

SOURCE = """\
---
kernelspec:
  name: python3
  display_name: Python 3
---

+++ {"tags": ["remove-cell"]}

JupyterLab only: {eval}`caption("fig-a")`

+++

(sec-start)=
# A chapter

:::{admonition} Learning goals
:class: tip

Read {numref}`fig-a` and {eq}`eq-b` (try {numref}`ex-one`); see {doc}`the next one <02_next>` and
{ref}`sec-start` {cite}`Vaswani2017`.
:::

$$
x = 1
$$ (eq-b)

```{code-cell} ipython3
value = 0.25
```

The value is {eval}`f"{value:.2f}"`.

```{code-cell} ipython3
---
mystnb:
  figure:
    caption: "A caption that quotes {eq}`eq-b`."
    name: fig-a
tags: [hide-input]
---
print("figure")
```

:::{exercise}
:label: ex-one

Do it.
:::

```{solution-start} ex-one
:class: dropdown
```

First part, {eval}`value * 2`.

```{code-cell} ipython3
check = value * 2
```

Second part.

```{solution-end}
```

After the solution.
"""


def facts(evals: list[str]) -> plain_notebooks.PageFacts:
    ref = plain_notebooks.Reference("Vaswani et al., 2017", "Vaswani, A. (2017). Attention.")
    return plain_notebooks.PageFacts(
        docname="notebooks/01_first",
        book_title="The Book",
        evals=evals,
        figures={"fig-a": "7"},
        exercises={"ex-one": "3"},
        equations={"eq-b": "4"},
        titles={"notebooks/01_first": "A chapter", "notebooks/02_next": "Next"},
        sections={"sec-start": "A chapter"},
        references={"Vaswani2017": ref},
    )


def convert(evals: list[str]) -> nbformat.NotebookNode:
    nb = jupytext.reads(SOURCE, fmt="md:myst")
    return plain_notebooks.plain_notebook(nb, facts(evals), [nbformat.v4.new_code_cell("# first")])


EVALS = ["0.25", "0.5"]  # what the build computed for the two {eval} roles


def test_myst_becomes_plain_markdown() -> None:
    nb = convert(EVALS)
    md = [c.source for c in nb.cells if c.cell_type == "markdown"]
    text = "\n\n".join(md)
    assert nb.cells[0].source == "# first"  # the set-up cell leads
    # no label line, the Lab-only cell gone, and the note right under the title
    assert md[0].startswith("# A chapter\n\n> **About this notebook.** It is a chapter of")
    assert "> **Learning goals**" in text
    assert "Read Figure 7 and (4) (try Exercise 3); see [the next one](02_next.ipynb)" in text
    assert "*A chapter* (Vaswani et al., 2017)" in text
    assert "x = 1\n\\tag{4}\n$$" in text
    assert "The value is 0.25." in text
    assert "**Figure 7.** A caption that quotes (4)." in text
    assert "**Exercise 3.** Do it." in text
    # the solution, its text and its code, in one fold
    fold = "<details>\n<summary><b>Solution to Exercise 3</b></summary>\n\nFirst part, 0.5."
    code = "```python\ncheck = value * 2\n```"
    assert f"{fold}\n\n{code}\n\nSecond part.\n\n</details>" in text
    assert md[-2] == "After the solution."  # outside the <details>
    assert md[-1] == "## References\n\n- Vaswani, A. (2017). Attention."
    assert "remove-cell" not in str(nb)


def test_hidden_code_stays_and_is_folded() -> None:
    nb = convert(EVALS)
    code = {c.source: c for c in nb.cells if c.cell_type == "code"}
    assert code['print("figure")'].metadata["jupyter"]["source_hidden"] is True
    assert "check = value * 2" not in code  # in its solution's fold
    assert "jupyter" not in code["value = 0.25"].metadata
    assert all("mystnb" not in c.metadata for c in nb.cells)


@pytest.mark.parametrize(
    "evals",
    [
        EVALS[:1],  # one value short
        [*EVALS, "1"],  # one too many
    ],
)
def test_values_out_of_step_with_the_text_fail(evals) -> None:
    with pytest.raises(plain_notebooks.PlainTextError):
        convert(evals)


def test_a_doc_role_links_the_other_notebook_relative_to_this_one() -> None:
    page = facts([])
    page.titles = {"book/intro": "Intro", "notebooks/01_a": "A", "notebooks/02_b": "B"}
    links = {
        ("notebooks/01_a", "02_b"): "[B](02_b.ipynb)",
        ("notebooks/01_a", "../book/intro"): "[Intro](../book/intro.ipynb)",
        ("book/intro", "../notebooks/01_a"): "[A](../notebooks/01_a.ipynb)",
    }
    for (docname, target), link in links.items():
        page.docname = docname
        assert plain_notebooks.replace_roles(f"{{doc}}`{target}`", page, iter([])) == link


# ----------------------------------------------------------------------------- the built ones

MYST_LEFT = {
    "role": re.compile(r"\{[a-z][\w:-]*\}`"),
    "directive fence": re.compile(r"^\s*(```\{|:::)", re.M),
    "label line": re.compile(r"^\([\w-]+\)=\s*$", re.M),
    "equation label": re.compile(r"^\$\$\s*\([\w-]+\)", re.M),
}


def markdown_cells(path: Path) -> list[str]:
    return [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown"]


@pytest.mark.build
def test_the_site_has_its_plain_notebooks() -> None:
    assert len(NOTEBOOKS) >= 7, f"run `make book` first: {len(NOTEBOOKS)} notebooks in {SITE}"


@pytest.mark.build
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_markdown_is_commonmark_without_myst(path: Path) -> None:
    parser = MarkdownIt("commonmark")
    for source in markdown_cells(path):
        parser.parse(source)
        for what, pattern in MYST_LEFT.items():
            assert not pattern.search(source), f"{path.name}: {what} left in:\n{source[:300]}"
        assert source.count("$$") % 2 == 0, f"{path.name}: unbalanced $$ in:\n{source[:300]}"


NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:e-?\d+)?(?![\w])")


def prose_numbers(html: Path) -> set[str]:
    """The numbers in a page's prose: paragraphs and list items of the article, outside
    code, outputs, widgets, displayed maths and citation labels (the site writes [VSP+17]
    where a notebook writes (Vaswani et al., 2017))."""
    soup = BeautifulSoup(html.read_text(encoding="utf-8"), "html.parser")
    article = soup.select_one("article") or soup
    for hidden in article.select(
        ".cell_input, .cell_output, .output, .widget-view, .mha-static-widget, .math, "
        "div.highlight, .headerlink, .eqno, .bibtex-citation, script, style"
    ):
        hidden.decompose()
    text = " ".join(el.get_text(" ") for el in article.select("p, li"))
    return set(NUMBER.findall(text))


@pytest.mark.build
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_number_in_the_prose_is_in_the_notebook(path: Path) -> None:
    page = SITE / path.relative_to(SITE / NOTEBOOKS_DIR).with_suffix(".html")
    notebook = set(NUMBER.findall("\n".join(markdown_cells(path))))
    missing = prose_numbers(page) - notebook
    assert not missing, f"{path.name}: numbers on the page that its notebook lacks: {missing}"


def test_a_dropdown_becomes_a_titled_quote() -> None:
    lines = plain_notebooks.directive("dropdown", "How sure are we?", {}, ["A caveat."], facts([]))
    assert "\n".join(lines).strip() == "> **How sure are we?**\n>\n> A caveat."


def test_a_textual_citation_names_its_authors_then_the_year() -> None:
    page = facts([])
    assert plain_notebooks.cite(page, "Vaswani2017", textual=True) == "Vaswani et al. (2017)"
    assert plain_notebooks.cite(page, "Vaswani2017") == "(Vaswani et al., 2017)"
    text = plain_notebooks.replace_roles("{cite:t}`Vaswani2017` chose eight heads.", page, iter([]))
    assert text == "Vaswani et al. (2017) chose eight heads."


def test_a_code_block_fence_outgrows_the_backticks_in_the_code() -> None:
    assert plain_notebooks.code_block("x = 1") == "```python\nx = 1\n```"
    assert plain_notebooks.code_block('s = "````"') == '`````python\ns = "````"\n`````'


@pytest.mark.build
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_nbconvert_shows_solution_code_only_in_closed_folds(path: Path) -> None:
    """Every code cell of a page's solutions (between ```{solution-start} and
    ```{solution-end}) is, in nbconvert's HTML of the notebook, inside a closed ``<details>``
    and in no code cell."""
    page = ROOT / path.relative_to(SITE / NOTEBOOKS_DIR).with_suffix(".md")
    source = jupytext.read(page, fmt="md:myst")
    kept = {id(c) for c in outside_solutions(source)}
    solutions = [c.source for c in source.cells if id(c) not in kept]
    html, _ = HTMLExporter().from_notebook_node(nbformat.read(path, as_version=4))
    soup = BeautifulSoup(html, "html.parser")
    folds = [d for d in soup.find_all("details") if not d.has_attr("open")]
    folded = "\n".join(d.get_text() for d in folds)
    inputs = "\n".join(i.get_text() for i in soup.select(".jp-CodeCell .jp-InputArea"))
    for code in solutions:
        assert code.strip() in folded, f"{path.name}: solution code not folded:\n{code[:200]}"
        assert code.strip() not in inputs, f"{path.name}: solution code in a code cell"
