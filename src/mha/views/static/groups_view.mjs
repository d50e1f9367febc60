// groups_view.mjs: chapter 3's key/value-groups view, an anywidget module computed in the
// reader's browser. What a layer of h query heads sharing g key/value heads costs (weights,
// multiply-adds, key/value cache), next to ordinary multi-head attention (g = h), by
// layerCost in mha_views.mjs (the port of mha.cost.layer_cost with kv_groups).
//
// One implementation, used three ways (as heads_view.mjs): the widget's render, renderView in
// Node at build time (book/_ext/anywidget_static.mjs), and tests/test_groups_view.py.
// The view keeps the book's contract: <div class="mha-view" data-view="grouped-cost" data-n
// data-dmodel data-h data-g> with {row}, mha-{row} and ratio-{row} for each row of GROUP_ROWS;
// mha.views.grouped.expected_grouped_cost recomputes them from shape-only tensors and
// PyTorch's FLOP counter.

import { layerCost } from "./mha_views.mjs";
import { renderSliderView, sliderRender } from "./slider_view.mjs";
import { countHtml, el, esc, numberHtml, viewRoot } from "./view_html.mjs";

export const GROUP_ROWS = [
  ["params_q", "weights in W^Q"],
  ["params_kv", "weights in W^K and W^V"],
  ["params", "weights in W^Q, W^K, W^V together"],
  ["projection_q", "multiply-adds: projecting Q"],
  ["projection_kv", "multiply-adds: projecting K and V"],
  ["attend", "multiply-adds: scoring and blending"],
  ["macs", "multiply-adds: all of the above"],
  ["kv_cache", "key/value cache: numbers per word"],
];

/** The rows of GROUP_ROWS for h query heads sharing g key/value heads (layerCost). */
export function groupCounts(n, d_model, h, g) {
  const c = layerCost(n, d_model, h, null, g);
  return {
    params_q: c.params_per_role,
    params_kv: 2 * c.params_kv_per_role,
    params: c.params_without_out,
    projection_q: c.projection_per_role,
    projection_kv: 2 * c.projection_kv_per_role,
    attend: c.scoring + c.blending,
    macs: c.macs_without_out,
    kv_cache: c.kv_cache_per_token,
  };
}

/** The usual name of h query heads sharing g key/value heads. */
export function variantName(h, g) {
  if (g === h) return "ordinary multi-head attention";
  if (g === 1) return "multi-query attention";
  return "grouped-query attention";
}

const plural = (k, word) => `${word}${k > 1 ? "s" : ""}`;

function groupsOutput(state) {
  const { n, d_model, h, g } = state;
  const ours = groupCounts(n, d_model, h, g);
  const base = groupCounts(n, d_model, h, h);
  const rows = GROUP_ROWS.map(([k, label]) =>
    el(
      "tr",
      {},
      el("th", { scope: "row" }, esc(label)) +
        el("td", {}, countHtml(k, ours[k])) +
        el("td", {}, countHtml(`mha-${k}`, base[k])) +
        el("td", {}, `×${numberHtml(`ratio-${k}`, ours[k] / base[k], 3)}`),
    ),
  ).join("");
  const share = h / g;
  const text =
    `${h} query heads, g = ${g} key/value ${plural(g, "head")}: ${variantName(h, g)}; each key/value head serves ` +
    `${share} query ${plural(share, "head")} (d_model = ${d_model}, n = ${n} words).`;
  const head = el(
    "tr",
    {},
    el("td", {}) +
      [`g = ${g}`, `g = ${h} (multi-head)`, "ratio"].map((t) => el("th", { scope: "col" }, esc(t))).join(""),
  );
  const table = el("table", { class: "mha-costs" }, el("thead", {}, head) + el("tbody", {}, rows));
  return viewRoot("grouped-cost", { n, d_model, h, g }, el("p", { class: "mha-note" }, esc(text)) + table);
}

export const GROUPS_SPEC = {
  cls: "mha-groups-view",
  legend: "Key/value groups",
  traits: ["n", "d_model", "h", "groups", "g"],
  controls: [{ name: "g", link: "g", label: "key/value groups g", kind: "range", values: (s) => s.groups }],
  output: groupsOutput,
};

/** The whole view for a widget state (its traits); opts {group, inert} as slider_view.mjs's. */
export function renderView(state, opts = {}) {
  return renderSliderView(GROUPS_SPEC, state, opts);
}

export default { render: sliderRender(GROUPS_SPEC) };
