// heads_view.mjs: the heads of chapters 1 to 4 (and the cost of a layer), an anywidget
// module computed in the reader's browser.
//
// One implementation of the view, used three ways (as mask_view.mjs):
//   - the widget's render (anywidget calls the default export's render on the site and in
//     JupyterLab): the view is drawn, and drawn again from the maths on every change;
//   - renderView(state, {inert: true}) -> HTML, run in Node at build time
//     (book/_ext/anywidget_static.mjs) to write the first view into the page before any script;
//   - tests (tests/test_heads_view.py) run renderView in Node and compare with mha.
// The maths is mha_views.mjs, the HTML pieces view_html.mjs; mha.views.anywidgets.esm inlines
// both into the widget's _esm, dropping the imports below.
//
// The reader picks the heads (designed, or random: h heads of width d_k drawn from a seed),
// and a word. The designed heads are h = 3 heads of width d_k = 3: while they are shown, the
// sliders stand at 3 and 3, and moving a slider or the seed switches to random heads there.
// Panels, any of (each its own view, as src/mha/views/explorer.py drew them):
//   rows    <div class="mha-view" data-view="rows" data-h data-dk data-word data-seed data-source>
//           every head's row for the word as bars: r{i}-{j} (head i, key j), sum{i} its sum;
//   heads   data-view="heads" data-h data-dk data-seed data-source: every head's (n, n)
//           weights, w{i}-{r}-{c};
//   concat  data-view="concat" data-h data-dk data-seed: the heads' outputs side by side,
//           c{r}-{j}, and the width h*d_k;
//   cost    data-view="cost" data-n data-dmodel data-h data-dk: a layer's counts (layerCost).
// Each number shown carries data-key and data-value; mha's expected_rows/heads/concat/cost
// recompute them in torch from the root's data-* attributes.

import { allHeads, concatHeads, layerCost, randomHeads } from "./mha_views.mjs";
import { viewController } from "./view_controller.mjs";
import {
  CONTROL_CSS,
  barsHtml,
  cellHtml,
  countHtml,
  el,
  esc,
  headBox,
  heatmapHtml,
  noscriptHtml,
  numberHtml,
  rangeHtml,
  syncRange,
  thousands,
  viewRoot,
} from "./view_html.mjs";
import { readSettings } from "./view_link.mjs";

export const SOURCE_LABELS = { designed: "designed (h = 3, d_k = 3)", random: "random" };
const WEIGHT_PANELS = ["rows", "heads", "concat"];
const DESIGNED_PANELS = ["rows", "heads", "cost"]; // concat's oracle draws random heads
export const SEED_MAX = 2 ** 32 - 1; // a seed box takes 0 to 4294967295 (SEED_RULE)
export const SEED_RULE = `a whole number from 0 to ${SEED_MAX}`;

const COST_ROWS = [
  ["params_without_out", "parameters in W^Q, W^K, W^V"],
  ["params_total", "parameters with W^O"],
  ["projection", "projection multiply-adds (Q, K, V)"],
  ["scoring", "scoring multiply-adds (QKᵀ)"],
  ["blending", "blending multiply-adds (weights·V)"],
  ["macs_total", "multiply-adds with W^O"],
];

