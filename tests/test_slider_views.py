"""The small views computed in the reader's browser (chapters 1, 3 and 5), run in Node.

Each view's ES module (``budget_view.mjs``, ``scaling_view.mjs``, ``groups_view.mjs``,
``steps_view.mjs``, bundled by esbuild with slider_view.mjs, mha_views.mjs and view_html.mjs)
draws its views in Node from the site's mha-views.js, as the build draws first views
(book/_ext/anywidget_static.mjs). At every setting its control offers (and more: other
tilts, widths and seeds than the page offers) every number it shows equals what its
oracle (tests/oracles.py) computes in torch by another route (PyTorch's SDPA with an
additive mask, ``Categorical``'s entropy, shape-only tensors and the FLOP counter, training
again). The browser side is tests/browser/test_slider_views.py.
"""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from mha import budget, scaling
from mha import training as T
from mha.views.anywidgets import DIST
from mha.views.budget import budget_view
from mha.views.grouped import groups_view
from mha.views.scaling import scaling_view
from mha.views.training import steps_slider
from tests.browser import expected
from tests.test_mask_view import draw


def _check(states: list[dict], view: str) -> list[dict]:
    """Draw ``states``; each shows one view of type ``view`` whose numbers are mha's (within
    1e-10, relative: data-value has 12 significant digits). Returns the views' attributes."""
    hook, seen = expected.hook(), []
    for html in draw(states):
        ((attrs, cells),) = expected.parse_views(html)
        want = hook(attrs)
        assert attrs["view"] == view and want is not None and cells.keys() == want.keys(), attrs
        for k, v in want.items():
            assert float(cells[k]) == pytest.approx(v, rel=1e-10, abs=1e-13), (attrs, k)
        seen.append(attrs)
    return seen


def test_budget_view_at_every_tilt_offered_and_others():
    base = budget_view().get_state()
    assert base["tilts"] == list(budget.TILTS) and base["tilt"] == 0.0
    tilts = [*budget.TILTS, -9.25, 0.3, 7.0]  # and tilts the page does not offer
    seen = _check([{**base, "tilts": tilts, "tilt": t} for t in tilts], "budget")
    assert [float(a["tilt"]) for a in seen] == tilts


def test_scaling_view_at_every_width_and_toggle_offered_and_other_seeds():
    base = scaling_view().get_state()
    assert base["widths"] == list(scaling.VIEW_WIDTHS) and base["widest"] == 1024
    settings = [(d, s, 0) for d in scaling.VIEW_WIDTHS for s in (0, 1)]
    settings += [(3, 1, 7), (1000, 0, 2**40 + 3), (1024, 1, 5)]  # and others than the page's
    widths = sorted({d for d, _, _ in settings})
    states = [
        {**base, "widths": widths, "d_k": d, "scaled": s, "seed": seed} for d, s, seed in settings
    ]
    seen = _check(states, "scaling")
    assert [(int(a["dk"]), int(a["scaled"]), int(a["seed"])) for a in seen] == settings
    # At every width above 1 the view shows the undivided row as the more peaked one.
    peak = {
        (d, s): max(float(v) for k, v in cells.items() if k.startswith("w-"))
        for (d, s, _), html in zip(settings[:12], draw(states[:12]), strict=True)
        for _, cells in expected.parse_views(html)
    }
    assert all(peak[d, 0] > peak[d, 1] for d in scaling.VIEW_WIDTHS[1:]), peak


@pytest.mark.parametrize(("n", "d_model", "h"), [(512, 512, 8), (5, 9, 3), (7, 12, 12)])
def test_groups_view_at_every_g_that_divides_h(n, d_model, h):
    groups = [g for g in range(1, h + 1) if h % g == 0]
    base = groups_view(n=n, d_model=d_model, h=h, groups=groups, start=groups[0]).get_state()
    seen = _check([{**base, "g": g} for g in groups], "grouped-cost")
    assert [int(a["g"]) for a in seen] == groups
    html = draw([{**base, "g": g} for g in (1, groups[-1])])
    assert "multi-query attention" in html[0] and "ordinary multi-head attention" in html[1]


def test_groups_view_at_the_transformers_size():
    base = groups_view().get_state()
    assert (base["n"], base["d_model"], base["h"], base["groups"]) == (512, 512, 8, [1, 2, 4, 8])
    got = []
    for g, html in zip(
        base["groups"], draw([{**base, "g": g} for g in base["groups"]]), strict=True
    ):
        ((_, cells),) = expected.parse_views(html)
        got.append((g, int(cells["kv_cache"]), float(cells["ratio-attend"])))
        assert ("grouped-query attention" in html) == (g in (2, 4))
    assert got == [(1, 128, 1.0), (2, 256, 1.0), (4, 512, 1.0), (8, 1024, 1.0)]


def test_steps_view_shows_every_saved_step_of_the_run():
    run = T.train(T.RunConfig(h=2, steps=12, init="perturbed", eps=1e-3))
    base = steps_slider(run).get_state()
    assert base["saved_steps"] == sorted(run.snapshots) and base["step"] == 12
    seen = _check([{**base, "step": st} for st in base["saved_steps"]], "training-steps")
    assert [int(a["step"]) for a in seen] == base["saved_steps"]
    assert {(a["eps"], a["init"], a["h"]) for a in seen} == {("0.001", "perturbed", "2")}


