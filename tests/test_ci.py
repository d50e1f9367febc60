"""CI's workflow and Binder's environment: they lint clean, and publish what the book links.

The workflow (``.github/workflows/book.yml``) runs the README's test command on every push and
pull request and, from the repository's branch, deploys ``_build/html`` to GitHub Pages and
pushes ``_build/html/_sources/**/*.ipynb`` to the branch the Colab buttons open
(``sphinx.config.mha_notebooks_branch``). Binder (``binder/``) installs the pinned requirements
with CPU-only torch and opens ``.md`` files as notebooks (its buttons open the chapters' ``.md``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.book_ext import ROOT, publish
from tests.browser.lab import installed_files

BIN = Path(sys.executable).parent
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
BRANCH = CONFIG["repository"]["branch"]
NOTEBOOKS_BRANCH = CONFIG["sphinx"]["config"]["mha_notebooks_branch"]
WORKFLOW = ROOT / ".github" / "workflows" / "book.yml"


def run_scripts() -> list[tuple[str, str]]:
    """(job/step name, script) of every ``run:`` step of the workflow."""
    workflow = yaml.safe_load(WORKFLOW.read_text())
    return [
        (f"{job}/{step.get('name', step['run'].splitlines()[0])}", step["run"])
        for job, spec in workflow["jobs"].items()
        for step in spec.get("steps", [])
        if "run" in step
    ]


@pytest.mark.slow
def test_the_workflow_lints_clean() -> None:
    """GitHub's workflow schema (check-jsonschema), zizmor's audits (offline), shellcheck."""
    dependabot = WORKFLOW.parents[1] / "dependabot.yml"
    checks = [
        [BIN / "check-jsonschema", "--builtin-schema", "vendor.github-workflows", WORKFLOW],
        [BIN / "check-jsonschema", "--builtin-schema", "vendor.dependabot", dependabot],
        [BIN / "zizmor", "--offline", "--no-progress", WORKFLOW],
    ]
    for cmd in checks:
        out = subprocess.run(cmd, capture_output=True, text=True)
        assert out.returncode == 0, f"{cmd[0].name}:\n{out.stdout}{out.stderr}"
    for name, script in run_scripts():
        assert "${{" not in script, f"{name}: pass values through env:, not into the script"
        out = subprocess.run(
            [BIN / "shellcheck", "--shell=bash", "-"], input=script, capture_output=True, text=True
        )
        assert out.returncode == 0, f"{name}:\n{out.stdout}"


def test_the_workflow_tests_everything_and_publishes_what_the_buttons_open() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    on = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert {"push", "pull_request"} <= on.keys()
    assert NOTEBOOKS_BRANCH in on["push"]["branches-ignore"]
    jobs = workflow["jobs"]
    steps = {s.get("uses", "").split("@")[0] or s["run"]: s for s in jobs["test"]["steps"]}
    assert "make test" in steps, "CI runs the README's test command"
    assert steps["actions/setup-python"]["with"]["python-version"] == "3.11"
    assert steps["actions/setup-node"]["with"]["node-version"] == 20

    from_main = f"github.event_name == 'push' && github.ref == 'refs/heads/{BRANCH}'"
    site = steps["actions/upload-pages-artifact"]
    assert site["with"]["path"] == "_build/html" and site["if"] == from_main
    pages = jobs["pages"]
    assert pages["if"] == from_main and pages["needs"] == "test"
    assert pages["permissions"] == {"pages": "write", "id-token": "write"}
    assert [s["uses"].split("@")[0] for s in pages["steps"]] == ["actions/deploy-pages"]

    upload = steps["actions/upload-artifact"]
    assert upload["if"] == from_main
    assert upload["with"]["path"] == f"_build/html/{publish.NOTEBOOKS_DIR}/**/*.ipynb"
    push = jobs["notebooks"]
    assert push["if"] == from_main and push["permissions"] == {"contents": "write"}
    download, script = push["steps"]
    assert download["with"]["name"] == upload["with"]["name"]
    assert download["with"]["path"] == script["working-directory"]
    assert f"--initial-branch {NOTEBOOKS_BRANCH}" in script["run"]
    assert script["run"].rstrip().endswith(f" {NOTEBOOKS_BRANCH}")  # git push ... ipynb


def requirement_lines(path: Path) -> list[str]:
    lines = (line.split("#", 1)[0].strip() for line in path.read_text().splitlines())
    return [line for line in lines if line]


def test_binder_installs_the_pinned_requirements_with_cpu_only_torch() -> None:
    binder = ROOT / "binder"
    assert (binder / "runtime.txt").read_text().strip() == "python-3.11"
    pinned = requirement_lines(ROOT / "requirements.txt")
    [torch] = [line for line in pinned if line.startswith("torch==")]
    assert "-e ." in pinned, "requirements.txt installs the package"
    assert requirement_lines(binder / "requirements.txt") == [
        "--extra-index-url https://download.pytorch.org/whl/cpu",
        f"{torch}+cpu",
        "-r ../requirements.txt",
        "-c ../constraints.txt",
    ]
    assert "-r requirements.txt -c constraints.txt" in (ROOT / "Makefile").read_text()


def pins(path: Path) -> dict[str, str]:
    """{normalised name: version} of the ``name==version`` lines of a requirements file."""
    return {
        canonicalize_name(name): version
        for name, _, version in (line.partition("==") for line in requirement_lines(path))
        if version
    }


def pulled_in(names: list[str]) -> dict[str, str]:
    """{normalised name: installed version} of ``names`` and of every installed package that
    they require, through each package's metadata (the environment's markers; extras asked
    for are followed)."""
    found: dict[str, str] = {}
    todo = [(name, frozenset()) for name in names]
    while todo:
        name, extras = todo.pop()
        key = canonicalize_name(name)
        if key in found and not extras:
            continue
        dist = metadata.distribution(key)
        found[key] = dist.version
        for line in dist.requires or []:
            req = Requirement(line)
            envs = [{"extra": e} for e in extras] or [{"extra": ""}]
            if req.marker is None or any(req.marker.evaluate(env) for env in envs):
                todo.append((req.name, frozenset(req.extras)))
    return found


def test_constraints_pin_every_package_the_requirements_pull_in() -> None:
    """constraints.txt (``make lock``) holds every package that requirements.txt installs, at
    the version installed here, and agrees with requirements.txt's own pins."""
    direct = pins(ROOT / "requirements.txt")
    locked = pins(ROOT / "constraints.txt")
    assert {n: locked.get(n) for n in direct} == direct, "requirements.txt and the lock differ"
    installed = pulled_in([*direct, "mha"])
    installed.pop("mha")  # the book's own package, installed from the clone
    installed = {n: v.split("+")[0] for n, v in installed.items()}  # torch's +cpu label
    missing = sorted(set(installed) - set(locked))
    assert not missing, f"not in constraints.txt (run make lock): {missing}"
    other = {n: (v, locked[n]) for n, v in installed.items() if locked[n] != v}
    assert not other, f"installed (left) is not what constraints.txt pins (right): {other}"


