"""Ship only the Font Awesome icons the book shows: the theme's icon CSS and fonts, cut down.

Why this file exists: pydata-sphinx-theme's CSS holds Font Awesome 6's rule for every icon
(about 1,900 rules, 92 KB of its 397 KB), and every page loads two of its webfonts
(``fa-solid-900.woff2`` 156 KB, ``fa-brands-400.woff2`` 118 KB) with about 2,000 glyphs. The
book draws about twenty of them: the header's buttons, the GitHub link, the theme switcher.
That was 0.36 MB of every page's 1.1 to 2.3 MB.

At ``build-finished`` this extension

* collects the ``fa-*`` names in every built page and every script in ``_static`` (the theme's
  own scripts add ``fa-xmark``), but not ``fontawesome.js``, which names every icon and is not
  loaded (``offline_assets.py``);
* writes the theme's CSS without the icon rules that select none of those names;
* subsets the theme's webfonts with fontTools to the code points that some CSS file in
  ``_static`` still draws (``content:"\\f09b"``: the icon rules kept, sphinx-book-theme's
  ``\\f107``).

The CSS is then purged of every other rule that selects nothing on the site
(``lean_pages.purge_css``: most of Bootstrap).

It always starts from the theme's files in its installed package, never from a previous
build's output. A code point the CSS draws that no font holds fails the build. ``test_pages``
checks in the browser that every visible icon is drawn by its font's own glyph, and that the
check fails for a glyph the cut fonts do not hold.
"""

from __future__ import annotations

import re
from itertools import chain
from pathlib import Path

from lean_pages import purge_css, words_in_use  # book/_ext/ is on sys.path
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

THEME_CSS = Path("styles") / "pydata-sphinx-theme.css"
WEBFONTS = Path("vendor") / "fontawesome" / "webfonts"
FA_NAME = re.compile(r"\bfa-[a-z0-9-]+")
# One icon rule of Font Awesome's table: .fa-a:before,.fa-b:before{content:"\f0c9"}
ICON_RULE = re.compile(r'((?:\.fa-[a-z0-9-]+:(?:before|after),?)+)\{content:"\\([0-9a-f]{4})"\}')
# A glyph drawn by a CSS content rule at U+E000 or above, where Font Awesome puts its icons
# (the Private Use Area); a content rule for any other character, an em dash, is text.
DRAWN = re.compile(r'content:\s*"\\([ef][0-9a-f]{3})"')
SOURCE_MAP = re.compile(r"/\*# sourceMappingURL=[^*]*\*/")


def theme_static() -> Path:
    """The installed pydata-sphinx-theme's static folder (the theme's original files)."""
    import pydata_sphinx_theme

    return Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static"


def used_names(outdir: Path) -> set[str]:
    """Every ``fa-*`` name in the built pages and in the scripts they may load."""
    files = chain(outdir.rglob("*.html"), (outdir / "_static").rglob("*.js"))
    names: set[str] = set()
    for path in files:
        if path.name != "fontawesome.js":
            names |= set(FA_NAME.findall(path.read_text(encoding="utf-8", errors="ignore")))
    return names


def cut_css(css: str, names: set[str]) -> tuple[str, int]:
    """``css`` without the icon rules that select none of ``names``; and how many were dropped."""

    dropped = 0

    def keep(m: re.Match[str]) -> str:
        nonlocal dropped
        if set(FA_NAME.findall(m.group(1))) & names:
            return m.group(0)
        dropped += 1
        return ""

    out, _ = SOURCE_MAP.subn("", css)  # the theme's map describes the uncut file
    return ICON_RULE.sub(keep, out), dropped


def drawn_codepoints(css_texts: list[str]) -> set[int]:
    """The icon code points (U+E000 to U+FFFF) that ``content:"\\fxxx"`` rules of these style
    sheets draw."""
    return {int(cp, 16) for text in css_texts for cp in DRAWN.findall(text)}


def subset_font(src: Path, dst: Path, codepoints: set[int]) -> set[int]:
    """Write ``src`` cut down to ``codepoints`` (those it has) to ``dst``; return those kept."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(src, recalcTimestamp=False)
    present = codepoints & set(font.getBestCmap())
    options = subset.Options()
    options.flavor = font.flavor  # woff2 stays woff2 (brotli), ttf stays ttf
    options.notdef_outline = True
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=sorted(present))
    subsetter.subset(font)
    font.save(dst)
    return present


def cut_icons(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    static_out = Path(app.outdir) / "_static"
    if not (static_out / THEME_CSS).exists():
        return
    source = theme_static()
    css, dropped = cut_css(
        (source / THEME_CSS).read_text(encoding="utf-8"), used_names(Path(app.outdir))
    )
    # then every other rule that selects nothing on the site (lean_pages.py: Bootstrap's)
    size = len(css)
    css, purged = purge_css(css, *words_in_use(Path(app.outdir)))
    (static_out / THEME_CSS).write_text(css, encoding="utf-8")

    others = [
        p.read_text(encoding="utf-8") for p in static_out.rglob("*.css") if p.name != THEME_CSS.name
    ]
    wanted = drawn_codepoints([css, *others])
    held: set[int] = set()
    before = after = 0
    for src in sorted((source / WEBFONTS).glob("fa-*")):
        dst = static_out / WEBFONTS / src.name
        held |= subset_font(src, dst, wanted)
        if src.suffix == ".woff2":
            before, after = before + src.stat().st_size, after + dst.stat().st_size
    missing = sorted(wanted - held)
    if missing:
        raise ExtensionError(
            "theme_icons: the CSS draws code points no Font Awesome font holds: "
            + ", ".join(f"U+{cp:04X}" for cp in missing)
        )
    logger.info(
        f"theme_icons: {len(wanted)} icons kept, {dropped} icon rules dropped; "
        f"webfonts {before:,} -> {after:,} bytes; {purged} unused rules dropped, "
        f"theme CSS {size:,} -> {len(css):,} characters"
    )


def setup(app: Sphinx) -> dict:
    app.connect("build-finished", cut_icons)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
