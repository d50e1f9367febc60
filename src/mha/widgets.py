"""Controls that work with a kernel and without one.

The book's site has no kernel, so nothing can be recomputed when a reader drags
a slider there. Instead every view a control can reach is computed once, when
the notebook executes, and stored as a ``widgets.HTML`` child of nested
``widgets.Stack``s. Each control's ``index`` is ``jslink``-ed to the
``selected_index`` of its level of stacks, so the browser switches views with
no Python and no custom JavaScript. In a live kernel the same links run in the
front end, and an ``observe`` keeps the kernel-side stacks in step, so Python
code (tests, benchmarks) sees what the reader sees.

Views follow one contract, which the browser tests read: the root element is
``<div class="mha-view" data-view="NAME" data-...>`` and every number shown
has a ``data-key`` and a ``data-value``. :func:`register_expected` lets a view
type say how to recompute its numbers from its ``data-*`` attributes.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ipywidgets as widgets

ViewKey = tuple[int, ...]

_EXPECTED: dict[str, Callable[..., dict[str, float]]] = {}


def register_expected(view: str) -> Callable[[Callable[..., dict[str, float]]], Any]:
    """Decorator: ``fn(**data_attributes) -> {data-key: value}`` for views named ``view``."""

    def deco(fn: Callable[..., dict[str, float]]) -> Callable[..., dict[str, float]]:
        _EXPECTED[view] = fn
        return fn

    return deco


def expected(view: str, **attrs: str) -> dict[str, float] | None:
    """Recompute the numbers a view of type ``view`` should show, or ``None`` if unknown."""
    fn = _EXPECTED.get(view)
    return None if fn is None else fn(**attrs)


def _sizes(controls: Sequence[widgets.Widget]) -> list[int]:
    sizes = []
    for c in controls:
        if not hasattr(c, "index") or not hasattr(c, "options"):
            raise TypeError(
                f"{type(c).__name__} has no 'index'/'options'; use a SelectionSlider, "
                "Dropdown, ToggleButtons or another selection widget"
            )
        sizes.append(len(c.options))
    return sizes


def switch(controls: Sequence[widgets.Widget], render: Callable[[ViewKey], str]) -> widgets.Widget:
    """Precompute one view per combination of control positions and link them.

    Args:
        controls: selection widgets (``SelectionSlider``, ``Dropdown``,
            ``ToggleButtons``...), outermost first.
        render: ``render(key) -> html`` where ``key`` holds each control's index.

    Returns:
        A ``widgets.Stack`` whose visible child follows the controls, in the
        browser (``jslink``) and in the kernel (``observe``).
    """
    sizes = _sizes(controls)
    leaves = {key: widgets.HTML(render(key)) for key in itertools.product(*map(range, sizes))}
    return _nest(controls, sizes, leaves, ())


def _nest(
    controls: Sequence[widgets.Widget],
    sizes: list[int],
    leaves: Mapping[ViewKey, widgets.HTML],
    prefix: ViewKey,
) -> widgets.Widget:
    level = len(prefix)
    if level == len(controls):
        return leaves[prefix]
    children = [_nest(controls, sizes, leaves, (*prefix, i)) for i in range(sizes[level])]
    control = controls[level]
    stack = widgets.Stack(children=children, selected_index=control.index)
    widgets.jslink((control, "index"), (stack, "selected_index"))

    def follow(change: dict[str, Any], stack: widgets.Stack = stack) -> None:
        stack.selected_index = change["new"]

    control.observe(follow, names="index")
    return stack


def slider(description: str, options: Sequence[Any], value: Any) -> widgets.SelectionSlider:
    """A keyboard-operable slider over ``options``, readable in the static site."""
    return widgets.SelectionSlider(
        options=list(options),
        value=value,
        description=description,
        continuous_update=True,
        style={"description_width": "initial"},
        layout=widgets.Layout(width="320px"),
    )


def visible_html(root: widgets.Widget) -> str:
    """The HTML of the view currently shown under ``root`` (kernel-side)."""
    while isinstance(root, widgets.Stack):
        root = root.children[root.selected_index]
    return root.value
