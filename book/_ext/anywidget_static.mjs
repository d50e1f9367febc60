// Why this file: the first view of anywidget widgets, drawn in Node at build time by the
// widget's own module (book/_ext/static_widgets.py puts it in the page).
//
// Stands in for: no upstream option (see book/_ext/static_widgets.py).
//
// Called by book/_ext/static_widgets.py (render_anywidgets) with, on standard input, a JSON list
// of {esm, state}: each widget's ES module as its saved state holds it (the _esm trait) and
// its saved traits. The module is imported from a data: URL, exactly the text the browser
// will run, and its export renderView(state) gives the view's HTML; standard output is the
// JSON list of those HTML strings. A widget module of this book that has a first view
// exports renderView(state, {inert}) -> HTML, and its render draws that same HTML
// (mask_view.mjs); with inert, the controls are marked inert.
import { readFileSync } from "node:fs";

const jobs = JSON.parse(readFileSync(0, "utf-8"));
const out = [];
for (const { esm, state } of jobs) {
  const url = "data:text/javascript;base64," + Buffer.from(esm, "utf-8").toString("base64");
  const mod = await import(url);
  if (typeof mod.renderView !== "function") {
    throw new Error("the widget's module exports no renderView(state): no first view to draw");
  }
  out.push(mod.renderView(state, { inert: true })); // controls inert until the live view
}
process.stdout.write(JSON.stringify(out));
