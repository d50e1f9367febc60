"""Widget models drawn as the ipywidgets HTML manager draws them: HTML with no JavaScript.

Used by ``static_widgets.py`` (see there why). :class:`Renderer` draws a model of a page's
saved widget state (and its children, layout and style models) into the elements, classes
and inline styles that ``@jupyter-widgets/controls`` 5.0's views and ``nouislider`` 15 give
the live widget; :func:`static_copy` wraps one widget for the page. Models and settings it
does not know raise :class:`UnsupportedWidgetError`.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote


class UnsupportedWidgetError(ValueError):
    """A widget (or a setting of it) that this module cannot draw as the HTML manager does."""


class El:
    """A small element tree, serialised with no whitespace between tags (as the DOM is)."""

    def __init__(self, tag: str, classes: list[str] | None = None, **attrs: str) -> None:
        self.tag = tag
        self.classes = list(classes or [])
        self.attrs = dict(attrs)
        self.style: dict[str, str] = {}
        self.children: list[El | str] = []  # str: HTML, inserted as is

    def add(self, *children: El | str) -> El:
        self.children.extend(children)
        return self

    def find(self, cls: str) -> list[El]:
        """Descendants (not self) with class ``cls``, as querySelectorAll('.cls') finds them."""
        out = []
        for c in self.children:
            if isinstance(c, El):
                if cls in c.classes:
                    out.append(c)
                out.extend(c.find(cls))
        return out

    def set_style(self, name: str, value: str | None) -> None:
        """``el.style.setProperty(name, value)`` (``''`` and ``None`` remove it)."""
        if value in (None, ""):
            self.style.pop(name, None)
        else:
            self.style[name] = value

    def html(self) -> str:
        attrs = ""
        if self.classes:
            attrs += f' class="{html.escape(" ".join(self.classes))}"'
        for k, v in self.attrs.items():
            attrs += f" {k.replace('_', '-')}" + ("" if v == "" else f'="{html.escape(v)}"')
        if self.style:
            css = "; ".join(f"{k}: {v}" for k, v in self.style.items()) + ";"
            attrs += f' style="{html.escape(css)}"'
        inner = "".join(c.html() if isinstance(c, El) else c for c in self.children)
        return f"<{self.tag}{attrs}>{inner}</{self.tag}>"


def _js_number(x: float) -> str:
    """A number as JavaScript's String(x) writes it (both: the shortest round trip)."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _text(s: str) -> str:
    return html.escape(s, quote=False)


# Inline styles that a style model sets: {model: {trait: (selector class or "", property)}}.
_DESCRIPTION = {"description_width": ("widget-label", "width")}
STYLE_PROPERTIES: dict[str, dict[str, tuple[str, str]]] = {
    "DescriptionStyleModel": _DESCRIPTION,
    "SliderStyleModel": {**_DESCRIPTION, "handle_color": ("noUi-handle", "background-color")},
    "HTMLStyleModel": {
        **_DESCRIPTION,
        "background": ("", "background"),
        "font_size": ("", "font-size"),
        "text_color": ("", "color"),
    },
    "ToggleButtonsStyleModel": {
        **_DESCRIPTION,
        "button_width": ("widget-toggle-button", "width"),
        "font_weight": ("widget-toggle-button", "font-weight"),
    },
}
BOX_STYLES = {
    "success": ["alert", "alert-success"],
    "info": ["alert", "alert-info"],
    "warning": ["alert", "alert-warning"],
    "danger": ["alert", "alert-danger"],
}
BUTTON_STYLES = {k: [f"mod-{k}"] for k in ("primary", "success", "info", "warning", "danger")}


