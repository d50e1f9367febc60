/* Sliders announced by name and by the value shown, on the book's site and in JupyterLab.
 *
 * ipywidgets draws a slider as a noUiSlider handle (role="slider") with no accessible name,
 * and noUiSlider's aria-valuetext is the handle's position (for a SelectionSlider, the
 * option's index: "2.00" where the reader sees 3), not the readout the reader sees. For
 * every slider of the page, this script labels the handle by the widget's description
 * (aria-labelledby its <label>) and keeps its aria-valuetext equal to the readout, by a
 * MutationObserver, so it follows keyboard, pointer and linked-model changes. Dropdowns
 * need nothing: their <label for> names the <select>, whose value is the selected option.
 *
 * One file, two hosts: the site loads it on every page with widgets (_config.yml,
 * nb_ipywidgets_js), and JupyterLab through the book's small extension lab/mha-lab-sliders
 * (installed by lab/install), which adds it to the page. A slider inside a static first
 * view (.mha-static-widget, inert until the live widget replaces it) is left alone.
 */
(function () {
  "use strict";
  if (window.__mhaSliderNames) return; // (loaded once per page)
  window.__mhaSliderNames = true;
  var labelCount = 0;

  function describeSlider(slider) {
    var handle = slider.querySelector(".noUi-handle");
    if (!handle) return;
    var label = slider.querySelector(".widget-label");
    if (label && label.textContent.trim()) {
      if (!label.id) label.id = "mha-slider-label-" + ++labelCount;
      if (handle.getAttribute("aria-labelledby") !== label.id) {
        handle.setAttribute("aria-labelledby", label.id);
      }
      // ipywidgets writes a missing tooltip as title="null", a description of "null".
      if (label.getAttribute("title") === "null") label.removeAttribute("title");
    }
    var readout = slider.querySelector(".widget-readout");
    var shown = readout ? readout.textContent.trim() : "";
    if (shown && handle.getAttribute("aria-valuetext") !== shown) {
      handle.setAttribute("aria-valuetext", shown);
    }
  }

  function describeSliders() {
    var sliders = document.querySelectorAll(".widget-slider");
    for (var i = 0; i < sliders.length; i++) {
      if (!sliders[i].closest(".mha-static-widget")) describeSlider(sliders[i]);
    }
  }

  // Runs after each batch of DOM changes, before an assistive technology reads the
  // accessibility tree: sliders added, noUiSlider rewriting aria-valuetext, a readout's
  // text changing.
  new MutationObserver(describeSliders).observe(document.documentElement, {
    subtree: true,
    childList: true,
    characterData: true,
    attributes: true,
    attributeFilter: ["aria-valuetext"],
  });
  describeSliders();
})();
