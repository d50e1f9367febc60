"""Kernels that start with PyTorch already imported: forked from one process that imported it.

Loaded by jupyter-book through ``sphinx: local_extensions`` in ``_config.yml``.

Every page's kernel imports PyTorch first, and importing it costs about 1.5 CPU seconds:
a tenth of the whole build's CPU time, spent seven times on the same work. With
``mha_kernel_preload`` set (a list of modules, e.g. ``[torch]``), the build starts one
*preloader* process, which imports those modules and nothing else, and then starts each
kernel by forking itself: the kernel is a new process, which runs ``ipykernel_launcher``
exactly as ``python -m ipykernel_launcher -f <connection file>`` does (the same
arguments, environment, working directory and ``sys.path``), with the preloaded modules
already in memory. No code of the notebook, and no code of the book's package, has run in
it before its first cell, so each notebook still runs top to bottom in a fresh kernel;
the notebook tests run them in ordinary kernels and check that they print the same.

* The preloader imports nothing that reads the kernel's settings at import time (not
  ipykernel, IPython or matplotlib, which read ``JPY_PARENT_PID`` or ``MPLBACKEND``);
  PyTorch's thread count is read from ``OMP_NUM_THREADS`` when its OpenMP runtime loads,
  so the preloader is started with the build kernels' setting (``mha_kernel_threads``).
* A kernel is started this way only when it would run this same Python with the same
  ``PYTHONPATH``; any other kernel starts as usual.
* The preloader reaps each kernel and reports its CPU seconds, which the page's count in
  ``_build/execution.json`` includes as it includes an ordinary kernel's.
* It stops when the build finishes, or when the build's process is gone.

Run as a script, this file is the preloader: ``python kernel_preload.py SOCKET MODULE...``.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LAUNCHER = "ipykernel_launcher"


# ----------------------------------------------------------------------------- the preloader


def _kernel(request: dict, base_path: list[str]) -> int:
    """In the forked child: become ``python -m ipykernel_launcher ARGS`` and run it."""
    import runpy

    os.chdir(request["cwd"] or os.getcwd())
    os.environ.clear()
    os.environ.update(request["env"])
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.path[:] = [os.getcwd(), *base_path]  # what `python -m` puts first: the cwd
    sys.argv = [LAUNCHER, *request["args"]]
    try:
        runpy.run_module(LAUNCHER, run_name="__main__", alter_sys=True)
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    return 0


def serve(path: str, modules: list[str]) -> None:
    """Import ``modules``, then fork a kernel for every request on the Unix socket ``path``."""
    parent = os.getppid()
    base_path = sys.path[1:]  # without this script's folder
    for name in modules:
        __import__(name)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path + ".new")
    server.listen(16)
    os.rename(path + ".new", path)  # the socket appears once it accepts connections
    server.settimeout(0.05)
    kernels: dict[int, socket.socket] = {}  # pid -> the connection that asked for it
    while os.getppid() == parent:
        try:
            conn, _ = server.accept()
        except TimeoutError:
            conn = None
        if conn is not None:
            conn.settimeout(None)
            request = json.loads(conn.makefile("r").readline())
            started, ready = os.pipe()
            pid = os.fork()
            if pid == 0:  # the kernel, in a session of its own as jupyter-client starts it
                server.close()
                for other in kernels.values():
                    other.close()
                conn.close()
                os.close(started)
                os.setsid()
                os.write(ready, b".")
                os.close(ready)
                code = 1
                try:
                    code = _kernel(request, base_path)
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(code)
            os.close(ready)
            os.read(started, 1)  # its process group exists before anyone signals it
            os.close(started)
            conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
            kernels[pid] = conn
        while kernels:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            conn = kernels.pop(pid, None)
            if conn is not None:
                done = {"exit": os.waitstatus_to_exitcode(status)}
                done["cpu"] = usage.ru_utime + usage.ru_stime
                with contextlib.suppress(OSError):
                    conn.sendall(json.dumps(done).encode() + b"\n")
                conn.close()
    for pid in kernels:  # the build is gone: so are its kernels
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)


# ----------------------------------------------------------------------------- the build's side

kernel_cpu = [0.0]  # CPU seconds of the forked kernels that have ended, in this process


class ForkedKernel:
    """The preloader's kernel, as the ``subprocess.Popen`` that jupyter-client expects."""

    stdin = stdout = stderr = None

    def __init__(self, path: str, args: list[str], env: dict[str, str], cwd: str | None):
        self.args = args
        self.returncode: int | None = None
        self._buffer = b""
        self._conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._conn.connect(path)
        self._conn.sendall(json.dumps({"args": args, "env": env, "cwd": cwd}).encode() + b"\n")
        self.pid = int(self._message()["pid"])

    def _message(self) -> dict:
        """The preloader's next line (blocking); an empty dict if it closed the connection."""
        while b"\n" not in self._buffer:
            chunk = self._conn.recv(4096)
            if not chunk:
                return {}
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def _finish(self, timeout: float | None) -> int | None:
        """The exit status once the preloader reports it, within ``timeout`` seconds."""
        if self.returncode is None:
            if b"\n" not in self._buffer:
                ready, _, _ = select.select([self._conn], [], [], timeout)
                if not ready:
                    return None
            done = self._message() or {"exit": -signal.SIGKILL, "cpu": 0.0}  # preloader gone
            kernel_cpu[0] += done["cpu"]
            self.returncode = int(done["exit"])
            self._conn.close()
        return self.returncode

    def poll(self) -> int | None:
        return self._finish(0.0)

    def wait(self, timeout: float | None = None) -> int:
        code = self._finish(timeout)
        if code is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0.0)
        return code

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


