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
made by :func:`mha.views.html.view` and every number shown has a ``data-key``
and a ``data-value``. :func:`register_expected` lets a view type say how to
recompute its numbers from its ``data-*`` attributes, by another route than
the one that built the view (:mod:`mha.views.expected`, imported here for the views
that still use this module).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ipywidgets as widgets
from ipywidgets.widgets.widget_string import HTMLStyle

from mha.views.expected import _EXPECTED, expected, register_expected  # noqa: F401
from mha.views.html import STYLE

ViewKey = tuple[int, ...]

# Every combination of control positions is one stored view; this many at most per
# switch keeps the largest page within the book's page budget.
MAX_VIEWS = 300


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


def switch(
    controls: Sequence[widgets.Widget],
    render: Callable[[ViewKey], str],
    max_views: int = MAX_VIEWS,
) -> widgets.Widget:
    """Precompute one view per combination of control positions and link them.

    Args:
        controls: selection widgets (``SelectionSlider``, ``Dropdown``,
            ``ToggleButtons``...), outermost first.
        render: ``render(key) -> html`` where ``key`` holds each control's index.
        max_views: refuse to store more views than this (each one adds to the page).

    Returns:
        A ``widgets.Stack`` whose visible child follows the controls, in the
        browser (``jslink``) and in the kernel (``observe``).
    """
    sizes = _sizes(controls)
    total = math.prod(sizes)
    if total > max_views:
        raise ValueError(
            f"controls with {' x '.join(map(str, sizes))} positions need {total} precomputed "
            f"views, more than the maximum of {max_views}: offer fewer positions"
        )
    # Every view and stack of one switch shares one Layout and one HTMLStyle model: the page
    # stores each model's state, and a model per view would add about 1.5 kB per view.
    layout, style = widgets.Layout(), HTMLStyle()
    leaves = {
        key: widgets.HTML(render(key), layout=layout, style=style)
        for key in itertools.product(*map(range, sizes))
    }
    return _nest(controls, sizes, leaves, (), layout)


def choose(control: widgets.Widget, children: Sequence[widgets.Widget]) -> widgets.Stack:
    """A stack that shows ``children[control.index]``: whole panels, each with its own
    controls, switched by one more control (in the browser and in the kernel)."""
    if _sizes([control]) != [len(children)]:
        raise ValueError(f"{len(control.options)} positions but {len(children)} children")
    leaves = {(i,): c for i, c in enumerate(children)}
    return _nest([control], [len(children)], leaves, (), widgets.Layout())


def _nest(
    controls: Sequence[widgets.Widget],
    sizes: list[int],
    leaves: Mapping[ViewKey, widgets.HTML],
    prefix: ViewKey,
    layout: widgets.Layout,
) -> widgets.Widget:
    level = len(prefix)
    if level == len(controls):
        return leaves[prefix]
    children = [_nest(controls, sizes, leaves, (*prefix, i), layout) for i in range(sizes[level])]
    control = controls[level]
    stack = widgets.Stack(children=children, selected_index=control.index, layout=layout)
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
        layout=widgets.Layout(width="320px", max_width="100%"),
    )


def panel(controls: Sequence[widgets.Widget], *views: widgets.Widget) -> widgets.VBox:
    """The views' style sheet, a row of controls, then the views: one widget for a page."""
    return widgets.VBox(
        [
            widgets.HTML(STYLE),
            widgets.HBox(list(controls), layout=widgets.Layout(flex_flow="row wrap")),
            *views,
        ]
    )


def visible_html(root: widgets.Widget) -> str:
    """The HTML of the view currently shown under ``root`` (kernel-side)."""
    while isinstance(root, widgets.Stack):
        root = root.children[root.selected_index]
    return root.value


def html_bytes(root: widgets.Widget) -> int:
    """Characters of HTML stored in a widget tree (every precomputed view counts).

    Walks ``children`` of boxes and stacks and adds up the ``value`` of every
    ``widgets.HTML``: roughly what the tree adds to the page that embeds it.
    """
    if isinstance(root, widgets.HTML):
        return len(root.value)
    return sum(html_bytes(child) for child in getattr(root, "children", ()))
