/* Why this file: the site's own host for anywidget views. Every page of the site that holds
 * widgets loads this script (a few KB; _config.yml's nb_ipywidgets_js) and no widget manager:
 * every widget of the book is an anywidget view, and book/_ext/static_widgets.py stops the
 * build on a page whose widgets this host cannot draw.
 *
 * Stands in for: myst-nb's default nb_ipywidgets_js (require.js and the ipywidgets HTML manager,
 * embed-amd.js, from a CDN).
 *
 * An anywidget module needs very little of a widget manager: it is an ES module whose
 * render({model, el}) draws into an element and talks to its model through get, set,
 * save_changes, on and off. On the site there is no kernel, so the model is the saved
 * state of the page (myst-nb's <script type="application/vnd.jupyter.widget-state+json">)
 * and nothing is sent anywhere. For each <script type="application/vnd.jupyter.widget-view+json">
 * of the page, as soon as the parser has read it (this script runs in the head, not deferred,
 * and watches the parser's additions; the rest of the page need not have arrived):
 *
 * 1. the view is drawn into a div.widget-subarea of its own (the class JupyterLab's output
 *    areas give a widget, which mha-book.css and the views' permalinks find);
 * 2. the model: get(name); set(name, value), which fires "change:name" then "change" at
 *    once when the value changed, as the manager's Backbone models do; save_changes() does
 *    nothing (no kernel); send({load: list, index: k}) loads element k of a list trait that
 *    the page lacks (6); on(event, callback) and off(event, callback);
 * 3. the widget's module: the page's saved state names its view (_mha_view, "budget_view"...:
 *    book/_ext/static_widgets.py), which the page's one copy of every view gives
 *    (_static/mha-views.js, loaded before this script: a classic script that sets mhaViews,
 *    built by esbuild from src/mha/views/static; Chromium runs no module script from a
 *    file:// page). Its default export (an object, or a function returning one) gives
 *    initialize({model}) (optional) and render({model, el});
 * 4. once drawn, the live view takes the place of the view's static first view (drawn at
 *    build time by the same module: book/_ext/static_widgets.py, div.mha-static-widget, its
 *    controls inert) in one DOM change, or goes before the script when there is none. It is
 *    marked data-mha-takeover="exact" when it has the same elements, classes, inline styles
 *    and text as the copy (the browser tests check it), else "differs" (and a console
 *    warning): the reader then sees the same view, now working;
 * 5. until then, the copy's controls work as plain form controls: this script takes their
 *    `inert` away as soon as the parser has read them (inert stays with JavaScript off, where
 *    each view says that it needs it). A press on them shows a status line at the foot of the
 *    screen (role="status": read out too), "The controls are starting: a moment…", which
 *    reads "The controls are ready." once every copy of the page has been replaced, then goes
 *    (mha-book.css: .mha-waiting; the pointer over a copy shows "progress"). At the takeover,
 *    what the reader changed in the copy's controls (a slider moved, a radio or box checked,
 *    a word picked or typed) is done again on the live view's controls, as input and change
 *    events, and the focus moves with it: no press is lost.
 * 6. a list trait may load its elements on demand (the widget's _mha_lazy; in the page, the
 *    element is null and its file's name is _mha_files[list][k]: book/_ext/static_widgets.py).
 *    At the view's send({load: list, index: k}), the file _static/mha-data/<name>.js is loaded
 *    once per page, by a classic script (Chromium runs no fetch() from file://) that calls
 *    mhaData(name, element); the model's list then gets it, firing "change:list".
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
      send: function (msg) {
        var file = msg && msg.load && ((state._mha_files || {})[msg.load] || [])[msg.index];
        if (!file) return;
        loadData(file).then(function (value) {
          if (state[msg.load][msg.index] != null) return;
          var list = state[msg.load].slice();
          list[msg.index] = value;
          model.set(msg.load, list);
        }, console.error);
      },
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

  // ---- Elements of list traits loaded on demand (6) ----
  var HOST_URL = document.currentScript.src;
  var data = {}; // file name -> the promise of its element
  var arrived = {}; // file name -> that promise's resolve, which the file calls (mhaData)
  window.mhaData = function (file, value) {
    arrived[file](value);
  };
  function loadData(file) {
    data[file] =
      data[file] ||
      new Promise(function (resolve, reject) {
        arrived[file] = resolve;
        var script = document.createElement("script");
        script.src = new URL("mha-data/" + file + ".js", HOST_URL).href;
        script.onerror = function () {
          delete data[file]; // asked again, tried again
          reject(new Error("could not load " + script.src));
        };
        document.head.appendChild(script);
      });
    return data[file];
  }

  var widgets = new Map(); // view name -> its widget definition
  function widgetOf(name) {
    var views = window.mhaViews || {};
    if (!Object.hasOwn(views, name)) {
      throw new Error("no view " + name + " in mha-views.js");
    }
    if (!widgets.has(name)) {
      var def = views[name].default || views[name];
      widgets.set(name, typeof def === "function" ? def() : def);
    }
    return widgets.get(name);
  }

  function renderOne(script, models) {
    var id = JSON.parse(script.textContent).model_id;
    var saved = models[id];
    if (!saved || saved.model_module !== "anywidget") {
      throw new Error("widget " + id + " is not an anywidget model of this page's saved state");
    }
    var state = Object.assign({}, saved.state);
    var el = document.createElement("div");
    el.className = "widget-subarea";
    var widget = widgetOf(state._mha_view);
    var model = makeModel(state);
    return Promise.resolve(widget.initialize && widget.initialize({ model: model }))
      .then(function () {
        return widget.render({ model: model, el: el });
      })
      .then(function () {
        takeOver(script, el);
      });
  }

  // ---- The static first view hands over to the live view (4) ----
  // Elements (tag, classes, inline style) and text of what is drawn inside ``root``.
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
  function takeOver(script, live) {
    var copy = script.previousElementSibling;
    if (!copy || !copy.classList.contains("mha-static-widget")) {
      script.parentNode.insertBefore(live, script);
      return;
    }
    var how = shape(copy) === shape(live) ? "exact" : "differs";
    live.setAttribute("data-mha-takeover", how);
    if (how !== "exact") {
      console.warn("widget " + copy.getAttribute("data-model-id") + " differs from its static first view");
    }
    var focused = copy.contains(document.activeElement) ? document.activeElement : null;
    copy.replaceWith(live);
    carryPresses(copy, live, focused);
    doneWaiting();
  }

  // ---- A press on a copy before the takeover is done again on the live view (5) ----
  var CONTROLS = "input, select, textarea";
  function changed(c) {
    if (c.type === "radio") return c.checked && !c.defaultChecked;
    if (c.type === "checkbox") return c.checked !== c.defaultChecked;
    if (c.tagName === "SELECT") {
      return Array.prototype.some.call(c.options, function (o) {
        return o.selected !== o.defaultSelected;
      });
    }
    return c.value !== c.defaultValue;
  }
  function carryPresses(copy, live, focused) {
    var was = copy.querySelectorAll(CONTROLS);
    var now = live.querySelectorAll(CONTROLS);
    if (was.length !== now.length) return; // not the same controls: nothing to match
    for (var i = 0; i < was.length; i++) {
      var a = was[i];
      var b = now[i];
      if (a.type !== b.type || a.getAttribute("data-control") !== b.getAttribute("data-control")) return;
      if (changed(a) && !b.disabled) {
        if (a.type === "radio" || a.type === "checkbox") b.checked = a.checked;
        else b.value = a.value;
        b.dispatchEvent(new Event("input", { bubbles: true }));
        b.dispatchEvent(new Event("change", { bubbles: true }));
      }
      if (a === focused) b.focus();
    }
  }
  function wake(copy) {
    copy.querySelectorAll("[inert]").forEach(function (e) {
      e.removeAttribute("inert");
    });
  }

  // ---- The waiting state: a press on a control that is not live yet is answered (5) ----
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
    true,
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

  // ---- Each view is drawn as soon as the parser has read it (1) ----
  // This script is loaded in the page's head, after the saved state, without defer: a view's
  // first module import starts while the rest of the page is still being parsed, and a
  // view near the top is live before the page's last line has arrived. A view script is
  // ready once the parser has gone past its end (a node follows it, or parsing is done).
  var models = null;
  var started = new Set();
  function parsedPast(node) {
    if (document.readyState !== "loading") return true;
    for (var e = node; e; e = e.parentNode) if (e.nextSibling) return true;
    return false;
  }
  function renderReady(scripts) {
    if (!models) {
      var saved = document.querySelector(STATE);
      if (!saved || !parsedPast(saved)) return;
      models = JSON.parse(saved.textContent).state;
    }
    Array.prototype.forEach.call(scripts, function (script) {
      var copy = script.previousElementSibling;
      if (copy && copy.classList.contains("mha-static-widget")) wake(copy);
      if (started.has(script) || !parsedPast(script)) return;
      started.add(script);
      Promise.resolve()
        .then(function () {
          return renderOne(script, models);
        })
        .catch(function (err) {
          console.error("anywidget view failed to draw; its first view stays", err);
        });
    });
  }

  // A key that moves a slider of a widget concerns that slider only. The theme's
  // Bootstrap listens to every key on the document (for its dropdown menus, in the capture
  // phase) and searches the whole page for its menus each time: about 1 ms a press on a long
  // chapter (chapter 5 has 11,000 elements). Such a key stops at the document (this listener
  // comes first: this script runs before the theme's deferred ones); the slider still moves
  // (stopping an event keeps its default action).
  var SLIDER_KEYS = ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"];
  function sliderKey(e) {
    var t = e.target;
    if (
      SLIDER_KEYS.indexOf(e.key) >= 0 &&
      t instanceof HTMLInputElement &&
      t.type === "range" &&
      t.closest(".widget-subarea")
    )
      e.stopImmediatePropagation();
  }
  document.addEventListener("keydown", sliderKey, true);
  document.addEventListener("keyup", sliderKey, true);

  // Every copy the parser has read works once the page is read, even while the views' modules
  // load (renderReady above wakes each one earlier, as its script arrives).
  document.addEventListener("readystatechange", function () {
    document.querySelectorAll(".mha-static-widget").forEach(wake);
  });

  if (document.readyState === "loading") {
    // Only the view scripts in each batch the parser adds are looked at (not the whole
    // page each time); one stays waiting until the parser has gone past it.
    var waiting = [];
    var watcher = new MutationObserver(function (records) {
      records.forEach(function (record) {
        record.addedNodes.forEach(function (node) {
          if (node.nodeType !== 1) return;
          if (node.matches(VIEW)) waiting.push(node);
          else if (node.firstElementChild) waiting.push.apply(waiting, node.querySelectorAll(VIEW));
        });
      });
      renderReady(waiting);
      waiting = waiting.filter(function (script) {
        return !started.has(script);
      });
    });
    watcher.observe(document.documentElement, { childList: true, subtree: true });
    document.addEventListener("DOMContentLoaded", function () {
      watcher.disconnect();
      renderReady(document.querySelectorAll(VIEW));
    });
  } else renderReady(document.querySelectorAll(VIEW));
})();
