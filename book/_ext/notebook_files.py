"""The book's notebook pages as Jupyter notebooks (``.ipynb``) for download, Colab and Binder.

Stands in for: ``jupytext --to ipynb`` plus Jupyter Book's download button, which offers
the ``.md`` source or an executed ``.ipynb``, not an output-free notebook with a Colab cell.

The chapters are MyST text notebooks (``notebooks/*.md``, ``book/intro.md``). jupytext turns
each into an ``.ipynb`` with no outputs. When the book has a repository (``repository.url`` in
``_config.yml``) the notebook starts with one short cell that, on Google Colab only, installs the
``mha`` package from that repository when it is missing (``COLAB_CELL``).

Two places write these files, both through ``export`` and ``write`` below:

* ``publish.py`` (the Sphinx extension), during ``make book``:
  ``_build/html/_notebooks/<page>.ipynb`` for every notebook page, offered by the page's download
  button. CI pushes that folder to the branch that ``sphinx.config.mha_notebooks_branch`` names,
  which the Colab buttons open.
* ``binder/postBuild``, when Binder builds its image: ``python book/_ext/notebook_files.py``
  writes ``<page>.ipynb`` next to each page's source, which the Binder buttons open.

``Repository`` derives every address outside the site (Pages, Binder, Colab, pip) from the
repository's URL and branch.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import jupytext
import nbformat
import yaml

NOTEBOOKS_DIR = "_notebooks"  # folder of the built site that holds the .ipynb files
NOTEBOOK_SUFFIXES = (".md", ".ipynb")  # page sources jupytext reads
COLAB_CELL_ID = "colab-setup"
COLAB_CELL = """\
# On Google Colab only: install this book's package, mha, when it is missing, and turn on
# Colab's manager for custom widgets (the book's views are anywidget widgets).
# Anywhere else (Binder, your own machine) this cell does nothing.
import importlib.util
import subprocess
import sys

if "google.colab" in sys.modules and importlib.util.find_spec("mha") is None:
    package = {requirement}
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", package], check=True)
    importlib.invalidate_caches()
if "google.colab" in sys.modules:
    try:
        from google.colab import output
        output.enable_custom_widget_manager()
    except (ImportError, AttributeError):
        print("This Colab cannot show the book's interactive views; every other cell runs.")
"""
# The theme's URL paths of the two Jupyter interfaces (launch_buttons.notebook_interface).
INTERFACES = {"classic": "tree", "jupyterlab": "lab/tree"}
GITHUB_URL = re.compile(r"https://github\.com/(?P<owner>[\w.-]+)/(?P<name>[\w.-]+?)(?:\.git)?/?")


@dataclass(frozen=True)
class Repository:
    """The book's repository on GitHub; every outside address is derived from it."""

    owner: str
    name: str
    branch: str

    @classmethod
    def from_url(cls, url: str, branch: str | None) -> Repository:
        """Parse ``https://github.com/<owner>/<name>``: Colab opens notebooks from GitHub only."""
        m = GITHUB_URL.fullmatch(url.strip())
        if m is None:
            raise ValueError(f"repository.url must be https://github.com/<owner>/<name>: {url!r}")
        return cls(m["owner"], m["name"], branch or "main")

    @property
    def url(self) -> str:
        return f"https://github.com/{self.owner}/{self.name}"

    @property
    def pages_url(self) -> str:
        """Where GitHub Pages serves the site that the repository's workflow deploys."""
        host = f"{self.owner.lower()}.github.io"
        return f"https://{host}/" if self.name.lower() == host else f"https://{host}/{self.name}/"

    @property
    def requirement(self) -> str:
        """What pip installs on Colab: the package, from this branch of the repository."""
        return f"mha @ git+{self.url}@{self.branch}"

    def binder_url(self, hub: str, interface: str, path: str) -> str:
        """Binder builds this branch (``binder/``) and opens ``path`` in ``interface``."""
        repo = f"{hub.rstrip('/')}/v2/gh/{self.owner}/{self.name}/{self.branch}"
        return f"{repo}?urlpath={INTERFACES[interface]}/{quote(path)}"

    def colab_url(self, colab: str, branch: str, path: str) -> str:
        """Colab opens ``path`` of ``branch`` of this repository."""
        return f"{colab.rstrip('/')}/github/{self.owner}/{self.name}/blob/{branch}/{quote(path)}"


