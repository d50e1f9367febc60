/* A JupyterLab 4 extension, written by hand (no build step): it adds the book's
 * mha-slider-names.js (copied next to this file by lab/install from book/_ext/static) to
 * JupyterLab's page, so that ipywidgets' sliders are announced by name and by the value
 * shown, as on the book's site.
 *
 * JupyterLab loads every extension under share/jupyter/labextensions/<name>/ whose
 * package.json has jupyterlab._build: it adds the script named by "load" to the page, then
 * calls window._JUPYTERLAB[<name>].init(shareScope) and .get("./extension"), a promise of a
 * factory that returns the module, whose default export is the plugin (JupyterLab's
 * bootstrap.js and createModule). This extension shares no module and requires no token,
 * so init has nothing to do.
 */
var _JUPYTERLAB;
(function () {
  "use strict";
  var here = document.currentScript.src;
  var plugin = {
    id: "mha-lab-sliders:plugin",
    description: "Sliders announced by name and by the value shown.",
    autoStart: true,
    activate: function () {
      var script = document.createElement("script");
      script.src = new URL("mha-slider-names.js", here).href;
      document.head.appendChild(script);
    },
  };
  _JUPYTERLAB = _JUPYTERLAB || {};
  _JUPYTERLAB["mha-lab-sliders"] = {
    init: function () {},
    get: function (module) {
      if (module !== "./extension") {
        return Promise.reject(new Error("mha-lab-sliders has no module " + module));
      }
      return Promise.resolve(function () {
        return { __esModule: true, default: plugin };
      });
    },
  };
})();
