// scaling_view.mjs: chapter 1's scaling view, an anywidget module computed in the reader's
// browser. One word's row of a random head made wider one column at a time: the head of
// width d_k keeps the first d_k columns of W^Q and W^K of one random head of width
// `widest` (mha.scaling.head_scores: max(VIEW_WIDTHS)), its scores divided by √d_k or not; the row's
// largest weight, its entropy, and the lead of its largest score over the next.
//
// The widest head is drawn here for the state's seed exactly as mha.toy.random_heads draws
// it (randomHeads in mha_views.mjs, toy.RANDOM_SCALE sent as the `scale` trait). One
// implementation, used three ways (as heads_view.mjs): the widget's render, renderView in
// Node at build time (book/_ext/anywidget_static.mjs), and tests/test_scaling_view.py.
// The view keeps the book's contract: <div class="mha-view" data-view="scaling" data-dk
// data-scaled data-word data-seed> with w-{j}, max, entropy, uniform and gap;
// mha.views.scaling.expected_scaling recomputes them in torch.

import { entropyBits, headScores, matmul, randomHeads, softmax } from "./mha_views.mjs";
import { renderSliderView, sliderRender } from "./slider_view.mjs";
import { barsHtml, el, headBox, numberHtml, viewRoot } from "./view_html.mjs";

const WIDEST = new Map(); // "seed width scale": the widest head's {Q, K}, each (n, width)

/** Queries and keys (n, widest) of the random head of width state.widest and the state's
 * seed, drawn once; every view's head is its first d_k columns. */
function widestHead(state) {
  const width = state.widest;
  const key = `${state.seed} ${width} ${state.scale}`;
  if (!WIDEST.has(key)) {
    const { W_q, W_k } = randomHeads(1, width, state.seed, state.X[0].length, state.scale); // (1, d_model, width) each
    WIDEST.set(key, { Q: matmul(state.X, W_q[0]), K: matmul(state.X, W_k[0]) }); // (n, width) each
  }
  return WIDEST.get(key);
}

/** The word's scores (n,) at the state's width, divided by √d_k if state.scaled, and its row. */
export function scalingRow(state) {
  const { Q, K } = widestHead(state);
  const cut = (M) => M.map((r) => r.slice(0, state.d_k)); // (n, d_k)
  const scores = headScores(cut(Q), cut(K), Boolean(state.scaled))[state.word]; // (n,)
  return { scores, row: softmax(scores) };
}

function scalingOutput(state) {
  const { scores, row } = scalingRow(state);
  const [first, second] = scores.slice().sort((a, b) => b - a);
  const n = row.length;
  const body =
    barsHtml(row, state.words, "w", state.palette) +
    el(
      "div",
      { class: "mha-note" },
      `largest weight ${numberHtml("max", Math.max(...row))}; entropy ${numberHtml("entropy", entropyBits(row))} bits (an even row has ${numberHtml("uniform", Math.log2(n))}, all weight on one word has 0)`,
    ) +
    el("div", { class: "mha-note" }, `the largest score leads the next by ${numberHtml("gap", first - second, 1)}`);
  const how = state.scaled ? "divided by √d_k" : "not divided";
  const title = `${state.words[state.word]} → … (d_k = ${state.d_k}, scores ${how})`;
  const params = { d_k: state.d_k, scaled: Number(Boolean(state.scaled)), word: state.word, seed: state.seed };
  return viewRoot("scaling", params, headBox(title, body));
}

export const SCALING_SPEC = {
  cls: "mha-scaling-view",
  legend: "Head width",
  traits: ["X", "words", "word", "seed", "scale", "widest", "widths", "d_k", "scaled_options", "scaled"],
  controls: [
    { name: "d_k", link: "dk", label: "head width d_k", kind: "range", values: (s) => s.widths },
    {
      name: "scaled",
      link: "scaled",
      label: "scores divided by √d_k or not",
      kind: "radio",
      values: (s) => s.scaled_options.map(([, v]) => v),
      labels: (s) => s.scaled_options.map(([label]) => label),
    },
  ],
  output: scalingOutput,
};

/** The whole view for a widget state (its traits); opts {group, inert} as slider_view.mjs's. */
export function renderView(state, opts = {}) {
  return renderSliderView(SCALING_SPEC, state, opts);
}

export default { render: sliderRender(SCALING_SPEC) };
