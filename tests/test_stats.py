"""The two-sample comparisons of mha.stats, checked against independent sources.

Fisher's exact test is compared with SciPy's implementation; Newcombe's interval with the
values Newcombe (1998, Table II, method 10) printed for his worked examples; the exact McNemar
test with SciPy's binomial test on the discordant pairs, and with a case worked by hand.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest
from scipy.stats import fisher_exact as scipy_fisher_exact

from mha.stats import fisher_exact, mcnemar_exact, newcombe_interval


@st.composite
def two_counts(draw: st.DrawFn) -> tuple[int, int, int, int]:
    n1, n2 = draw(st.integers(1, 60)), draw(st.integers(1, 60))
    return draw(st.integers(0, n1)), n1, draw(st.integers(0, n2)), n2


@settings(max_examples=300, deadline=None)
@given(two_counts())
def test_fisher_exact_matches_scipy(counts: tuple[int, int, int, int]) -> None:
    k1, n1, k2, n2 = counts
    expected = scipy_fisher_exact([[k1, n1 - k1], [k2, n2 - k2]])[1]
    assert fisher_exact(k1, n1, k2, n2) == pytest.approx(expected, rel=1e-9, abs=1e-15)


def test_fisher_exact_on_the_books_counts() -> None:
    # one head 4 of 10 against two heads 9 of 10: the p-value the book's readers quoted
    assert fisher_exact(4, 10, 9, 10) == pytest.approx(0.0573, abs=5e-5)
    assert fisher_exact(5, 10, 5, 10) == 1.0  # identical counts: nothing to see
    assert fisher_exact(0, 10, 10, 10) == pytest.approx(2 / 184756)  # 2 / C(20, 10)


# Newcombe (1998), Statistics in Medicine 17, 873-890, Table II, method 10.
NEWCOMBE_1998 = [
    ((56, 70, 48, 80), (0.0524, 0.3339)),
    ((9, 10, 3, 10), (0.1705, 0.8090)),
    ((5, 56, 0, 29), (-0.0381, 0.1926)),
    ((0, 10, 0, 20), (-0.1611, 0.2775)),
    ((0, 10, 0, 10), (-0.2775, 0.2775)),
    ((10, 10, 0, 20), (0.6791, 1.0000)),
    ((10, 10, 0, 10), (0.6075, 1.0000)),
]


@pytest.mark.parametrize(("counts", "published"), NEWCOMBE_1998)
def test_newcombe_interval_matches_published_values(counts, published) -> None:
    low, high = newcombe_interval(*counts)
    assert (low, high) == pytest.approx(published, abs=5e-5)


@settings(max_examples=200, deadline=None)
@given(two_counts(), st.floats(0.5, 0.999))
def test_newcombe_interval_properties(counts, confidence: float) -> None:
    k1, n1, k2, n2 = counts
    d = k1 / n1 - k2 / n2
    low, high = newcombe_interval(k1, n1, k2, n2, confidence)
    assert -1 - 1e-12 <= low <= d <= high <= 1 + 1e-12
    # swapping the two settings mirrors the interval
    swapped = newcombe_interval(k2, n2, k1, n1, confidence)
    assert swapped == pytest.approx((-high, -low), abs=1e-12)
    # a higher confidence gives a wider interval
    wider = newcombe_interval(k1, n1, k2, n2, min(0.9999, confidence + 0.0005))
    assert wider[0] <= low + 1e-12 and wider[1] >= high - 1e-12


@pytest.mark.parametrize("bad", [(-1, 10, 1, 10), (1, 0, 1, 10), (1, 10, 11, 10), (1.0, 10, 1, 10)])
def test_two_sample_errors_name_the_counts(bad) -> None:
    for fn in (fisher_exact, newcombe_interval):
        with pytest.raises(ValueError, match="0 <= k <= n"):
            fn(*bad)


def test_fisher_exact_never_exceeds_one() -> None:
    # Every table of these margins is at most as likely as the observed one, so the sum is
    # the whole distribution: 1, which floating point adds up to 1 + 2**-52.
    assert fisher_exact(3, 5, 4, 7) == 1.0


@st.composite
def paired_outcomes(draw: st.DrawFn) -> tuple[list[bool], list[bool]]:
    n = draw(st.integers(1, 60))
    return draw(st.lists(st.booleans(), min_size=n, max_size=n)), draw(
        st.lists(st.booleans(), min_size=n, max_size=n)
    )


@settings(max_examples=300, deadline=None)
@given(paired_outcomes())
def test_mcnemar_exact_matches_scipy_binomtest(pairs: tuple[list[bool], list[bool]]) -> None:
    a, b = pairs
    n_ab = sum(x and not y for x, y in zip(a, b, strict=True))
    n_ba = sum(y and not x for x, y in zip(a, b, strict=True))
    expected = binomtest(n_ab, n_ab + n_ba, 0.5).pvalue if n_ab + n_ba else 1.0
    assert mcnemar_exact(a, b) == pytest.approx(expected, rel=1e-9, abs=1e-15)
    assert mcnemar_exact(b, a) == mcnemar_exact(a, b)  # two-sided: the order does not matter


def test_mcnemar_exact_by_hand() -> None:
    # Five seeds: a wins on seeds 0, 1 and 2, b on seed 3, both succeed on seed 4. Three
    # discordant pairs go a's way, one b's: p = 2 * P(X <= 1), X ~ Binomial(4, 1/2),
    # = 2 * (1 + 4) / 16 = 0.625.
    a = [True, True, True, False, True]
    b = [False, False, False, True, True]
    assert mcnemar_exact(a, b) == 0.625
    # Concordant pairs carry no information: adding any number leaves p alone.
    assert mcnemar_exact([*a, True, False], [*b, True, False]) == 0.625
    assert mcnemar_exact([True] * 4, [True] * 4) == 1.0  # no discordant pair
    assert mcnemar_exact([1, 1, 1, 1, 1], [0, 0, 0, 0, 0]) == 2 / 32  # all five one way


def test_mcnemar_exact_on_the_books_runs() -> None:
    """The paired p-values a reader computed for issue 36: one head against two narrow heads,
    and against four, on seeds 0-19 (solved or not at step 400)."""
    from mha.training import curves, probe
    from mha.training.data import D_MODEL

    seeds = range(20)

    def solved(h: int, d_k: int) -> list[bool]:
        return [curves.metrics(h, d_k, s)["test_both"] >= probe.SOLVED_AT for s in seeds]

    one = solved(1, D_MODEL)
    assert mcnemar_exact(solved(2, 6), one) == pytest.approx(0.0225, abs=5e-5)
    assert mcnemar_exact(solved(4, 3), one) == pytest.approx(0.0010, abs=5e-5)


@pytest.mark.parametrize(
    ("a", "b", "match"),
    [
        ([True, False], [True], "pair up"),
        ([], [], "no outcomes"),
        ([True, 2], [True, False], "a must hold booleans"),
        ([True, False], [0.5, True], "b must hold booleans"),
    ],
)
def test_mcnemar_exact_errors_name_the_bad_input(a, b, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        mcnemar_exact(a, b)
