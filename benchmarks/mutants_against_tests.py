"""Run one set of tests against every mutant of one module of a mutmut ``mutants/`` tree.

mutmut's trampoline reads ``MUTANT_UNDER_TEST`` at every call, so one Python process can try
each mutant in turn without mutmut's runner. Used for the before-run of
benchmarks/mutation.md: the old tests against the same mutants. Run from the folder whose
tests you want, with the mutated sources first on the path:

    PYTHONPATH=/path/to/mutants/src python /path/to/benchmarks/mutants_against_tests.py \
        /path/to/mutants/src/mha/budget.py.meta tests/test_budget.py

Prints ``RESULT <mutant> exit=<pytest exit code> killed|survived|error`` per mutant, after one pass
with no mutant (``none``), which must pass for the rest to mean anything.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest


def main(meta: str, tests: list[str]) -> None:
    """Run ``tests`` (pytest arguments) with no mutant, then with each mutant named in ``meta``."""
    names = ["none", *json.loads(Path(meta).read_text())["exit_code_by_key"]]
    for name in names:
        os.environ["MUTANT_UNDER_TEST"] = name
        code = int(pytest.main(["-q", "-x", "-p", "no:cacheprovider", "-o", "addopts=", *tests]))
        verdict = {0: "survived", 1: "killed"}.get(code, "error")  # 1: a test failed
        print(f"RESULT {name} exit={code} {verdict}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
