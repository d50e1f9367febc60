"""Patches of other packages in the book's build code (``book/_ext``), found by reading it.

Issue 37's goal "replaced or disconnected private functions of other packages: 0" as a
measurement (``make bench``) and a check (``tests/test_patches.py``). It reads the code; it
does not run it. What counts as a patch:

* **replaced**: an assignment (``=``, ``+=``, annotated, ``setattr(...)`` or ``delattr``) to an
  attribute reached from a name that an ``import`` bound to a module of another package, or
  to something imported from one (``render.coalesce_streams = ...``,
  ``EvalRoleAny.run = ...``, ``sphinx.builders.make_chunks = ...``). Imports anywhere in the
  file count (inside functions too); names of the book's own modules (``book/_ext/*.py``)
  do not.
* **disconnected**: a call of ``.disconnect(...)`` (Sphinx's ``app.disconnect`` of a handler
  another package connected), and any read of ``.events.listeners`` (another package's
  handlers looked up by name).
* **declared for another**: an assignment to ``.parallel_read_safe`` or ``.parallel_write_safe``
  (``execution.py`` declares two other packages' extensions safe to read in parallel, which
  their authors have not declared: Sphinx would otherwise read every page in one process).
* **shadowed**: a file in ``book/_ext/static`` (the site's ``html_static_path``) at the same
  relative path as a file of the installed theme's static folders, which it then replaces
  on the site (the theme's own script or style sheet).

What it cannot see: a patch done through an alias the code made first (``m = render;
m.x = ...``), ``exec``, or a change to an object another package hands to a callback. It is
a floor, not a proof.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXT = ROOT / "book" / "_ext"
STATIC = EXT / "static"
THEMES = ("sphinx_book_theme", "pydata_sphinx_theme")
# What an extension's setup() declares to Sphinx about itself.
SAFETY = ("parallel_read_safe", "parallel_write_safe")


def _root_name(node: ast.expr) -> str | None:
    """``a`` of ``a.b.c`` (through attributes and subscripts), else None."""
    while isinstance(node, ast.Attribute | ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _imported_names(tree: ast.AST, local: set[str]) -> dict[str, str]:
    """{name bound by an import anywhere in ``tree``: the module it comes from}, for modules
    that are not the book's own (``local``)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                top = a.name.split(".")[0]
                if top not in local:
                    names[a.asname or top] = a.name
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and node.module
            and node.module.split(".")[0] not in local
        ):
            for a in node.names:
                names[a.asname or a.name] = f"{node.module}.{a.name}"
    return names


def code_patches(source: str, where: str = "<code>", local: set[str] | None = None) -> list[str]:
    """Every replaced or disconnected function, or declaration made for another extension, that
    ``source`` holds, one line each
    (``where:line: what``). ``local``: the names of the book's own modules."""
    tree = ast.parse(source)
    imported = _imported_names(tree, local or set())
    found = []

    def patched(target: ast.expr, line: int) -> None:
        if isinstance(target, ast.Attribute) and target.attr in SAFETY:
            found.append(f"{where}:{line}: declares {ast.unparse(target)} for another package")
        elif isinstance(target, ast.Attribute) and _root_name(target) in imported:
            found.append(f"{where}:{line}: replaces {ast.unparse(target)}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                for e in t.elts if isinstance(t, ast.Tuple | ast.List) else [t]:
                    patched(e, node.lineno)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            patched(node.target, node.lineno)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"setattr", "delattr"}
            and node.args
            and _root_name(node.args[0]) in imported
        ):
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "disconnect" and node.args:
                found.append(f"{where}:{node.lineno}: disconnects {ast.unparse(node.args[0])}")
        elif (
            isinstance(node, ast.Attribute)
            and node.attr == "listeners"
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "events"
        ):
            found.append(f"{where}:{node.lineno}: reads {ast.unparse(node)}")
    return found


def theme_static_dirs() -> list[Path]:
    """The installed themes' static folders."""
    dirs: list[Path] = []
    for theme in THEMES:
        spec = importlib.util.find_spec(theme)
        if spec is not None and spec.origin is not None:
            dirs += [s for s in Path(spec.origin).parent.rglob("static") if s.is_dir()]
    return dirs


def theme_static_files() -> set[str]:
    """Relative paths of the files in the installed themes' static folders."""
    return {p.relative_to(s).as_posix() for s in theme_static_dirs() for p in s.rglob("*")}


def shadowed(static: Path = STATIC, theme: set[str] | None = None) -> list[str]:
    """Files of ``static`` at a path the theme's static folders also hold."""
    theme = theme_static_files() if theme is None else theme
    ours = sorted(p.relative_to(static).as_posix() for p in static.rglob("*") if p.is_file())
    return [f"book/_ext/static/{p}: shadows the theme's {p}" for p in ours if p in theme]


def patches(ext: Path = EXT) -> list[str]:
    """Every patch of another package that ``book/_ext`` holds (see the module's rules)."""
    local = {p.stem for p in ext.glob("*.py")}
    found = []
    for path in sorted(ext.glob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        here = code_patches(path.read_text(encoding="utf-8"), rel, local)
        if any(": disconnects " in f for f in here):  # the handler it looked up: one patch
            here = [f for f in here if ": reads " not in f]
        found += here
    return found + (shadowed(ext / "static") if (ext / "static").is_dir() else [])
