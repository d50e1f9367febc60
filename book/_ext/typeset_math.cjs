// Typeset TeX to SVG with MathJax 3's own Node API (npm mathjax-full, pinned in package.json);
// book/_ext/build_math.py runs this once per build for every formula the HTML pages need.
// stdin: JSON [[tex, display], ...]; stdout: JSON {css, html: [...]}, one <mjx-container>
// per formula: an SVG (aria-hidden) and its MathML for screen readers (assistive MathML).
// Glyph ids are "MJX-@ID@-..." for the caller to number per page. A formula MathJax cannot
// read (an undefined macro, a syntax error) is returned as {error: message}, never drawn.
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

function main(items) {
  const adaptor = liteAdaptor();
  AssistiveMmlHandler(RegisterHTMLHandler(adaptor));
  const tex = new TeX({ packages: PACKAGES });
  const svg = new SVG({ fontCache: "local", localID: "@ID@" });
  const doc = mathjax.document("", { InputJax: tex, OutputJax: svg });
  const html = items.map(([source, display]) => {
    try {
      const node = doc.convert(source, { display });
      const error = adaptor.getAttribute(node, "data-mjx-error") || findError(adaptor, node);
      return error ? { error } : adaptor.outerHTML(node);
    } catch (err) {
      return { error: String(err && err.message ? err.message : err) };
    }
  });
  return { css: adaptor.textContent(svg.styleSheet(doc)), html };
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
