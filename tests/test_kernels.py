"""The build's kernels (book/_ext/parallel_reads.py, book/_ext/kernel_preload.py): pages are
read longest first, and a kernel forked from the preloader is the kernel a new Python would
have been, with PyTorch already in memory."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from jupyter_client.manager import KernelManager

from tests.book_ext import kernel_preload, parallel_reads

ROOT = Path(__file__).resolve().parents[1]


def test_pages_are_read_longest_first() -> None:
    docs = ["book/intro", "book/references", "notebooks/01", "notebooks/03", "notebooks/05"]
    # No timings (a cold build): the configured pages first, in their order, then the rest.
    first = ["notebooks/05", "notebooks/03"]
    assert parallel_reads.reading_order(docs, {}, first) == [
        "notebooks/05",
        "notebooks/03",
        "book/intro",
        "book/references",
        "notebooks/01",
    ]
    # Timings known: by CPU seconds, largest first, then the pages without one.
    known = {"notebooks/01": 9.0, "book/intro": 4.0, "notebooks/05": 20.0}
    assert parallel_reads.reading_order(docs, known, first) == [
        "notebooks/05",
        "notebooks/01",
        "book/intro",
        "notebooks/03",
        "book/references",
    ]


def test_last_cpu_seconds_reads_the_report(tmp_path: Path) -> None:
    report = tmp_path / "execution.json"
    assert parallel_reads.last_cpu_seconds(report) == {}  # no report yet
    report.write_text(json.dumps({"a": {"seconds": 3, "cpu_seconds": 2.5}, "b": {"seconds": 1}}))
    assert parallel_reads.last_cpu_seconds(report) == {"a": 2.5}
    report.write_text("{not json")
    assert parallel_reads.last_cpu_seconds(report) == {}


# What a kernel knows about itself before any cell of a notebook has run (one line of JSON).
PROBE = """
import json as _json, os as _os, sys as _sys
print(_json.dumps({
    "path": _sys.path,
    "args": _sys.argv[1:-1],  # the last argument is the kernel's own connection file
    "cwd": _os.getcwd(),
    "env": dict(_os.environ),
    "threads": _os.environ.get("OMP_NUM_THREADS"),
    "parent_pid": _os.environ.get("JPY_PARENT_PID"),
    "user_names": sorted(k for k in globals() if not k.startswith("_")),
    "mha_loaded": any(m == "mha" or m.startswith("mha.") for m in _sys.modules),
    "main": _sys.modules["__main__"].__name__,
    "torch_loaded": "torch" in _sys.modules,
    "ppid": _os.getppid(),
}))
"""


def _probe_kernel() -> dict:
    km = KernelManager(kernel_name="python3")
    km.kernel_spec.env = {**km.kernel_spec.env, "OMP_NUM_THREADS": "1"}
    km.start_kernel(cwd=str(ROOT / "notebooks"))
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=120)
        out: list[str] = []

        def keep(msg: dict) -> None:
            out.append(msg["content"].get("text", ""))

        reply = kc.execute_interactive(PROBE, output_hook=keep, timeout=120)
        assert reply["content"]["status"] == "ok"
    finally:
        kc.stop_channels()
        km.shutdown_kernel()
    return json.loads("".join(out))


@pytest.fixture
def preloader():
    kernel_preload.start(["torch"], threads=1)
    try:
        yield kernel_preload._preloader["process"].pid
    finally:
        kernel_preload.unpatch_launcher()
        kernel_preload.stop()


def test_a_preloaded_kernel_is_a_fresh_kernel(preloader: int) -> None:
    plain = _probe_kernel()  # started as usual: a new Python
    kernel_preload.patch_launcher()
    cpu_before = kernel_preload.kernel_cpu[0]
    forked = _probe_kernel()

    assert forked["ppid"] == preloader != plain["ppid"]  # it was forked by the preloader
    assert forked["parent_pid"] == plain["parent_pid"] == str(os.getpid())
    assert not plain["torch_loaded"] and forked["torch_loaded"]  # PyTorch already in memory
    assert not forked["mha_loaded"] and forked["main"] == "__main__"  # nothing of the book ran
    different = {k for k in plain if plain[k] != forked[k]}
    assert different == {"ppid", "torch_loaded"}  # everything else as in a new Python
    assert kernel_preload.kernel_cpu[0] > cpu_before  # its CPU time is reported


def test_a_page_read_in_a_forked_process_waits_for_the_preloader(tmp_path: Path) -> None:
    # Sphinx reads pages in processes forked from the build's, where the preloader is not a
    # child. Its socket appears only once it has imported PyTorch; a page read before then
    # must wait for it, not take the preloader for ended and start an ordinary kernel.
    import subprocess
    import sys

    socket = tmp_path / "socket"
    slow = f"import pathlib, time; time.sleep(1); pathlib.Path({str(socket)!r}).touch()"
    slow += "; time.sleep(60)"
    process = subprocess.Popen([sys.executable, "-c", slow])
    saved = dict(kernel_preload._preloader)
    kernel_preload._preloader.update(process=process, socket=str(socket), owner=os.getpid())
    try:
        assert not socket.exists()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the reading process
            os.close(read)
            try:
                os.write(write, (kernel_preload._ready(timeout=30) or "none").encode())
            finally:
                os._exit(0)
        os.close(write)
        with os.fdopen(read) as answer:
            got = answer.read()
        os.waitpid(pid, 0)
    finally:
        process.kill()
        process.wait()
        kernel_preload._preloader.clear()
        kernel_preload._preloader.update(saved)
    assert got == str(socket)
