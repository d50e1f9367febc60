"""Why this file: the prose's ``{eval}`` values cost a kernel round trip each; here a page's
values between two code cells come back in one.

Loaded by jupyter-book through ``sphinx: local_extensions`` in ``_config.yml``.

myst-nb (``execute_notebooks: inline``) fills in each ``{eval}`` role by sending its
expression to the kernel as a cell of its own (``NotebookClientInline.eval_variable``),
about 6 ms of messages and polling each on this machine. Chapter 5 has about 500 of them,
the book about 800: some 5 s of every build, chapter 5's share on the build's longest path.

myst-nb executes a page's code cells lazily, in order: each cell runs when the page's
reading reaches it, and the prose between two code cells is read with the kernel in the
state the first of them left it in. So when the first ``{eval}`` after code cell *k* is
asked for, this extension sends, in one request, every ``{eval}`` expression of the
Markdown cells between cell *k* and the next code cell, in page order, and keeps what each
one gives: what IPython's display hook would have sent for it (its display formatter's
data and metadata; nothing for ``None``). The roles then take their values from there, in
the same order. The kernel runs nothing else in between, so each value is the one the
expression's own request would have given.

Anything this does not cover is evaluated as before, one request each: an expression
that raised (so that myst-nb reports its error as usual), one that is not a single Python
expression (a magic, say), an ``{eval}`` that is not in a Markdown cell (Markdown that
code displays). ``_build/execution.json`` records, per page, how many values came from
a batch (``evals_batched``), how many were evaluated one by one (``evals_single``) and
how many batched values no role asked for (``evals_unused``, which should be 0: a batched
expression myst-nb did not ask for means that the roles were found wrongly).
"""

from __future__ import annotations

import json
import re
from collections import deque
from typing import Any

from sphinx.application import Sphinx

MIME = "application/x-mha-evals+json"

# Runs in the kernel, in a namespace of its own (nothing is added to the notebook's): each
# expression evaluated in the notebook's namespace, formatted as IPython's display hook
# formats a cell's result; the list is sent back as one display message.
KERNEL_SIDE = """
ip = get_ipython()
out = []
for text in EXPRESSIONS:
    try:
        code = compile(text, "<eval>", "eval")
    except SyntaxError:
        out.append(None)
        continue
    try:
        value = eval(code, ip.user_ns)
    except Exception:
        out.append(None)
        continue
    if value is None:
        out.append([])
        continue
    data, metadata = ip.display_formatter.format(value)
    out.append([data, metadata])
ip.display_pub.publish({MIME: out})
"""


def role_expressions(markdown: str) -> list[str]:
    """The ``{eval}`` expressions of a Markdown cell, in order, exactly as myst-nb is handed
    them (mdit-py-plugins' ``myst_role``: the text between the opening run of backticks and
    the next run of as many, at least one character, line breaks as spaces)."""
    found, start = [], 0
    while (at := markdown.find("{eval}`", start)) >= 0:
        pos = at + len("{eval}")
        ticks = len(markdown[pos:]) - len(markdown[pos:].lstrip("`"))
        body = pos + ticks
        close = markdown.find("`" * ticks, body + 1)
        if close < 0:
            break
        found.append(markdown[body:close].replace("\n", " "))
        start = close + ticks
    return found


def _gap_expressions(cells: list[Any], k: int) -> list[str]:
    """The ``{eval}`` expressions of the Markdown cells after cell ``k``, up to the next
    code cell: the prose that is read with the kernel as cell ``k`` left it. Cells tagged
    ``remove-cell`` are left out, as myst-nb leaves them out of the page (the chapters keep
    captions for JupyterLab there)."""
    found: list[str] = []
    for cell in cells[k + 1 :]:
        if cell.get("cell_type") == "code":
            break
        shown = "remove-cell" not in cell.get("metadata", {}).get("tags", [])  # as myst-nb
        if cell.get("cell_type") == "markdown" and shown:
            found += role_expressions(cell.get("source", ""))
    return found


def _run_batch(client: Any, expressions: list[str]) -> dict[str, deque]:
    """Evaluate ``expressions`` in one request; each expression's outputs, in order."""
    import nbformat

    code = f"exec({KERNEL_SIDE!r}, {{'EXPRESSIONS': {expressions!r}, 'MIME': {MIME!r}, "
    code += "'get_ipython': get_ipython})"
    outputs = client._client.eval_expression(code)
    sent = [o for o in outputs if MIME in o.get("data", {})]
    if len(sent) != 1:
        return {}
    results = sent[0]["data"][MIME]
    if isinstance(results, str):
        results = json.loads(results)
    by_text: dict[str, deque] = {}
    for text, result in zip(expressions, results, strict=True):
        if result is None:
            value = None  # evaluated one by one, when asked for
        elif result == []:
            value = []
        else:
            data, metadata = result
            value = [
                nbformat.v4.new_output(
                    "execute_result", data=data, metadata=metadata, execution_count=None
                )
            ]
        by_text.setdefault(text, deque()).append(value)
    return by_text


def _counts(client: Any) -> dict[str, int]:
    return client.__dict__.setdefault(
        "_mha_evals", {"evals_batched": 0, "evals_single": 0, "evals_unused": 0}
    )


def install() -> None:
    """Make myst-nb's inline client take ``{eval}`` values from batches."""
    from myst_nb.core.execute.base import EvalNameError
    from myst_nb.core.execute.inline import NotebookClientInline

    if getattr(NotebookClientInline.eval_variable, "batched", False):
        return
    one_by_one = NotebookClientInline.eval_variable
    close = NotebookClientInline.close_client

    def eval_variable(self, name: str):  # same signature as myst-nb's
        if not re.match(self.nb_config.eval_name_regex, name):
            raise EvalNameError(name)
        batches = self.__dict__.setdefault("_mha_batches", {})
        k = self._last_cell_executed
        if k not in batches:
            texts = [
                t
                for t in _gap_expressions(self.notebook.get("cells", []), k)
                if re.match(self.nb_config.eval_name_regex, t)
            ]
            batches[k] = _run_batch(self, texts) if texts else {}
        queue = batches[k].get(name)
        value = queue.popleft() if queue else None
        if value is None:
            _counts(self)["evals_single"] += 1
            return one_by_one(self, name)
        _counts(self)["evals_batched"] += 1
        return value

    def close_client(self, exc_type, exc_val, exc_tb):  # same signature as myst-nb's
        left = self.__dict__.get("_mha_batches", {}).values()
        _counts(self)["evals_unused"] = sum(len(q) for b in left for q in b.values())
        close(self, exc_type, exc_val, exc_tb)
        self.exec_metadata = {**(self.exec_metadata or {}), **_counts(self)}

    eval_variable.batched = True
    NotebookClientInline.eval_variable = eval_variable
    NotebookClientInline.close_client = close_client


def setup(app: Sphinx) -> dict:
    install()
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
