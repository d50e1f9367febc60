"""The prose's ``{eval}`` values, batched (book/_ext/batched_evals.py): the roles are found as
MyST finds them, and a batch gives each expression what its own request to the kernel gives.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.myst_role import myst_role_plugin
from myst_nb.core.execute.inline import ModifiedNotebookClient

from tests.book_ext import batched_evals

ROOT = Path(__file__).resolve().parents[1]


def myst_evals(markdown: str) -> list[str]:
    """The ``{eval}`` roles' contents as MyST's own role parser reads ``markdown``."""
    tokens = MarkdownIt("commonmark").use(myst_role_plugin).parse(markdown)
    inline = [c for t in tokens if t.type == "inline" for c in t.children or []]
    return [t.content for t in inline if t.type == "myst_role" and t.meta["name"] == "eval"]


@pytest.mark.parametrize(
    "markdown",
    [
        "It has $n =$ {eval}`n` words and {eval}`d_model` numbers.",
        "Two ticks: {eval}``f'{x:`^5}'`` and one more {eval}`y`.",
        "A role over a line break, {eval}`fmt(a,\nb)`, and {eval}`c`.",
        "No role: {eval} alone, `{code}` and an unclosed {eval}`x",
        "{eval}`a` {eval}`a` {eval}`len('``')`",
    ],
)
def test_roles_are_found_as_myst_finds_them(markdown: str) -> None:
    assert batched_evals.role_expressions(markdown) == myst_evals(markdown)


def test_only_the_prose_up_to_the_next_code_cell_and_shown_is_batched() -> None:
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [
        md("{eval}`a`"),
        code("a = 1"),
        md("{eval}`b` and {eval}`c`"),
        md("{eval}`lab_only`", metadata={"tags": ["remove-cell"]}),
        md("{eval}`d`"),
        code("e = 2"),
        md("{eval}`e`"),
    ]
    assert batched_evals._gap_expressions(cells, -1) == ["a"]
    assert batched_evals._gap_expressions(cells, 1) == ["b", "c", "d"]
    assert batched_evals._gap_expressions(cells, 5) == ["e"]


class _Inline:  # what _run_batch uses of myst-nb's inline client: its nbclient client
    def __init__(self, client: ModifiedNotebookClient) -> None:
        self._client = client


def test_a_batch_gives_what_each_expression_s_own_request_gives() -> None:
    setup = """
import math
from IPython.display import HTML
x = 3.14159
names = ["cat", "mouse"]
calls = []
def count():
    calls.append(1)
    return len(calls)
"""
    expressions = [
        "x",
        "f'{x:.2f}'",
        "math.sqrt(2)",
        "names",
        "HTML('<b>cat</b>')",
        "None",
        "count()",  # side effects happen once each, in order
        "count()",
        "1 / 0",  # raises: left to its own request
        "%time x",  # not an expression: left to its own request
    ]
    cells = [nbformat.v4.new_code_cell(setup), nbformat.v4.new_code_cell("calls.clear()")]
    nb = nbformat.v4.new_notebook(cells=cells)
    client = ModifiedNotebookClient(nb, timeout=60, kernel_name="python3", record_timing=False)
    with client.setup_kernel():
        client.execute_cell(nb.cells[0], 0)
        batch = batched_evals._run_batch(_Inline(client), expressions)
        client.execute_cell(nb.cells[1], 1)
        own = [client.eval_expression(e) for e in expressions]

    def shown(outputs: list) -> list:
        return [{k: v for k, v in o.items() if k != "execution_count"} for o in outputs]

    got = [batch[e].popleft() for e in expressions]
    assert [g is None for g in got] == [False] * 8 + [True, True]
    assert got[5] == [] == own[5]  # None shows nothing
    for e, g, o in zip(expressions[:8], got, own, strict=False):
        assert shown(g) == shown(o), e
    assert [g[0]["data"]["text/plain"] for g in got[6:8]] == ["1", "2"]
    assert own[8][0]["output_type"] == "error"


def test_every_eval_of_the_built_book_was_asked_for() -> None:
    """In the last build, no page had a batched value that no role asked for (which would
    mean roles found where myst-nb has none), and nearly every value came from a batch."""
    report = json.loads((ROOT / "_build" / "execution.json").read_text())
    pages = {doc: r for doc, r in report.items() if "evals_batched" in r}
    assert len(pages) == 7
    assert all(r["evals_unused"] == 0 for r in pages.values()), pages
    batched = sum(r["evals_batched"] for r in pages.values())
    single = sum(r["evals_single"] for r in pages.values())
    assert batched > 0.95 * (batched + single)