class Renderer:
    """Draws widget models of one page's saved state as the HTML manager draws them."""

    def __init__(self, state: dict) -> None:
        self.models: dict[str, dict] = state["state"]

    def model(self, ref: str) -> dict:
        model_id = ref.removeprefix("IPY_MODEL_")
        if model_id not in self.models:
            raise UnsupportedWidgetError(f"model {model_id} is not in the page's widget state")
        return self.models[model_id]

    def render(self, model_id: str) -> El:
        m = self.model(model_id)
        name, s = m["model_name"], m["state"]
        draw = RENDERERS.get(name)
        if draw is None:
            raise UnsupportedWidgetError(f"no static drawing for {name}")
        for trait, ok in (("tooltip", None), ("tabbable", None), ("disabled", False)):
            if s.get(trait, ok) != ok:
                raise UnsupportedWidgetError(f"{name} with {trait}={s[trait]!r}")
        el = draw(self, s)
        # As DOMWidgetView does once the view is displayed: _dom_classes, layout, style.
        el.classes += [c for c in s.get("_dom_classes", []) if c not in el.classes]
        if s.get("layout"):
            for trait, value in self.model(s["layout"])["state"].items():
                if not trait.startswith("_") and value is not None:
                    el.set_style(trait.replace("_", "-"), str(value))
        if s.get("style"):
            self._style(el, self.model(s["style"]))
        return el

    def _style(self, el: El, style: dict) -> None:
        props = STYLE_PROPERTIES.get(style["model_name"])
        if props is None:
            raise UnsupportedWidgetError(f"no static drawing for {style['model_name']}")
        for trait, value in style["state"].items():
            if trait.startswith("_"):
                continue
            if trait not in props:
                raise UnsupportedWidgetError(f"{style['model_name']}.{trait}")
            selector, prop = props[trait]
            for target in el.find(selector) if selector else [el]:
                target.set_style(prop, value)

    # -- views ------------------------------------------------------------------------------

    @staticmethod
    def _widget(*classes: str) -> El:
        return El("div", ["lm-Widget", *classes])

    @staticmethod
    def _label(s: dict) -> El:
        """DescriptionView's label: hidden when there is no description."""
        if s.get("description_allow_html"):
            raise UnsupportedWidgetError("description_allow_html")
        label = El("label", ["widget-label"])
        if s.get("description"):
            label.add(_text(s["description"]))
        else:
            label.set_style("display", "none")
        return label

    def box(self, s: dict, kind: str | None, children: list[str]) -> El:
        el = self._widget("lm-Panel", "jupyter-widgets-disconnected", "jupyter-widgets")
        el.classes += ["widget-container", "widget-box"] + ([kind] if kind else [])
        el.classes += BOX_STYLES.get(s.get("box_style") or "", [])
        return el.add(*(self.render(c) for c in children))

    def vbox(self, s: dict) -> El:
        return self.box(s, "widget-vbox", s["children"])

    def hbox(self, s: dict) -> El:
        return self.box(s, "widget-hbox", s["children"])

    def stack(self, s: dict) -> El:
        i = s.get("selected_index")
        return self.box(s, None, [] if i is None else [s["children"][i]])

    def html_view(self, s: dict) -> El:
        value = s.get("value") or ""
        if re.search(r"<\s*script", value, re.I):
            raise UnsupportedWidgetError("an HTML widget with a <script>")
        el = self._widget("jupyter-widgets-disconnected", "jupyter-widgets")
        el.classes += ["widget-inline-hbox", "widget-html"]
        return el.add(self._label(s), El("div", ["widget-html-content"]).add(value))

    def selection_slider(self, s: dict) -> El:
        labels, index = s["_options_labels"], s["index"]
        if s.get("orientation", "horizontal") != "horizontal" or len(labels) < 2:
            raise UnsupportedWidgetError("a vertical slider or one of fewer than two options")
        el = self._widget("jupyter-widgets-disconnected", "widget-hslider", "widget-slider")
        el.classes.append("widget-inline-hbox")
        top = len(labels) - 1
        # nouislider 15: the handle's origin moves by 10 * (percentage - 100) % of its width.
        pct = 100.0 if index >= top else index * 100 / top
        origin = El("div", ["noUi-origin"])
        origin.set_style("transform", f"translate({_js_number(10 * (pct - 100))}%, 0px)")
        origin.set_style("z-index", "4")
        handle = El(
            "div",
            ["noUi-handle", "noUi-handle-lower"],
            data_handle="0",
            tabindex="0",
            role="slider",
            aria_orientation="horizontal",
            aria_valuemin="0.0",
            aria_valuemax=f"{top:.1f}",
            aria_valuenow=f"{index:.1f}",
            aria_valuetext=labels[index],
        ).add(El("div", ["noUi-touch-area"]))
        slider = El("div", ["slider", "noUi-target", "noUi-ltr", "noUi-horizontal"])
        slider.classes.append("noUi-txt-dir-ltr")
        slider.add(El("div", ["noUi-base"]).add(El("div", ["noUi-connects"]), origin.add(handle)))
        readout = El("div", ["widget-readout"], contenteditable="true").add(_text(labels[index]))
        if not s.get("readout", True):
            readout.set_style("display", "none")
        container = El("div", ["slider-container"]).add(slider)
        return el.add(self._label(s), container, readout)

    def dropdown(self, s: dict) -> El:
        el = self._widget("jupyter-widgets-disconnected", "jupyter-widgets")
        el.classes += ["widget-inline-hbox", "widget-dropdown"]
        select = El("select")
        for i, item in enumerate(s["_options_labels"]):
            option = El("option", data_value=quote(item, safe="-_.!~*'()"), value=item)
            if i == s["index"]:
                option.attrs["selected"] = ""
            select.add(option.add(_text(item.replace(" ", "\xa0"))))
        return el.add(self._label(s), select)

    def toggle_buttons(self, s: dict) -> El:
        if any(s.get("icons") or []):
            raise UnsupportedWidgetError("ToggleButtons with icons")
        el = self._widget("jupyter-widgets-disconnected", "widget-toggle-buttons")
        group = El("div")
        style = BUTTON_STYLES.get(s.get("button_style") or "", [])
        tooltips = s.get("tooltips") or []
        for i, item in enumerate(s["_options_labels"]):
            button = El("button", ["widget-toggle-button", "jupyter-button", *style])
            button.attrs.update(type="button", data_value=quote(item, safe="-_.!~*'()"))
            button.attrs["value"] = str(i)
            if i < len(tooltips) and tooltips[i]:
                button.attrs["title"] = tooltips[i]
            if i == s["index"]:
                button.classes.append("mod-active")
            group.add(button.add(_text(item) if item.strip() else "&nbsp;", El("i")))
        return el.add(self._label(s), group)

    def any_view(self, s: dict) -> El:
        """An anywidget view: the HTML its own module's renderView(state) draws, run in Node
        (anywidget_static.mjs); the live view draws the same HTML into the same element."""
        el = self._widget("jupyter-widgets-disconnected")
        return el.add(render_anywidgets([s])[0])


