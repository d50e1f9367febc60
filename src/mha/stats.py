"""How sure a count of successes is, and whether two counts differ.

A chapter that runs ``n`` seeds and sees ``k`` of them succeed reports ``k / n`` with
the Wilson score interval (Wilson 1927), which stays inside ``[0, 1]`` and behaves well
for small ``n`` and for ``k = 0`` or ``k = n``, where the textbook ``p ± z·se`` interval
collapses to a single point.

Two settings are compared with a test, not by whether their intervals overlap
(two 95 % intervals can overlap while the difference is significant). When the two settings
were run on the same seeds, each seed gives a pair of outcomes, and :func:`mcnemar_exact`
(the exact McNemar test) uses that pairing. For independent runs, :func:`fisher_exact` gives
the p-value of Fisher's exact test (Fisher 1935), and :func:`newcombe_interval` an interval
for the difference of the two rates (Newcombe 1998).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
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
    _check_counts(k, n)
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


def _check_counts(k: int, n: int) -> None:
    if not (isinstance(k, int) and isinstance(n, int)) or n < 1 or not 0 <= k <= n:
        raise ValueError(f"need whole numbers 0 <= k <= n and n >= 1, got k = {k}, n = {n}")


def fisher_exact(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided p-value of Fisher's exact test that two counts share one success rate.

    The 2 × 2 table is ``[[k1, n1 - k1], [k2, n2 - k2]]``. With its margins held fixed,
    the count in the first cell follows a hypergeometric distribution; the p-value adds the
    probabilities of every table no more likely than the one observed (with a relative
    tolerance of 1e-7 for ties in floating point, as R and SciPy do).

    Args:
        k1, n1: successes and trials of the first setting.
        k2, n2: successes and trials of the second.

    Returns:
        The p-value, in ``(0, 1]``.
    """
    _check_counts(k1, n1)
    _check_counts(k2, n2)
    successes, total = k1 + k2, n1 + n2
    lo, hi = max(0, successes - n2), min(successes, n1)

    def prob(x: int) -> float:  # P(first cell = x) with the margins fixed
        ways = math.comb(n1, x) * math.comb(n2, successes - x)
        return ways / math.comb(total, successes)

    observed = prob(k1)
    p = sum(q for x in range(lo, hi + 1) if (q := prob(x)) <= observed * (1 + 1e-7))
    return min(1.0, p)


def mcnemar_exact(a: Sequence[bool], b: Sequence[bool]) -> float:
    """Two-sided p-value of the exact McNemar test for paired successes and failures.

    ``a[i]`` and ``b[i]`` are the outcomes of two settings run on the same seed ``i``. Only
    the discordant pairs carry information: ``n_ab``, the seeds where ``a`` succeeded and
    ``b`` failed, and ``n_ba``, the reverse. If both settings share one success rate, each of
    the ``n = n_ab + n_ba`` discordant pairs falls either way with probability 1/2, so the
    p-value is the two-sided binomial test of ``n_ab`` in ``n`` trials:
    ``min(1, 2 · P(X <= min(n_ab, n_ba)))`` with ``X ~ Binomial(n, 1/2)``. With no
    discordant pair it is 1.

    Args:
        a: the first setting's outcomes, one per seed (``True``: success).
        b: the second setting's outcomes on the same seeds, in the same order.

    Returns:
        The p-value, in ``(0, 1]``.

    Raises:
        ValueError: if ``a`` and ``b`` differ in length, are empty, or hold anything but
            booleans (or the integers 0 and 1).
    """
    if len(a) != len(b):
        raise ValueError(f"a and b must pair up seed by seed, got {len(a)} and {len(b)} outcomes")
    if not a:
        raise ValueError("a and b hold no outcomes")
    for name, xs in (("a", a), ("b", b)):
        bad = [x for x in xs if not isinstance(x, (bool, int)) or x not in (0, 1)]
        if bad:
            raise ValueError(f"{name} must hold booleans (or 0 and 1), got {bad[0]!r}")
    n_ab = sum(bool(x) and not bool(y) for x, y in zip(a, b, strict=True))
    n_ba = sum(bool(y) and not bool(x) for x, y in zip(a, b, strict=True))
    n = n_ab + n_ba
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, x) for x in range(min(n_ab, n_ba) + 1)) / 2**n
    return min(1.0, 2 * tail)


def newcombe_interval(
    k1: int, n1: int, k2: int, n2: int, confidence: float = 0.95
) -> tuple[float, float]:
    """Newcombe's hybrid score interval for the difference of two rates, ``k1/n1 - k2/n2``.

    Each rate gets its Wilson interval ``(l_i, u_i)``; the difference ``d = p1 - p2`` then has
    the interval ``(d - sqrt((p1 - l1)² + (u2 - p2)²), d + sqrt((u1 - p1)² + (p2 - l2)²))``
    (Newcombe 1998, method 10). It stays inside ``[-1, 1]`` and is sensible at 0 and n.

    Args:
        k1, n1: successes and trials of the first setting.
        k2, n2: successes and trials of the second.
        confidence: the interval's coverage, e.g. ``0.95``.

    Returns:
        ``(low, high)`` for ``k1/n1 - k2/n2``.
    """
    _check_counts(k1, n1)
    _check_counts(k2, n2)
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson_interval(k1, n1, confidence)
    l2, u2 = wilson_interval(k2, n2, confidence)
    d = p1 - p2
    return d - math.hypot(p1 - l1, u2 - p2), d + math.hypot(u1 - p1, p2 - l2)
