"""Input checks at the package boundary.

A wrong shape should fail with a message that names the shapes involved, not
with a torch traceback from deep inside a matmul. The checks live here so that
the functions of :mod:`mha.attention` read as the maths alone.

:func:`boundary` wraps a public function with its check. The check runs only
at the outermost call: when :func:`mha.multi_head_attention` calls
:func:`mha.all_heads`, which calls :func:`mha.scaled_dot_product`, the
arguments are checked once, on the way in.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import torch
from torch import Tensor

P = ParamSpec("P")
R = TypeVar("R")

_depth = threading.local()


def boundary(check: Callable[..., object]) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorator: run ``check(*args, **kwargs)`` before ``fn``, unless called from inside
    another checked function (whose own check already covered these arguments)."""

    def wrap(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def checked(*args: P.args, **kwargs: P.kwargs) -> R:
            depth = getattr(_depth, "n", 0)
            if depth == 0:
                check(*args, **kwargs)
            _depth.n = depth + 1
            try:
                return fn(*args, **kwargs)
            finally:
                _depth.n = depth

        return checked

    return wrap


def shape(t: Tensor) -> str:
    """Format a tensor's shape as ``(5, 9)`` for error messages."""
    return str(tuple(t.shape))


def as_tensor(name: str, t: object) -> Tensor:
    """Return ``t`` if it is a floating-point tensor, else raise ``TypeError``."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(t).__name__}")
    if not t.is_floating_point():
        raise TypeError(
            f"{name} has dtype {t.dtype}; attention needs a floating-point dtype "
            f"(use {name}.double() or {name}.float())"
        )
    return t


def same_dtype(**tensors: Tensor) -> None:
    """Raise ``TypeError`` unless every tensor has the same dtype."""
    dtypes = {name: t.dtype for name, t in tensors.items()}
    if len(set(dtypes.values())) > 1:
        listed = ", ".join(f"{n}: {d}" for n, d in dtypes.items())
        raise TypeError(f"all tensors must share one dtype, got {listed}")


def positive(**counts: object) -> None:
    """Raise ``ValueError`` unless every count is a positive int."""
    for name, v in counts.items():
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"{name} must be a positive int, got {v!r}")


def sentence(X: Tensor, name: str = "X") -> tuple[int, int]:
    """Check ``X (..., n, d_model)`` and return ``(n, d_model)``; ``name`` is used in errors."""
    X = as_tensor(name, X)
    if X.dim() < 2:
        raise ValueError(f"{name} must be (n, d_model) or (batch, n, d_model), got {shape(X)}")
    n, d_model = X.shape[-2], X.shape[-1]
    if n == 0:
        raise ValueError(f"{name} holds an empty sentence: shape {shape(X)} has n = 0 words")
    if d_model == 0:
        raise ValueError(f"{name} has word vectors of width 0: shape {shape(X)}")
    return n, d_model


def mask_for(mask: Tensor | None, n_q: int, n_k: int) -> None:
    """Check a boolean mask ``(n_q, n_k)`` whose every row allows at least one key."""
    if mask is None:
        return
    if not isinstance(mask, Tensor) or mask.dtype != torch.bool or mask.shape != (n_q, n_k):
        got = f"{mask.dtype} {shape(mask)}" if isinstance(mask, Tensor) else type(mask).__name__
        raise ValueError(f"mask must be boolean (n_q, n_k) = ({n_q}, {n_k}), got {got}")
    empty = (~mask.any(dim=-1)).nonzero().flatten().tolist()
    if empty:
        raise ValueError(f"every row of mask must allow at least one key; rows {empty} allow none")


def attention_inputs(Q: Tensor, K: Tensor, V: Tensor, mask: Tensor | None = None) -> None:
    """Check ``Q (..., n_q, d_k)``, ``K (..., n_k, d_k)``, ``V (..., n_k, d_v)`` and the mask."""
    for name, t in (("Q", Q), ("K", K), ("V", V)):
        as_tensor(name, t)
        if t.dim() < 2:
            raise ValueError(
                f"{name} must have at least 2 dimensions (words, width), got {shape(t)}"
            )
    same_dtype(Q=Q, K=K, V=V)
    if Q.shape[-1] != K.shape[-1] or K.shape[-2] != V.shape[-2]:
        raise ValueError(
            f"Q {shape(Q)}, K {shape(K)} and V {shape(V)} must agree: Q and K on their last "
            "dimension d_k, K and V on the number of keys n_k"
        )
    if Q.shape[-2] == 0 or K.shape[-2] == 0:
        raise ValueError(f"no words to attend: Q {shape(Q)}, K {shape(K)}")
    mask_for(mask, Q.shape[-2], K.shape[-2])


def projections(
    X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor, *, heads: bool, grouped: bool = False
) -> tuple[int, int, int]:
    """Check the three projections against ``X``; return ``(h, d_k, d_v)``.

    With ``heads=True`` the weights are ``(h, d_model, d_k)``; with
    ``heads=False`` they are one head's ``(d_model, d_k)`` and ``h`` is 1.
    With ``grouped=True`` (and ``heads=True``) ``W_k`` and ``W_v`` are
    ``(g, d_model, d_k)``, ``g`` key/value groups that must divide ``h``.
    """
    _, d_model = sentence(X)
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        as_tensor(name, W)
    same_dtype(X=X, W_q=W_q, W_k=W_k, W_v=W_v)
    want = 3 if heads else 2
    layout = "(h, d_model, d_k)" if heads else "(d_model, d_k)"
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        if W.dim() != want:
            shown = layout.replace("(h", "(g") if grouped and name != "W_q" else layout
            raise ValueError(f"{name} must be {shown}, got {shape(W)}")
        if W.shape[-2] != d_model:
            raise ValueError(
                f"{name} {shape(W)} expects word vectors of width {W.shape[-2]}, "
                f"but X {shape(X)} has d_model = {d_model}"
            )
    _width_and_heads(W_q, W_k, W_v, heads=heads and not grouped)
    if grouped:
        _groups_of(W_q, W_k, W_v)
    h = W_q.shape[0] if heads else 1
    return h, W_q.shape[-1], W_v.shape[-1]


def _width_and_heads(W_q: Tensor, W_k: Tensor, W_v: Tensor, *, heads: bool) -> None:
    """Queries and keys share one width ``d_k``; with ``heads``, all three hold ``h`` heads."""
    if W_q.shape[-1] != W_k.shape[-1]:
        raise ValueError(
            f"queries and keys must have one width d_k: W_q {shape(W_q)} vs W_k {shape(W_k)}"
        )
    if heads and not (W_q.shape[0] == W_k.shape[0] == W_v.shape[0]):
        raise ValueError(
            "W_q, W_k and W_v must hold the same number of heads, got "
            f"W_q {shape(W_q)}, W_k {shape(W_k)}, W_v {shape(W_v)}"
        )


def _groups_of(W_q: Tensor, W_k: Tensor, W_v: Tensor) -> None:
    h, g = W_q.shape[0], W_k.shape[0]
    if W_v.shape[0] != g or h % g:
        raise ValueError(
            f"W_k {shape(W_k)} and W_v {shape(W_v)} must hold one number g of key/value groups, "
            f"and g must divide the h = {h} query heads of W_q {shape(W_q)}"
        )


def grouped_inputs(X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> None:
    """Check ``X (..., n, d_model)``, ``W_q (h, d_model, d_k)``, ``W_k, W_v (g, d_model, d_k)``."""
    projections(X, W_q, W_k, W_v, heads=True, grouped=True)


def single_head_inputs(X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> None:
    """Check one head's ``X (..., n, d_model)`` and ``W_q, W_k, W_v (d_model, d_k)``."""
    projections(X, W_q, W_k, W_v, heads=False)


def heads_inputs(X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor) -> None:
    """Check ``X (..., n, d_model)`` and ``W_q, W_k, W_v (h, d_model, d_k)``."""
    projections(X, W_q, W_k, W_v, heads=True)


def project_inputs(X: Tensor, W: Tensor) -> None:
    """Check ``X (..., n, d_model)`` against ``W (h, d_model, d_k)``."""
    projections(X, W, W, W, heads=True)


def concat_inputs(H: Tensor) -> None:
    """Check the heads' outputs ``H (..., h, n, d_v)``."""
    as_tensor("H", H)
    if H.dim() < 3:
        raise ValueError(f"heads must be (..., h, n, d_v), got {shape(H)}")


def output(W_o: Tensor, h: int, d_v: int, d_model: int, dtype: torch.dtype) -> None:
    """Check ``W_o (h*d_v, d_model)`` against the heads it re-joins."""
    as_tensor("W_o", W_o)
    if W_o.dtype != dtype:
        raise TypeError(f"W_o has dtype {W_o.dtype} but X and the projections have {dtype}")
    if W_o.dim() != 2 or W_o.shape[0] != h * d_v:
        raise ValueError(
            f"W_o must be (h*d_v, d_model) = ({h * d_v}, {d_model}) for {h} heads of width "
            f"d_v = {d_v}, got {shape(W_o)}"
        )
    if W_o.shape[1] != d_model:
        raise ValueError(
            f"W_o {shape(W_o)} must map back to d_model = {d_model} columns, got {W_o.shape[1]}"
        )


def head_maps_inputs(W_v: Tensor, W_o: Tensor) -> None:
    """Check ``W_v (h, d_model, d_v)`` and ``W_o (h*d_v, d_model)``."""
    as_tensor("W_v", W_v)
    if W_v.dim() != 3:
        raise ValueError(f"W_v must be (h, d_model, d_v), got {shape(W_v)}")
    h, d_model, d_v = W_v.shape
    output(W_o, h, d_v, d_model, W_v.dtype)


def layer_inputs(X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor, W_o: Tensor) -> None:
    """Check a whole layer: the projections against ``X``, then ``W_o`` against the heads."""
    h, _, d_v = projections(X, W_q, W_k, W_v, heads=True)
    output(W_o, h, d_v, X.shape[-1], X.dtype)


def cross_inputs(
    X_q: Tensor,
    X_kv: Tensor,
    W_q: Tensor,
    W_k: Tensor,
    W_v: Tensor,
    W_o: Tensor,
    mask: Tensor | None = None,
) -> None:
    """Check a layer whose queries read ``X_q (..., n_q, d_q)`` and whose keys and values
    read ``X_kv (..., n_k, d_kv)``: ``W_q (h, d_q, d_k)``, ``W_k (h, d_kv, d_k)``,
    ``W_v (h, d_kv, d_v)``, ``W_o (h*d_v, d_q)`` and a boolean ``mask (n_q, n_k)``."""
    n_q, d_q = sentence(X_q, "X_q")
    n_k, d_kv = sentence(X_kv, "X_kv")
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        as_tensor(name, W)
    same_dtype(X_q=X_q, X_kv=X_kv, W_q=W_q, W_k=W_k, W_v=W_v)
    if X_q.shape[:-2] != X_kv.shape[:-2]:
        raise ValueError(
            f"X_q {shape(X_q)} and X_kv {shape(X_kv)} must have the same batch dimensions, "
            f"got {tuple(X_q.shape[:-2])} and {tuple(X_kv.shape[:-2])}"
        )
    for name, W, x_name, X, width in (
        ("W_q", W_q, "X_q", X_q, d_q),
        ("W_k", W_k, "X_kv", X_kv, d_kv),
        ("W_v", W_v, "X_kv", X_kv, d_kv),
    ):
        if W.dim() != 3:
            raise ValueError(f"{name} must be (h, d_model, d_k), got {shape(W)}")
        if W.shape[1] != width:
            raise ValueError(
                f"{name} {shape(W)} expects word vectors of width {W.shape[1]}, "
                f"but {x_name} {shape(X)} has width {width}"
            )
    _width_and_heads(W_q, W_k, W_v, heads=True)
    output(W_o, W_v.shape[0], W_v.shape[-1], d_q, X_q.dtype)
    mask_for(mask, n_q, n_k)


def head_width(d_model: int, h: int) -> int:
    """Return ``d_model // h``, raising ``ValueError`` unless ``h`` divides ``d_model``."""
    if not isinstance(h, int) or not isinstance(d_model, int):
        raise TypeError(f"d_model and h must be ints, got {d_model!r} and {h!r}")
    if h < 1 or d_model < 1:
        raise ValueError(f"d_model and h must be positive, got d_model = {d_model}, h = {h}")
    if d_model % h:
        raise ValueError(
            f"cannot split d_model = {d_model} into h = {h} equal heads "
            f"({d_model} / {h} = {d_model / h:.3g} is not a whole number)"
        )
    return d_model // h


def split_inputs(W: Tensor, h: int) -> None:
    """Check a full-width projection ``W (d_model, d_model)`` and a head count that divides it."""
    as_tensor("W", W)
    if W.dim() != 2:
        raise ValueError(f"W must be (d_model, d_model), got {shape(W)}")
    head_width(W.shape[1], h)