def colab_cell(repository: Repository) -> nbformat.NotebookNode:
    """The first cell of every exported notebook: installs mha on Colab when it is missing."""
    source = COLAB_CELL.format(requirement=json.dumps(repository.requirement)).rstrip("\n")
    return nbformat.v4.new_code_cell(source, id=COLAB_CELL_ID)


def export(source: Path, repository: Repository | None) -> nbformat.NotebookNode | None:
    """The page at ``source`` as a notebook without outputs, or None when it is not a notebook.

    A page is a notebook when it declares a kernel (``kernelspec``), as myst-nb and the theme
    decide; a ``.md`` page is read as MyST, as myst-nb reads it. Cell ids are the cells'
    positions, so an unchanged page exports the same file.
    """
    if source.suffix not in NOTEBOOK_SUFFIXES:
        return None
    nb = jupytext.read(source, fmt="md:myst" if source.suffix == ".md" else None)
    if "kernelspec" not in nb.metadata:
        return None
    nb.metadata.pop("jupytext", None)  # no pairing with the .md source where both exist
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i}"
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    if repository is not None:
        nb.cells.insert(0, colab_cell(repository))
    nbformat.validate(nb)
    return nb


def write(nb: nbformat.NotebookNode, dest: Path) -> bool:
    """Write ``nb`` to ``dest`` unless it already holds it; True when the file changed."""
    text = nbformat.writes(nb) + "\n"
    if dest.is_file() and dest.read_text(encoding="utf-8") == text:
        return False
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(text, encoding="utf-8")
    return True


def toc_pages(toc: dict) -> Iterator[str]:
    """The docnames of a Jupyter Book ``_toc.yml`` (its root, then every ``file`` entry)."""
    if "root" in toc:
        yield toc["root"]
    for value in toc.values():
        for item in value if isinstance(value, list) else []:
            if isinstance(item, dict):
                if "file" in item:
                    yield item["file"]
                yield from toc_pages(item)


def page_source(book: Path, docname: str) -> Path | None:
    """The source file of ``docname`` in ``book``, if it is a kind jupytext reads."""
    for suffix in NOTEBOOK_SUFFIXES:
        path = book / f"{docname}{suffix}"
        if path.is_file():
            return path
    return None


def configured_repository(config: dict) -> Repository | None:
    """The repository that a ``_config.yml`` names, or None when it names none."""
    repo = config.get("repository") or {}
    return Repository.from_url(repo["url"], repo.get("branch")) if repo.get("url") else None


def export_book(book: Path, out: Path) -> list[Path]:
    """Export every notebook page of the book in ``book`` to ``out/<page>.ipynb``."""
    config = yaml.safe_load((book / "_config.yml").read_text(encoding="utf-8"))
    toc = yaml.safe_load((book / "_toc.yml").read_text(encoding="utf-8"))
    repository = configured_repository(config)
    written = []
    for docname in toc_pages(toc):
        source = page_source(book, docname)
        nb = export(source, repository) if source else None
        if nb is not None:
            write(nb, out / f"{docname}.ipynb")
            written.append(out / f"{docname}.ipynb")
    return written


def main(argv: list[str] | None = None) -> int:
    """Command line (binder/postBuild): write the book's notebooks, by default next to their
    sources."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--book", type=Path, default=Path(), help="folder of _config.yml")
    parser.add_argument("--out", type=Path, help="folder to write to (default: --book)")
    args = parser.parse_args(argv)
    written = export_book(args.book, args.out or args.book)
    if not written:
        print(f"no notebook pages in the book at {args.book.resolve()}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
