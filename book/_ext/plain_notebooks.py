"""The chapters as plain Jupyter notebooks: CommonMark and ``$`` math, readable in any front end.

Why it exists: the chapters are MyST notebooks, which Colab, VS Code, Notebook 7 and GitHub's
preview show as markup. Stands in for: ``jupytext --to ipynb``, which keeps the MyST, and
QuantEcon's ``sphinx-tojupyter`` (tried, 0.6.0 with Sphinx 7.4 and myst-nb 1.4: it turns code
cells into markdown code blocks, drops figure captions, writes citations as "[]", makes
admonition titles headings, does not fold solutions, and builds the book a second time).

:func:`plain_notebook` writes the notebook from the MyST source and what the build computed
(:func:`page_facts`): ``{eval}`` becomes its computed text (a note at the top says so);
``{numref}``, ``{eq}``, exercises and ``\tag{4}`` take the site's numbers, label lines go;
``{doc}`` links the other notebook, ``{ref}`` names the section; ``{cite}`` and ``{cite:t}``
give "(Vaswani et al., 2017)" and "Vaswani et al. (2017)", and the references end the
notebook; an admonition is a block quote with a bold title, an exercise a bold "Exercise 3."
paragraph, its solution (text and code) one folded ``<details>``; a figure's caption is a
markdown cell under its code cell; ``remove-cell`` cells go, hidden code stays, folded.
Tested in ``tests/test_plain_notebooks.py``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import nbformat
from docutils import nodes
from sphinx.util import docname_join
from sphinx.util.osutil import relative_uri

ROLE = re.compile(r"\{(?P<name>[a-z][\w:-]*)\}`(?P<text>[^`]*)`")
FENCE = re.compile(r"^(?P<colons>:{3,})\{(?P<name>[\w-]+)\}\s*(?P<arg>.*)$")
OPTION = re.compile(r"^:(?P<key>[\w-]+):\s*(?P<value>.*)$")
LABEL_LINE = re.compile(r"^\([\w-]+\)=\s*$")
EQUATION_END = re.compile(r"^\$\$[ \t]*\((?P<label>[\w-]+)\)[ \t]*$", re.M)
# A solution's fence (its exercise's label for the start, None for the end), its options and
# its closing ``` line.
SOLUTION = re.compile(
    r"^```\{solution-(?:start\}[ \t]*(?P<label>[\w-]+)|end\})[ \t]*(?:\n|$)"
    r"(?::[\w-]+:.*(?:\n|$))*(?:```[ \t]*(?:\n|$))?",
    re.M,
)
TARGET = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$")  # "text <target>" in a role
NOTE = (
    "> **About this notebook.** It is a chapter of *{book}*. Its text quotes the numbers "
    "that the book's own run of these cells computed; run the cells (Run All) and the outputs "
    "show them again. If you change a cell, the new numbers appear in the outputs, not in the "
    "text. A solution's code is in its fold: copy it into a cell to run it."
)


@dataclass(frozen=True)
class Reference:
    """One entry of the bibliography: how the text cites it and how the list shows it."""

    cite: str  # "Vaswani et al., 2017"
    entry: str  # "Vaswani, A., Shazeer, N., … (2017). Attention Is All You Need. …"


@dataclass
class PageFacts:
    """What the build knows about one page, for turning its MyST into plain text."""

    docname: str  # "notebooks/01_one_budget"
    book_title: str
    evals: list[str]  # the computed text of each {eval}, in reading order
    figures: dict[str, str]  # label -> the site's number ("7"), for {numref} and captions
    exercises: dict[str, str]  # label -> number
    equations: dict[str, str]  # label -> number
    titles: dict[str, str]  # docname -> title, for {doc}
    sections: dict[str, str]  # label -> section title, for {ref}
    references: dict[str, Reference]
    cited: list[str] = field(default_factory=list)  # keys in order of first citation


class PlainTextError(ValueError):
    """The MyST source holds something this converter cannot write as plain text."""


def split_target(text: str) -> tuple[str | None, str]:
    """``"text <target>"`` -> ``("text", "target")``; ``"target"`` -> ``(None, "target")``."""
    m = TARGET.match(text)
    return (m["text"], m["target"]) if m else (None, text.strip())


def number_of(table: dict[str, str], label: str, what: str, docname: str) -> str:
    if label not in table:
        raise PlainTextError(f"{docname}: no number for {what} {label!r}")
    return table[label]


def cite(facts: PageFacts, keys: str, textual: bool = False) -> str:
    """``"Vaswani2017,He2016"`` -> ``"(Vaswani et al., 2017; He et al., 2016)"``; with
    ``textual`` (the role ``{cite:t}``), ``"Vaswani et al. (2017); He et al. (2016)"``, as
    the site's author-year style writes them."""
    found = []
    for key in (k.strip() for k in keys.split(",")):
        if key not in facts.references:
            raise PlainTextError(f"{facts.docname}: no bibliography entry {key!r}")
        if key not in facts.cited:
            facts.cited.append(key)
        authors, year = facts.references[key].cite.rsplit(", ", 1)
        found.append(f"{authors} ({year})" if textual else f"{authors}, {year}")
    return "; ".join(found) if textual else "(" + "; ".join(found) + ")"


