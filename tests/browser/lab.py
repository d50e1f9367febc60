"""JupyterLab as ``make lab`` starts it, on 127.0.0.1, for the browser tests and screenshots.

The settings are the repository's: ``lab/overrides.json`` (``.md`` chapters open as
notebooks, no news or update checks) and ``lab/jupyter_server_config.json`` (the contents
manager ``mha.lab.ContentsManager``) are installed into the venv by ``lab/install`` (run by
``make``; ``binder/postBuild`` runs it on Binder), and the workspace ``lab/workspace.json``
opens the intro.
The server gets a random token, a temporary workspaces folder (the learner's own is left
alone) and exposes the app as ``window.jupyterapp`` so a test can run commands.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.browser.harness import ROOT

JUPYTER = Path(sys.executable).parent / "jupyter"
OVERRIDES = ROOT / "lab" / "overrides.json"
WORKSPACE = ROOT / "lab" / "workspace.json"


@dataclass(frozen=True)
class Lab:
    """A running JupyterLab: its URL (with the token) and the log file."""

    url: str
    token: str
    log: Path

    def page(self, path: str = "lab") -> str:
        """The URL of ``path`` on this server, token included."""
        return f"{self.url}{path}?token={self.token}"


def _server_info(runtime: Path) -> dict | None:
    """What the server wrote about itself (its ``jpserver-<pid>.json``: the port the operating
    system gave it, ...) into its own runtime folder ``runtime``, once it listens; else None."""
    for info in runtime.glob("jpserver-*.json"):
        with contextlib.suppress(ValueError):  # (being written)
            return json.loads(info.read_text())
    return None


def installed_files(prefix: Path) -> dict[Path, Path]:
    """Each file that lab/install writes into the environment ``prefix``, with its source."""
    return {
        prefix / "share/jupyter/lab/settings/overrides.json": OVERRIDES,
        prefix / "etc/jupyter/jupyter_server_config.json": ROOT / "lab/jupyter_server_config.json",
    }


def _sources() -> dict[Path, bytes]:
    """Every chapter source a JupyterLab test could open, with its bytes."""
    paths = [*ROOT.glob("notebooks/*"), *ROOT.glob("book/*.md")]
    return {p: p.read_bytes() for p in paths if p.is_file()}


def _test_settings(tmp: Path, myst: bool) -> None:
    """Settings for this server only: no autosave (a chapter that JupyterLab marks modified on
    opening must not be written back into the repository); with ``myst`` False, the
    jupyterlab-myst extension disabled in this server's own config folder (its
    ``labconfig/page_config.json``; the venv's and the learner's settings are left alone), so
    that markdown cells render as JupyterLab's plain CommonMark and MathJax."""
    docmanager = tmp / "user-settings" / "@jupyterlab" / "docmanager-extension"
    docmanager.mkdir(parents=True)
    (docmanager / "plugin.jupyterlab-settings").write_text('{"autosave": false}')
    if not myst:
        labconfig = tmp / "labconfig"
        labconfig.mkdir()
        disabled = {"disabledExtensions": {"jupyterlab-myst": True}}
        (labconfig / "page_config.json").write_text(json.dumps(disabled))


