"""``make book``'s command: ``jupyter-book build``, minus three seconds it spends for nothing.

Usage: ``python book/_ext/build_book.py build . -W --keep-going`` (the arguments of
``jupyter-book``).

* jupyter-book checks ``_config.yml`` against its schema with jsonschema. Importing
  jsonschema imports rfc3987-syntax when it is installed (JupyterLab's jupyter-events
  installs it), and rfc3987-syntax compiles 38 Lark grammars as it is imported: about
  2.5 CPU seconds before Sphinx even starts, on every build, for the ``iri`` format checks
  of jsonschema, which jupyter-book never asks for (it validates without a format
  checker). Here rfc3987-syntax cannot be imported, so jsonschema leaves those two checks
  out, as it does wherever the package is not installed.
* Once the build has finished (every file written and closed, the ``atexit`` functions
  run, the output flushed), the process ends at once, instead of spending a second or more
  freeing, one by one, the objects of every module Sphinx and its extensions loaded.

Everything else runs as ``jupyter-book`` runs it.
"""

from __future__ import annotations

import atexit
import os
import sys


def run() -> int:
    """``jupyter-book`` with this module's arguments; returns its exit status."""
    sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]  # import -> ImportError
    from jupyter_book.cli.main import main

    try:
        main()
    except SystemExit as done:
        code = done.code
    else:
        code = 0
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


if __name__ == "__main__":
    status = run()
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
