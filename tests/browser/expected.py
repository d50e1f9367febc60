"""The numeric hook: what numbers should a precomputed widget view show?

Every view is ``<div class="mha-view" data-view="NAME" data-...>`` and every number it shows
is an element with ``data-key`` and ``data-value``. Given the view's ``data-*`` attributes
(names without ``data-``, hyphens as underscores, values as strings), the test oracles
recompute the numbers by another route (``tests.oracles.expected(view, **attrs)``). ``None``
means the view type has no oracle, which :func:`compare` reports when the view shows
numbers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from html.parser import HTMLParser

from tests import oracles

Hook = Callable[[dict[str, str]], "dict[str, float | str] | None"]


def hook() -> Hook:
    """The function that recomputes a view's numbers with the test oracles (tests/oracles.py)."""

    def via_oracles(attrs: dict[str, str]) -> dict[str, object] | None:
        rest = {k: v for k, v in attrs.items() if k != "view"}
        return oracles.expected(attrs.get("view", ""), **rest)

    return via_oracles


def _decimals_tolerance(shown: str) -> float:
    """Half a unit in the last printed digit of ``shown`` (e.g. '0.1235' -> 5e-5)."""
    mantissa, _, exp = shown.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5 * 10.0 ** (-decimals + (int(exp) if exp else 0))


def compare(
    where: str, attrs: dict[str, str], cells: dict[str, str], expected: dict | None
) -> list[str]:
    """Mismatches between a view's number cells and the recomputed numbers."""
    if expected is None:
        if cells:
            return [
                f"{where}: view type {attrs.get('view')!r} shows {len(cells)} numbers but "
                "there is no oracle for it (tests/oracles.py)"
            ]
        return []
    # Every number the view shows must be recomputed and agree; numbers mha computes for
    # the view type but this view does not show are not an error.
    problems = []
    for key, want in expected.items():
        if key not in cells:
            continue
        shown = cells[key]
        if isinstance(want, int | float):
            try:
                got = float(shown)
            except ValueError:
                problems.append(f"{where} {attrs}: {key} shows {shown!r}, expected {want}")
                continue
            # Half a unit in the last printed digit, plus float32 round-off (views are
            # computed in float32 torch, expectations may be float64).
            tol = _decimals_tolerance(shown) + 2e-6 * abs(float(want)) + 1e-9
            if not math.isclose(got, float(want), abs_tol=tol):
                problems.append(f"{where} {attrs}: {key} shows {shown}, mha computes {want}")
        elif str(want) != shown:
            problems.append(f"{where} {attrs}: {key} shows {shown!r}, expected {want!r}")
    for key in cells.keys() - expected.keys():
        problems.append(f"{where} {attrs}: number {key!r} is shown but not recomputed by mha")
    return problems


def attr_name(data_attribute: str) -> str:
    """'data-word-index' -> 'word_index'."""
    return data_attribute.removeprefix("data-").replace("-", "_")


class _ViewParser(HTMLParser):
    """Collects each .mha-view's data-* attributes and its (data-key, data-value) cells.

    Views are not nested: a number cell belongs to the last view opened before it.
    """

    def __init__(self) -> None:
        super().__init__()
        self.views: list[tuple[dict[str, str], dict[str, str]]] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        is_view = "mha-view" in (a.get("class") or "").split()
        if is_view:
            self.views.append(
                (
                    {attr_name(k): v or "" for k, v in a.items() if k.startswith("data-")},
                    {},
                )
            )
        elif self.views and "data-value" in a:
            cells = self.views[-1][1]
            cells[a.get("data-key") or str(len(cells))] = a["data-value"] or ""


def parse_views(html: str) -> list[tuple[dict[str, str], dict[str, str]]]:
    """[(attrs, cells)] of every .mha-view in an HTML fragment."""
    p = _ViewParser()
    p.feed(html)
    p.close()
    return p.views


def view_problems(page, rel: str, views: set[str]) -> tuple[list[str], list[dict[str, str]]]:
    """Every visible view of ``page`` whose type is in ``views``, checked against mha's numbers:
    (the mismatches and numbers missing, each naming ``rel``; each such view's attributes, in
    page order). A view with no number or no expectation is a mismatch too."""
    from tests.browser import harness

    check, problems, seen = hook(), [], []
    for v in harness.visible_views(page):
        if v["attrs"].get("view") not in views:
            continue
        attrs = {attr_name("data-" + k): val for k, val in v["attrs"].items()}
        cells = {c["key"]: c["value"] for c in v["cells"]}
        want = check(attrs)
        if not (want and cells):
            problems.append(f"{rel} {attrs}: nothing to compare")
            continue
        problems += [f"{rel} {attrs}: {k} not shown" for k in sorted(want.keys() - cells.keys())]
        problems += compare(rel, attrs, cells, want)
        seen.append(attrs)
    return problems, seen
