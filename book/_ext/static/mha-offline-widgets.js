/* Why this file: the MathJax 2 -> 3 bridge for widget labels, on pages that hold widget state
 * (_config.yml's nb_ipywidgets_js). What else it did went with the ipywidgets HTML manager
 * (issue 22): the site's widgets are anywidget views drawn by book/_ext/static/
 * mha-anywidget-host.js, which also hands each static first view over to its live view.
 *
 * 3. ipywidgets 8 typesets labels with the MathJax 2 API
 *    (MathJax.Hub.Queue(["Typeset", MathJax.Hub, el])); Sphinx loads MathJax 3,
 *    which has no Hub. We give every object assigned to window.MathJax a
 *    non-enumerable Hub whose Queue forwards to MathJax 3's typesetPromise.
 */
(function () {
  "use strict";

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
