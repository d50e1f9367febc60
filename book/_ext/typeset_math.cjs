// Typeset TeX to SVG with MathJax 3's Node API (npm mathjax-full), for book/_ext/build_math.py,
// which says why (it stands in for sphinx.ext.mathjax's runtime in the browser).
// stdin: {page: [[tex, display], ...]}; stdout: {css, pages: {page: {defs, html}}}: per page one
// <mjx-container> per formula (SVG with assistive MathML), its glyphs <use>s of the page's one
// hidden <svg> of paths, defs; a formula MathJax cannot read is {error: message}.
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
