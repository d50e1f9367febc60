"""Input checks at the package boundary.

Every public function calls these first, so a wrong shape fails with a message
that names the shapes involved instead of a torch traceback from deep inside a
matmul.
"""

from __future__ import annotations

import torch
from torch import Tensor


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


def sentence(X: Tensor) -> tuple[int, int]:
    """Check ``X (..., n, d_model)`` and return ``(n, d_model)``."""
    X = as_tensor("X", X)
    if X.dim() < 2:
        raise ValueError(f"X must be (n, d_model) or (batch, n, d_model), got {shape(X)}")
    n, d_model = X.shape[-2], X.shape[-1]
    if n == 0:
        raise ValueError(f"X holds an empty sentence: shape {shape(X)} has n = 0 words")
    if d_model == 0:
        raise ValueError(f"X has word vectors of width 0: shape {shape(X)}")
    return n, d_model


def projections(
    X: Tensor, W_q: Tensor, W_k: Tensor, W_v: Tensor, *, heads: bool
) -> tuple[int, int, int]:
    """Check the three projections against ``X``; return ``(h, d_k, d_v)``.

    With ``heads=True`` the weights are ``(h, d_model, d_k)``; with
    ``heads=False`` they are one head's ``(d_model, d_k)`` and ``h`` is 1.
    """
    _, d_model = sentence(X)
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        as_tensor(name, W)
    same_dtype(X=X, W_q=W_q, W_k=W_k, W_v=W_v)
    want = 3 if heads else 2
    layout = "(h, d_model, d_k)" if heads else "(d_model, d_k)"
    for name, W in (("W_q", W_q), ("W_k", W_k), ("W_v", W_v)):
        if W.dim() != want:
            raise ValueError(f"{name} must be {layout}, got {shape(W)}")
        if W.shape[-2] != d_model:
            raise ValueError(
                f"{name} {shape(W)} expects word vectors of width {W.shape[-2]}, "
                f"but X {shape(X)} has d_model = {d_model}"
            )
    if W_q.shape[-1] != W_k.shape[-1]:
        raise ValueError(
            f"queries and keys must have one width d_k: W_q {shape(W_q)} vs W_k {shape(W_k)}"
        )
    if heads and not (W_q.shape[0] == W_k.shape[0] == W_v.shape[0]):
        raise ValueError(
            "W_q, W_k and W_v must hold the same number of heads, got "
            f"W_q {shape(W_q)}, W_k {shape(W_k)}, W_v {shape(W_v)}"
        )
    h = W_q.shape[0] if heads else 1
    return h, W_q.shape[-1], W_v.shape[-1]


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