const CSS = `${CONTROL_CSS}
.mha-heads-view .mha-heads-out{display:flex;flex-direction:column;gap:8px}
.mha-heads-view input[data-control=seed]{width:9em}
.mha-heads-view .mha-seed-rule{font-size:12px;color:#444}
.mha-heads-view .mha-seed-rule.mha-refused{color:#a51d2d;font-weight:600}
.mha-heads-view .mha-concat{display:flex;flex-wrap:wrap;gap:0 4px;align-items:flex-start}
.mha-heads-view table.mha-concat-block td{width:auto;min-width:34px;padding:2px 5px;text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.mha-heads-view .mha-concat{container-type:inline-size;width:100%}
@container (max-width: 440px){.mha-heads-view table.mha-concat-block td{min-width:0;padding:2px;font-size:11.5px}.mha-heads-view table.mha-concat-block th{padding:1px 2px;font-size:11.5px}}
.mha-heads-view{container-type:inline-size}
.mha-heads-view .mha-sources{display:inline-flex;flex-wrap:wrap;gap:4px 16px}
@container (max-width: 440px){.mha-heads-view .mha-controls label:has(input[type=range]){width:100%}.mha-heads-view .mha-controls input[type=range]{flex:1 1 0;width:auto;min-width:0}.mha-heads-view .mha-controls label:has(input[type=range]) .mha-control-label{white-space:nowrap;min-width:8.6em}.mha-heads-view .mha-view .mha-costs td,.mha-heads-view .mha-view .mha-costs th{padding:1px 3px;font-size:12px}}
`;

/** The heads' weights {W_q, W_k, W_v}, each (h, d_model, d_k), for the state's setting: the
 * designed heads, or random heads drawn as mha.toy.random_heads(h, d_k, seed) draws them. */
export function headsOf(state) {
  if (state.source === "designed") return state.designed;
  return randomHeads(state.h, state.d_k, state.seed, state.X[0].length, state.scale);
}

/** The heads on the sentence: weights (h, n, n) and outputs H (h, n, d_k), by mha_views.mjs. */
export function headsComputed(state) {
  const { W_q, W_k, W_v } = headsOf(state);
  return allHeads(state.X, W_q, W_k, W_v); // {H: (h, n, d_k), weights: (h, n, n)}
}

/** The (h, d_k) the view shows: the designed heads' own (3 heads of width 3, read from their
 * weights W_q, (h, d_model, d_k)), or the state's for random heads. */
export function setting(state) {
  if (state.source !== "designed") return { h: state.h, d_k: state.d_k };
  const W_q = state.designed.W_q; // (h, d_model, d_k)
  return { h: W_q.length, d_k: W_q[0][0].length };
}

function rowsPanel(state, weights) {
  const { h, d_k } = setting(state);
  const word = state.word;
  const boxes = weights.map((w, i) => {
    const row = w[word]; // (n,)
    const sum = row.reduce((a, b) => a + b, 0);
    const note = el("div", { class: "mha-note" }, `row sum ${numberHtml(`sum${i}`, sum)}`);
    return headBox(
      `head ${i + 1}: ${state.labels[word]} → …`,
      barsHtml(row, state.labels, `r${i}`, state.palette) + note,
    );
  });
  const params = { h, d_k, word, seed: state.seed, source: state.source };
  return viewRoot("rows", params, el("div", { class: "mha-heads" }, boxes.join("")));
}

function headsPanel(state, weights) {
  const { h, d_k } = setting(state);
  const hl = state.panels.includes("rows") ? state.word : null;
  const boxes = weights.map((w, i) =>
    headBox(`head ${i + 1}`, heatmapHtml(w, state.labels, state.labels, `w${i}`, state.palette, { highlight: hl })),
  );
  const params = { h, d_k, seed: state.seed, source: state.source };
  return viewRoot("heads", params, el("div", { class: "mha-heads" }, boxes.join("")));
}

