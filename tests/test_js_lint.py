"""The JavaScript is linted and formatted by Biome (biome.json at the repository's root: the
views' modules, book/_ext's scripts and tests/js), as ruff does the Python.

``biome ci`` checks every file biome.json names, formatting included, and changes nothing;
it must find nothing. Its own check: the same Biome fails on a module with a lint error.
Biome is an npm package pinned in package.json (``make book`` runs ``npm ci``).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIOME = ROOT / "node_modules" / ".bin" / "biome"


def biome(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    if not BIOME.is_file():
        pytest.fail("Biome is missing: run `npm ci` (make book does)")
    return subprocess.run([str(BIOME), *args], cwd=cwd, capture_output=True, text=True)


def test_the_javascript_is_lint_free_and_formatted():
    run = biome("ci", "--error-on-warnings")
    assert run.returncode == 0, (run.stdout + run.stderr)[-3000:]


def test_biome_fails_on_a_lint_error(tmp_path):
    """The repository's rules (biome.json, its files list aside) on a module with a debugger
    statement and a loose comparison: an error."""
    config = json.loads((ROOT / "biome.json").read_text(encoding="utf-8"))
    config.pop("files")
    config.pop("vcs")
    config["$schema"] = str(ROOT / config["$schema"])
    (tmp_path / "biome.json").write_text(json.dumps(config), encoding="utf-8")
    (tmp_path / "bad.mjs").write_text(
        "export function f(x) {\n  debugger;\n  return x == null;\n}\n"
    )
    run = biome("lint", "bad.mjs", cwd=tmp_path)
    assert run.returncode != 0 and "noDebugger" in run.stdout + run.stderr, run.stdout
