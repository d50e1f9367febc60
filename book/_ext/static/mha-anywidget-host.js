/* The site's own host for anywidget views: a page whose every widget is an anywidget view
 * loads this script (a few KB) in place of the ipywidgets HTML manager (embed.js, 1.9 MB;
 * with anywidget, require.js and the manager's AMD bundle, 2.8 MB). Which pages, and why
 * that is safe, is book/_ext/widget_loader.py's `can_host`.
 *
 * An anywidget module needs very little of a widget manager: it is an ES module whose
 * render({model, el}) draws into an element and talks to its model through get, set,
 * save_changes, on and off. On the site there is no kernel, so the model is the saved
 * state of the page (myst-nb's <script type="application/vnd.jupyter.widget-state+json">)
 * and nothing is sent anywhere. Once the HTML is parsed, for each
 * <script type="application/vnd.jupyter.widget-view+json"> of the page:
 *
 * 1. the view is drawn into the DOM the HTML manager gives an anywidget view
 *    (div.widget-subarea > div.lm-Widget.jupyter-widgets-disconnected), inserted before the
 *    script once drawn, so the static first
 *    view before it (book/_ext/static_widgets.py) hands over to it exactly as to the
 *    manager's views (mha-offline-widgets.js: data-mha-takeover="exact");
 * 2. the model: get(name); set(name, value), which fires "change:name" then "change" at
 *    once when the value changed, as the manager's Backbone models do; save_changes() and
 *    send() do nothing (no kernel); on(event, callback) and off(event, callback);
 * 3. the widget's module (its _esm trait, a string) is imported from a blob: URL, as
 *    anywidget does (it works from file:// too, and no request leaves the page), once per
 *    distinct module; its default export (an object, or a function returning one) gives
 *    initialize({model}) (optional) and render({model, el}).
 *
 * A view that fails to draw logs the error and leaves its static first view in place.
 */
(function () {
  "use strict";
  var STATE = 'script[type="application/vnd.jupyter.widget-state+json"]';
  var VIEW = 'script[type="application/vnd.jupyter.widget-view+json"]';

  function makeModel(state) {
    var listeners = {}; // event -> [callback]
    function fire(event, args) {
      (listeners[event] || []).slice().forEach(function (cb) {
        cb.apply(null, args);
      });
    }
    var model = {
      get: function (name) {
        return state[name];
      },
      set: function (name, value) {
        if (Object.is(state[name], value)) return;
        state[name] = value;
        fire("change:" + name, [model, value]);
        fire("change", [model]);
      },
      save_changes: function () {},
      send: function () {},
      on: function (event, cb) {
        (listeners[event] = listeners[event] || []).push(cb);
      },
      off: function (event, cb) {
        if (!event) listeners = {};
        else if (!cb) delete listeners[event];
        else
          listeners[event] = (listeners[event] || []).filter(function (f) {
            return f !== cb;
          });
      },
    };
    return model;
  }

  var modules = new Map(); // module text -> Promise of its widget definition
  function widgetOf(esm) {
    if (!modules.has(esm)) {
      var url = URL.createObjectURL(new Blob([esm], { type: "text/javascript" }));
      modules.set(
        esm,
        import(url).then(function (mod) {
          var def = mod.default || mod;
          return typeof def === "function" ? def() : def;
        })
      );
    }
    return modules.get(esm);
  }

  function renderOne(script, models) {
    var id = JSON.parse(script.textContent).model_id;
    var saved = models[id];
    if (!saved || saved.model_module !== "anywidget") {
      throw new Error("widget " + id + " is not an anywidget model of this page's saved state");
    }
    var state = Object.assign({}, saved.state);
    var subarea = document.createElement("div");
    subarea.className = "widget-subarea";
    var el = document.createElement("div");
    el.className = "lm-Widget jupyter-widgets-disconnected";
    subarea.appendChild(el);
    return widgetOf(state._esm).then(function (widget) {
      var model = makeModel(state);
      return Promise.resolve(widget.initialize && widget.initialize({ model: model }))
        .then(function () {
          return widget.render({ model: model, el: el });
        })
        .then(function () {
          script.parentNode.insertBefore(subarea, script); // drawn: now it can take over
        });
    });
  }

  function renderAll() {
    var saved = document.querySelector(STATE);
    if (!saved) return;
    var models = JSON.parse(saved.textContent).state;
    document.querySelectorAll(VIEW).forEach(function (script) {
      Promise.resolve()
        .then(function () {
          return renderOne(script, models);
        })
        .catch(function (err) {
          console.error("anywidget view failed to draw; its first view stays", err);
        });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", renderAll);
  else renderAll();
})();
