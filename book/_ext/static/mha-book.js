/* Why this file: a link to a heading of a chapter, followed from another page (or a reload
 * of such a link), must land on that heading.
 *
 * The site lets the browser skip the sections, and the blocks of text with formulas, that are
 * far off screen (content-visibility in mha-book.css): each is laid out at an estimated
 * height until it comes near the screen. Chromium scrolls to the link's heading while the page
 * is still loading, and the skipped parts above it then change height, so the reader could
 * land thousands of pixels away (chapter 5's "Switching heads off": 6,109 px above its
 * heading). Once the page has loaded, every part is drawn for one frame, which gives each
 * its true height, and the heading is scrolled to again, unless the reader has scrolled,
 * pressed a key or clicked by then. A link followed within the page (the contents in the
 * margin) lands right without this: the page is laid out by then. tests/browser/test_reflow.py
 * follows such links.
 */
(function () {
  "use strict";
  var moved = false;
  ["wheel", "touchmove", "keydown", "mousedown"].forEach(function (type) {
    window.addEventListener(type, function () {
      moved = true;
    }, { capture: true, once: true, passive: true });
  });
  function target() {
    if (location.hash.length < 2) return null;
    try {
      return document.getElementById(decodeURIComponent(location.hash.slice(1)));
    } catch (e) {
      return null; // a fragment that is not an element's id (a view's permalink)
    }
  }
  // Every part of the page drawn for one frame (html.mha-draw-all, mha-book.css), so that the
  // browser records each skipped part's true height (contain-intrinsic-size: auto) and lays
  // it out at that height from then on; then the heading is scrolled to, and stays.
  function land() {
    var t = target();
    if (!t || moved) return;
    var html = document.documentElement;
    html.classList.add("mha-draw-all");
    requestAnimationFrame(function () {
      requestAnimationFrame(function () {
        html.classList.remove("mha-draw-all");
        if (!moved) t.scrollIntoView();
      });
    });
  }
  window.addEventListener("load", land);
})();
