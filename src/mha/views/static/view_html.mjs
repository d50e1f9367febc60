// view_html.mjs: the HTML pieces shared by the book's anywidget views (mask_view.mjs,
// heads_view.mjs, exercise_view.mjs...), with no dependencies. Permalinks: view_link.mjs.
//
// The views' contract: one root <div class="mha-view"
// data-view=NAME data-...> per view, naming every parameter, and every number shown carries
// data-key and data-value (12 significant digits, for the tests). Every string that reaches the HTML
// goes through esc(), text and attribute values alike: el() escapes every attribute value.
// mha.views.anywidgets.esm inlines this module into each view's _esm, in place of the view's
// import line (one module, as text; the names here are shared by every view that imports it).

/** `s` as HTML text, safe in content and in a quoted attribute value. */
export function esc(s) {
  const text = String(s);
  if (!/[&<>"']/.test(text)) return text; // most are numbers and words: nothing to escape
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#x27;");
}

const VOID = new Set(["input"]); // elements with no end tag

/** An element: tag, attributes ({name: value}; true for a bare attribute, false/null omits
 * it), and inner HTML already built by el() or esc(). */
export function el(tag, attrs, inner = "") {
  let out = `<${tag}`;
  for (const k in attrs) {
    const v = attrs[k];
    if (v === true) out += ` ${k}`;
    else if (v !== false && v != null) out += ` ${k}="${esc(v)}"`;
  }
  return VOID.has(tag) ? `${out}>` : `${out}>${inner}</${tag}>`;
}

/** The root of one view: data-view=name and data-K=V for each parameter (K with "_" dropped,
 * so d_k is data-dk); extra: more attributes of the root. */
export function viewRoot(name, params, inner, extra = {}) {
  const data = Object.fromEntries(Object.entries(params).map(([k, v]) => [`data-${k.replaceAll("_", "")}`, v]));
  return el("div", { class: "mha-view", "data-view": name, ...data, ...extra }, inner);
}

/** [background, text colour] of weight w in the palette (mha.style.weight_colour's table). */
export function weightColour(w, palette) {
  const i = Math.floor(Math.min(Math.max(w, 0), 1) * palette.length);
  return palette[Math.min(i, palette.length - 1)];
}

/** A number's data-value: 12 significant digits. The first view is drawn in Node and the
 * live one in the reader's browser, whose Math.sin/cos/log may differ in the last bit or two
 * (V8 builds differ; randomHeads' Box-Muller uses them): 12 digits hide that difference, so
 * both show the same data-value, within 5e-13 (relative) of the float. */
export function dataValue(v) {
  return String(Number(v.toPrecision(12)));
}

/** A number shown rounded to `digits` decimals, carrying its value (dataValue). */
export function numberHtml(key, v, digits = 2) {
  return el("span", { "data-key": key, "data-value": dataValue(v) }, esc(v.toFixed(digits)));
}

/** A loss with two significant digits, as Python's format(v, ".2g") (0.31, 1.8e-05): one
 * format for a loss wherever the book prints one (the views and the chapters' text). */
export function lossText(v) {
  if (v === 0 || (Math.abs(v) >= 1e-4 && Math.abs(v) < 100)) return String(Number(v.toPrecision(2)));
  const [m, e] = v.toExponential(1).split("e");
  const exp = Number(e);
  return `${Number(m)}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
}

/** An integer count shown with thousands separators (as Python's f"{v:,}"). */
export function countHtml(key, v) {
  return el("span", { "data-key": key, "data-value": String(v) }, esc(thousands(v)));
}

/** An integer with "," between groups of three digits. */
export function thousands(v) {
  return String(v).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** A table cell coloured by weight w in the palette, or by `colours` ([background, text]). */
export function cellHtml(key, w, palette, colours = null) {
  const [bg, fg] = colours ?? weightColour(w, palette);
  return el(
    "td",
    { style: `background:${bg};color:${fg}`, "data-key": key, "data-value": dataValue(w) },
    esc(w.toFixed(2)),
  );
}

/** A cell of a pair that a mask forbids: hatched (class mha-masked), a dash in place of its
 * weight, its data-value still the weight (0), so it is told apart from a weight near 0. */
export function maskedCellHtml(key, w) {
  return el("td", { class: "mha-masked", "data-key": key, "data-value": dataValue(w), "aria-label": "forbidden" }, "–");
}

/** A weight table (n_q, n_k): rows are query words, columns key words; cell [i][j] has
 * data-key `${key}-${i}-${j}`. opts.highlight: a row to frame; opts.mask: (n_q, n_k)
 * booleans, true where allowed (a forbidden pair is a maskedCellHtml), or null. */
export function heatmapHtml(weights, rows, cols, key, palette, opts = {}) {
  const { highlight = null, mask = null } = opts;
  const head =
    el("th", { scope: "col" }, "query ↓ key →") + cols.map((c) => el("th", { scope: "col" }, esc(c))).join("");
  const cell = (w, i, j) => (!mask || mask[i][j] ? cellHtml : maskedCellHtml)(`${key}-${i}-${j}`, w, palette);
  const body = weights
    .map((row, i) =>
      el(
        "tr",
        { class: i === highlight ? "mha-hl" : null },
        el("th", { scope: "row" }, esc(rows[i])) + row.map((w, j) => cell(w, i, j)).join(""),
      ),
    )
    .join("");
  return el("table", { class: "mha-heat" }, el("thead", {}, el("tr", {}, head)) + el("tbody", {}, body));
}

/** One row of weights (n,) as horizontal bars, the weight printed (by `text`, default two
 * decimals): data-key `${key}-${j}`. */
export function barsHtml(row, words, key, palette, text = (v) => v.toFixed(2)) {
  const items = row.map((v, j) =>
    el(
      "div",
      { class: "mha-bar" },
      el("span", { class: "mha-bar-word" }, esc(words[j])) +
        el(
          "span",
          { class: "mha-bar-track" },
          el("span", {
            class: "mha-bar-fill",
            style: `width:${(100 * v).toFixed(1)}%;background:${weightColour(v, palette)[0]}`,
          }),
        ) +
        el("span", { "data-key": `${key}-${j}`, "data-value": dataValue(v) }, esc(text(v))),
    ),
  );
  return el("div", { class: "mha-bars" }, items.join(""));
}

/** One head's panel: a heading over its table or bars. */
export function headBox(title, body) {
  return el("div", { class: "mha-head" }, el("h3", {}, esc(title)) + body);
}

/** A range control over positions 0..values.length-1 of `values`: its visible label, the
 * value shown in an <output>, and aria-valuetext giving the value (not the position);
 * opts.text(value): the shown value (default String(value)). */
export function rangeHtml(name, label, values, value, opts = {}) {
  const at = values.indexOf(value);
  const text = opts.text ? opts.text(value) : String(value); // the shown value
  if (at < 0) throw new Error(`${name} = ${value} is not among [${values}]`);
  return el(
    "label",
    { class: "mha-control" },
    el("span", { class: "mha-control-label" }, esc(label)) +
      el("input", {
        type: "range",
        "data-control": name,
        min: opts.min ?? 0,
        max: opts.max ?? values.length - 1,
        step: 1,
        value: opts.min == null ? at : value,
        "aria-valuetext": text,
        disabled: opts.disabled ?? false,
      }) +
      el("output", { "data-control-value": name }, esc(text)),
  );
}

/** Sets a range control made by rangeHtml over `values` to `value`: its position, its
 * aria-valuetext and its <output> (`text`, the shown value). */
export function syncRange(root, input, values, value, text = String(value)) {
  input.value = String(values.indexOf(value));
  input.setAttribute("aria-valuetext", text);
  const out = root.querySelector(`output[data-control-value="${input.dataset.control}"]`);
  if (out) out.textContent = text;
}

/** What a view says when JavaScript is off, before its controls: they are hidden (they would
 * do nothing) and one line says why. Drawn in the static first view and the live one alike
 * (a <noscript> shows nothing when scripts run), so the two stay the same. */
export function noscriptHtml() {
  const note = "This view's controls need JavaScript, which is off: it shows its first setting.";
  return el("noscript", {}, el("style", {}, ".mha-controls{display:none}") + el("p", { class: "mha-note" }, esc(note)));
}

/** Controls' styles: range tracks of 200 px, targets of at least 24 px, a 3 px focus ring. */
export const CONTROL_CSS = `
.mha-controls{border:1px solid #767676;border-radius:6px;margin:0 0 8px 0;padding:6px 10px;display:flex;flex-wrap:wrap;gap:6px 18px;align-items:center}
.mha-controls legend{font-weight:600;font-size:13px;float:none;width:auto;margin:0;padding:0 4px}
.mha-controls label{display:inline-flex;align-items:center;gap:6px;min-height:24px}
.mha-controls input[type=radio]{width:18px;height:18px;margin:0}
.mha-controls .mha-toggle{display:inline-flex;flex-wrap:wrap;gap:4px 16px}
.mha-controls input[type=range]{width:200px;height:24px;margin:0}
.mha-controls input[type=number],.mha-controls select{min-height:28px;font:inherit;font-size:13px}
.mha-controls input[type=number]{width:9em}
.mha-controls output{min-width:2.5em;font-variant-numeric:tabular-nums}
.mha-controls input:focus-visible,.mha-controls select:focus-visible{outline:3px solid #1a5fb4;outline-offset:2px}
.mha-controls input:disabled+output,.mha-controls label:has(input:disabled){color:#595959}
`;

/** Makes `target`'s contents the HTML `html`, changing only the nodes and attributes that
 * differ. A control step redraws a view whose shape mostly stays (the same tables and bars,
 * other numbers and colours): setting innerHTML would build every element again, and the
 * browser would restyle, lay out and paint all of them; patched, it redoes only what
 * changed. Form controls that differ are replaced whole (an attribute would not reset what a
 * reader has set). In the browser only.
 *
 * Two ways, the same result. The first patch of a target parses `html` into a <template> and
 * walks it beside the page's nodes (patchChildren). It also reads `html` into a small tree of
 * its own (readHtml: el()'s HTML has one grammar, so no browser parser is needed) and keeps
 * it, each node pointing at the page's node it matches (mirror). Each later patch reads the
 * new HTML the same way and compares it with the kept tree, in JavaScript: no parse by the
 * browser, no reading back of the page's attributes, only writes where a value changed
 * (patchTree). Where the page's nodes do not mirror the tree (HTML el() did not write, such
 * as a <table> with no <tbody>, which the browser's parser adds), nothing is kept, and every
 * patch of that target takes the first way. Returns the way taken ("tree" or "dom"). */
export function patchHtml(target, html) {
  const next = readHtml(html);
  const prev = kept.get(target);
  if (prev && prev.length === target.childNodes.length && (!prev.length || prev[0].dom === target.firstChild)) {
    if (patchTree(target, prev, next)) {
      kept.set(target, next);
      return "tree";
    }
  }
  kept.delete(target);
  const parsed = document.createElement("template");
  parsed.innerHTML = html;
  patchChildren(target, parsed.content);
  if (mirror(target, next)) kept.set(target, next);
  return "dom";
}

/** Readies `target` for its first patch while the page is idle: patches it with `html()`,
 * the HTML it already shows (nothing changes), so that the tree is kept and the reader's
 * first control step takes the quick way as well. In the browser only. */
export function patchWhenIdle(target, html) {
  const idle = globalThis.requestIdleCallback ?? ((f) => setTimeout(f, 200));
  idle(() => {
    if (target.isConnected && !kept.has(target)) patchHtml(target, html());
  });
}

// target -> the tree (readHtml) of its children as last patched, each node's .dom its node
const kept = new WeakMap();
const FORM = new Set(["input", "select", "textarea", "option", "button"]); // replaced whole
const TAG = /[a-z][a-z0-9-]*/y;
const ATTRIBUTE = /\s+([^\s=>"'/]+)(?:="([^"]*)")?/y;

/** `html` written by el() and esc() as a list of nodes: {text} for text (as written, its
 * entities not decoded) and {tag, attrs: [[name, value as written]], kids, html, at, end}
 * for an element (html.slice(at, end) is its HTML). Null where it meets HTML of another
 * grammar (a comment, an unquoted attribute, an unclosed or stray tag). */
export function readHtml(html) {
  const top = { kids: [] };
  const open = [top];
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    const stop = lt < 0 ? html.length : lt;
    if (stop > i) open[open.length - 1].kids.push({ text: html.slice(i, stop) });
    if (lt < 0) break;
    if (html[lt + 1] === "/") {
      const gt = html.indexOf(">", lt);
      const node = open.pop();
      if (gt < 0 || open.length === 0 || html.slice(lt + 2, gt) !== node.tag) return null;
      node.end = gt + 1;
      i = gt + 1;
      continue;
    }
    TAG.lastIndex = lt + 1;
    const name = TAG.exec(html);
    if (!name) return null;
    const tag = name[0];
    let j = TAG.lastIndex;
    const attrs = [];
    ATTRIBUTE.lastIndex = j;
    for (let m = ATTRIBUTE.exec(html); m; m = ATTRIBUTE.exec(html)) {
      attrs.push([m[1], m[2] ?? ""]);
      j = ATTRIBUTE.lastIndex;
    }
    if (html[j] !== ">") return null;
    const node = { tag, attrs, kids: [], html, at: lt, end: j + 1 };
    open[open.length - 1].kids.push(node);
    if (!VOID.has(tag)) open.push(node); // el() writes no end tag for these
    i = j + 1;
  }
  return open.length === 1 ? top.kids : null;
}

/** Text or an attribute value as written by esc(), decoded. */
function unescapeHtml(s) {
  if (!s.includes("&")) return s;
  return s
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&#x27;", "'")
    .replaceAll("&amp;", "&");
}

/** Do `parent`'s child nodes match the tree `nodes` one for one (tags and text)? If so, each
 * tree node gets .dom, its page node. */
function mirror(parent, nodes) {
  if (!nodes) return false;
  const dom = parent.childNodes;
  if (dom.length !== nodes.length) return false;
  for (let k = 0; k < nodes.length; k++) {
    const d = dom[k],
      v = nodes[k];
    if (v.tag === undefined) {
      if (d.nodeType !== Node.TEXT_NODE || d.nodeValue !== unescapeHtml(v.text)) return false;
    } else if (d.nodeType !== Node.ELEMENT_NODE || d.localName !== v.tag || !mirror(d, v.kids)) return false;
    v.dom = d;
  }
  return true;
}

/** A new page node for tree node `v` (its .dom set, and its children's), or null. */
function build(v, parent) {
  if (v.tag === undefined) {
    v.dom = document.createTextNode(unescapeHtml(v.text));
    return v.dom;
  }
  if (parent.namespaceURI !== "http://www.w3.org/1999/xhtml") return null; // no SVG here
  const t = document.createElement("template");
  t.innerHTML = v.html.slice(v.at, v.end);
  return mirror(t.content, [v]) ? v.dom : null;
}

/** Patches `parent`'s children from the tree `prev` (that they mirror) to `next`; false if
 * a new node could not be built to mirror `next` (the caller then patches from a parse). */
function patchTree(parent, prev, next) {
  if (!next) return false;
  for (let k = 0; k < next.length; k++) {
    const a = prev[k],
      b = next[k];
    if (a === undefined) {
      const d = build(b, parent);
      if (!d) return false;
      parent.appendChild(d);
    } else if (a.tag !== b.tag || (FORM.has(b.tag) && a.html.slice(a.at, a.end) !== b.html.slice(b.at, b.end))) {
      const d = build(b, parent);
      if (!d) return false;
      parent.replaceChild(d, a.dom);
    } else if (b.tag === undefined) {
      b.dom = a.dom;
      if (a.text !== b.text) b.dom.nodeValue = unescapeHtml(b.text);
    } else {
      b.dom = a.dom;
      patchTreeAttributes(b.dom, a.attrs, b.attrs);
      if (!patchTree(b.dom, a.kids, b.kids)) return false;
    }
  }
  for (let k = next.length; k < prev.length; k++) prev[k].dom.remove();
  return true;
}

function patchTreeAttributes(d, was, want) {
  let same = was.length === want.length;
  for (let k = 0; k < want.length; k++) {
    const [name, value] = want[k];
    const old = was[k];
    if (old && old[0] === name) {
      if (old[1] !== value) d.setAttribute(name, unescapeHtml(value));
    } else {
      same = false;
      d.setAttribute(name, unescapeHtml(value));
    }
  }
  if (same) return; // the same names in the same order: nothing to remove
  const names = new Set(want.map(([name]) => name));
  for (const [name] of was) if (!names.has(name)) d.removeAttribute(name);
}

function patchChildren(old, next) {
  // walked by sibling links, not by index: a node of `next` moves into `old` when it is new
  let o = old.firstChild;
  for (let n = next.firstChild; n; ) {
    const nNext = n.nextSibling;
    if (!o) old.appendChild(n);
    else {
      const oNext = o.nextSibling;
      if (o.nodeType !== n.nodeType || o.nodeName !== n.nodeName) old.replaceChild(n, o);
      else if (o.nodeType !== Node.ELEMENT_NODE) {
        if (o.nodeValue !== n.nodeValue) o.nodeValue = n.nodeValue;
      } else if (FORM.has(o.localName)) {
        if (!o.isEqualNode(n)) old.replaceChild(n, o);
      } else {
        patchAttributes(o, n);
        patchChildren(o, n);
      }
      o = oNext;
    }
    n = nNext;
  }
  while (o) {
    const oNext = o.nextSibling;
    o.remove();
    o = oNext;
  }
}

function patchAttributes(o, n) {
  const want = n.attributes;
  for (let i = 0; i < want.length; i++) {
    const { name, value } = want[i];
    if (o.getAttribute(name) !== value) o.setAttribute(name, value);
  }
  if (o.attributes.length === want.length) return; // o has all of n's, and no others
  for (const { name } of [...o.attributes]) if (!n.hasAttribute(name)) o.removeAttribute(name);
}
