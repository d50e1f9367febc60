// steps_view.mjs: chapter 5's training-step view, an anywidget module drawn in the reader's
// browser. Every head's row for the verb of one sentence, at each saved step of one training
// run, with the loss on the held-out sentences. The rows are data, not maths: the run's
// stored snapshots travel as a trait (`rows`, one (h, n) table per saved step, and `losses`),
// and the slider picks one.
//
// One implementation, used three ways (as heads_view.mjs): the widget's render, renderView in
// Node at build time (book/_ext/anywidget_static.mjs), and tests/test_steps_view.py.
// The view keeps the book's contract: <div class="mha-view" data-view="training-steps"
// data-h data-dk data-seed data-steps data-lr data-batch data-init data-eps data-step> (the
// run's settings, its `config` trait, and the step) with r{i}-{j} (head i's weight on word
// j) and loss; mha.views.training.expected_steps recomputes them by training again.

import { renderSliderView, sliderRender } from "./slider_view.mjs";
import { barsHtml, dataValue, el, esc, headBox, lossText, viewRoot } from "./view_html.mjs";

function stepsOutput(state) {
  const at = state.saved_steps.indexOf(state.step);
  const rows = state.rows[at]; // (h, n)
  const verb = state.words[state.verb];
  const boxes = rows
    .map((row, i) => headBox(`head ${i + 1}: ${verb} → …`, barsHtml(row, state.labels, `r${i}`, state.palette)))
    .join("");
  const loss = state.losses[at];
  const lossHtml = el("span", { "data-key": "loss", "data-value": dataValue(loss) }, esc(lossText(loss)));
  const body =
    el("div", { class: "mha-note" }, `after ${state.step} steps; loss on the held-out sentences ${lossHtml}`) +
    el("div", { class: "mha-heads" }, boxes);
  return viewRoot("training-steps", { ...state.config, step: state.step }, body);
}

export const STEPS_SPEC = {
  cls: "mha-steps-view",
  legend: "Training",
  traits: ["words", "labels", "verb", "config", "saved_steps", "rows", "losses", "step"],
  controls: [{ name: "step", link: "step", label: "training step", kind: "range", values: (s) => s.saved_steps }],
  output: stepsOutput,
};

/** The whole view for a widget state (its traits); opts {group, inert} as slider_view.mjs's. */
export function renderView(state, opts = {}) {
  return renderSliderView(STEPS_SPEC, state, opts);
}

export default { render: sliderRender(STEPS_SPEC) };
