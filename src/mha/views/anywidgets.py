"""What the book's anywidget views share: their ES module as one text, and their inputs.

A view's module (``static/<view>.mjs``) imports the maths (``static/mha_views.mjs``) and the
HTML pieces (``static/view_html.mjs``) by relative ``import {...} from "./x.mjs";`` lines.
The widget's ES module travels in the saved widget state (anywidget's ``_esm``, a string), so
the site needs no server and no network: :func:`esm` inlines every imported module, each
once, dependencies first, in place of the import lines, and drops the comment lines. The
modules then share one scope, so their top-level names must differ; :func:`esm` checks that
each imported name is exported.
"""

from __future__ import annotations

import importlib.resources
import itertools
import re
from functools import cache

import anywidget
import traitlets

from mha.style import _HEX, text_on
from mha.views.html import STYLE

STATIC = importlib.resources.files("mha.views") / "static"
IMPORT = re.compile(r'^import \{([^}]*)\} from "\./([\w.-]+\.mjs)";\n', re.M)
OTHER_IMPORT = re.compile(r"^\s*import\b", re.M)


def _text(name: str) -> str:
    return (STATIC / name).read_text(encoding="utf-8")


def _inline(name: str, done: list[str], stack: tuple[str, ...]) -> str:
    """``name``'s text after the modules it imports (each once, in ``done``), imports dropped."""
    if name in stack:
        raise ValueError(f"import cycle: {' -> '.join((*stack, name))}")
    text, parts = _text(name), []
    for names, dep in IMPORT.findall(text):
        dep_text = _text(dep)
        for wanted in (n.strip() for n in names.split(",") if n.strip()):
            if not re.search(rf"^export (?:function|const|let|class) {wanted}\b", dep_text, re.M):
                raise ValueError(f"{name} imports {wanted} from {dep}, which does not export it")
        if dep not in done:
            parts.append(_inline(dep, done, (*stack, name)))
    body = IMPORT.sub("", text)
    if OTHER_IMPORT.search(body):
        raise ValueError(f'{name}: only `import {{...}} from "./x.mjs";` lines can be inlined')
    done.append(name)
    return "\n".join([*parts, body])


def _without_comments(text: str) -> str:
    """``text`` without its whole-line comments (``// ...`` lines and ``/* ... */`` blocks that
    take whole lines), outside template literals: the module travels in every page that shows
    the view, and its comments are for the repository's readers. A block comment that ends
    before the end of its line is refused, so that no code is ever dropped with it."""
    kept, in_block, in_template = [], False, False
    for number, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        if in_block or (not in_template and s.startswith("/*")):
            if "*/" in s and not s.endswith("*/"):
                raise ValueError(f"line {number}: code after a block comment: {line!r}")
            in_block = "*/" not in s[2 if not in_block else 0 :]
            continue
        if not in_template and s.startswith("//"):
            continue
        kept.append(line)
        if len(re.findall(r"(?<!\\)`", line)) % 2:
            in_template = not in_template
    return "\n".join(kept)


@cache
def esm(name: str) -> str:
    """``static/<name>`` with every module it imports inlined, whole-line comments dropped:
    one ES module, as text."""
    return _without_comments(_inline(name, [], ()))


def palette() -> list[list[str]]:
    """The weight colour scale (mha.style.weight_colour's table), each with its text colour."""
    return [[c, text_on(c)] for c in _HEX]


def view_css() -> str:
    """The book's view styles (mha.views.html.STYLE) without their ``<style>`` tags."""
    return STYLE.removeprefix("<style>").removesuffix("</style>")


_LINKS: dict[str, itertools.count] = {}


def next_link(prefix: str) -> str:
    """``prefix-N`` for the N-th view of that kind made in this kernel (on a page, in page
    order): the view's name in permalinks (``#budget-1:tilt=+1.5``)."""
    return f"{prefix}-{next(_LINKS.setdefault(prefix, itertools.count(1)))}"


class SliderView(anywidget.AnyWidget):
    """Base of the small views drawn by ``static/slider_view.mjs`` (budget, scaling, groups,
    training steps): the book's view styles and weight colours, and ``link``, the view's name
    in the page's URL fragment (a permalink on the site). Subclasses set ``_esm`` and their
    own traits."""

    palette = traitlets.List().tag(sync=True)
    view_css = traitlets.Unicode().tag(sync=True)
    link = traitlets.Unicode("").tag(sync=True)

    def __init__(self, **kwargs: object) -> None:
        kwargs.setdefault("palette", palette())
        kwargs.setdefault("view_css", view_css())
        super().__init__(**kwargs)
