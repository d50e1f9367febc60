"""What a multi-head attention layer costs, counted in multiply-adds.

Costs are multiply-adds (MACs): one ``a*b + c``. A matmul of an ``(m, k)`` by a
``(k, p)`` matrix takes ``m*k*p`` of them. Profilers such as
``torch.utils.flop_counter.FlopCounterMode`` count FLOPs, two per multiply-add.

Heads may share keys and values: with ``kv_groups = g`` the ``h`` query heads are
served by ``g`` key/value heads (grouped-query attention; ``g = h`` is ordinary
multi-head attention, ``g = 1`` multi-query attention). Sharing shrinks ``W^K``,
``W^V``, their projections and the key/value cache, and nothing else.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from mha import checks


@dataclass(frozen=True)
class Cost:
    """The cost of one layer with ``h`` heads of width ``d_k`` (``d_v = d_k``) on ``n`` words.

    Attributes:
        params_per_role: weights in ``W^Q``, all heads together: ``h * d_model * d_k``;
            also in each of ``W^K`` and ``W^V`` when ``kv_groups == h``.
        params_out: weights in ``W^O``: ``h * d_k * d_model``.
        params_without_out: weights in ``W^Q``, ``W^K`` and ``W^V`` together
            (``3 * params_per_role`` when ``kv_groups == h``).
        params_total: ``params_without_out + params_out``.
        projection_per_role: MACs to compute ``Q`` for every head (also ``K`` and
            ``V`` when ``kv_groups == h``): ``n * d_model * d_k`` per head, ``h`` heads.
        projection: the three roles together.
        scoring: MACs of ``Q K^T`` over all heads: ``n^2 * d_k`` per head.
        blending: MACs of ``weights @ V`` over all heads: ``n^2 * d_v`` per head.
        output: MACs of ``concat @ W^O``: ``n * h*d_v * d_model``.
        kv_groups: ``g``, the number of key/value heads, each shared by ``h / g``
            query heads.
        params_kv_per_role: weights in one of ``W^K``, ``W^V``: ``g * d_model * d_k``.
        projection_kv_per_role: MACs to compute one of ``K``, ``V``: ``g * n * d_model * d_k``.
        kv_cache_per_token: numbers a key/value cache keeps per word (token) for this
            layer, one key and one value of width ``d_k`` per group: ``2 * g * d_k``.
    """

    n: int
    d_model: int
    h: int
    d_k: int
    params_per_role: int
    params_out: int
    params_without_out: int
    params_total: int
    projection_per_role: int
    projection: int
    scoring: int
    blending: int
    output: int
    kv_groups: int
    params_kv_per_role: int
    projection_kv_per_role: int
    kv_cache_per_token: int

    @property
    def macs_without_out(self) -> int:
        """Multiply-adds of the heads alone: projection, scoring and blending."""
        return self.projection + self.scoring + self.blending

    @property
    def macs_total(self) -> int:
        """Multiply-adds of the whole layer, ``W^O`` included."""
        return self.macs_without_out + self.output

    def as_dict(self) -> dict[str, int]:
        """Every count by name, for tables and widgets."""
        d = asdict(self)
        d["macs_without_out"] = self.macs_without_out
        d["macs_total"] = self.macs_total
        return d


def layer_cost(
    n: int, d_model: int, h: int, d_k: int | None = None, kv_groups: int | None = None
) -> Cost:
    """Count parameters and multiply-adds for ``(n, d_model, h, d_k)``.

    ``d_k`` defaults to the narrow width ``d_model / h`` (which must then be a
    whole number). Pass ``d_k = d_model`` to price heads that stay full width.
    ``kv_groups`` (``g``, default ``h``) is the number of key/value heads; it must
    divide ``h``. ``g = h`` is ordinary multi-head attention, ``g = 1`` multi-query
    attention.
    """
    for name, v in (("n", n), ("d_model", d_model), ("h", h)):
        if not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")
    if d_k is None:
        d_k = checks.head_width(d_model, h)
    if not isinstance(d_k, int) or d_k < 1:
        raise ValueError(f"d_k must be a positive int, got {d_k!r}")
    g = h if kv_groups is None else kv_groups
    checks.positive(kv_groups=g)
    if h % g:
        raise ValueError(
            f"h = {h} query heads cannot share g = {g} key/value groups: g must divide h"
        )
    per_role = h * d_model * d_k
    kv_per_role = g * d_model * d_k
    return Cost(
        n=n,
        d_model=d_model,
        h=h,
        d_k=d_k,
        params_per_role=per_role,
        params_out=h * d_k * d_model,
        params_without_out=per_role + 2 * kv_per_role,
        params_total=2 * per_role + 2 * kv_per_role,
        projection_per_role=h * n * d_model * d_k,
        projection=(h + 2 * g) * n * d_model * d_k,
        scoring=h * n * n * d_k,
        blending=h * n * n * d_k,
        output=n * h * d_k * d_model,
        kv_groups=g,
        params_kv_per_role=kv_per_role,
        projection_kv_per_role=g * n * d_model * d_k,
        kv_cache_per_token=2 * g * d_k,
    )
