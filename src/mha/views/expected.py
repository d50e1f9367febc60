"""Expected values by view type: how to recompute, by another route, the numbers a view shows.

Views follow one contract, which the browser tests read: the root element names every
parameter in ``data-*`` attributes and every number shown has a ``data-key`` and a
``data-value``. :func:`register_expected` lets a view type say how to recompute its numbers
from its ``data-*`` attributes (in torch, while the views compute them in JavaScript), and
:func:`expected` looks them up (tests/browser/expected.py).
"""

from __future__ import annotations

from collections.abc import Callable

Expected = Callable[..., dict[str, float]]

_EXPECTED: dict[str, Expected] = {}


def register_expected(view: str) -> Callable[[Expected], Expected]:
    """Decorator: ``fn(**data_attributes) -> {data-key: value}`` for views named ``view``."""

    def deco(fn: Expected) -> Expected:
        _EXPECTED[view] = fn
        return fn

    return deco


def expected(view: str, **attrs: str) -> dict[str, float] | None:
    """Recompute the numbers a view of type ``view`` should show, or ``None`` if unknown."""
    fn = _EXPECTED.get(view)
    return None if fn is None else fn(**attrs)