def replace_roles(text: str, facts: PageFacts, evals: Iterator[str]) -> str:
    """Every MyST role in ``text`` as plain text or a CommonMark link."""

    def one(m: re.Match[str]) -> str:
        name, body = m["name"], m["text"]
        if name == "eval":
            value = next(evals, None)
            if value is None:
                raise PlainTextError(f"{facts.docname}: the build computed no value for {body!r}")
            return value
        if name == "numref":
            label_text, label = split_target(body)
            kind = "Exercise" if label in facts.exercises else "Figure"
            table = facts.exercises if kind == "Exercise" else facts.figures
            n = number_of(table, label, "figure or exercise", facts.docname)
            return (label_text or f"{kind} %s").replace("%s", n).replace("{number}", n)
        if name == "eq":
            return f"({number_of(facts.equations, body, 'equation', facts.docname)})"
        if name == "doc":
            label_text, target = split_target(body)
            doc = docname_join(facts.docname, target)
            if doc not in facts.titles:
                raise PlainTextError(f"{facts.docname}: {{doc}} names no page: {target!r}")
            link = relative_uri(f"{facts.docname}.ipynb", f"{doc}.ipynb")  # notebook to notebook
            return f"[{label_text or facts.titles[doc]}]({link})"
        if name == "ref":
            label_text, label = split_target(body)
            if label not in facts.sections:
                raise PlainTextError(f"{facts.docname}: {{ref}} names no section: {label!r}")
            return f"*{label_text or facts.sections[label]}*"
        if name in ("cite", "cite:p", "cite:t"):
            return cite(facts, body, textual=name == "cite:t")
        raise PlainTextError(f"{facts.docname}: no plain-text form for the role {{{name}}}")

    return ROLE.sub(one, text)


def quote(text: str) -> str:
    """``text`` as a CommonMark block quote."""
    return "\n".join(f"> {line}" if line.strip() else ">" for line in text.strip("\n").split("\n"))


