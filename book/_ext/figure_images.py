"""The site's figure PNGs as palette images: the same pictures in about half the bytes.

Stands in for: no upstream option (neither matplotlib's ``savefig`` nor myst-nb writes
palette PNGs); delete it and the pages only weigh more.

Why this exists: matplotlib writes full-colour PNGs, but a figure holds a few colours and
their anti-aliased edges, which 256 palette entries draw without a visible difference. Every
page must stay within the browser tests' byte budget (tests/browser/test_pages.py), and
chapter 5's figures alone weighed about 0.5 MB. At the end of an HTML build, every PNG in
``_images`` that is not yet a palette image is quantised (no dithering) and saved with
zlib's best compression. The PDF uses the vector copies of the figures, not these.

Loaded by jupyter-book through ``sphinx: local_extensions`` in ``_config.yml``.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from PIL import Image
from sphinx.application import Sphinx


def palette_png(path: Path) -> None:
    """Quantise the PNG at ``path`` to 256 colours, unless it is a palette image already."""
    with Image.open(path) as image:
        if image.mode == "P":
            return
        palette = image.convert("RGBA").quantize(
            256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
        )
    palette.save(path, optimize=True)


def palette_pngs(app: Sphinx, exception: Exception | None) -> None:
    """Quantise every full-colour PNG of the built site's ``_images`` to 256 colours, on
    every core (Pillow's quantising and zlib release the interpreter's lock)."""
    if exception is not None or app.builder.format != "html":
        return
    paths = sorted((Path(app.outdir) / "_images").glob("*.png"))
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        list(pool.map(palette_png, paths))


def setup(app: Sphinx) -> dict:
    app.connect("build-finished", palette_pngs)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
