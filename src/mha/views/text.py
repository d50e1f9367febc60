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
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

from IPython.display import Markdown


class Shown(str):
    """A string whose plain-text display is the string itself (no quotes)."""

    def __repr__(self) -> str:
        return str(self)


def fmt(value: object, spec: str = "") -> Shown:
    """``format(value, spec)`` as text for the prose: ``fmt(0.8347, ".2f")`` shows ``0.83``."""
    return Shown(format(value, spec))


def _rounded(value: float, spec: str, rounding: str) -> Shown:
    """``value`` shown to the digits of ``spec`` (".2f" or ".1e"), rounded in one direction."""
    match = re.fullmatch(r"\.(\d+)([fe])", spec)
    if match is None:
        raise ValueError(f"a bound is shown as '.<digits>f' or '.<digits>e', not {spec!r}")
    digits, kind = int(match[1]), match[2]
    exact = Decimal(repr(float(value)))  # the shortest decimal that is this float
    if kind == "e" and exact != 0:
        # rounding can carry into a new leading digit (9.96e-3 up is 1.0e-2): round again
        for _ in range(2):
            step = Decimal(1).scaleb(exact.adjusted() - digits)
            exact = exact.quantize(step, rounding=rounding)
    elif kind == "f":
        exact = exact.quantize(Decimal(1).scaleb(-digits), rounding=rounding)
    return Shown(format(float(exact), spec))  # as fmt writes it: 1.0e-02, not 1.0e-2


def at_least(value: float, spec: str) -> Shown:
    """A lower bound for the prose ("at least", "or more"), rounded down so that it stays
    true: ``at_least(0.906, ".2f")`` shows ``0.90``, where ``fmt`` would show ``0.91``."""
    return _rounded(value, spec, ROUND_FLOOR)


def at_most(value: float, spec: str) -> Shown:
    """An upper bound for the prose ("at most", "no more than"), rounded up so that it stays
    true: ``at_most(0.222, ".2f")`` shows ``0.23``, where ``fmt`` would show ``0.22``."""
    return _rounded(value, spec, ROUND_CEILING)


def fmt_p(p: float) -> Shown:
    """A p-value as the book shows it, in tables and prose: two significant digits, and from
    below 0.001 in scientific notation: ``fmt_p(0.0283)`` shows ``0.028``, ``fmt_p(2.8e-4)``
    ``2.8e-04``."""
    return Shown(f"{p:.2g}" if p >= 0.001 else f"{p:.1e}")


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
