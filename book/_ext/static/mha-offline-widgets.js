/* Our glue between the ipywidgets HTML manager and MathJax 3.
 *
 * Loaded by book/_ext/offline_assets.py on pages that hold widget state, before
 * @jupyter-widgets/html-manager's embed.js (the standalone bundle of the core
 * widgets: no require.js, no loading of widget modules from a CDN).
 *
 * 1. Everything the HTML manager loads comes from this site's own _vendor/
 *    folder: its webpack public path (used for the icon fonts) is set with the
 *    assets-path hook, which embed.js reads when it runs; data-jupyter-widgets-cdn
 *    (only read by the AMD loader, which embed.js does not use) points there too.
 * 2. The widgets render as soon as the page's HTML is parsed, not at the window's
 *    "load" event, which waits for every figure image and font. embed.js (loaded
 *    after this script, both deferred) registers its renderer for "load"; while it
 *    runs, we pass that one listener to "DOMContentLoaded" instead.
 * 3. ipywidgets 8 typesets labels with the MathJax 2 API
 *    (MathJax.Hub.Queue(["Typeset", MathJax.Hub, el])); Sphinx loads MathJax 3,
 *    which has no Hub. We give every object assigned to window.MathJax a
 *    non-enumerable Hub whose Queue forwards to MathJax 3's typesetPromise.
 */
(function () {
  "use strict";
  var me = document.currentScript;
  var vendor = new URL("../_vendor/", me.src).href;

  window.__jupyter_widgets_assets_path__ = vendor + "@jupyter-widgets/html-manager/dist/";
  me.setAttribute("data-jupyter-widgets-cdn", vendor + "npm/");
  me.setAttribute("data-jupyter-widgets-cdn-only", "");

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

  // ---- MathJax 2 -> 3 bridge ----
  var pending = [];
  function typeset(elements) {
    var mj = window.MathJax;
    if (!mj || typeof mj.typesetPromise !== "function") {
      Array.prototype.push.apply(pending, elements);
      return;
    }
    var ready = (mj.startup && mj.startup.promise) || Promise.resolve();
    var next = ready
      .then(function () {
        return mj.typesetPromise(elements);
      })
      .catch(function (err) {
        console.warn("MathJax typeset of a widget label failed", err);
      });
    if (mj.startup) mj.startup.promise = next;
  }
  var hub = {
    Queue: function () {
      for (var i = 0; i < arguments.length; i++) {
        var job = arguments[i];
        if (Array.isArray(job) && job[0] === "Typeset" && job[2]) typeset([job[2]]);
      }
    },
  };
  function addHub(obj) {
    if (obj && typeof obj === "object" && !obj.Hub) {
      Object.defineProperty(obj, "Hub", { value: hub, enumerable: false, configurable: true });
    }
  }
  var current = window.MathJax;
  addHub(current);
  Object.defineProperty(window, "MathJax", {
    configurable: true,
    enumerable: true,
    get: function () {
      return current;
    },
    set: function (value) {
      current = value;
      addHub(value);
    },
  });
  // Labels rendered before MathJax 3 finished loading are typeset once it has.
  window.addEventListener("load", function () {
    var mj = window.MathJax;
    if (mj && mj.startup && mj.startup.promise && pending.length) {
      mj.startup.promise.then(function () {
        var els = pending.splice(0);
        typeset(els);
      });
    }
  });
})();
