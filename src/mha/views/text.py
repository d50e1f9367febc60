"""Numbers computed by code, written into the prose.

The chapters quote computed numbers with MyST's inline ``{eval}`` role, e.g.
``{eval}`fmt(ratio, ".2f")```. The book's build (myst-nb) and JupyterLab (with
jupyterlab-myst) both evaluate the expression in the notebook's kernel and show
its plain-text form. :func:`fmt` formats a value and returns text that shows as
itself, without the quotes a Python string's ``repr`` would add.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Sequence

from IPython.display import Markdown


class Shown(str):
    """A string whose plain-text display is the string itself (no quotes)."""

    def __repr__(self) -> str:
        return str(self)


def fmt(value: object, spec: str = "") -> Shown:
    """``format(value, spec)`` as text for the prose: ``fmt(0.8347, ".2f")`` shows ``0.83``."""
    return Shown(format(value, spec))


def fmt_list(values: Sequence[object], spec: str = "") -> Shown:
    """Values as an English list for the prose: ``fmt_list([1, 4, 7])`` shows ``1, 4 and 7``."""
    if not values:
        raise ValueError("fmt_list needs at least one value")
    words = [format(v, spec) for v in values]
    return Shown(words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1])


def source(*functions: Callable[..., object]) -> Markdown:
    """The source of ``functions``, exactly as the book runs them, as one Python code block.

    Displayed as Markdown, so that the site, the PDF and JupyterLab each highlight it as they
    highlight the book's own code cells (IPython's ``Code`` would hand LaTeX raw ``Verbatim``).
    """
    code = "\n\n".join(inspect.getsource(f).rstrip() for f in functions)
    fence = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", code)), default=0))
    return Markdown(f"{fence}python\n{code}\n{fence}")
