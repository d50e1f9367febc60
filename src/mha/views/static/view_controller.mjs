// view_controller.mjs: the one controller of the book's anywidget views (slider_view.mjs,
// mask_view.mjs, exercise_view.mjs, trained_view.mjs, heads_view.mjs). A view module gives
// its HTML and its maths; viewController(config) gives it anywidget's render, which draws
// the view, turns the reader's control events into trait changes, redraws on the model's
// changes (once per batch), keeps the permalink (view_link.mjs) and shares the chosen word.
//
//   config = {
//     name:     the prefix of the radio groups' names (one group per view drawn on a page),
//     traits:   every trait the view reads beyond BASE_TRAITS; live: those a reader changes
//               (their change redraws),
//     html(state, group) -> the whole view's HTML (the module's renderView),
//     out:      the selector of the part that output(state) draws (patched on each change),
//     output(state) -> that part's HTML,
//     controls: optional {selector, html(state, group), key(state)}: the controls are drawn
//               again (focus kept) when key(state) changes (the trained explorer's heads),
//     sync(root, state): sets the controls to the state (their values, checks, outputs),
//     changes(target, state, event) -> {trait: value} or null: what a control's input or
//               change event asks,
//     link:     {read(hash, state) -> settings or null, write(state) -> "#link:..."}: the
//               view's part of a permalink,
//     word:     optional {control, label(state), index(state, label) -> i or -1}: the chosen
//               word, shared with the page's other views (the trait "word"),
//     memory:   optional () => (state) => {...}: fields added to each state the view draws,
//               from what this drawn view has seen (the goals met so far),
//     after(root, state): optional, after each redraw,
//   }
//
// A widget's list traits may load on demand. Its trait _mha_lazy maps each such list to the
// trait that holds the index of the element shown (book/_ext/static_widgets.py). On the site,
// a page may lack the element shown (null), which the view's output must say is loading. The controller asks for it,
// model.send({load: list, index: k}) (the site's host loads it), and redraws when it comes.
//
// Before the live view replaces the static first view, the reader may have pressed the
// copy's controls: the site's host (book/_ext/static/mha-anywidget-host.js) repeats those
// presses on the live controls at the takeover, as input and change events; they are then
// the view's state, and the permalink of the page follows them (not the fragment it opened).

import { patchHtml, patchWhenIdle } from "./view_html.mjs";
import { LINK_DELAY_MS, linkParts, shareWord, storePart, whenLive } from "./view_link.mjs";

const drawnViews = new Map(); // config.name -> views drawn so far (radio group names)

/** The traits of every view: those of mha.views.anywidgets.View, the one Python base class. */
export const BASE_TRAITS = ["link", "palette", "view_css"];

