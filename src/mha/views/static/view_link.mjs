// view_link.mjs: permalinks of the book's anywidget views (heads_view.mjs, slider_view.mjs,
// trained_view.mjs, exercise_view.mjs, mask_view.mjs).
//
// On the site (not in JupyterLab), the page's URL fragment holds a view's settings, e.g.
// #heads-1:h=4,dk=3 (the view's `link` trait names it): read once the live view has replaced
// the static first view, written once the reader pauses (LINK_DELAY_MS after the last change).
// Each view says how to read and write it.
//
// And the word a reader picks, shared among the views of one page (heads_view.mjs,
// trained_view.mjs): a view that shows the same word follows the pick (shareWord).

/** Calls `then` once `root` is in the page and no static first view stands before it (the
 * live view has replaced it: book/_ext/static/mha-anywidget-host.js), checking each frame. */
export function whenLive(root, then, frames = 1200) {
  const subarea = root.closest(".widget-subarea");
  const copy = subarea && subarea.previousElementSibling;
  if (root.isConnected && !(copy && copy.classList.contains("mha-static-widget"))) then();
  else if (frames > 0) requestAnimationFrame(() => whenLive(root, then, frames - 1));
}

/** The [key, value] pairs the URL fragment `hash` gives the view named `link`
 * (#link:key=value,key=value, decoded as a whole), or null if the fragment is not about it. */
export function linkPairs(hash, link) {
  const prefix = `#${link}:`;
  if (!link || !hash.startsWith(prefix)) return null;
  return decodeURIComponent(hash.slice(prefix.length)).split(",").map((part) => part.split("="));
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
    const v = texts.includes(name) ? text : /^\d+$/.test(text ?? "") ? Number(text) : NaN;
    if (name && valid(name, v)) out[name] = v;
  }
  return out;
}

/** How long after the last change the fragment is written (ms): a reader holding an arrow
 * key changes a view every few tens of ms, and history.replaceState costs about 2 ms a call,
 * on the path from the key press to the frame that shows it. The fragment follows once the
 * reader pauses. */
export const LINK_DELAY_MS = 150;

/** Permalinks for one live view: once live, apply read(location.hash) (settings, {} or
 * null), then keep the fragment equal to write(), LINK_DELAY_MS after the last change;
 * returns the function to call on change. */
export function linkUp(model, root, link, read, write) {
  if (!link || document.getElementById("jupyter-config-data")) return () => {}; // JupyterLab
  let live = false;
  whenLive(root, () => {
    const settings = read(location.hash);
    for (const [k, v] of Object.entries(settings ?? {})) model.set(k, v);
    if (settings && Object.keys(settings).length) model.save_changes();
    if (settings) root.scrollIntoView({ block: "start" });
    live = true;
  });
  let timer = null;
  const store = () => {
    timer = null;
    try {
      history.replaceState(history.state, "", write());
    } catch (e) {
      // a page where the URL cannot change (a sandboxed frame): the view works without links
    }
  };
  return () => {
    if (!live) return;
    clearTimeout(timer);
    timer = setTimeout(store, LINK_DELAY_MS);
  };
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
