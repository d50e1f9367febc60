// budget_view.mjs: chapter 1's trade-off view, an anywidget module computed in the reader's
// browser. The single full-width head's row for *chased* (mha.toy.single_head_weights), its
// scores tilted by t from *cat* to *mouse* (mha.budget.tilt), its sum, and what *mouse*
// gained against what the other four words lost.
//
// One implementation, used three ways (as heads_view.mjs): the widget's render (the site and
// JupyterLab), renderView(state, {inert}) run in Node at build time for the first view
// (book/_ext/anywidget_static.mjs), and the tests (tests/test_budget_view.py) against torch.
// The view keeps the book's contract: <div class="mha-view" data-view="budget" data-tilt>
// with b-{j} (the weight of word j), sum, gain (mouse's change from tilt 0) and others (the
// other four words' change together); mha.views.budget.expected_budget recomputes them.

import { headScores, matmul, tiltRow } from "./mha_views.mjs";
import { renderSliderView, sliderRender } from "./slider_view.mjs";
import { barsHtml, el, headBox, numberHtml, viewRoot } from "./view_html.mjs";

/** A tilt as the control shows it: its sign always, one decimal ("+1.5", "-4.0"). */
export function tiltText(t) {
  return (t < 0 ? "-" : "+") + Math.abs(t).toFixed(1);
}

/** The tilt in words, with no double negative: "scores tilted by 4.0 from mouse to cat" for
 * a tilt of -4 from cat to mouse, "scores not tilted" at 0. */
export function tiltTitle(t, lose, gain) {
  if (t === 0) return "scores not tilted";
  const [from, to] = t > 0 ? [lose, gain] : [gain, lose];
  return `scores tilted by ${Math.abs(t).toFixed(1)} from ${from} to ${to}`;
}

/** The word's row (n,) tilted by state.tilt from `lose` to `gain`, and the untilted row. */
export function tiltedRows(state) {
  const Q = matmul(state.X, state.W_q); // (n, d_k)
  const K = matmul(state.X, state.W_k); // (n, d_k)
  const scores = headScores(Q, K)[state.word]; // (n,): Q K^T / sqrt(d_k), the word's row
  return { row: tiltRow(scores, state.tilt, state.gain, state.lose), base: tiltRow(scores, 0, state.gain, state.lose) };
}

function budgetOutput(state) {
  const { row, base } = tiltedRows(state); // (n,) each
  const gain = row[state.gain] - base[state.gain];
  const others = row.reduce((a, w, j) => a + (j === state.gain ? 0 : w - base[j]), 0);
  const sum = row.reduce((a, b) => a + b, 0);
  const words = state.words;
  const body =
    barsHtml(row, words, "b", state.palette) +
    el("div", { class: "mha-note" }, `row sum = ${numberHtml("sum", sum, 12)}`) +
    el(
      "div",
      { class: "mha-note" },
      `change in ${words[state.gain]}'s weight: ${numberHtml("gain", gain, 3)}; in the other ${words.length - 1} words' weights together: ${numberHtml("others", others, 3)}`,
    );
  const title = `${words[state.word]} → … (${tiltTitle(state.tilt, words[state.lose], words[state.gain])})`;
  return viewRoot("budget", { tilt: state.tilt }, headBox(title, body));
}

export const BUDGET_SPEC = {
  cls: "mha-budget-view",
  legend: "Tilt",
  traits: ["X", "W_q", "W_k", "words", "word", "gain", "lose", "tilts", "tilt"],
  controls: [
    {
      name: "tilt",
      link: "tilt",
      label: (s) => `tilt from ${s.words[s.lose]} to ${s.words[s.gain]}`,
      kind: "range",
      values: (s) => s.tilts,
      text: tiltText,
    },
  ],
  output: budgetOutput,
};

/** The whole view for a widget state (its traits); opts {group, inert} as slider_view.mjs's. */
export function renderView(state, opts = {}) {
  return renderSliderView(BUDGET_SPEC, state, opts);
}

export default { render: sliderRender(BUDGET_SPEC) };
