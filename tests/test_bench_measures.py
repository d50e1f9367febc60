"""The measurements of ``make bench`` that are plain functions (benchmarks/run.py reports them;
nothing here times anything)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from benchmarks import run
from tests.browser import site_metrics

SHARED = "export function shapeOf(a) { return a.length; }"
OWN = "export default { render() { return 'one view of its own'; } };"


def test_a_module_carried_twice_counts_once_and_short_lines_never() -> None:
    alone = f"{SHARED}\n{OWN}"
    assert site_metrics.repeated_bytes([alone]) == 0
    assert site_metrics.repeated_bytes([alone, f"  {SHARED}\nx = 1;\n{OWN}"]) == len(
        alone.replace("\n", "")
    )
    assert site_metrics.repeated_bytes([SHARED, SHARED, SHARED]) == 2 * len(SHARED)
    assert site_metrics.repeated_bytes(["}\n);", "}\n);"]) == 0  # under 20 characters


def test_page_modules_are_the_esm_strings_and_the_es_module_files(tmp_path: Path) -> None:
    state = {"state": {"a": {"state": {"_esm": SHARED}}, "b": {"state": {"_esm": OWN}}}}
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "view.js").write_text(SHARED)
    (tmp_path / "_static" / "theme.js").write_text("var classic = 1;")
    (tmp_path / "page.html").write_text(
        f'<script type="application/vnd.jupyter.widget-state+json">{json.dumps(state)}</script>'
    )
    got = site_metrics.page_modules(
        tmp_path, "page.html", ["/_static/view.js?v=1", "/_static/theme.js", "/missing.js"]
    )
    assert got == [SHARED, OWN, SHARED]


def test_book_ext_lines_count_code_css_and_templates(tmp_path: Path) -> None:
    (tmp_path / "static").mkdir()
    (tmp_path / "a.py").write_text("x = 1\ny = 2\n")
    (tmp_path / "static" / "b.css").write_text("p {}\n")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0\1")
    (tmp_path / ".gitignore").write_text("static/built.js\n")
    (tmp_path / "static" / "built.js").write_text("a\nb\nc\n")  # written by a build: not kept
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "."], cwd=tmp_path, check=True)
    assert run.ext_lines(tmp_path) == {"a.py": 2, "static/b.css": 1}


def test_the_local_extensions_are_those_config_lists_and_those_they_set_up(tmp_path) -> None:
    (tmp_path / "one.py").write_text('def setup(app):\n    app.setup_extension("two")\n')
    (tmp_path / "two.py").write_text("def setup(app):\n    pass\n")
    config = {"sphinx": {"local_extensions": {"one": "book/_ext"}}}
    assert run.local_extensions(config, tmp_path) == {"listed": ["one"], "set_up": ["two"]}
