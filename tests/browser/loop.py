"""The browser tests, N rounds in a row: which tests failed in any round, and a summary line.

Usage: ``python -m tests.browser.loop [N] [pytest arguments...]`` (``make browser-loop N=5``).
Each round is one ``pytest tests/browser`` in a new process (the arguments after N go to it,
e.g. ``-k static_views``); its results are read from the JUnit XML report that pytest writes.
Exit status 0 only when every round passed.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Round:
    """One round's outcome: counts and the ids of the tests that failed or errored."""

    passed: int = 0
    skipped: int = 0
    failed: list[str] = field(default_factory=list)
    seconds: float = 0.0
    status: int = 0


def read_report(path: Path) -> Round:
    """Counts and failed test ids (``file::name[params]``) of a JUnit XML report of pytest."""
    out = Round()
    for case in ET.parse(path).getroot().iter("testcase"):
        module = case.get("classname", "").replace(".", "/")
        name = f"{module}.py::{case.get('name')}"
        if case.find("failure") is not None or case.find("error") is not None:
            out.failed.append(name)
        elif case.find("skipped") is not None:
            out.skipped += 1
        else:
            out.passed += 1
    return out


def run_round(args: list[str], report: Path) -> Round:
    """``pytest tests/browser`` once, with ``args``; its outcome."""
    start = time.monotonic()
    cmd = [sys.executable, "-m", "pytest", "tests/browser", "-q", f"--junitxml={report}", *args]
    status = subprocess.run(cmd, cwd=ROOT).returncode
    out = read_report(report) if report.is_file() else Round(failed=["(no report: pytest died)"])
    out.seconds, out.status = time.monotonic() - start, status
    if status != 0 and not out.failed:  # e.g. a collection error: the round still failed
        out.failed.append(f"(pytest exited with status {status})")
    return out


def summary(rounds: list[Round]) -> list[str]:
    """The lines printed at the end: each failed test with the rounds it failed in, then one
    summary line."""
    lines, failing = [], {}
    for i, r in enumerate(rounds, 1):
        for name in r.failed:
            failing.setdefault(name, []).append(i)
    for name, which in failing.items():
        lines.append(f"FAILED in round(s) {', '.join(map(str, which))} of {len(rounds)}: {name}")
    bad = sum(1 for r in rounds if r.failed)
    per_round = ", ".join(
        f"{r.passed} passed/{len(r.failed)} failed/{r.skipped} skipped in {r.seconds:.0f} s"
        for r in rounds
    )
    lines.append(
        f"browser-loop: {len(rounds)} rounds, {len(rounds) - bad} without a failure, "
        f"{bad} with; {len(failing)} distinct test(s) failed ({per_round})"
    )
    return lines


def main(argv: list[str]) -> int:
    n = int(argv[0]) if argv and argv[0].isdigit() else 5
    args = argv[1:] if argv and argv[0].isdigit() else argv
    rounds = []
    with tempfile.TemporaryDirectory(prefix="mha-browser-loop-") as tmp:
        for i in range(1, n + 1):
            print(f"=== browser-loop: round {i} of {n} ===", flush=True)
            rounds.append(run_round(args, Path(tmp) / f"round-{i}.xml"))
            print(summary(rounds)[-1], flush=True)
    print("=== browser-loop: summary ===")
    print("\n".join(summary(rounds)))
    return 1 if any(r.failed for r in rounds) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
