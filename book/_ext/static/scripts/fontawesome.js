/* Why this file: it stands in for pydata-sphinx-theme's _static/scripts/fontawesome.js (1.5 MB,
 * 0.54 MB gzip, on every page; the theme has no option to leave it out), which replaces each
 * <i class="fa-..."> icon by an SVG. The theme's CSS already draws those icons as glyphs of
 * the Font Awesome webfonts it ships, so the site needs none of that script. How: Sphinx
 * copies html_static_path after the theme's static files, "so a file named default.css will
 * overwrite the theme's default.css" (Sphinx's html_static_path documentation); the page
 * still loads this file, empty. pydata-sphinx-theme 0.24 ships an 89 KB script: when an upgrade
 * brings it, tests/test_patches.py fails, and this file goes. */
