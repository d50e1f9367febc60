"""The package's shape: three layers, a map that names every module, views that escape."""

from __future__ import annotations

import importlib
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from torch.nn.functional import scaled_dot_product_attention

import mha
from mha import checks, toy
from mha import training as T
from tests import oracles

SRC = Path(mha.__file__).parent
MATHS = (
    "attention",
    "checks",
    "cost",
    "measure",
    "seeds",
    "toy",
    "translation",
    "budget",
    "scaling",
    "concat",
    "stats",
    "training",
)


def modules() -> list[str]:
    """Every module and subpackage of mha, as dotted names below ``mha``."""
    return [m.name.removeprefix("mha.") for m in pkgutil.walk_packages(mha.__path__, "mha.")]


def test_the_package_map_names_every_module() -> None:
    missing = [m for m in modules() if not re.search(rf"(?m)^\s+{re.escape(m)}\s", mha.__doc__)]
    assert not missing, f"mha/__init__.py's docstring does not name {missing}"


def test_no_module_is_long() -> None:
    long = {p.name: n for p in SRC.rglob("*.py") if (n := len(p.read_text().splitlines())) > 300}
    assert not long, long


@pytest.mark.slow
def test_the_maths_imports_neither_matplotlib_nor_ipywidgets() -> None:
    names = ", ".join(f"mha.{m}" for m in MATHS)
    code = (
        f"import sys, {names}; "
        "print(sorted({'matplotlib', 'ipywidgets'} & {m.split('.')[0] for m in sys.modules}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_checks_run_once_at_the_outermost_call(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = checks.projections

    def counting(*args, **kwargs):
        calls.append(kwargs.get("heads"))
        return real(*args, **kwargs)

    monkeypatch.setattr(checks, "projections", counting)
    W_q, W_k, W_v = toy.random_heads(3, 3)
    W_o = toy.random_output(3, 3)
    mha.multi_head_attention(toy.X, W_q, W_k, W_v, W_o)
    mha.multi_head_attention_loop(toy.X, W_q, W_k, W_v, W_o)
    assert calls == [True, True]
    with pytest.raises(ValueError, match=r"W_q \(3, 8, 3\)"):  # and still checked
        mha.multi_head_attention(toy.X, W_q[:, :8], W_k, W_v, W_o)


@pytest.mark.parametrize(("n_q", "n_k"), [(2, 7), (6, 3), (4, 4)])
def test_queries_and_keys_of_different_lengths(n_q: int, n_k: int) -> None:
    g = torch.Generator().manual_seed(n_q * 10 + n_k)
    Q = torch.randn(3, n_q, 4, generator=g, dtype=torch.float64)  # (h, n_q, d_k)
    K = torch.randn(3, n_k, 4, generator=g, dtype=torch.float64)  # (h, n_k, d_k)
    V = torch.randn(3, n_k, 5, generator=g, dtype=torch.float64)  # (h, n_k, d_v)
    mask = mha.causal_mask(n_q, n_k) | (torch.arange(n_k) == 0)  # (n_q, n_k)
    out, w = mha.scaled_dot_product(Q, K, V, mask=mask)
    assert w.shape == (3, n_q, n_k) and out.shape == (3, n_q, 5)
    want = scaled_dot_product_attention(Q, K, V, attn_mask=mask)
    torch.testing.assert_close(out, want, rtol=0, atol=1e-12)
    assert (w[:, ~mask] == 0).all()
    with pytest.raises(ValueError, match=rf"mask must be boolean \(n_q, n_k\) = \({n_q}, {n_k}\)"):
        mha.scaled_dot_product(Q, K, V, mask=torch.ones(n_k, n_q + 1, dtype=torch.bool))


NASTY = '<b>&"x'


def test_every_view_type_escapes_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """A word with markup in it reaches every kind of view as text, never as markup."""
    for m in pkgutil.iter_modules(importlib.import_module("mha.views").__path__):
        importlib.import_module(f"mha.views.{m.name}")
    from mha.views import (
        budget,
        exercise_view,
        grouped,
        heads_view,
        mask_view,
        scaling,
        trained_view,
        training,
    )
    from tests.test_mask_view import HEADS, draw

    monkeypatch.setattr(toy, "SENTENCE", (NASTY, "cat", "chased", "the", "mouse"))
    monkeypatch.setattr(toy, "WORD_LABELS", (NASTY, "cat", "chased", "the (2nd)", "mouse"))
    monkeypatch.setattr(training, "SHOW", (NASTY, *T.SHOW[1:]))
    run = T.train(T.RunConfig(h=2, steps=1))
    made: dict[str, str] = {}
    # The views computed in the browser are drawn by their JavaScript modules (in Node, as
    # the build draws first views), with the words they are given.
    words = [NASTY, *toy.SENTENCE[1:]]
    for name, view in [
        ("grouped-cost", grouped.groups_view(5, 9, 3, (1, 3), 1)),
        ("budget", budget.budget_view(start=1.0)),
        ("scaling", scaling.scaling_view(start=16, scaled=False)),
        ("training-steps", training.steps_slider(run)),
    ]:
        made[name] = draw([view.get_state()])[0]
    # So is the mask view.
    state = mask_view.chapter6_mask_view(HEADS).get_state()
    made["mask"] = draw([{**state, "words": words}])[0]
    # So are the concat and cost panels (mha.views.heads_view); the view reads toy's words.
    for name in ("rows", "heads", "concat", "cost"):
        made[name] = draw([heads_view.heads_view(show=(name,)).get_state()])[0]
    # And the trained explorer (mha.views.trained_view): a word and a setting label of markup.
    state = trained_view.trained_view().get_state()
    vocab = [NASTY, *state["vocab"][1:]]  # NASTY in place of "the"
    settings = [[h, d_k, NASTY] for h, d_k, _ in state["settings"]]
    text = f"{NASTY} cat chased {NASTY} mouse"
    html = draw([{**state, "vocab": vocab, "settings": settings, "text": text}])[0]
    made["trained-rows"] = made["trained-metrics"] = html
    made["exercise"] = draw([exercise_view.exercise_view().get_state()])[0]  # toy's labels
    assert set(made) == set(oracles.ORACLES), "a view type is missing from this test"
    for name, html in made.items():
        assert f'data-view="{name}"' in html
        assert "<b>" not in html, name
        if name not in ("cost", "grouped-cost"):  # the cost views name no words
            assert "&lt;b&gt;&amp;&quot;x" in html, name


def test_source_shows_the_functions_as_they_are_in_their_files() -> None:
    from mha.views.text import source

    shown = source(mha.project, mha.all_heads).data
    lines = shown.splitlines()
    assert lines[0] == "```python" and lines[-1] == "```"
    # The file's own lines of each function, read by line number rather than by inspect.
    text = Path(mha.attention.__file__).read_text(encoding="utf-8").splitlines()
    for f in (mha.project, mha.all_heads):
        start = next(i for i, line in enumerate(text) if line.startswith(f"def {f.__name__}("))
        end = next(i for i in range(start + 1, len(text)) if text[i] and text[i][0] not in " )")
        body = [line for line in text[start:end] if line.strip()]
        assert all(line in lines for line in body), f.__name__
        decorator = text[start - 1]
        assert decorator.startswith("@") and decorator in lines  # the check is shown too
    # A body that holds a fence gets a longer fence.

    def odd() -> str:
        return "```"

    fenced = source(odd).data.splitlines()
    assert fenced[0] == "````python" and fenced[-1] == "````"


def test_fmt_p_gives_two_digits_and_goes_scientific_below_a_thousandth() -> None:
    from mha.views.text import fmt_p

    shown = [repr(fmt_p(p)) for p in (1.0, 0.3333, 0.0283, 0.001, 0.00028)]
    assert shown == ["1", "0.33", "0.028", "0.001", "2.8e-04"]


def test_fmt_list_joins_values_as_an_english_list() -> None:
    from mha.views.text import fmt_list

    assert repr(fmt_list([1, 4, 7])) == "1, 4 and 7"
    assert repr(fmt_list([5, 9])) == "5 and 9"
    assert repr(fmt_list([3])) == "3"
    assert repr(fmt_list([0.31, 0.5], ".1f")) == "0.3 and 0.5"
    with pytest.raises(ValueError):
        fmt_list([])


@pytest.mark.parametrize(
    ("value", "spec", "low", "high"),
    [
        (0.906, ".2f", "0.90", "0.91"),  # "at least 0.91" would be false
        (0.222, ".2f", "0.22", "0.23"),  # "at most 0.22" would be false
        (0.35, ".2f", "0.35", "0.35"),  # exact at the digits shown: no step either way
        (0.1, ".3f", "0.100", "0.100"),  # binary 0.1 is not taken for more than 0.1
        (7.91e-3, ".1e", "7.9e-03", "8.0e-03"),
        (9.96e-3, ".1e", "9.9e-03", "1.0e-02"),  # a carry into a new leading digit
        (-0.906, ".2f", "-0.91", "-0.90"),
    ],
)
def test_bounds_in_the_prose_round_so_that_they_stay_true(value, spec, low, high) -> None:
    from decimal import Decimal

    from mha.views.text import at_least, at_most

    assert (repr(at_least(value, spec)), repr(at_most(value, spec))) == (low, high)
    assert Decimal(low) <= Decimal(repr(value)) <= Decimal(high)
    with pytest.raises(ValueError, match=r"'\.2g'"):
        at_least(value, ".2g")
