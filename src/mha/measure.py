"""Measuring real calls: FLOPs counted by PyTorch, and wall-clock time.

:mod:`mha.cost` counts multiply-adds on paper. This module checks those counts
against what PyTorch itself counts when the functions of :mod:`mha.attention`
actually run, lists the matrix products a call really runs (with their shapes),
times functions fairly against each other, and compares their runs pair by pair
with a sign test.

FLOPs versus multiply-adds: ``torch.utils.flop_counter.FlopCounterMode`` counts
two floating-point operations per multiply-add (one multiply, one add), and it
counts only matrix products; the softmax, the scaling by ``1/sqrt(d_k)`` and
the reshapes are not in its total.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import torch
from torch import Tensor
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import FlopCounterMode

from mha.attention import project
from mha.cost import Cost, layer_cost
from mha.toy import random_heads, random_output

FLOPS_PER_MAC = 2


def flops(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> dict[str, int]:
    """Run ``fn(*args, **kwargs)`` once and return the FLOPs PyTorch counted, by operator.

    Returns:
        ``{operator name: FLOPs}``, e.g. ``{"bmm": 1342177280}``, plus the key
        ``"total"``. Operators that do no counted arithmetic are absent.
    """
    with FlopCounterMode(display=False) as counter:
        fn(*args, **kwargs)
    by_op = {
        str(op).split(".")[-1]: int(v) for op, v in counter.get_flop_counts()["Global"].items()
    }
    by_op["total"] = int(counter.get_total_flops())
    return by_op


def stage_flops(X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> dict[str, int]:
    """FLOPs PyTorch counts for each stage of :func:`mha.all_heads`, each on its own call.

    Every stage runs under its own counter, so a count cannot borrow from another
    stage even where two stages happen to cost the same (as projection and scoring do
    when ``n = d_model``). Works on ``device="meta"`` tensors.

    Returns:
        ``{"projection": all three roles, "scoring": Q K^T, "blending": weights V}``.
    """
    Q, K, V = project(X, W_q), project(X, W_k), project(X, W_v)  # (h, n, d_k) each
    weights = torch.empty(*Q.shape[:-1], K.shape[-2], dtype=Q.dtype, device=Q.device)
    return {
        "projection": sum(flops(project, X, W)["total"] for W in (W_q, W_k, W_v)),
        "scoring": flops(torch.matmul, Q, K.transpose(-2, -1))["total"],  # (h, n, n)
        "blending": flops(torch.matmul, weights, V)["total"],  # (h, n, d_v)
    }


_PRODUCTS = ("mm", "bmm", "addmm", "baddbmm")  # the aten operators that multiply matrices


class _ProductLog(TorchDispatchMode):
    """Records every matrix product that reaches PyTorch's dispatcher, with its input shapes."""

    def __init__(self) -> None:
        super().__init__()
        self.products: list[tuple[str, list[list[int]]]] = []

    def __torch_dispatch__(
        self,
        func: Any,
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        name = func.overloadpacket.__name__
        if name in _PRODUCTS:
            shapes = [list(a.shape) for a in args if isinstance(a, Tensor)]
            self.products.append((name, shapes))
        return func(*args, **(kwargs or {}))


def matrix_products(fn: Callable[..., Any], *args: Any) -> list[tuple[str, list[list[int]]]]:
    """The matrix products ``fn(*args)`` actually runs, as PyTorch's dispatcher sees them.

    A look at what a call does rather than what its code says: an ``einsum`` or a
    ``matmul`` may be run as one product of another shape. The operators are the
    ones ``torch.profiler`` lists (``aten::mm``, ``aten::bmm``, ...); works on
    ``device="meta"`` tensors.

    Returns:
        One ``(operator, input shapes)`` per product, in order, e.g.
        ``("bmm", [[8, 512, 512], [8, 512, 64]])``.
    """
    with _ProductLog() as log:
        fn(*args)
    return log.products


@dataclass(frozen=True)
class Layer:
    """Random tensors for one multi-head layer, and what it should cost.

    Attributes:
        X: ``(n, d_model)`` the sentence.
        W_q, W_k, W_v: ``(h, d_model, d_k)`` each.
        W_o: ``(h*d_k, d_model)``.
        cost: :func:`mha.cost.layer_cost` for the same sizes.
    """

    X: Tensor
    W_q: Tensor
    W_k: Tensor
    W_v: Tensor
    W_o: Tensor
    cost: Cost

    @property
    def projections(self) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """``(X, W_q, W_k, W_v)``, the arguments of :func:`mha.all_heads`."""
        return self.X, self.W_q, self.W_k, self.W_v


def random_layer(
    n: int,
    d_model: int,
    h: int,
    d_k: int | None = None,
    seed: int = 0,
    dtype: torch.dtype = torch.float32,
    device: str = "cpu",
) -> Layer:
    """Seeded random tensors for a layer of ``h`` heads of width ``d_k`` on ``n`` words.

    ``d_k`` defaults to ``d_model / h``. With ``device="meta"`` the tensors have
    shapes but no data: nothing is drawn or computed, yet
    :class:`~torch.utils.flop_counter.FlopCounterMode` still counts every
    matrix product, which makes it cheap to count layers too big to run.
    """
    cost = layer_cost(n, d_model, h, d_k)
    if device == "meta":
        W = torch.empty(3, h, d_model, cost.d_k, dtype=dtype, device="meta")  # (3, h, d_model, d_k)
        X = torch.empty(n, d_model, dtype=dtype, device="meta")  # (n, d_model)
        W_o = torch.empty(h * cost.d_k, d_model, dtype=dtype, device="meta")  # (h*d_k, d_model)
        return Layer(X, W[0], W[1], W[2], W_o, cost)
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n, d_model, generator=g, dtype=torch.float64).to(dtype)  # (n, d_model)
    W_q, W_k, W_v = (
        w.to(dtype) for w in random_heads(h, cost.d_k, seed, d_model)
    )  # (h, d_model, d_k) each
    W_o = random_output(h, cost.d_k, seed, d_model).to(dtype)  # (h*d_k, d_model)
    return Layer(X, W_q, W_k, W_v, W_o, cost)


