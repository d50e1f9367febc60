"""Every test starts from the same global random state, whatever ran before it.

A test that draws from torch's (or Python's, or NumPy's) global generator without seeding it
would otherwise get numbers that depend on which tests ran before it, and in what order.

Each test also gets its tier (a pytest marker, below): ``make unit`` runs the ``unit`` tier.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
import torch

import mha  # noqa: F401  before any test runs a torch kernel: mha asks for AVX2 ones (its __init__)


@pytest.fixture(autouse=True)
def _same_global_random_state() -> None:
    torch.manual_seed(0)
    random.seed(0)
    np.random.seed(0)


# The tiers of the suite (registered in pyproject.toml). `make unit` runs `-m unit`: the
# package, its JavaScript in Node and the source files, with no built book, no chromium and
# no TeX. Tests in tests/browser/ are `browser` tests of the built site; JupyterLab's are
# `lab` too. A module or test that reads `_build` says `build` (or `pdf`) itself, and one that
# takes seconds (a sweep over every stored run, training reproduced) says `slow`; a test with
# no tier is `unit`.
TIERS = ("unit", "build", "browser", "pdf", "lab", "slow")
BROWSER = Path(__file__).parent / "browser"
LAB = {"test_lab.py", "test_plain_lab.py"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if BROWSER in item.path.parents:
            item.add_marker(pytest.mark.browser)
            if item.path.name in LAB:
                item.add_marker(pytest.mark.lab)
        if not any(item.get_closest_marker(t) for t in TIERS):
            item.add_marker(pytest.mark.unit)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test parametrized over files of the build finds none when the book is not built:
    pytest would skip it ("got empty parameter set"); here it fails."""
    skip = item.get_closest_marker("skip")
    reason = skip.kwargs.get("reason", "") if skip else ""
    if reason.startswith("got empty parameter set"):
        pytest.fail(f"{item.nodeid}: nothing to test ({reason}): run `make book` first")
