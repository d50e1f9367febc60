// The first view of each widget, drawn in Node at build time by the view's own module, for
// book/_ext/static_widgets.py, which says why (no upstream option). argv[2]: the site's views
// (static/mha-views.js, which sets globalThis.mhaViews); stdin: [{view, state}]; stdout: the
// HTML of each renderView(state, {inert: true}).
import { readFileSync } from "node:fs";
import { runInThisContext } from "node:vm";

const bundle = process.argv[2];
runInThisContext(readFileSync(bundle, "utf-8"), { filename: bundle });
const jobs = JSON.parse(readFileSync(0, "utf-8"));
const out = jobs.map(({ view, state }) => {
  const mod = globalThis.mhaViews[view];
  if (typeof mod?.renderView !== "function") {
    throw new Error(`${bundle} has no view ${view} with a renderView(state): no first view to draw`);
  }
  return mod.renderView(state, { inert: true }); // controls inert until the live view
});
process.stdout.write(JSON.stringify(out));