def test_binder_checks_the_package_and_installs_make_labs_settings() -> None:
    post = ROOT / "binder" / "postBuild"
    assert os.access(post, os.X_OK)
    out = subprocess.run([BIN / "shellcheck", post], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout
    commands = [line for line in post.read_text().splitlines() if not line.startswith("#")]
    assert 'python -c "import mha"' in commands
    assert """lab/install "$(python -c 'import sys; print(sys.prefix)')\"""" in commands
    assert "\tlab/install $(VENV)\n" in (ROOT / "Makefile").read_text()  # make lab's too


def test_lab_install_puts_every_setting_where_jupyter_reads_it(tmp_path) -> None:
    script = ROOT / "lab" / "install"
    out = subprocess.run([BIN / "shellcheck", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout
    stale = tmp_path / "share" / "jupyter" / "labextensions" / "mha-lab-sliders"
    stale.mkdir(parents=True)  # an install from before the views had native controls
    subprocess.run([script, tmp_path], check=True)
    assert not stale.exists()
    for there, source in installed_files(tmp_path).items():
        assert there.read_bytes() == source.read_bytes(), there
    viewers = json.loads((ROOT / "lab" / "overrides.json").read_text())[
        "@jupyterlab/docmanager-extension:plugin"
    ]["defaultViewers"]
    assert viewers == {"markdown": "Jupytext Notebook", "myst": "Jupytext Notebook"}
    server = json.loads((ROOT / "lab" / "jupyter_server_config.json").read_text())
    assert server == {"ServerApp": {"contents_manager_class": "mha.lab.ContentsManager"}}
