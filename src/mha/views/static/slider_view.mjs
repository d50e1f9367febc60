// slider_view.mjs: what the book's small anywidget views share (budget_view.mjs,
// scaling_view.mjs, groups_view.mjs, steps_view.mjs): native controls over lists of values,
// permalinks, and the live render. Each view module gives a spec and its own maths:
//
//   spec = {
//     cls:      the class of the view's outer element ("mha-budget-view"),
//     legend:   the controls' legend,
//     traits:   every trait the view reads beyond view_controller.mjs's BASE_TRAITS,
//     controls: [{name, link, label (text, or label(state) -> text), kind: "range" | "radio", values(state) -> [...],
//                 text(value) -> the shown value (default String), labels(state) -> [...]
//                 (radio only: each value's label)}], each control sets the trait `name`,
//                 and `link` is its key in permalinks;
//     output(state) -> HTML: the view itself (its root with the data-* contract, view_html.mjs),
//     css:      the view's own styles (after CONTROL_CSS and the book's view styles),
//   }
//
// renderSliderView(spec, state, {group, inert}) is the module's renderView (drawn in Node at build
// time by book/_ext/anywidget_static.mjs, and live by the render); sliderRender(spec) its
// render. Permalinks (on the site, not in JupyterLab): the page's URL fragment
// #<link>:<key>=<value>,... (the view's `link` trait names it) sets the view when the live
// view has replaced the static first view, and follows every change (as heads_view.mjs).

import { viewController } from "./view_controller.mjs";
import { CONTROL_CSS, el, esc, noscriptHtml, rangeHtml, syncRange } from "./view_html.mjs";
import { linkPairs } from "./view_link.mjs";

/** Styles of every slider view: a selected radio's label is bold and underlined. */
const SLIDER_CSS = `${CONTROL_CSS}
.mha-controls .mha-toggle label:has(input:checked){font-weight:700;text-decoration:underline;text-underline-offset:3px}
.mha-slider-out{display:flex;flex-direction:column;gap:8px}
`;

/** A control's shown text for value v. */
function shown(c, v) {
  return c.text ? c.text(v) : String(v);
}

/** The controls of a spec for a state, as HTML: one fieldset, native inputs. */
export function sliderControls(spec, state, group, inert) {
  const parts = spec.controls.map((c) => {
    const values = c.values(state);
    const label = typeof c.label === "function" ? c.label(state) : c.label;
    if (c.kind === "range") return rangeHtml(c.name, label, values, state[c.name], { text: c.text });
    const labels = c.labels(state);
    const radios = values.map((v, i) =>
      el(
        "label",
        {},
        el("input", {
          type: "radio",
          name: `${group}-${c.name}`,
          "data-control": c.name,
          value: String(v),
          checked: v === state[c.name],
        }) + esc(labels[i]),
      ),
    );
    return el("span", { role: "radiogroup", "aria-label": label, class: "mha-toggle" }, radios.join(""));
  });
  // data-lm-suppress-shortcuts: in JupyterLab, arrow keys on these controls move them, not
  // the notebook's cell selection (Lumino skips key bindings inside such an element).
  return el(
    "fieldset",
    { class: "mha-controls", inert, "data-lm-suppress-shortcuts": "true" },
    el("legend", {}, esc(spec.legend)) + parts.join(""),
  );
}

/** The whole view (controls, then the output) for a widget state. opts.group: the radio
 * groups' name prefix (one per view on a page); opts.inert: controls inert (a static first
 * view, whose controls do nothing until the live widget replaces it). */
export function renderSliderView(spec, state, opts = {}) {
  const { group = spec.cls, inert = false } = opts;
  const inner =
    el("style", {}, state.view_css + SLIDER_CSS + (spec.css ?? "")) +
    noscriptHtml() +
    sliderControls(spec, state, group, inert) +
    el("div", { class: "mha-slider-out" }, spec.output(state));
  return el("div", { class: spec.cls }, inner);
}

/** The settings that the URL fragment `hash` gives the view `state.link` (those among the
 * controls' values only: {} if none), or null if the fragment is not about this view. */
export function readSliderLink(spec, hash, state) {
  const pairs = linkPairs(hash, state.link);
  if (!pairs) return null;
  const out = {};
  for (const [key, text] of pairs) {
    const c = spec.controls.find((x) => x.link === key);
    const v = c?.values(state).find((x) => shown(c, x) === text || String(x) === text);
    if (v !== undefined) out[c.name] = v;
  }
  return out;
}

/** The URL fragment that links to the view at the state's settings. */
export function sliderLink(spec, state) {
  return `#${state.link}:${spec.controls.map((c) => `${c.link}=${shown(c, state[c.name])}`).join(",")}`;
}

/** The render of a spec's widget (anywidget's render), by view_controller.mjs. */
export function sliderRender(spec) {
  return viewController({
    name: spec.cls,
    traits: spec.traits,
    live: spec.controls.map((c) => c.name),
    html: (state, group) => renderSliderView(spec, state, { group }),
    out: ".mha-slider-out",
    output: spec.output,
    sync: (root, s) => {
      for (const c of spec.controls) {
        for (const input of root.querySelectorAll(`[data-control="${c.name}"]`)) {
          if (c.kind === "radio") input.checked = input.value === String(s[c.name]);
          else syncRange(root, input, c.values(s), s[c.name], shown(c, s[c.name]));
        }
      }
    },
    changes: (t, s) => {
      const c = spec.controls.find((x) => x.name === t.dataset.control);
      if (!c || (c.kind === "radio" && !t.checked)) return null;
      const values = c.values(s);
      const v = c.kind === "radio" ? values.find((x) => String(x) === t.value) : values[Number(t.value)];
      return v === undefined ? null : { [c.name]: v };
    },
    link: { read: (hash, s) => readSliderLink(spec, hash, s), write: (s) => sliderLink(spec, s) },
  });
}