def directives(lines: list[str], facts: PageFacts) -> list[str]:
    """Colon-fenced directives (``:::{name}``), nested or not, as plain markdown lines. As in
    MyST, a fence closes at the first line of as many colons or more."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m is None:
            out.append(lines[i])
            i += 1
            continue
        close = re.compile(rf":{{{len(m['colons'])},}}\s*")
        end = next((j for j in range(i + 1, len(lines)) if close.fullmatch(lines[j])), None)
        if end is None:
            raise PlainTextError(f"{facts.docname}: {m['colons']}{{{m['name']}}} is not closed")
        body, options = lines[i + 1 : end], {}
        while body and (opt := OPTION.match(body[0])):
            options[opt["key"]] = opt["value"]
            body = body[1:]
        out.extend(directive(m["name"], m["arg"], options, directives(body, facts), facts))
        i = end + 1
    return out


def directive(
    name: str, arg: str, options: dict[str, str], body: list[str], facts: PageFacts
) -> list[str]:
    """One directive, its body already converted, as markdown lines."""
    text = "\n".join(body).strip("\n")
    if name == "exercise":
        label = options.get("label", "")
        n = number_of(facts.exercises, label, "exercise", facts.docname)
        title = f" ({arg.strip()})" if arg.strip() else ""
        return ["", f"**Exercise {n}{title}.** {text}", ""]
    if name == "dropdown":  # a folded block: in plain text, a quote under its title
        return ["", quote(f"**{arg.strip() or 'More'}**\n\n{text}"), ""]
    if name in ("admonition", "note", "tip", "important", "warning", "hint", "caution"):
        title = arg.strip() or name.capitalize()
        return ["", quote(f"**{title}**\n\n{text}"), ""]
    raise PlainTextError(f"{facts.docname}: no plain-text form for the directive {{{name}}}")


def markdown(text: str, facts: PageFacts, evals: Iterator[str]) -> str:
    """One markdown cell's MyST as CommonMark (solution fences are handled by the caller)."""
    lines = [line for line in text.split("\n") if not LABEL_LINE.match(line)]
    text = EQUATION_END.sub(  # "$$ (label)" closing a display equation: \tag{n}, then "$$"
        lambda m: (
            rf"\tag{{{number_of(facts.equations, m['label'], 'equation', facts.docname)}}}" + "\n$$"
        ),
        "\n".join(directives(lines, facts)),
    )
    return replace_roles(text, facts, evals).strip("\n")


