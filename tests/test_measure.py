"""Tests for mha.measure: FLOP counts of real calls and interleaved timing."""

from __future__ import annotations

import pytest
import torch

import mha
from mha import measure


@pytest.mark.parametrize(("h", "d_k"), [(1, None), (4, None), (8, None), (2, 16)])
def test_flops_of_heads_are_twice_the_counted_macs(h: int, d_k: int | None) -> None:
    layer = measure.random_layer(12, 16, h, d_k, dtype=torch.float64)
    counted = measure.flops(mha.all_heads, *layer.projections)
    assert counted["total"] == measure.FLOPS_PER_MAC * layer.cost.macs_without_out


def test_flops_of_whole_layer_include_the_output_projection() -> None:
    layer = measure.random_layer(7, 12, 3)
    counted = measure.flops(mha.multi_head_attention, *layer.projections, layer.W_o)
    assert counted["total"] == 2 * layer.cost.macs_total
    looped = measure.flops(mha.multi_head_attention_loop, *layer.projections, layer.W_o)
    assert looped["total"] == counted["total"]


def test_meta_layer_is_counted_without_data() -> None:
    layer = measure.random_layer(512, 512, 16, 512, device="meta")
    assert layer.X.device.type == "meta"
    assert layer.W_q.shape == (16, 512, 512)
    counted = measure.flops(mha.all_heads, *layer.projections)
    assert counted["total"] == 2 * layer.cost.macs_without_out


def test_random_layer_is_seeded_and_shaped() -> None:
    a = measure.random_layer(5, 8, 2, seed=3)
    b = measure.random_layer(5, 8, 2, seed=3)
    c = measure.random_layer(5, 8, 2, seed=4)
    assert a.X.shape == (5, 8) and a.W_q.shape == (2, 8, 4) and a.W_o.shape == (8, 8)
    assert torch.equal(a.X, b.X) and torch.equal(a.W_v, b.W_v)
    assert not torch.equal(a.W_q, c.W_q)
    assert a.X.dtype == torch.float32


def test_random_layer_rejects_heads_that_do_not_divide() -> None:
    with pytest.raises(ValueError, match="cannot split"):
        measure.random_layer(5, 9, 2)


