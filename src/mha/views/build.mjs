// Why this file: the book's views are ES modules (static/*.mjs) that import shared ones (the
// maths, mha_views.mjs; the HTML pieces, view_html.mjs...). esbuild bundles them, in two forms
// (`npm run build`; make book, make lab and make test run it):
//
// - dist/<view>.js, one self-contained ES module per view (a module of static/ with a default
//   export): the widget's _esm in the kernel (mha.views.anywidgets.View), which JupyterLab and
//   Colab run, as anywidget wants, from one string;
// - book/_ext/static/mha-views.js, every view in one minified classic script that sets the
//   global mhaViews ({budget_view: {default, renderView, ...}, ...}). The site serves it as
//   _static/mha-views.js and loads it once per page (_config.yml's nb_ipywidgets_js); its
//   host draws each view from it
//   (book/_ext/static/mha-anywidget-host.js); book/_ext/anywidget_static.mjs runs the same
//   file in Node for the first views. A classic script, not an ES module: Chromium loads no
//   module script from a file:// page, and the site works opened from disk.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));
const source = `${here}static`;
const dist = `${here}dist`;
const site = fileURLToPath(new URL("../../../book/_ext/static/mha-views.js", import.meta.url));
const views = readdirSync(source)
  .filter((f) => f.endsWith(".mjs") && /^export default\b/m.test(readFileSync(`${source}/${f}`, "utf-8")))
  .sort()
  .map((f) => f.replace(/\.mjs$/, ""));

await build({
  entryPoints: views.map((v) => `${source}/${v}.mjs`),
  bundle: true,
  format: "esm",
  outdir: dist,
  logLevel: "warning",
});
await build({
  stdin: {
    contents: views.map((v) => `export * as ${v} from "./${v}.mjs";`).join("\n"),
    resolveDir: source,
    sourcefile: "mha-views.mjs",
  },
  bundle: true,
  format: "iife",
  globalName: "mhaViews",
  minify: true,
  outfile: site,
  logLevel: "warning",
});
