"""What the repository offers besides the site: an installable package, its licenses, its
citation, and a README that links the book, its launchers and how to cite it.

Every address of the repository or the site in these files must be the one ``_config.yml``
names (``repository.url``), from which the book derives all its own links.
"""

from __future__ import annotations

import email.parser
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
import yaml

from tests.book_ext import ROOT, publish
from tests.test_publishing import toc_pages

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())
URL = CONFIG["repository"]["url"]  # https://github.com/<owner>/<name>
OWNER, NAME = URL.removeprefix("https://github.com/").split("/")
BRANCH = CONFIG["repository"]["branch"]
PAGES = CONFIG["html"]["baseurl"]  # the site's address, where CI deploys it
# Addresses of a GitHub repository, as (owner, name). Links to other projects' repositories
# (an owner and a name that are both not the book's) are not the book's addresses.
GITHUB = re.compile(r"(?<![\w.])github\.com/([\w-]+)/([\w.-]+?)(?:\.git)?(?=[/@\s\"'#)?]|$)")
# Addresses that can only be the book's: its Pages site, its Binder and Colab links.
OURS = [
    re.compile(r"(?<![\w.-])([\w-]+)\.github\.io/([\w.-]+?)(?=[/\s\"')]|$)"),
    re.compile(r"mybinder\.org/v2/gh/([\w-]+)/([\w.-]+)/"),
    re.compile(r"colab\.research\.google\.com/github/([\w-]+)/([\w.-]+)/"),
]
NAMING_FILES = ["README.md", "pyproject.toml", "CITATION.cff", "_config.yml"]


@pytest.mark.build  # builds the package's wheel and installs it
def test_the_package_builds_a_wheel_that_installs_and_imports(tmp_path: Path) -> None:
    """``pip install .`` without -e: the wheel of a copy of the package's files (pip builds in
    the tree it is given), installed into a folder of its own, imports every module from there.
    """
    project = tmp_path / "project"
    project.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, project / name)
    shutil.copytree(
        ROOT / "src", project / "src", ignore=shutil.ignore_patterns("*.egg-info", "__pycache__")
    )
    pip = [sys.executable, "-m", "pip", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, "wheel", "--no-deps", "-w", tmp_path / "dist", project], check=True)
    [wheel] = (tmp_path / "dist").iterdir()
    assert wheel.name == f"mha-{PYPROJECT['version']}-py3-none-any.whl"

    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        info = f"mha-{PYPROJECT['version']}.dist-info"
        meta = email.parser.Parser().parsestr(z.read(f"{info}/METADATA").decode())
    assert meta["Name"] == "mha" and meta["Version"] == PYPROJECT["version"]
    assert meta["License-Expression"] == "MIT" and meta.get_all("License-File") == ["LICENSE"]
    assert f"{info}/licenses/LICENSE" in names
    assert f"Repository, {URL}" in meta.get_all("Project-URL")
    assert f"Homepage, {PAGES}" in meta.get_all("Project-URL")
    modules = {p.relative_to(ROOT / "src").as_posix() for p in (ROOT / "src/mha").rglob("*.py")}
    assert modules == {n for n in names if n.endswith(".py")}
    assert "mha/views/static/mha_views.mjs" in names  # the views' maths in JavaScript

    site = tmp_path / "site"
    subprocess.run([*pip, "install", "--no-deps", "--no-index", "-t", site, wheel], check=True)
    code = (
        "import importlib, pkgutil, mha\n"
        "for m in pkgutil.walk_packages(mha.__path__, 'mha.'):\n"
        "    importlib.import_module(m.name)\n"
        "print(mha.__file__)"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert Path(out.stdout.strip()).is_relative_to(site), "mha came from elsewhere"


def test_the_license_covers_code_and_text() -> None:
    text = (ROOT / "LICENSE").read_text()
    assert "SPDX-License-Identifier: MIT AND CC-BY-4.0" in text
    assert "Permission is hereby granted, free of charge" in text  # the MIT License
    assert "https://creativecommons.org/licenses/by/4.0/legalcode" in text
    assert PYPROJECT["license"] == "MIT" and PYPROJECT["license-files"] == ["LICENSE"]


def test_the_citation_file_is_complete_and_agrees_with_the_project() -> None:
    """The keys CFF 1.2.0 requires (the file also passes `cffconvert --validate`), and the
    version, licenses and addresses that the rest of the repository states."""
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0"
    assert cff["message"] and cff["title"] == CONFIG["title"]
    assert cff["authors"] == [{"name": CONFIG["author"]}]
    assert cff["version"] == PYPROJECT["version"]
    assert cff["license"] == ["MIT", "CC-BY-4.0"]
    assert cff["repository-code"] == URL and cff["url"] == PAGES
    book = cff["preferred-citation"]
    assert book["type"] == "book" and book["title"] == cff["title"]
    assert book["authors"] == cff["authors"] and book["url"] == PAGES
    assert str(book["year"]) == str(CONFIG["copyright"])


def test_the_site_address_is_the_repositorys_github_pages() -> None:
    assert f"https://{OWNER.lower()}.github.io/{NAME}/" == PAGES


def test_every_address_of_the_repository_is_the_configured_one() -> None:
    files = [ROOT / n for n in NAMING_FILES]
    files += [p for p in (ROOT / "binder").iterdir() if p.is_file()]
    files += sorted((ROOT / ".github").rglob("*.yml"))
    found: dict[str, set[tuple[str, str]]] = {}
    for path in files:
        text = path.read_text()
        pairs = [p for p in GITHUB.findall(text) if OWNER in p or NAME in p]
        pairs += [p for pattern in OURS for p in pattern.findall(text)]
        for owner, name in pairs:
            found.setdefault(path.name, set()).add((owner.lower(), name))
    wrong = {f: pairs for f, pairs in found.items() if pairs != {(OWNER.lower(), NAME)}}
    assert wrong == {}, f"addresses that are not {URL}: {wrong}"
    assert {"README.md", "pyproject.toml", "CITATION.cff"} <= found.keys()


def test_the_readme_links_the_book_its_launchers_and_how_to_cite() -> None:
    readme = (ROOT / "README.md").read_text()
    first_chapter = next(p for p in toc_pages(TOC) if "notebooks/" in p)
    for needed in (
        PAGES,  # the published book
        f"https://mybinder.org/v2/gh/{OWNER}/{NAME}/{BRANCH}?urlpath=lab/tree/",
        f"{CONFIG['launch_buttons']['colab_url']}/github/{OWNER}/{NAME}/blob/"
        f"{CONFIG['sphinx']['config']['mha_notebooks_branch']}/{first_chapter}.ipynb",
        f"{PAGES}{publish.NOTEBOOKS_DIR}/",  # downloads
        "CITATION.cff",
        "make book",
        "make test",
    ):
        assert needed in readme, needed