def code_block(source: str) -> str:
    """``source`` as a fenced Python block, its fence longer than any backtick run in it."""
    longest = max((len(run) for run in re.findall(r"`+", source)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}python\n{source}\n{fence}"


def plain_notebook(
    nb: nbformat.NotebookNode, facts: PageFacts, first_cells: list[nbformat.NotebookNode]
) -> nbformat.NotebookNode:
    """``nb`` (MyST as jupytext reads it, no outputs) as a plain notebook, ``first_cells`` (the
    Colab cell) first. Raises :class:`PlainTextError` on MyST this module does not know, or
    when the computed ``{eval}`` values are not one for each role of the source."""
    evals = iter(facts.evals)
    cells = list(first_cells)
    solution: tuple[str, list[str]] | None = None  # (exercise number, its parts so far)

    def add_markdown(text: str) -> None:
        if text.strip():
            if solution is not None:
                solution[1].append(text)
            else:
                cells.append(nbformat.v4.new_markdown_cell(text))

    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if "remove-cell" in tags:
            continue
        if cell.cell_type == "markdown":
            # text, label, text, ...: a label starts a solution, None ends one
            for i, text in enumerate(SOLUTION.split(cell.source)):
                if i % 2 == 0:
                    add_markdown(markdown(text, facts, evals))
                elif text:
                    solution = (number_of(facts.exercises, text, "exercise", facts.docname), [])
                elif solution is not None:
                    n, parts = solution
                    solution = None
                    body = "\n\n".join(parts)
                    summary = f"<summary><b>Solution to Exercise {n}</b></summary>"
                    add_markdown(f"<details>\n{summary}\n\n{body}\n\n</details>")
            continue
        if cell.cell_type != "code":
            continue
        if solution is not None:
            add_markdown(code_block(cell.source))
        else:
            code = nbformat.v4.new_code_cell(cell.source, metadata=copy.deepcopy(cell.metadata))
            code.metadata.pop("mystnb", None)
            code.metadata["tags"] = [t for t in tags if t not in ("hide-input", "remove-input")]
            if not code.metadata["tags"]:
                del code.metadata["tags"]
            if {"hide-input", "remove-input"} & set(tags):  # folded, its outputs shown
                code.metadata["jupyter"] = {"source_hidden": True}
            cells.append(code)
        if figure := cell.metadata.get("mystnb", {}).get("figure"):  # its caption under it
            n = number_of(facts.figures, figure.get("name", ""), "figure", facts.docname)
            add_markdown(
                f"**Figure {n}.** {replace_roles(figure.get('caption', ''), facts, evals)}"
            )
    if next(evals, None) is not None:
        raise PlainTextError(f"{facts.docname}: the build computed more values than the text uses")
    note = NOTE.format(book=facts.book_title)
    title = next((c for c in cells if c.cell_type == "markdown"), None)
    if title is not None and title.source.startswith("# "):
        head, _, rest = title.source.partition("\n")
        title.source = f"{head}\n\n{note}\n\n{rest.strip()}".strip()
    else:
        cells.insert(len(first_cells), nbformat.v4.new_markdown_cell(note))
    if facts.cited:
        entries = "\n".join(f"- {facts.references[k].entry}" for k in facts.cited)
        cells.append(nbformat.v4.new_markdown_cell(f"## References\n\n{entries}"))
    out = nbformat.v4.new_notebook(metadata=copy.deepcopy(nb.metadata), cells=cells)
    out.metadata.pop("jupytext", None)
    for i, cell in enumerate(out.cells[len(first_cells) :], start=len(first_cells)):
        cell.id = f"cell-{i}"
    nbformat.validate(out)
    return out


def bibliography(path: str) -> dict[str, Reference]:
    """Every entry of a BibTeX file, as "(Author et al., year)" and a list entry."""
    from pybtex.backends.plaintext import Backend
    from pybtex.database import parse_file
    from pybtex.richtext import Text

    text_backend = Backend()  # render_as("text") looks its backend up on every call: 7 ms

    def plain(text: str) -> str:  # LaTeX (accents, braces) as plain text
        return Text.from_latex(text).render(text_backend)

    refs = {}
    for key, entry in parse_file(path).entries.items():
        people = entry.persons.get("author", [])
        last = [plain(" ".join(p.prelast_names + p.last_names)) for p in people]
        year = entry.fields.get("year", "n.d.")
        who = {1: last[0], 2: " and ".join(last)}.get(len(last), f"{last[0]} et al.")
        names = ", ".join(
            f"{surname}, " + " ".join(f"{plain(n)[0]}." for n in p.first_names)
            for surname, p in zip(last, people, strict=True)
        )
        venue = entry.fields.get("booktitle") or entry.fields.get("journal") or ""
        title = plain(entry.fields.get("title", ""))
        refs[key] = Reference(
            f"{who}, {year}",
            f"{names} ({year}). {title}." + (f" *{plain(venue)}*." if venue else ""),
        )
    return refs


def page_facts(app: Any, docname: str, references: dict[str, Reference]) -> PageFacts:
    """What the Sphinx environment of a finished build knows about ``docname``."""
    env = app.env
    numbers = env.toc_fignumbers.get(docname, {})

    def flat(kind: str) -> dict[str, str]:
        return {
            label.removeprefix("equation-"): ".".join(map(str, n))
            for label, n in numbers.get(kind, {}).items()
        }

    sections = {
        label: title
        for label, (doc, _anchor, title) in env.domaindata["std"]["labels"].items()
        if doc == docname
    }
    # myst-nb's {eval} role leaves the value it computed as an inline mime bundle; a code
    # cell's outputs are bundles too, but inside a block, never a paragraph or a caption.
    evals = [
        bundle.astext()
        for bundle in env.get_doctree(docname).findall(nodes.container)
        if bundle.get("nb_element") == "mime_bundle"
        and isinstance(bundle.parent, nodes.TextElement)
    ]
    return PageFacts(
        docname=docname,
        book_title=app.config.html_title or app.config.project,
        evals=evals,
        figures=flat("figure"),
        exercises=flat("exercise"),
        equations=flat("displaymath"),
        titles={doc: title.astext() for doc, title in env.titles.items()},
        sections=sections,
        references=references,
    )
