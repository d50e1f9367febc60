// view_link.mjs: permalinks of the book's anywidget views (heads_view.mjs, slider_view.mjs).
//
// On the site (not in JupyterLab), the page's URL fragment holds a view's settings, e.g.
// #heads-1:h=4,dk=3 (the view's `link` trait names it): read once the live view has replaced
// the static first view, written on every change. Each view says how to read and write it.

/** Calls `then` once `root` is in the page and no static first view stands before it (the
 * live view has replaced it: book/_ext/static/mha-offline-widgets.js), checking each frame. */
export function whenLive(root, then, frames = 1200) {
  const subarea = root.closest(".widget-subarea");
  const copy = subarea && subarea.previousElementSibling;
  if (root.isConnected && !(copy && copy.classList.contains("mha-static-widget"))) then();
  else if (frames > 0) requestAnimationFrame(() => whenLive(root, then, frames - 1));
}

/** Permalinks for one live view: once live, apply read(location.hash) (settings, {} or
 * null), then keep the fragment equal to write(); returns the function to call on change. */
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
  return () => {
    if (!live) return;
    try {
      history.replaceState(history.state, "", write());
    } catch (e) {
      // a page where the URL cannot change (a sandboxed frame): the view works without links
    }
  };
}
