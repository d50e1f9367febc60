// Why this file: the first view of anywidget widgets, drawn in Node at build time by the
// widget's own module (book/_ext/static_widgets.py puts it in the page).
//
// Stands in for: no upstream option (see book/_ext/static_widgets.py).
//
// Called by book/_ext/static_widgets.py (render_anywidgets) with the site's views (its one
// argument: book/_ext/static/mha-views.js, exactly the script the pages load, which
// sets the global mhaViews) and, on standard input, a JSON list of {view, state}: each
// widget's view name (its saved state's _mha_view) and its saved traits. Each view's
// renderView(state, {inert: true}) gives its HTML, the controls marked inert; standard output
// is the JSON list of those HTML strings.
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
