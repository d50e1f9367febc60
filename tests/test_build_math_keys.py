"""The formulas noted as each page was read, in the process that read it
(book/_ext/build_math.py), are the formulas of the page's doctree as Sphinx saved it."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from tests.book_ext import build_math

pytestmark = pytest.mark.build  # reads _build/.doctrees

ROOT = Path(__file__).resolve().parents[1]
DOCTREES = ROOT / "_build" / ".doctrees"


def test_the_noted_formulas_are_the_saved_doctrees_formulas() -> None:
    env = pickle.loads((DOCTREES / "environment.pickle").read_bytes())
    noted = env.__dict__[build_math.ENV_KEYS]
    assert set(noted) == set(env.found_docs)
    for doc in sorted(env.found_docs):
        doctree = pickle.loads((DOCTREES / f"{doc}.doctree").read_bytes())
        assert noted[doc] == list(build_math._formulas(doctree)), doc
    chapters = [d for d in env.found_docs if d.startswith("notebooks/")]
    assert chapters and all(noted[d] for d in chapters), {d: len(noted[d]) for d in chapters}