@contextlib.contextmanager
def serve_lab(timeout: float = 90.0, root: Path = ROOT, myst: bool = True) -> Iterator[Lab]:
    """Start ``jupyter lab`` on the folder ``root`` (default: the repository, with the
    workspace that opens the intro; ``myst`` False disables jupyterlab-myst for this server
    only) on a port of 127.0.0.1 that the operating system chooses (port 0: no port picked
    here that another process could take first; the server then writes the port it got into
    its runtime folder); stop it (and its kernels) after. Raises if any chapter source changed
    meanwhile: tests read the repository, they never write it."""
    for there, source in installed_files(Path(sys.prefix)).items():
        if not there.is_file() or there.read_bytes() != source.read_bytes():
            raise RuntimeError(f"{there} is not {source}: run `make lab` (lab/install)")
    token = secrets.token_hex(16)
    before = _sources()
    with tempfile.TemporaryDirectory(prefix="mha-lab-") as tmp:
        runtime = Path(tmp) / "runtime"
        _test_settings(Path(tmp), myst)
        env = {
            **os.environ,
            "JUPYTERLAB_WORKSPACES_DIR": tmp,
            "JUPYTERLAB_SETTINGS_DIR": str(Path(tmp) / "user-settings"),
            "JUPYTER_CONFIG_DIR": tmp,
            "JUPYTER_RUNTIME_DIR": str(runtime),
        }
        if root == ROOT:  # (the workspace opens the intro, a file of the repository)
            subprocess.run(
                [str(JUPYTER), "lab", "workspaces", "import", str(WORKSPACE)],
                check=True,
                env=env,
                capture_output=True,
            )
        log = Path(tmp) / "lab.log"
        args = [
            str(JUPYTER),
            "lab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            "--ServerApp.port=0",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            "--LabApp.expose_app_in_browser=True",
            *(["--allow-root"] if os.geteuid() == 0 else []),
        ]
        with log.open("w") as out:
            server = subprocess.Popen(args, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + timeout
            while True:
                info = _server_info(runtime)
                try:
                    if info is not None:
                        url = f"http://127.0.0.1:{info['port']}/"
                        urllib.request.urlopen(f"{url}api/status?token={token}", timeout=2)
                        break
                except OSError:
                    pass
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"jupyter lab did not start:\n{log.read_text()}")
                time.sleep(0.3)  # (polling the server's start, up to ``timeout``)
            yield Lab(url, token, log)
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
    changed = sorted(str(p.relative_to(ROOT)) for p, b in before.items() if p.read_bytes() != b)
    if changed:
        raise RuntimeError(f"JupyterLab wrote the repository's chapters: {changed}")


def open_app(page, lab: Lab) -> None:
    """Load JupyterLab in ``page`` and wait until its workspace has opened a document."""
    page.goto(lab.page("lab"))
    page.wait_for_function(
        "() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
        " && window.jupyterapp.shell.currentWidget.context",
        timeout=180_000,  # (a limit on waiting: generous, the machine may be busy)
    )


def open_chapter(page, path: str) -> None:
    """Open chapter ``path`` as a notebook and wait for its fresh kernel."""
    page.evaluate(
        "(path) => window.jupyterapp.commands.execute('docmanager:open',"
        " {path, factory: 'Jupytext Notebook'}).then(() => null)",
        path,
    )
    page.wait_for_function(
        "(path) => { const w = window.jupyterapp.shell.currentWidget;"
        " return w && w.context && w.context.path === path && w.sessionContext.isReady; }",
        arg=path,
        timeout=180_000,  # (a limit on waiting: generous, the machine may be busy)
    )


def open_and_run_all(page, path: str) -> None:
    """Open chapter ``path`` as a notebook, wait for its fresh kernel, start Run All."""
    open_chapter(page, path)
    page.evaluate(
        "() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); return null; }"
    )


# The open notebook once its kernel has answered and JupyterLab has written the kernel's
# language_info and kernel spec into its metadata (it does so on the kernel's first answer):
# whether it is then marked modified. Waits inside the page, up to ``ms`` milliseconds, and
# says which step it was waiting for if that time runs out. (An async predicate given to
# Playwright's wait_for_function returned at once: its Promise counted as true.)
KERNEL_METADATA_JS = """
async (ms) => {
  const deadline = Date.now() + ms;
  const tick = () => new Promise((resolve) => setTimeout(resolve, 200));
  const w = window.jupyterapp.shell.currentWidget;
  await w.sessionContext.ready;
  let kernel = null;
  while (!(kernel = w.sessionContext.session && w.sessionContext.session.kernel)) {
    if (Date.now() > deadline) return {waiting: 'a kernel'};
    await tick();
  }
  const [info, spec] = [await kernel.info, await kernel.spec];
  const sorted = (x) => (x && typeof x === 'object' && !Array.isArray(x))
    ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, sorted(x[k])])) : x;
  const same = (a, b) => JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
  const model = w.context.model;
  const written = () => same(model.getMetadata('language_info'), info.language_info)
    && model.getMetadata('kernelspec').display_name === spec.display_name;
  while (!written()) {
    if (Date.now() > deadline) return {waiting: 'the kernel metadata', dirty: model.dirty};
    await tick();
  }
  return {dirty: model.dirty};
}
"""
