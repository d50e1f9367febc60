"""How sure a count of successes is: a confidence interval for a binomial proportion.

A chapter that runs ``n`` seeds and sees ``k`` of them succeed reports ``k / n`` with
the Wilson score interval (Wilson 1927), which stays inside ``[0, 1]`` and behaves well
for small ``n`` and for ``k = 0`` or ``k = n``, where the textbook ``p ± z·se`` interval
collapses to a single point.
"""

from __future__ import annotations

import math
from statistics import NormalDist


def wilson_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval for ``k`` successes in ``n`` trials.

    Args:
        k: successes, ``0 <= k <= n``.
        n: trials, ``n >= 1``.
        confidence: the interval's coverage, e.g. ``0.95``.

    Returns:
        ``(low, high)``: ``(p + z²/2n ∓ z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)`` with
        ``p = k/n`` and ``z`` the standard normal quantile at ``(1 + confidence) / 2``.
    """
    if not (isinstance(k, int) and isinstance(n, int)) or n < 1 or not 0 <= k <= n:
        raise ValueError(f"need whole numbers 0 <= k <= n and n >= 1, got k = {k}, n = {n}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, got {confidence}")
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    p = k / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    scale = 1 + z * z / n
    low, high = (centre - half) / scale, (centre + half) / scale
    # In exact arithmetic 0 <= low <= p <= high <= 1; round-off can cross an end by one
    # ulp (high = 1 - 2e-16 at k = n, low < 0 at k = 0), so pin each end to its bound.
    return max(0.0, min(low, p)), min(1.0, max(high, p))