def test_steps_view_numbers_a_repeated_word_as_the_book_does():
    """The repeated "the" reads "the (1st)"/"the (2nd)", as in the trained explorer and
    toy.WORD_LABELS, never by its position ("the (0)")."""
    run = T.train(T.RunConfig(h=2, steps=5))
    html = draw([steps_slider(run).get_state()])[0]
    shown = re.findall(r"the \([^)]*\)", html)
    assert shown and set(shown) == {"the (1st)", "the (2nd)"}, shown


def test_a_tiny_loss_shows_its_digits():
    run = T.train(T.RunConfig(h=2, steps=5))
    state = steps_slider(run).get_state()
    state["losses"] = [1.8e-5] * len(state["losses"])  # a loss as small as a solved run's
    html = draw([{**state, "step": 5}])[0]
    shown = re.search(r'data-key="loss" data-value="[^"]+">([^<]+)<', html).group(1)
    assert shown == "1.8e-05"  # as Python's format(1.8e-5, ".2g")


def _controls(html: str) -> list[str]:
    return re.findall(r"<input [^>]*>", html)


@pytest.mark.parametrize(
    ("make", "valuetext", "output"),
    [
        (lambda: budget_view(start=1.5), 'aria-valuetext="+1.5"', ">+1.5</output>"),
        (lambda: scaling_view(start=64), 'aria-valuetext="64"', ">64</output>"),
        (lambda: groups_view(start=4), 'aria-valuetext="4"', ">4</output>"),
    ],
)
def test_ranges_announce_the_shown_value_and_start_inert(make, valuetext, output):
    html = draw([make().get_state()])[0]
    (r,) = [c for c in _controls(html) if 'type="range"' in c]
    assert valuetext in r and output in html and 'min="0"' in r and 'step="1"' in r
    assert "<fieldset" in html and " inert" in html  # the first view's controls do nothing
    assert "outline:3px solid" in html and "width:200px" in html  # focus ring, track


CALL = """
import { readFileSync } from "node:fs";
const { view, slider, spec, fn, args } = JSON.parse(readFileSync(0, "utf-8"));
const mod = await import(view);
const controller = await import(slider);
process.stdout.write(JSON.stringify(args.map((a) => controller[fn](mod[spec], ...a))));
"""


def call(module: str, spec: str, fn: str, args: list[list]) -> list:
    """``fn(spec, *a)`` for each ``a`` of ``args``: ``fn`` of the slider views' controller
    (slider_view.mjs), ``spec`` of a view's module, in Node."""
    static = (DIST.parent / "static").as_uri()
    urls = {"view": f"{static}/{module}", "slider": f"{static}/slider_view.mjs"}
    job = json.dumps({**urls, "spec": spec, "fn": fn, "args": args})
    run = subprocess.run(
        ["node", "--input-type=module", "-e", CALL], input=job, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_permalinks_read_offered_settings_only_and_write_them():
    state = scaling_view().get_state()
    link = state["link"]
    hashes = [
        f"#{link}:dk=256,scaled=0",
        f"#{link}:dk=5,scaled=2,x=1",  # 5 is no width offered, 2 no toggle position
        "#another-1:dk=256",
        f"#{link}:dk=4%2Cscaled=1",  # an encoded comma
    ]
    got = call("scaling_view.mjs", "SCALING_SPEC", "readSliderLink", [[h, state] for h in hashes])
    assert got == [{"d_k": 256, "scaled": 0}, {}, None, {"d_k": 4, "scaled": 1}]
    written = call("scaling_view.mjs", "SCALING_SPEC", "sliderLink", [[{**state, "d_k": 1024}]])
    assert written == [f"#{link}:dk=1024,scaled=1"]
    b = budget_view().get_state()
    got = call("budget_view.mjs", "BUDGET_SPEC", "readSliderLink", [[f"#{b['link']}:tilt=-3.5", b]])
    assert got == [{"tilt": -3.5}]
    written = call("budget_view.mjs", "BUDGET_SPEC", "sliderLink", [[{**b, "tilt": 2.5}]])
    assert written == [f"#{b['link']}:tilt=+2.5"]


def test_words_reach_the_page_as_text():
    nasty = ["<b>", "a&b", '"q"', "'", "x"]
    html = draw([{**budget_view().get_state(), "words": nasty}])[0]
    assert "<b>" not in html and "&lt;b&gt;" in html and "a&amp;b" in html
    assert "&quot;q&quot;" in html and "&#x27;" in html


@pytest.mark.parametrize(
    ("make", "named"),
    [
        (lambda: budget_view(start=0.25), "0.25"),
        (lambda: scaling_view(widths=(1, 2048), start=1), "2048"),
        (lambda: groups_view(h=8, groups=(1, 3), start=1), "groups"),
    ],
)
def test_bad_arguments_are_named(make, named):
    with pytest.raises(ValueError, match=named):
        make()


def test_the_tilt_view_names_its_tilt_without_a_double_negative():
    base = budget_view().get_state()
    cat, mouse = base["words"][base["lose"]], base["words"][base["gain"]]
    titles = {}
    for t in (-4.0, 0.0, 2.5):
        html = draw([{**base, "tilt": t}])[0]
        titles[t] = re.search(r"\(scores [^)]*\)", html).group(0)
    assert titles == {
        -4.0: f"(scores tilted by 4.0 from {mouse} to {cat})",
        0.0: "(scores not tilted)",
        2.5: f"(scores tilted by 2.5 from {cat} to {mouse})",
    }