function concatPanel(state, H) {
  const { h, d_k, d_model } = { ...state, d_model: state.X[0].length };
  const C = concatHeads(H); // (n, h*d_k)
  const width = h * d_k;
  const tints = Array.from({ length: h }, (_, i) => state.head_tints[i % state.head_tints.length]);
  const th = (attrs, text, i) => el("th", { scope: "col", ...attrs, style: `background:${tints[i][0]}` }, esc(text));
  // One table per head, columns numbered as in the concatenation: side by side they are the
  // concatenation; on a narrow screen they wrap, one head under another.
  const block = (i) => {
    const cols = Array.from({ length: d_k }, (_, c) => i * d_k + c); // this head's columns
    const head =
      el("tr", {}, el("td", {}) + th({ colspan: d_k }, `head ${i + 1}`, i)) +
      el("tr", {}, el("th", { scope: "col" }, "column") + cols.map((j) => th({}, j + 1, i)).join(""));
    const body = C.map((row, r) =>
      el(
        "tr",
        {},
        el("th", { scope: "row" }, esc(state.labels[r])) +
          cols.map((j) => cellHtml(`c${r}-${j}`, row[j], state.palette, tints[i])).join(""),
      ),
    ).join("");
    return el("table", { class: "mha-heat mha-concat-block" }, el("thead", {}, head) + el("tbody", {}, body));
  };
  const verdict =
    width === d_model
      ? `already d_model = ${d_model} wide; W^O keeps that width`
      : `W^O must map ${width} columns back to d_model = ${d_model}`;
  const tables = el("div", { class: "mha-concat" }, Array.from({ length: h }, (_, i) => block(i)).join(""));
  const text = el(
    "p",
    { class: "mha-note" },
    `concat is ${C.length} × ${countHtml("width", width)} (h·d_k = ${h} × ${d_k}): ${esc(verdict)}.`,
  );
  return viewRoot("concat", { h, d_k, seed: state.seed }, text + tables);
}

function costPanel(state) {
  const { n, d_model } = state;
  const { h, d_k } = setting(state);
  const c = layerCost(n, d_model, h, d_k);
  const one = layerCost(n, d_model, 1, d_model);
  const rows = COST_ROWS.map(([k, label]) =>
    el(
      "tr",
      {},
      el("th", { scope: "row" }, esc(label)) +
        el("td", {}, countHtml(k, c[k])) +
        el("td", {}, esc(thousands(one[k]))) +
        el("td", {}, esc(`×${(c[k] / one[k]).toFixed(2)}`)),
    ),
  ).join("");
  const width = h * d_k;
  const verdict =
    width === d_model
      ? h === 1
        ? `h·d_k = ${width} = d_model: one head of full width, the comparison itself.`
        : `h·d_k = ${width} = d_model: the heads split one head's width (and its cost).`
      : `h·d_k = ${width} ≠ d_model = ${d_model}: ${h === 1 ? "the head fills" : "the heads fill"} ${width} columns, not ${d_model}, so each count is ${width}/${d_model} of one full-width head's.`;
  const head = el(
    "tr",
    {},
    el("td", {}) +
      [`${h} ${h === 1 ? "head" : "heads"}, d_k = ${d_k}`, `1 head, d_k = ${d_model}`, "ratio"]
        .map((t) => el("th", { scope: "col" }, esc(t)))
        .join(""),
  );
  const caption = el("caption", {}, esc(`n = ${n} words, d_model = ${d_model}`));
  const table = el("table", { class: "mha-costs" }, caption + el("thead", {}, head) + el("tbody", {}, rows));
  return viewRoot("cost", { n, d_model, h, d_k }, el("p", { class: "mha-note" }, esc(verdict)) + table);
}

/** The panels the state's source shows, in the state's order. */
function shownPanels(state) {
  return state.panels.filter((p) => state.source !== "designed" || DESIGNED_PANELS.includes(p));
}

/** The view's output (every panel, without the controls), as HTML. */
export function outputHtml(state) {
  const panels = shownPanels(state);
  const heads = panels.some((p) => WEIGHT_PANELS.includes(p)) ? headsComputed(state) : null;
  const draw = {
    rows: () => rowsPanel(state, heads.weights),
    heads: () => headsPanel(state, heads.weights),
    concat: () => concatPanel(state, heads.H),
    cost: () => costPanel(state),
  };
  return panels.map((p) => draw[p]()).join("");
}

/** Which controls the state offers: a control with one position is not shown. */
export function offered(state) {
  const weights = state.panels.some((p) => WEIGHT_PANELS.includes(p));
  return {
    source: state.sources.length > 1,
    h: state.h_values.length > 1,
    d_k: state.d_k_values.length > 1,
    seed: weights && state.sources.includes("random"),
    word: state.panels.includes("rows"),
  };
}