@dataclass(frozen=True)
class Timing:
    """Wall-clock seconds of one function over repeated runs."""

    runs: tuple[float, ...]

    @property
    def median(self) -> float:
        """Median seconds per run."""
        return statistics.median(self.runs)

    @property
    def min(self) -> float:
        """Fastest run, in seconds."""
        return min(self.runs)

    @property
    def max(self) -> float:
        """Slowest run, in seconds."""
        return max(self.runs)


def time_interleaved(
    fns: Mapping[str, Callable[[], Any]], repeats: int = 21, warmup: int = 3
) -> dict[str, Timing]:
    """Time several functions fairly: warm up, then run them in turns A B A B ...

    Interleaving means a slow spell of the machine (another process, a clock
    change) hits every function alike instead of whichever ran during it.

    Args:
        fns: name -> function of no arguments.
        repeats: timed runs of each function (at least 1).
        warmup: untimed runs of each function first (caches, thread pools).

    Returns:
        name -> :class:`Timing` with ``repeats`` runs.
    """
    if repeats < 1 or warmup < 0:
        raise ValueError(f"need repeats >= 1 and warmup >= 0, got {repeats} and {warmup}")
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    runs: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            runs[name].append(time.perf_counter() - start)
    return {name: Timing(tuple(r)) for name, r in runs.items()}


@dataclass(frozen=True)
class Paired:
    """Two functions timed in turns, compared pair by pair.

    Attributes:
        longer: pairs in which the first function took longer than the second.
        pairs: pairs compared (ties count as neither longer nor shorter and are dropped).
        p_value: two-sided sign test: the chance, were each function equally likely
            to take longer in a pair, of a split at least this uneven.
        median_ratio: the first function's time over the second's, pair by pair, then
            the median of those ratios (over the pairs compared). With an odd number of
            pairs it is above 1 exactly when ``longer`` is more than half of ``pairs``.
    """

    longer: int
    pairs: int
    p_value: float
    median_ratio: float

    @property
    def shorter(self) -> int:
        """Pairs in which the first function took less time than the second."""
        return self.pairs - self.longer


def paired(a: Timing, b: Timing) -> Paired:
    """Compare two timings of :func:`time_interleaved` run by run (run ``k`` of each is a pair).

    Raises:
        ValueError: if the two have different numbers of runs.
    """
    if len(a.runs) != len(b.runs):
        raise ValueError(f"need the same number of runs, got {len(a.runs)} and {len(b.runs)}")
    pairs = [(x, y) for x, y in zip(a.runs, b.runs, strict=True) if x != y]
    n, k = len(pairs), sum(x > y for x, y in pairs)
    tail = min(k, n - k)  # the smaller side; the test counts splits at least this uneven
    p = sum(math.comb(n, j) for j in range(n + 1) if min(j, n - j) <= tail) / 2**n
    ratio = statistics.median(x / y for x, y in pairs) if pairs else 1.0
    return Paired(k, n, min(1.0, p), ratio)
