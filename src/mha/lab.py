"""The Jupyter server of ``make lab`` and Binder: opening a chapter does not mark it modified.

As soon as a notebook's kernel answers, JupyterLab writes two entries of the notebook's
metadata as the kernel gives them: ``kernelspec`` (its display name is "Python 3
(ipykernel)") and ``language_info`` (with Python's exact version). A chapter's text file
(``notebooks/*.md``) holds neither as the kernel gives it (jupytext keeps the header's
``kernelspec`` as written and never writes ``language_info`` into a text file), and the
``.ipynb`` files the site offers (book/_ext/publish.py) hold no
``language_info``: JupyterLab marked every chapter modified (●) on opening, before anything
ran.

:class:`ContentsManager` is jupytext's contents manager that hands JupyterLab each notebook
of this server's Python kernel with both entries as that kernel will report them (read from
the server's kernel spec and from ipykernel, installed in the same environment). The file
is not changed; saving it writes what JupyterLab would have written anyway.
``lab/jupyter_server_config.json`` selects it; ``make`` installs that file into the venv and
``binder/postBuild`` into Binder's environment.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from jupytext.async_contentsmanager import AsyncTextFileContentsManager


def kernel_language_info() -> dict[str, Any]:
    """The ``language_info`` that an ipykernel kernel of this Python reports."""
    from ipykernel.ipkernel import IPythonKernel

    return dict(IPythonKernel.language_info)


def _this_python(command: str) -> bool:
    """Whether a kernel spec's ``command`` starts this Python (jupyter_client runs a bare
    ``python``, ``python3`` or ``python3.11`` as the server's own interpreter)."""
    major, minor = sys.version_info[:2]
    bare = {"python", f"python{major}", f"python{major}.{minor}"}
    return command in bare or os.path.realpath(command) == os.path.realpath(sys.executable)


class ContentsManager(AsyncTextFileContentsManager):
    """jupytext's contents manager; a notebook comes with the kernel's metadata."""

    async def get(self, path: str, content: bool = True, type=None, format=None, **kwargs):
        model = await super().get(path, content=content, type=type, format=format, **kwargs)
        if content and model.get("type") == "notebook":
            self._as_the_kernel_reports(model["content"].metadata)
        return model

    def _as_the_kernel_reports(self, metadata: dict[str, Any]) -> None:
        """Set ``kernelspec`` and ``language_info`` of a notebook whose kernel is this
        Python's ipykernel, as that kernel reports them; leave any other notebook alone."""
        name = metadata.get("kernelspec", {}).get("name")
        try:
            spec = self.parent.kernel_spec_manager.get_kernel_spec(name)
        except Exception:  # (no such kernel, or no server around: nothing to match)
            return
        if spec.language != "python" or not spec.argv or not _this_python(spec.argv[0]):
            return
        metadata["kernelspec"] = {
            "name": name,
            "display_name": spec.display_name,
            "language": spec.language,
        }
        metadata["language_info"] = kernel_language_info()
