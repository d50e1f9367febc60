// mask_view.mjs: chapter 6's mask view, an anywidget module computed in the reader's browser.
//
// One implementation of the view, used three ways:
//   - the widget's render (anywidget calls the default export's render on the site and in
//     JupyterLab): the view is drawn, and drawn again from the maths on every change;
//   - renderView(state, {inert: true}) -> HTML, run in Node at build time (book/_ext/anywidget_static.mjs)
//     to write the first view into the page before any script runs;
//   - tests (tests/test_mask_view.py) run renderView in Node and compare with mha.
// The maths is mha_views.mjs, the HTML pieces view_html.mjs (shared with heads_view.mjs);
// mha.views.anywidgets.esm inlines both into the widget's _esm (the ESM travels in the saved
// widget state, with no network import), dropping the imports below.
//
// The view follows the book's contract (view_html.mjs): a root
// <div class="mha-view" data-view="mask" data-mask=... data-radius=... data-npad=...> naming
// every parameter, and every number shown carries data-key and data-value:
//   self-H-I-J   head H's weight of query word I on key word J (self-attention);
//   cross-H-I-J  head H's weight of Latin word I on English word J (cross-attention).
// A pair the mask forbids shows a dash on a hatched cell (class mha-masked, its data-value
// still the weight, 0), so it is told apart from a weight that rounds to 0.00.
// Every string that reaches the HTML goes through esc() (view_html.mjs; el() escapes attributes).

import { headWeights, makeMask, paddingMask } from "./mha_views.mjs";
import { viewController } from "./view_controller.mjs";
import { CONTROL_CSS, el, esc, headBox, heatmapHtml, noscriptHtml } from "./view_html.mjs";
import { readSettings } from "./view_link.mjs";

export const MASKS = [
  ["none", "none"],
  ["causal", "causal"],
  ["window", "sliding window"],
  ["padding", "padding"],
];
const RADIUS_MAX = 4;
const PAD_MAX = 3;

const CSS = `${CONTROL_CSS}
.mha-mask-view h3.mha-mask-title{margin:10px 0 4px 0;font-size:13px}
.mha-mask-view td.mha-masked{background:repeating-linear-gradient(135deg,#ffffff 0 3px,#d9d9d9 3px 6px);color:#222;text-align:center}
`;

/** The numbers the view shows, computed by mha_views.mjs from the widget's state. */
export function maskWeights(state) {
  const n = state.X.length;
  const zeros = () => new Array(state.X[0].length).fill(0);
  const padded = state.mask === "padding";
  const nPad = padded ? state.n_pad : 0;
  const X_kv = [...state.X, ...Array.from({ length: nPad }, zeros)]; // (n + n_pad, d_model)
  const keys = [...state.words, ...Array.from({ length: nPad }, (_, p) => `pad ${p + 1}`)];
  const selfMask = padded ? paddingMask(n + nPad, n + nPad, n) : makeMask(state.mask, n, n, { radius: state.radius });
  const self = headWeights(X_kv, state.W_q, state.W_k, { mask: selfMask }); // (h, n_k, n_k)
  const crossMask = padded ? paddingMask(state.Y.length, n + nPad, n) : null;
  const cross = headWeights(state.Y, state.Wc_q, state.Wc_k, { X_kv, mask: crossMask }); // (h, m, n_k)
  return { keys, self, cross, selfMask, crossMask };
}

function headsHtml(weights, mask, names, rows, cols, key, palette) {
  const boxes = weights.map((w, h) => headBox(names[h], heatmapHtml(w, rows, cols, `${key}-${h}`, palette, { mask })));
  return el("div", { class: "mha-heads" }, boxes.join(""));
}

function explain(state) {
  if (state.mask === "none") return "No mask: every word may read every word.";
  if (state.mask === "causal") return "Causal mask: each word may read itself and the words before it.";
  if (state.mask === "window") {
    return `Sliding window: each word may read the words at most ${state.radius} position(s) away, itself included.`;
  }
  return `Padding mask: the English sentence is lengthened with ${state.n_pad} filler vector(s) of zeros, and no word may read them.`;
}

const HATCHED = " The pairs it forbids are hatched, with a dash in place of their weight of exactly 0.";

/** The view's output (everything but the controls), as HTML. */
export function outputHtml(state) {
  const { keys, self, cross, selfMask, crossMask } = maskWeights(state);
  const crossNote = state.mask === "padding" ? "the padding mask" : "no mask (its keys are the whole source)";
  return (
    el("p", { class: "mha-note" }, esc(explain(state) + (state.mask === "none" ? "" : HATCHED))) +
    el(
      "h3",
      { class: "mha-mask-title" },
      esc(`Self-attention of the English sentence, ${state.head_names.length} designed heads`),
    ) +
    headsHtml(self, selfMask, state.head_names, keys, keys, "self", state.palette) +
    el(
      "h3",
      { class: "mha-mask-title" },
      esc(`Cross-attention: the Latin words read the English ones, with ${crossNote}`),
    ) +
    headsHtml(cross, crossMask, state.cross_head_names, state.latin, keys, "cross", state.palette)
  );
}