_preloader: dict = {}  # "process", "socket", "env": the running preloader (main process)


def start(modules: list[str], threads: int) -> None:
    """Start the preloader (in the build's main process, before pages are read)."""
    if _preloader or not modules:
        return
    path = str(Path(tempfile.mkdtemp(prefix="mha-preload-")) / "socket")
    env = dict(os.environ)
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    process = subprocess.Popen(
        [sys.executable, __file__, path, *modules],
        env=env,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    _preloader.update(process=process, socket=path, env=env, owner=os.getpid())


def stop(*_: object) -> None:
    """Stop the preloader (when the build finishes, or its process ends)."""
    process = _preloader.pop("process", None)
    if process is not None and process.poll() is None:
        process.terminate()
        process.wait()
    path = _preloader.pop("socket", None)
    if path:
        shutil.rmtree(Path(path).parent, ignore_errors=True)


def _running(process: subprocess.Popen) -> bool:
    """Whether the preloader still runs, asked from any process of the build.

    The pages are read in processes forked from the build's, and there the preloader is not
    a child: ``Popen.poll`` would get ECHILD and report it ended (with status 0), so the
    pages read first, the longest, would start their kernels without it.
    """
    if os.getpid() == _preloader.get("owner"):
        return process.poll() is None
    try:
        stat = Path(f"/proc/{process.pid}/stat").read_text()
    except OSError:  # gone, or no /proc: ask the kernel
        try:
            os.kill(process.pid, 0)
        except OSError:
            return False
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"  # an ended, unreaped process is a zombie


def _ready(timeout: float = 30.0) -> str | None:
    """The preloader's socket once it listens (it imports first), or ``None``."""
    process, path = _preloader.get("process"), _preloader.get("socket")
    if process is None:
        return None
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        if not _running(process) or time.monotonic() > deadline:
            return None
        time.sleep(0.02)
    return path


def patch_launcher() -> None:
    """Start kernels through the preloader where it can start them (see the module's text)."""
    from jupyter_client.provisioning import local_provisioner

    launch = local_provisioner.launch_kernel
    if getattr(launch, "preloaded", False):
        return

    def launch_kernel(cmd: list[str], **kw):  # jupyter_client.launcher.launch_kernel
        env = kw.get("env") or os.environ
        same = cmd[:3] == [sys.executable, "-m", LAUNCHER] and env.get("PYTHONPATH") == (
            _preloader.get("env", {}).get("PYTHONPATH")
        )
        path = _ready() if same else None
        if path is None:
            return launch(cmd, **kw)
        env = dict(env)
        if not kw.get("independent"):
            env["JPY_PARENT_PID"] = str(os.getpid())  # as jupyter-client's launcher sets it
        try:
            return ForkedKernel(path, cmd[3:], env, kw.get("cwd"))
        except OSError:  # the preloader is gone: start the kernel as usual
            return launch(cmd, **kw)

    launch_kernel.preloaded = True
    launch_kernel.original = launch
    local_provisioner.launch_kernel = launch_kernel


def unpatch_launcher() -> None:
    """Start every kernel as usual again (undoes :func:`patch_launcher`)."""
    from jupyter_client.provisioning import local_provisioner

    launch = local_provisioner.launch_kernel
    if getattr(launch, "preloaded", False):
        local_provisioner.launch_kernel = launch.original


def setup(app) -> dict:
    import atexit

    app.add_config_value("mha_kernel_preload", [], "", [list])  # outputs do not change

    def begin(app, config) -> None:
        start(list(config.mha_kernel_preload), int(config.mha_kernel_threads))
        if _preloader:
            atexit.register(stop)
            patch_launcher()

    app.connect("config-inited", begin)
    app.connect("build-finished", stop)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2:])