ANYWIDGET_STATIC = Path(__file__).with_name("anywidget_static.mjs")


def render_anywidgets(states: list[dict]) -> list[str]:
    """The first views of anywidget models (their saved states), drawn by their modules."""
    jobs = [{"esm": s["_esm"], "state": s} for s in states]
    if shutil.which("node") is None:
        raise UnsupportedWidgetError("Node.js is needed to draw anywidget first views")
    run = subprocess.run(
        ["node", str(ANYWIDGET_STATIC)], input=json.dumps(jobs), capture_output=True, text=True
    )
    if run.returncode != 0:
        raise UnsupportedWidgetError(f"anywidget_static.mjs failed: {run.stderr.strip()[-400:]}")
    return json.loads(run.stdout)


RENDERERS = {
    "AnyModel": Renderer.any_view,
    "VBoxModel": Renderer.vbox,
    "HBoxModel": Renderer.hbox,
    "StackModel": Renderer.stack,
    "HTMLModel": Renderer.html_view,
    "SelectionSliderModel": Renderer.selection_slider,
    "DropdownModel": Renderer.dropdown,
    "ToggleButtonsModel": Renderer.toggle_buttons,
}

# Controls of a static copy do nothing until the HTML manager replaces it: not focusable,
# not clickable, not announced as controls.
# (An anywidget view's module marks its own controls inert: anywidget_static.mjs.)
CONTROL_CLASSES = ("widget-slider", "widget-dropdown", "widget-toggle-buttons")


def _make_inert(el: El) -> None:
    for c in el.children:
        if isinstance(c, El):
            if any(k in c.classes for k in CONTROL_CLASSES):
                c.attrs["inert"] = ""
            else:
                _make_inert(c)


def static_copy(renderer: Renderer, model_id: str) -> str:
    """The static first view of widget ``model_id``, as HTML to put before its view script."""
    el = renderer.render(model_id)
    _make_inert(el)
    out = El("div", ["widget-subarea", "mha-static-widget"], data_model_id=model_id).add(el)
    return out.html()
