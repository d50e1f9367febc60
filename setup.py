"""Why this file: the package's views need esbuild's bundles (src/mha/views/dist, built by
``npm run build`` and not kept in git), so a wheel built from a git checkout builds them
first. That is how Colab's set-up cell gets them: it pip-installs the package from git.

Everything else about the package is in pyproject.toml; this adds one step to setuptools'
own ``build_py`` command (setuptools' documented way to extend a build), and only when the
bundles are missing (``make book`` and ``make lab`` build them with the rest).
"""

import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildViews(build_py):
    """``build_py``, after building the views' bundles when they are missing."""

    def run(self) -> None:
        if not any((ROOT / "src" / "mha" / "views" / "dist").glob("*.js")):
            if shutil.which("npm") is None:
                raise RuntimeError("mha's views are built with esbuild: install Node.js and npm")
            npm = ["npm", "--prefix", str(ROOT), "--no-audit", "--no-fund", "--loglevel=error"]
            subprocess.run([*npm, "ci", "--ignore-scripts"], check=True)
            subprocess.run([*npm, "run", "build"], check=True)
        super().run()


setup(cmdclass={"build_py": BuildViews})
