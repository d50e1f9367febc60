"""No new patch of another package in ``book/_ext`` (issue 37: replaced or disconnected
functions of Sphinx, myst-nb, the theme... 0). tests/patches.py says what counts."""

from __future__ import annotations

from tests import patches

# Patches still in book/_ext (round 4 deleted the others). The list may only shrink.
# - fontawesome.js, a comment, stands in for the theme's 1.5 MB script (see the last test).
# - execution.py declares sphinx_multitoc_numbering and sphinx_jupyterbook_latex safe to read
#   in parallel, as their authors have not: Sphinx would read the pages one at a time (a cold
#   build took 65 s instead of 38 s). It does so only while they declare nothing.
LEFT = {
    "book/_ext/static/scripts/fontawesome.js: shadows the theme's scripts/fontawesome.js",
    "book/_ext/execution.py: declares ext.parallel_read_safe for another package",
}


def _without_line(finding: str) -> str:
    """'a.py:12: what' -> 'a.py: what' (line numbers move with every edit)."""
    where, _, what = finding.partition(": ")
    return f"{where.split(':')[0]}: {what}"


def test_book_ext_patches_no_other_package() -> None:
    new = {_without_line(f) for f in patches.patches()} - LEFT
    assert not new, f"patches of other packages in book/_ext: {sorted(new)}"


def test_the_check_finds_each_kind_of_patch() -> None:
    source = """
import sphinx.builders
from myst_nb.ext.eval import EvalRoleAny as Role
def setup(app):
    from myst_nb.core import render
    render.coalesce_streams = len
    Role.run = len
    sphinx.builders.make_chunks = len
    setattr(render, "x", 1)
    a, Role.other = 1, 2
    app.extensions["x"].parallel_read_safe = True
    for listener in app.events.listeners["x"]:
        app.disconnect(listener.id)
"""
    found = [f.split(": ", 1)[1] for f in patches.code_patches(source)]
    assert sorted(found) == sorted(
        [
            "replaces render.coalesce_streams",
            "replaces Role.run",
            "replaces sphinx.builders.make_chunks",
            "setattr(render, 'x', 1)",
            "replaces Role.other",
            "declares app.extensions['x'].parallel_read_safe for another package",
            "reads app.events.listeners",
            "disconnects listener.id",
        ]
    )


def test_the_books_own_objects_and_sphinx_settings_are_not_patches() -> None:
    source = """
import os
import static_widgets
from sphinx.application import Sphinx
def setup(app: Sphinx):
    app.config.html_theme_options = {}
    static_widgets.HOST = "x"
    os.environ["A"] = "1"
    app.connect("builder-inited", len)
"""
    assert patches.code_patches(source, local={"static_widgets"}) == []


def test_a_static_file_at_a_theme_path_shadows_it(tmp_path) -> None:
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "fontawesome.js").write_text("")
    (tmp_path / "mha-book.css").write_text("")
    theme = {"scripts/fontawesome.js", "styles/theme.css"}
    assert patches.shadowed(tmp_path, theme) == [
        "book/_ext/static/scripts/fontawesome.js: shadows the theme's scripts/fontawesome.js"
    ]
    assert "scripts/fontawesome.js" in patches.theme_static_files()  # the installed theme's


# What the last patch stands in for: the installed theme's own script, 1,489,308 bytes in
# pydata-sphinx-theme 0.17.1 (which sphinx-book-theme 1.3.0 pins). pydata-sphinx-theme 0.24.0
# ships one of 89 KB that draws only the icons its pages use, so the patch can go once an
# upgrade brings that script. 300 KB: well above the fixed script, well below the old one.
BIG_SCRIPT = 300_000


def test_the_theme_script_that_fontawesome_js_shadows_is_still_big() -> None:
    """Fails when an upgrade brings the theme's small script: then delete
    book/_ext/static/scripts/fontawesome.js, empty LEFT, and drop the CSS rules of
    mha-book.css that size the glyphs it leaves to the theme's fonts."""
    scripts = [d / "scripts" / "fontawesome.js" for d in patches.theme_static_dirs()]
    found = [s for s in scripts if s.is_file()]
    assert found, "the theme's scripts/fontawesome.js is gone: delete the file that shadows it"
    size = max(s.stat().st_size for s in found)
    assert size > BIG_SCRIPT, (
        f"the theme's fontawesome.js is {size:,} bytes now: the shadow is no longer needed"
    )


def test_the_parallel_declaration_stops_and_warns_once_an_extension_declares_itself(
    caplog,
) -> None:
    """execution.py declares only for an extension that declares nothing, and warns (a build
    error under -W) when one declares itself, so that the declaration is deleted then."""
    from types import SimpleNamespace

    from tests.book_ext import execution

    silent, declared = (
        SimpleNamespace(parallel_read_safe=None),
        SimpleNamespace(parallel_read_safe=False),
    )
    app = SimpleNamespace(
        extensions={"sphinx_multitoc_numbering": silent, "sphinx_jupyterbook_latex": declared}
    )
    execution.declare_parallel_safe(app)
    assert silent.parallel_read_safe is True
    assert declared.parallel_read_safe is False  # its own word stands
    assert "sphinx_jupyterbook_latex now declares parallel_read_safe" in caplog.text
    assert "sphinx_multitoc_numbering" not in caplog.text