/** Whether two trait values are the same (lists compared by their items). */
function sameValue(a, b) {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** anywidget's render for the view that `config` describes (above). */
export function viewController(config) {
  return function render({ model, el: host }) {
    const drawn = (drawnViews.get(config.name) ?? 0) + 1;
    drawnViews.set(config.name, drawn);
    const group = `${config.name}-${drawn}`;
    const more = config.memory ? config.memory() : () => ({});
    const traits = [...new Set([...BASE_TRAITS, ...config.traits])];
    const state = () => {
      const s = Object.fromEntries(traits.map((k) => [k, model.get(k)]));
      return Object.assign(s, more(s));
    };
    host.innerHTML = config.html(state(), group);
    const root = host.firstElementChild;
    const out = root.querySelector(config.out);
    patchWhenIdle(out, () => config.output(state()));

    let controlsKey = config.controls?.key(state());
    const redrawControls = (s) => {
      // other controls (other heads, other words): drawn again, the focus kept on its control
      const focused = document.activeElement;
      const name = focused && root.contains(focused) ? focused.dataset.control : null;
      const value = focused ? focused.value : null;
      root.querySelector(config.controls.selector).outerHTML = config.controls.html(s, group);
      const again = name ? [...root.querySelectorAll(`[data-control="${name}"]`)] : [];
      (again.find((e) => e.value === value) ?? again[0])?.focus();
    };
    const redraw = () => {
      const s = state();
      if (config.controls && config.controls.key(s) !== controlsKey) {
        controlsKey = config.controls.key(s);
        redrawControls(s);
      }
      config.sync(root, s);
      patchHtml(out, config.output(s));
      config.after?.(root, s);
    };

    /** Sets the traits `changes` gives that differ from the model's; true if any did. */
    const set = (changes) => {
      let any = false;
      for (const [k, v] of Object.entries(changes)) {
        if (sameValue(model.get(k), v)) continue;
        model.set(k, v);
        any = true;
      }
      if (any) model.save_changes();
      return any;
    };

    // ---- permalinks (on the site only: JupyterLab's page has jupyter-config-data)
    const link = model.get("link");
    const linked = Boolean(link) && !document.getElementById("jupyter-config-data");
    const defaults = Object.fromEntries((config.live ?? []).map((k) => [k, model.get(k)]));
    const first = config.link.write(state()).slice(`#${link}:`.length); // the first setting's part
    let live = false; // the live view is in the page: its permalink is read and written
    let moved = false; // the reader moved the view before it was live
    let fromLink = false; // the changes being drawn came from a link: not written back
    let timer = null;
    const store = () => {
      timer = null;
      const part = config.link.write(state()).slice(`#${link}:`.length);
      storePart(link, part === first ? null : part);
    };
    const relink = () => {
      if (!linked) return;
      if (!live) {
        moved = true;
        return;
      }
      clearTimeout(timer);
      timer = setTimeout(store, LINK_DELAY_MS);
    };
    /** Sets the view to what the fragment `hash` says of it; on a new fragment (hashchange),
     * a view it does not name goes back to its first setting. */
    const follow = (hash, fresh) => {
      const parts = linkParts(hash);
      if (!parts) return; // not a permalink (#a-section): no view changes
      const settings = config.link.read(hash, state()) ?? (fresh ? defaults : null);
      if (!settings) return;
      if (set(settings)) fromLink = true;
      if (parts.has(link) && parts.keys().next().value === link) {
        root.scrollIntoView({ block: "start" }); // the first view the link names
      }
    };
    const onHash = () => {
      if (root.isConnected) follow(location.hash, true);
    };
    if (linked) {
      whenLive(root, () => {
        live = true;
        if (moved)
          relink(); // pressed before live: the press wins over the fragment
        else follow(location.hash, false);
        window.addEventListener("hashchange", onHash);
      });
    }

    // ---- the reader's events
    const onEvent = (e) => {
      const t = e.target;
      if (!t.dataset?.control && t.type !== "radio") return;
      const changes = config.changes(t, state(), e);
      if (!changes) return;
      set(changes);
      if (config.word && t.dataset.control === config.word.control && e.type === "change") {
        tell(config.word.label(state()));
      }
    };
    root.addEventListener("input", onEvent);
    root.addEventListener("change", onEvent);
    // In JupyterLab, a key pressed on a control stays with it: the notebook's own handlers
    // would otherwise take the arrow keys to move among cells.
    root.addEventListener("keydown", (e) => {
      if (e.target.matches("input, select")) e.stopPropagation();
    });

    // ---- the word shared with the page's other views (a peer's pick is written to the link
    // too: the link then holds every view it moved, and opening it moves them all again)
    const tell = config.word
      ? shareWord(root, (label) => {
          const s = state();
          const i = config.word.index(s, label);
          if (i >= 0 && i !== s.word) set({ word: i });
        })
      : null;

    // ---- the model's changes: one redraw per batch (model.set of several traits)
    let queued = false;
    const soon = () => {
      if (queued) return;
      queued = true;
      queueMicrotask(() => {
        queued = false;
        redraw();
        if (fromLink) fromLink = false;
        else relink();
      });
    };
    for (const k of config.live) model.on(`change:${k}`, soon);

    // ---- elements loaded on demand: asked for when missing, drawn when they come
    const lazy = Object.entries(model.get("_mha_lazy") ?? {});
    const ask = () => {
      for (const [list, at] of lazy) {
        if (model.get(list)[model.get(at)] == null) model.send({ load: list, index: model.get(at) });
      }
    };
    for (const [list, at] of lazy) {
      model.on(`change:${at}`, ask);
      model.on(`change:${list}`, redraw);
    }
    ask();
    return () => {
      tell?.close();
      window.removeEventListener("hashchange", onHash);
      for (const k of config.live) model.off(`change:${k}`, soon);
      for (const [list, at] of lazy) {
        model.off(`change:${at}`, ask);
        model.off(`change:${list}`, redraw);
      }
    };
  };
}