/** The controls, as HTML: native, labelled, in one fieldset. */
export function controlsHtml(state, group = "mha-heads", inert = false) {
  const on = offered(state);
  const { h, d_k } = setting(state);
  const parts = [];
  if (on.source) {
    const radios = state.sources.map((s) =>
      el(
        "label",
        {},
        el("input", { type: "radio", name: group, value: s, checked: state.source === s }) + esc(SOURCE_LABELS[s]),
      ),
    );
    parts.push(el("span", { role: "radiogroup", "aria-label": "which heads", class: "mha-sources" }, radios.join("")));
  }
  if (on.h) parts.push(rangeHtml("h", "heads h", state.h_values, h));
  if (on.d_k) parts.push(rangeHtml("d_k", "head width d_k", state.d_k_values, d_k));
  if (on.seed) {
    const box = el("input", {
      type: "text",
      inputmode: "numeric",
      "data-control": "seed",
      value: state.seed,
      spellcheck: "false",
      autocomplete: "off",
    });
    parts.push(el("label", { class: "mha-control" }, el("span", { class: "mha-control-label" }, "seed") + box));
    parts.push(el("span", { class: "mha-seed-rule", role: "status" }, esc(`A seed is ${SEED_RULE}.`)));
  }
  if (on.word) {
    const options = state.labels.map((w, i) => el("option", { value: i, selected: i === state.word }, esc(w))).join("");
    parts.push(
      el(
        "label",
        { class: "mha-control" },
        el("span", { class: "mha-control-label" }, "row of") + el("select", { "data-control": "word" }, options),
      ),
    );
  }
  if (!parts.length) return "";
  // data-lm-suppress-shortcuts: in JupyterLab, arrow keys on these controls move them, not
  // the notebook's cell selection (Lumino skips key bindings inside such an element).
  const legend = state.panels.some((p) => WEIGHT_PANELS.includes(p)) ? "Choose the heads" : "Choose the layer's heads";
  return el(
    "fieldset",
    { class: "mha-controls", inert, "data-lm-suppress-shortcuts": "true" },
    el("legend", {}, esc(legend)) + parts.join(""),
  );
}

/** The whole view for a widget state (its traits, as the saved widget state holds them).
 * opts.group: the radio group's name (one per view on a page); opts.inert: controls inert
 * (a static first view, whose controls do nothing until the live widget replaces it). */
export function renderView(state, opts = {}) {
  const { group = "mha-heads", inert = false } = opts;
  const controls = controlsHtml(state, group, inert); // "" when the view offers none
  const inner =
    el("style", {}, state.view_css + CSS) +
    (controls && noscriptHtml()) +
    controls +
    el("div", { class: "mha-heads-out" }, outputHtml(state));
  return el("div", { class: "mha-heads-view" }, inner);
}

// ----------------------------------------------------------------------------- permalinks
// On the site (not in JupyterLab), the page's URL fragment holds a view's settings, e.g.
// #heads-1:h=4,dk=3,seed=7,word=4 (the view's `link` trait names it): read once the live view
// has replaced the static first view, written on every change.
const LINK_KEYS = { source: "source", h: "h", dk: "d_k", seed: "seed", word: "word" };

function validSetting(state, name, v) {
  if (name === "source") return state.sources.includes(v);
  if (name === "h") return state.h_values.includes(v);
  if (name === "d_k") return state.d_k_values.includes(v);
  if (name === "word") return Number.isInteger(v) && v >= 0 && v < state.labels.length;
  return offered(state).seed && Number.isSafeInteger(v) && v >= 0 && v <= SEED_MAX;
}

/** The settings that the URL fragment `hash` gives the view `state.link`, those valid for
 * the view only ({} if none; null if the fragment is not about this view). */
