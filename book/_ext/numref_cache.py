"""Why this file: every ``{numref}`` made Sphinx unpickle the whole page it points to.

Loaded by jupyter-book through ``sphinx: local_extensions`` in ``_config.yml``.

Sphinx 7.4 resolves a ``{numref}`` (``StandardDomain._resolve_numref_xref``) by reading
the target page's doctree from its pickle (``env.get_doctree``), once per reference, only
to look up the referenced node's type and number (sphinx-doc/sphinx#12611 and #12883,
open upstream). The book has about 45 numrefs, many of them to chapter 5, whose doctree
(its figures, tables and widget state) is about 0.7 MB: the main process spent about 5 s
of every build unpickling the same few doctrees again, while the two cores it shares
with the writing processes waited.

Here a numref reads each target doctree once per process: ``_resolve_numref_xref`` gets an
environment whose ``get_doctree`` returns a cached copy. The copy is only read (the node's
type, its ids and the numbers Sphinx assigned), never changed or written, and the cache is
emptied when the environment has been updated (after reading, before writing), so a
doctree read again in this build is never served stale.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.domains.std import StandardDomain
from sphinx.environment import BuildEnvironment

_doctrees: dict[str, nodes.document] = {}


class _CachedDoctrees:
    """``env`` as ``_resolve_numref_xref`` sees it: every attribute is the environment's,
    except ``get_doctree``, which unpickles each page once and then returns that copy."""

    def __init__(self, env: BuildEnvironment) -> None:
        self._env = env

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env, name)

    def get_doctree(self, docname: str) -> nodes.document:
        if docname not in _doctrees:
            _doctrees[docname] = self._env.get_doctree(docname)
        return _doctrees[docname]


_resolve_numref = StandardDomain._resolve_numref_xref


def _resolve_numref_cached(self: StandardDomain, env: BuildEnvironment, *args: Any) -> Any:
    return _resolve_numref(self, _CachedDoctrees(env), *args)


def forget(*_: Any) -> None:
    """Empty the cache: the doctrees may have been read again."""
    _doctrees.clear()


def setup(app: Sphinx) -> dict:
    StandardDomain._resolve_numref_xref = _resolve_numref_cached  # type: ignore[method-assign]
    app.connect("env-before-read-docs", forget)
    app.connect("env-updated", forget)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
