"""Every test starts from the same global random state, whatever ran before it.

A test that draws from torch's (or Python's, or NumPy's) global generator without seeding it
would otherwise get numbers that depend on which tests ran before it, and in what order.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

import mha  # noqa: F401  before any test runs a torch kernel: mha asks for AVX2 ones (its __init__)


@pytest.fixture(autouse=True)
def _same_global_random_state() -> None:
    torch.manual_seed(0)
    random.seed(0)
    np.random.seed(0)