/** The controls, as HTML: one radio group for the mask, a range for each mask's parameter. */
export function controlsHtml(state, group = "mha-mask", inert = false) {
  const radios = MASKS.map(([value, label]) =>
    el("label", {}, el("input", { type: "radio", name: group, value, checked: state.mask === value }) + esc(label)),
  ).join("");
  const range = (name, label, min, max, value, on) =>
    el(
      "label",
      {},
      esc(label) +
        el("input", { type: "range", "data-control": name, min, max, step: 1, value, disabled: !on }) +
        el("output", { "data-control-value": name }, esc(value)),
    );
  return el(
    "fieldset",
    // data-lm-suppress-shortcuts: in JupyterLab, arrow keys on these controls move them, not
    // the notebook's cell selection (Lumino skips key bindings inside such an element).
    { class: "mha-mask-controls mha-controls", inert, "data-lm-suppress-shortcuts": "true" },
    el("legend", {}, "Mask") +
      radios +
      range("radius", "window: words on each side", 0, RADIUS_MAX, state.radius, state.mask === "window") +
      range("n_pad", "filler words", 1, PAD_MAX, state.n_pad, state.mask === "padding"),
  );
}

function rootAttrs(state) {
  return {
    class: "mha-view mha-mask-view",
    "data-view": "mask",
    "data-mask": state.mask,
    "data-radius": state.radius,
    "data-npad": state.n_pad,
  };
}

/** The whole view for a widget state (its traits, as the saved widget state holds them).
 * opts.group: the radio group's name (one per view on a page); opts.inert: controls inert
 * (a static first view, whose controls do nothing until the live widget replaces it). */
export function renderView(state, opts = {}) {
  const { group = "mha-mask", inert = false } = opts;
  const inner =
    el("style", {}, state.view_css + CSS) +
    noscriptHtml() +
    controlsHtml(state, group, inert) +
    el("div", { class: "mha-mask-out" }, outputHtml(state));
  return el("div", rootAttrs(state), inner);
}

// ----------------------------------------------------------------------------- permalinks
// On the site (not in JupyterLab), the page's URL fragment holds the view's settings, e.g.
// #mask-1:mask=window,window=2 (the view's `link` trait names it; the parameter of the mask
// shown, window or filler, follows its kind): read once the live view has replaced the static
// first view, written once the reader pauses (view_link.mjs).
const LINK_KEYS = { mask: "mask", window: "radius", filler: "n_pad" };

function validSetting(name, v) {
  if (name === "mask") return MASKS.some(([value]) => value === v);
  if (name === "radius") return Number.isInteger(v) && v >= 0 && v <= RADIUS_MAX;
  return Number.isInteger(v) && v >= 1 && v <= PAD_MAX;
}

/** The settings that the URL fragment `hash` gives the view `state.link`, those valid only
 * ({} if none; null if the fragment is not about this view). */
export function readLink(hash, state) {
  return readSettings(hash, state.link, LINK_KEYS, ["mask"], validSetting);
}

/** The URL fragment that links to the view at the state's settings: the mask, and the
 * window's width or the filler words when that mask is shown. */
export function linkOf(state) {
  const parts = [`mask=${state.mask}`];
  if (state.mask === "window") parts.push(`window=${state.radius}`);
  if (state.mask === "padding") parts.push(`filler=${state.n_pad}`);
  return `#${state.link}:${parts.join(",")}`;
}

const TRAITS = [
  "X",
  "W_q",
  "W_k",
  "Y",
  "Wc_q",
  "Wc_k",
  "words",
  "latin",
  "head_names",
  "cross_head_names",
  "mask",
  "radius",
  "n_pad",
];

const render = viewController({
  name: "mha-mask",
  traits: TRAITS,
  live: ["mask", "radius", "n_pad"],
  html: (state, group) => renderView(state, { group }),
  out: ".mha-mask-out",
  output: outputHtml,
  sync: (root, s) => {
    for (const [k, v] of Object.entries(rootAttrs(s))) root.setAttribute(k, String(v));
    for (const r of root.querySelectorAll("input[type=radio]")) r.checked = r.value === s.mask;
    for (const input of root.querySelectorAll("input[type=range]")) {
      const name = input.dataset.control;
      input.value = String(s[name]);
      input.disabled = name === "radius" ? s.mask !== "window" : s.mask !== "padding";
      root.querySelector(`output[data-control-value="${name}"]`).textContent = String(s[name]);
    }
  },
  changes: (t) => {
    if (t.type === "radio") return t.checked ? { mask: t.value } : null;
    return t.type === "range" ? { [t.dataset.control]: Number(t.value) } : null;
  },
  link: { read: readLink, write: linkOf },
});

export default { render };
