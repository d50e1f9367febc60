"""One way to seed random numbers, for the whole package.

Every random tensor in :mod:`mha` is drawn from a generator made here from a
tuple of small ints that names what is drawn (a seed, a head, a width...). The
same tuple gives the same numbers on every run and machine, and different
tuples give independent streams, so adding a head leaves the others as they were.
"""

from __future__ import annotations

import numpy as np
import torch


def generator(*key: int) -> torch.Generator:
    """A torch generator seeded from the ints ``key``, e.g. ``generator(seed, head)``."""
    seed = int(np.random.SeedSequence([int(k) for k in key]).generate_state(1)[0])
    return torch.Generator().manual_seed(seed)