export function readLink(hash, state) {
  return readSettings(hash, state.link, LINK_KEYS, ["source"], (name, v) => validSetting(state, name, v));
}

/** The URL fragment that links to the view at the state's settings (the controls offered). */
export function linkOf(state) {
  const on = offered(state);
  const parts = [];
  if (on.source) parts.push(`source=${state.source}`);
  if (on.h) parts.push(`h=${state.h}`);
  if (on.d_k) parts.push(`dk=${state.d_k}`);
  if (on.seed) parts.push(`seed=${state.seed}`);
  if (on.word) parts.push(`word=${state.word}`);
  return `#${state.link}:${parts.join(",")}`;
}

const TRAITS = [
  "X",
  "labels",
  "designed",
  "scale",
  "head_tints",
  "panels",
  "sources",
  "h_values",
  "d_k_values",
  "n",
  "d_model",
  "source",
  "h",
  "d_k",
  "seed",
  "word",
];
const SETTINGS = ["source", "h", "d_k", "seed", "word"];

/** The seed the text of a seed box gives, or null if it is none (SEED_RULE): digits only (no
 * sign, point or exponent: "-1", "1.5" and "1e3" are refused), at most SEED_MAX. */
export function seedOf(text) {
  const digits = text.trim();
  if (!/^\d{1,10}$/.test(digits)) return null;
  const v = Number(digits);
  return v <= SEED_MAX ? v : null;
}

/** The value a slider or the word menu holds, as the trait it sets. */
function controlValue(t, s) {
  const name = t.dataset.control;
  if (name === "h") return s.h_values[Number(t.value)];
  if (name === "d_k") return s.d_k_values[Number(t.value)];
  return Number(t.value);
}

/** The seed box `box` refused its text (the rule line says so, in red, and the box is marked
 * invalid; the text stays for the reader to mend), or not. */
function markSeed(box, refused) {
  const rule = box.closest("fieldset").querySelector(".mha-seed-rule");
  if (refused) box.setAttribute("aria-invalid", "true");
  else box.removeAttribute("aria-invalid");
  rule.textContent = refused ? `Not a seed: “${box.value.trim()}”. A seed is ${SEED_RULE}.` : `A seed is ${SEED_RULE}.`;
  rule.classList.toggle("mha-refused", refused);
}

const render = viewController({
  name: "mha-heads",
  traits: TRAITS,
  live: SETTINGS,
  html: (state, group) => renderView(state, { group }),
  out: ".mha-heads-out",
  output: outputHtml,
  sync: (root, s) => {
    for (const r of root.querySelectorAll("input[type=radio]")) r.checked = r.value === s.source;
    const shown = setting(s);
    for (const input of root.querySelectorAll("[data-control]")) {
      const name = input.dataset.control;
      if (name === "h" || name === "d_k") syncRange(root, input, s[`${name}_values`], shown[name]);
      else if (name === "seed") {
        if (seedOf(input.value) !== s.seed) input.value = String(s.seed);
        markSeed(input, false);
      } else input.value = String(s[name]);
    }
  },
  changes: (t, s, e) => {
    if (t.type === "radio") return t.checked ? { source: t.value } : null;
    const name = t.dataset.control;
    const v = name === "seed" ? seedOf(t.value) : controlValue(t, s);
    if (name === "seed") {
      if (v === null && e.type === "change") markSeed(t, true); // refused, said, not changed
      if (v === null) return null;
      markSeed(t, false);
    }
    // A slider or the seed moved while the designed heads are shown: random heads, at the
    // setting the sliders showed with this one move (the source set last).
    if (name !== "word" && s.source === "designed") return { ...setting(s), [name]: v, source: "random" };
    return { [name]: v };
  },
  word: {
    control: "word",
    label: (s) => s.labels[s.word],
    index: (s, label) => (offered(s).word ? s.labels.indexOf(label) : -1),
  },
  link: { read: readLink, write: linkOf },
});

export default { render };
