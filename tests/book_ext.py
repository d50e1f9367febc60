"""The build's own modules in ``book/_ext``, importable by the tests as Sphinx imports them.

jupyter-book puts ``book/_ext`` on ``sys.path`` (``sphinx: local_extensions``); so does this
module, then it imports what the tests use.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXT = ROOT / "book" / "_ext"
if str(EXT) not in sys.path:
    sys.path.insert(0, str(EXT))

static_widgets = importlib.import_module("static_widgets")
plain_notebooks = importlib.import_module("plain_notebooks")
execution = importlib.import_module("execution")
publish = importlib.import_module("publish")
pdf = importlib.import_module("pdf")
