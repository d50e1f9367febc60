/* Why this file: it stands in for pydata-sphinx-theme's _static/scripts/fontawesome.js (1.5 MB,
 * 0.54 MB gzip, on every page), which replaces each <i class="fa-..."> icon by an SVG. The
 * theme's CSS already draws those icons as glyphs of the Font Awesome webfonts it ships, so
 * the site needs none of that script. How: Sphinx copies html_static_path (book/_ext/static)
 * after the theme's static files, so this file takes the theme's file's place (Sphinx's
 * documented way to replace a theme's static file); the page still loads it, empty. Delete
 * this file to ship the theme's script again. */
