// view_link.mjs: permalinks of the book's anywidget views, and the word the views of a page
// share. view_controller.mjs uses them; the views say only how to read and write their part.
//
// On the site (not in JupyterLab), the page's URL fragment holds the settings of every view
// the reader has moved away from its first setting, one part per view, in the order they were
// first moved: #budget-1:tilt=+2.5&scaling-1:dk=1024,scaled=1 (each view's `link` trait names
// its part). A view at its first setting has no part. Opening such a link sets every view it
// names (and leaves the others at their first setting); so does a new fragment in the same tab
// (hashchange), which also puts back the views it does not name. A fragment that names no view
// (#some-section) changes no view.
//
// And the word a reader picks, shared among the views of one page (heads_view.mjs,
// trained_view.mjs): a view that shows the same word follows the pick (shareWord).

/** Calls `then` once `root` is in the page and no static first view stands before it (the
 * live view has replaced it: book/_ext/static/mha-anywidget-host.js), checking each frame. */
export function whenLive(root, then, frames = 1200) {
  const subarea = root.closest(".widget-subarea");
  const copy = subarea?.previousElementSibling;
  if (root.isConnected && !copy?.classList.contains("mha-static-widget")) then();
  else if (frames > 0) requestAnimationFrame(() => whenLive(root, then, frames - 1));
}

/** The views' parts of the URL fragment `hash`, as a Map from a view's link to its part's
 * text (as written, not decoded): "#a:x=1&b:y=2" gives {a: "x=1", b: "y=2"}; an empty
 * fragment gives an empty Map; a fragment that is not views' parts (#a-section) gives null. */
export function linkParts(hash) {
  const body = hash.startsWith("#") ? hash.slice(1) : hash;
  const parts = new Map();
  if (!body) return parts;
  for (const part of body.split("&")) {
    const m = /^([\w-]+):(.*)$/s.exec(part);
    if (!m) return null;
    parts.set(m[1], m[2]);
  }
  return parts;
}

/** The text of the part of `hash` about the view `link` (as written), or null if none. */
export function linkText(hash, link) {
  return (link && linkParts(hash)?.get(link)) ?? null;
}

/** The [key, value] pairs of the part of `hash` about the view `link`
 * (link:key=value,key=value, decoded), or null if the fragment has no part about it. */
export function linkPairs(hash, link) {
  const text = linkText(hash, link);
  if (text === null) return null;
  let decoded;
  try {
    decoded = decodeURIComponent(text);
  } catch {
    return []; // a malformed escape: nothing to read
  }
  return decoded.split(",").map((part) => part.split("="));
}

/** The settings the fragment `hash` gives the view `link`: each key=value pair whose key
 * `keys` maps to a setting name, its value read as text for the names in `texts` and as a
 * whole number otherwise, kept if valid(name, value) ({} if none; null if not about it). */
export function readSettings(hash, link, keys, texts, valid) {
  const pairs = linkPairs(hash, link);
  if (!pairs) return null;
  const out = {};
  for (const [key, text] of pairs) {
    const name = keys[key];
    const v = texts.includes(name) ? text : /^\d+$/.test(text ?? "") ? Number(text) : Number.NaN;
    if (name && valid(name, v)) out[name] = v;
  }
  return out;
}

/** The fragment `hash` with the part of view `link` set to `part` (the text after "link:"),
 * or without it when `part` is null; a fragment that was not views' parts is dropped. "" when
 * no part is left. */
export function withPart(hash, link, part) {
  const parts = linkParts(hash) ?? new Map();
  if (part === null) parts.delete(link);
  else parts.set(link, part);
  const text = [...parts].map(([k, v]) => `${k}:${v}`).join("&");
  return text ? `#${text}` : "";
}

/** How long after the last change the fragment is written (ms): a reader holding an arrow
 * key changes a view every few tens of ms, and history.replaceState costs about 2 ms a call,
 * on the path from the key press to the frame that shows it. The fragment follows once the
 * reader pauses. */
export const LINK_DELAY_MS = 150;

/** Writes the part of view `link` into the page's URL (null: drops it), without a new
 * history entry and without a hashchange. */
export function storePart(link, part) {
  const hash = withPart(location.hash, link, part);
  if (hash === location.hash || (hash === "" && !location.hash)) return;
  try {
    history.replaceState(history.state, "", hash || location.pathname + location.search);
  } catch {
    // a page where the URL cannot change (a sandboxed frame): the view works without links
  }
}

// The page-level channel of the chosen word: a CustomEvent on window, its detail the view's
// root and the word's label ("mouse", "the (2nd)": the labels the views show, so that a
// repeated word is matched by its occurrence, not by its index in two different sentences).
const WORD_EVENT = "mha-word";

/** The notebook that holds `root` in JupyterLab (views of one notebook share a word), or null
 * on the site (one page, one notebook). */
function notebookOf(root) {
  return root.closest(".jp-Notebook");
}

/** Shares the chosen word of the view `root` with the other views of its page: `pick(label)`
 * is called when a reader picks a word in another of them (the view moves to that word if it
 * shows it). Returns tell(label), to call when the reader picks a word in this view, with
 * tell.close() to stop listening. */
export function shareWord(root, pick) {
  const heard = (e) => {
    const { from, label } = e.detail;
    if (from !== root && root.isConnected && notebookOf(from) === notebookOf(root)) pick(label);
  };
  window.addEventListener(WORD_EVENT, heard);
  const tell = (label) => window.dispatchEvent(new CustomEvent(WORD_EVENT, { detail: { from: root, label } }));
  tell.close = () => window.removeEventListener(WORD_EVENT, heard);
  return tell;
}
