/* Our glue for the ipywidgets HTML manager.
 *
 * Loaded by book/_ext/offline_assets.py on pages that hold widget state, before
 * @jupyter-widgets/html-manager's embed.js (the standalone bundle of the core
 * widgets: no require.js, no loading of widget modules from a CDN).
 *
 * 1. Everything the HTML manager loads comes from this site's own _vendor/
 *    folder: its webpack public path (used for the icon fonts) is set with the
 *    assets-path hook, which embed.js reads when it runs; data-jupyter-widgets-cdn
 *    (only read by the AMD loader) points there too. On pages with anywidget widgets,
 *    require.js and the AMD bundle replace embed.js, and this script renders them
 *    (book/_ext/widget_loader.py says how).
 * 2. The widgets render as soon as the page's HTML is parsed, not at the window's
 *    "load" event, which waits for every figure image and font. embed.js (loaded
 *    after this script, both deferred) registers its renderer for "load"; while it
 *    runs, we pass that one listener to "DOMContentLoaded" instead.
 * 3. (No MathJax: the book's math is typeset at build time, book/_ext/build_math.py, and
 *    no widget label holds TeX.)
 * 4. Sliders are announced by name and shown value: mha-slider-names.js, a script of its
 *    own, as JupyterLab runs it too (lab/mha-lab-sliders).
 * 5. Each widget's first view is already in the page, drawn without JavaScript by
 *    book/_ext/static_widgets.py (div.mha-static-widget, its controls inert). The HTML
 *    manager draws the live widget into the div.widget-subarea it inserts right after that
 *    copy, hidden meanwhile by mha-book.css (.mha-static-widget + .widget-subarea). Once the
 *    live widget has the same elements, classes, inline styles and text as the copy, the
 *    copy is removed, in one DOM change: the reader sees the same view, now working. The
 *    live widget is marked data-mha-takeover="exact" (the browser tests check it). If it
 *    does not come to match within TAKEOVER_MS, it is shown anyway ("timeout", and a
 *    console warning), so that a change of the HTML manager cannot leave the controls dead.
 * 6. Until then, the copy's controls are inert and say so: the pointer over a copy shows
 *    "progress" (mha-book.css), and a press on one (a tap or click lands on the copy, as
 *    inert elements take no events) shows a status line at the foot of the screen
 *    (role="status": read out too), "The controls are starting: a moment…", which reads
 *    "The controls are ready." once every copy of the page has been replaced, then goes.
 */
(function () {
  "use strict";
  var me = document.currentScript;
  var vendor = new URL("../_vendor/", me.src).href;

  window.__jupyter_widgets_assets_path__ = vendor + "@jupyter-widgets/html-manager/dist/";
  // Where libembed-amd's loader would fetch a module that require.js could not load: a folder
  // of this site that holds nothing, so such a module fails here, with no request leaving
  // the page. No data-jupyter-widgets-cdn-only: its mere presence sends every load there.
  me.setAttribute("data-jupyter-widgets-cdn", vendor + "npm/");

  // ---- Pages of anywidget widgets: the AMD bundle (book/_ext/widget_loader.py) ----
  // require.js and the manager's AMD bundle (_vendor/mha-libembed-amd.js) are loaded
  // (deferred, after this script) in place of embed.js; they render nothing by themselves. Once the HTML is parsed, anywidget's AMD
  // module is mapped to the site's copy and the widgets are rendered.
  var AMD_EMBED = "@jupyter-widgets/html-manager/dist/libembed-amd";
  document.addEventListener("DOMContentLoaded", function () {
    var requirejs = window.requirejs;
    var amd = document.querySelector('script[src*="libembed-amd.js"]');
    if (!amd || typeof requirejs !== "function") return;
    requirejs.config({ paths: { anywidget: vendor + "anywidget/dist/index" } });
    requirejs([AMD_EMBED], function (embed) {
      embed.renderWidgets();
    });
  });

  // ---- Render at DOMContentLoaded ----
  var addListener = window.addEventListener;
  window.addEventListener = function (type, listener, options) {
    var script = document.currentScript;
    var fromEmbed = script && /html-manager\/dist\/embed\.js/.test(script.src);
    if (type === "load" && fromEmbed) {
      window.addEventListener = addListener; // only embed.js's own listener moves
      if (document.readyState === "loading") {
        return addListener.call(window, "DOMContentLoaded", listener, options);
      }
      return setTimeout(listener, 0);
    }
    return addListener.call(window, type, listener, options);
  };

  // ---- Static first views hand over to the live widgets ----
  var TAKEOVER_MS = 5000;
  // Elements (tag, classes, inline style) and text of the widget drawn inside ``root``.
  function shape(root) {
    var out = [];
    var walk = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (var n = walk.nextNode(); n; n = walk.nextNode()) {
      if (n.nodeType === 3) {
        if (n.data) out.push("#" + n.data);
      } else {
        out.push(n.tagName + "." + Array.from(n.classList).sort().join(".") + "{" + n.style.cssText + "}");
      }
    }
    return out.join("\n");
  }
  var copies = new Map(); // static copy -> {shape, text length, fallback timer}
  function swap(copy, live, how) {
    var c = copies.get(copy);
    if (c && c.timer) clearTimeout(c.timer);
    copies.delete(copy);
    live.setAttribute("data-mha-takeover", how);
    if (how !== "exact") {
      console.warn("widget " + copy.getAttribute("data-model-id") + " differs from its static first view");
    }
    copy.remove();
    doneWaiting();
  }
  // ---- The waiting state: a press on a control that is not live yet is answered ----
  var notice = null;
  function say(text) {
    if (!notice) {
      notice = document.createElement("div");
      notice.className = "mha-waiting";
      notice.setAttribute("role", "status");
      document.body.appendChild(notice);
    }
    notice.textContent = text;
  }
  document.addEventListener(
    "pointerdown",
    function (e) {
      if (e.target.closest && e.target.closest(".mha-static-widget")) {
        say("The controls are starting: a moment\u2026");
      }
    },
    true
  );
  function doneWaiting() {
    if (!notice || document.querySelector(".mha-static-widget")) return;
    say("The controls are ready.");
    var shown = notice;
    notice = null;
    setTimeout(function () {
      shown.remove();
    }, 2500);
  }

  function takeOver() {
    var found = document.querySelectorAll(".mha-static-widget");
    for (var i = 0; i < found.length; i++) {
      var copy = found[i];
      var live = copy.nextElementSibling;
      if (!live || !live.classList.contains("widget-subarea")) continue;
      var c = copies.get(copy);
      if (!c) {
        c = { shape: shape(copy), length: copy.textContent.length, timer: null };
        copies.set(copy, c);
        c.timer = setTimeout(swap, TAKEOVER_MS, copy, live, "timeout");
      }
      if (live.textContent.length === c.length && shape(live) === c.shape) swap(copy, live, "exact");
    }
    doneWaiting();
  }
  // Runs after each batch of DOM changes, before the browser paints: the widget manager
  // drawing the live widget, its layout styles and classes applied last.
  new MutationObserver(function () {
    takeOver();
  }).observe(document.documentElement, {
    subtree: true,
    childList: true,
    characterData: true,
    attributes: true,
    // style and class: the live widget's layout, applied last.
    attributeFilter: ["style", "class"],
  });
})();
