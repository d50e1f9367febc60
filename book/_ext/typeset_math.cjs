// Typeset TeX to SVG with MathJax 3's own Node API (npm mathjax-full, pinned in package.json);
// book/_ext/build_math.py runs this once per build for the pages whose formulas changed.
// stdin: JSON {page: [[tex, display], ...]}; stdout: JSON {css, pages: {page: {defs, html}}}:
// per page, one <mjx-container> per formula (an SVG, aria-hidden, and its MathML for screen
// readers: assistive MathML) whose glyphs are <use>s of the page's one hidden <svg> of glyph
// paths, ``defs`` (MathJax's "global" font cache, cleared for each page). A formula MathJax
// cannot read (an undefined macro, a syntax error) is returned as {error: message}.
// Stands in for: sphinx.ext.mathjax's runtime in the browser (see book/_ext/build_math.py).
"use strict";
const { mathjax } = require("mathjax-full/js/mathjax.js");
const { TeX } = require("mathjax-full/js/input/tex.js");
const { SVG } = require("mathjax-full/js/output/svg.js");
const { liteAdaptor } = require("mathjax-full/js/adaptors/liteAdaptor.js");
const { RegisterHTMLHandler } = require("mathjax-full/js/handlers/html.js");
const { AssistiveMmlHandler } = require("mathjax-full/js/a11y/assistive-mml.js");
const { AllPackages } = require("mathjax-full/js/input/tex/AllPackages.js");

// Every TeX package except those that hide errors (drawn in red instead of failing).
const PACKAGES = AllPackages.filter((p) => !["noerrors", "noundefined"].includes(p));

function main(pages) {
  const adaptor = liteAdaptor();
  AssistiveMmlHandler(RegisterHTMLHandler(adaptor));
  const tex = new TeX({ packages: PACKAGES });
  const svg = new SVG({ fontCache: "global" });
  const doc = mathjax.document("", { InputJax: tex, OutputJax: svg });
  const out = {};
  for (const [page, items] of Object.entries(pages)) {
    svg.fontCache.clearCache();
    const html = items.map(([source, display]) => typeset(adaptor, doc, source, display));
    const defs = adaptor.outerHTML(svg.fontCache.getCache());
    out[page] = { defs: `<svg id="MJX-SVG-global-cache" style="display: none">${defs}</svg>`, html };
  }
  return { css: adaptor.textContent(svg.styleSheet(doc)), pages: out };
}

function typeset(adaptor, doc, source, display) {
  try {
    const node = doc.convert(source, { display });
    const error = findError(adaptor, node);
    return error ? { error } : adaptor.outerHTML(node);
  } catch (err) {
    return { error: String(err?.message ? err.message : err) };
  }
}

// MathJax draws a TeX error as an <merror> in the MathML (and a data-mjx-error attribute).
function findError(adaptor, node) {
  const html = adaptor.outerHTML(node);
  const m = html.match(/data-mjx-error="([^"]*)"/) || (html.includes("<merror") && [0, "merror"]);
  return m ? m[1] : null;
}

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => process.stdout.write(JSON.stringify(main(JSON.parse(input)))));