def test_time_interleaved_runs_in_turns_and_times_each_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fake clock that each function moves on by a known amount: the runs recorded are
    exactly the timed calls' amounts (the warm-up's left out), whatever the machine does."""
    clock = [0.0]
    monkeypatch.setattr(measure.time, "perf_counter", lambda: clock[0])
    order: list[str] = []
    took = {"a": iter([100.0, 3.0, 1.0, 4.0, 2.0]), "b": iter([200.0, 5.0, 5.0, 6.0, 9.0])}

    def run(name: str) -> None:
        order.append(name)
        clock[0] += next(took[name])

    timings = measure.time_interleaved(
        {"a": lambda: run("a"), "b": lambda: run("b")}, repeats=4, warmup=1
    )
    assert order == ["a", "b"] * 5
    assert timings["a"].runs == (3.0, 1.0, 4.0, 2.0) and timings["b"].runs == (5.0, 5.0, 6.0, 9.0)
    a, b = timings["a"], timings["b"]
    assert (a.median, a.min, a.max) == (2.5, 1.0, 4.0)
    assert (b.median, b.min, b.max) == (5.5, 5.0, 9.0)
    assert measure.Timing((0.3, 0.1, 0.2)).median == 0.2  # odd count: the middle run


def test_time_interleaved_rejects_no_repeats() -> None:
    with pytest.raises(ValueError, match="repeats"):
        measure.time_interleaved({"a": lambda: None}, repeats=0)


@pytest.mark.parametrize(("n", "d_model", "h"), [(7, 12, 3), (256, 512, 8), (512, 256, 4)])
def test_each_stage_is_counted_on_its_own_call(n: int, d_model: int, h: int) -> None:
    """At n != d_model the three stages have different counts, so a swap would show."""
    layer = measure.random_layer(n, d_model, h, device="meta")
    got = measure.stage_flops(*layer.projections)
    c = layer.cost
    assert got == {
        "projection": 2 * c.projection,
        "scoring": 2 * c.scoring,
        "blending": 2 * c.blending,
    }
    d_k = d_model // h  # each stage by its own hand formula (two FLOPs per multiply-add)
    assert got["projection"] == 2 * 3 * h * n * d_model * d_k
    assert got["scoring"] == got["blending"] == 2 * h * n * n * d_k
    assert sum(got.values()) == measure.flops(mha.all_heads, *layer.projections)["total"]


def test_paired_sign_test_against_enumerating_every_outcome() -> None:
    import itertools

    for n, k in ((10, 2), (10, 5), (9, 0), (7, 6)):
        a = measure.Timing(tuple([2.0] * k + [1.0] * (n - k)))  # a longer in k pairs
        b = measure.Timing(tuple([1.5] * n))
        result = measure.paired(a, b)
        extreme = abs(k - n / 2)
        # every one of the 2^n equally likely sign patterns, counted
        hits = sum(abs(sum(s) - n / 2) >= extreme for s in itertools.product((0, 1), repeat=n))
        assert (result.longer, result.pairs) == (k, n)
        assert result.p_value == pytest.approx(hits / 2**n)


def test_paired_drops_ties_and_checks_lengths() -> None:
    result = measure.paired(measure.Timing((1.0, 2.0, 3.0)), measure.Timing((1.0, 1.0, 1.0)))
    assert (result.longer, result.pairs) == (2, 2) and result.p_value == pytest.approx(0.5)
    assert result.shorter == 0 and result.median_ratio == 2.5  # the tie (1.0, 1.0) is dropped
    with pytest.raises(ValueError, match="same number of runs, got 1 and 2"):
        measure.paired(measure.Timing((1.0,)), measure.Timing((1.0, 2.0)))


def test_paired_median_ratio_is_the_median_pair_not_the_ratio_of_medians() -> None:
    """The two can point opposite ways; the median pair follows the pair counts."""
    a = measure.Timing((1.0, 1.0, 10.0, 10.0, 10.0))
    b = measure.Timing((2.0, 2.0, 9.0, 9.0, 9.0))
    result = measure.paired(a, b)
    assert (result.longer, result.shorter, result.pairs) == (3, 2, 5)
    assert result.median_ratio == pytest.approx(10.0 / 9.0)  # longer in the median pair
    assert a.median / b.median == pytest.approx(10.0 / 9.0)
    c, d = measure.Timing((1.0, 3.0, 3.0)), measure.Timing((2.0, 2.0, 2.0))
    assert c.median / d.median == 1.5 and measure.paired(c, d).median_ratio == 1.5
    e, f = measure.Timing((1.0, 5.0, 5.0)), measure.Timing((4.0, 4.5, 4.5))
    assert e.median / f.median > 1 and measure.paired(e, f).median_ratio > 1
    # ratio of medians below 1, yet longer in most pairs: the median pair says longer
    g, h = measure.Timing((2.0, 2.1, 2.2, 9.0, 9.0)), measure.Timing((1.9, 2.0, 5.0, 6.0, 8.0))
    assert g.median / h.median < 1
    r = measure.paired(g, h)
    assert r.longer == 4 and r.median_ratio > 1


def test_matrix_products_agree_with_torch_profiler() -> None:
    """The dispatcher's log of products matches what torch.profiler records (another route)."""
    from torch.profiler import ProfilerActivity, profile

    X = torch.randn(6, 8)  # (n, d_model)
    W = torch.randn(2, 8, 4)  # (h, d_model, d_k)
    calls = {
        "einsum": lambda: mha.project(X, W),  # (2, 6, 4)
        "bmm": lambda: torch.bmm(X.expand(2, -1, -1), W),  # (2, 6, 4)
        "loop": lambda: [X @ w for w in W],  # 2 x (6, 4)
    }
    for name, fn in calls.items():
        logged = measure.matrix_products(fn)
        with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
            fn()
        seen = [
            (e.name.removeprefix("aten::"), [list(s) for s in e.input_shapes if s])
            for e in prof.events()
            if e.name in ("aten::mm", "aten::bmm")
        ]
        assert logged == seen, name
    assert measure.matrix_products(calls["bmm"]) == [("bmm", [[2, 6, 8], [2, 8, 4]])]
    assert len(measure.matrix_products(calls["loop"])) == 2
