"""The heads view's module (mha.views.heads_view), run in Node as the build runs it.

The widget's ES module (``_esm``: esbuild's bundle of heads_view.mjs) draws its views in
Node from the site's mha-views.js, as the build draws first views
(book/_ext/anywidget_static.mjs). Every panel
it draws, at many settings (every h and d_k offered, seeds other than 0, every word, the
designed heads, the cost at the Transformer's size), shows exactly the numbers that the oracles'
expected_rows/heads/concat/cost compute in torch by another route (PyTorch's SDPA, numel()
and the FLOP counter). The browser side is tests/browser/test_heads_view.py.
"""

from __future__ import annotations

import json
import random
import re
import subprocess

import pytest

from mha import toy
from mha.views.anywidgets import DIST
from mha.views.heads_view import heads_view
from tests.browser import expected
from tests.test_mask_view import draw

ALL = ("rows", "heads", "concat", "cost")
# (view arguments, the settings drawn: (source, h, d_k, seed, word))
_pick = random.Random(22)
CASES = [
    # every h that divides d_model = 9 and more, every d_k, seeds far from 0 (2^53 - 1 the
    # largest the seed box takes); one base state, the module draws the heads of each seed
    (
        {"h_values": tuple(range(1, 10)), "d_k_values": tuple(range(1, 10)), "show": ALL},
        [
            ("random", h, k, seed, _pick.randrange(5))
            for h, k, seed in [
                *((h, _pick.randint(1, 9), _pick.randrange(10**6)) for h in range(1, 10)),
                *((_pick.randint(1, 9), k, _pick.randrange(10**6)) for k in range(1, 10)),
                (3, 3, 0),
                (4, 9, 7),
                (9, 1, 2**32 + 5),
                (2, 6, 2**53 - 1),
            ]
        ],
    ),
    (
        {
            "h_values": (1,),
            "d_k_values": (1, 3, 9, 27, 81),
            "h": 1,
            "d_k": 9,
            "show": ("rows", "heads"),
        },
        [("random", 1, k, 0, 2) for k in (1, 27, 81)],
    ),
    (
        {"sources": ("designed", "random"), "source": "designed", "show": ("rows", "heads")},
        [("designed", 3, 3, 0, w) for w in range(5)],
    ),
    # chapter 2's view: both sliders, the designed heads (h = 3, d_k = 3, whatever the traits
    # h and d_k hold) or random ones, each head's row and the cost
    (
        {
            "h_values": tuple(range(1, 10)),
            "d_k_values": tuple(range(1, 10)),
            "sources": ("designed", "random"),
            "source": "designed",
            "show": ("rows", "cost"),
        },
        [
            ("designed", 3, 3, 0, 2),
            ("designed", 7, 1, 5, 4),
            *(
                ("random", _pick.randint(1, 9), _pick.randint(1, 9), _pick.randrange(2**53), w)
                for w in range(5)
            ),
        ],
    ),
]
DESIGNED = ("rows", "heads", "cost")  # the panels the designed heads show (no concat)


def _states() -> list[tuple[dict, tuple]]:
    out = []
    for kwargs, settings in CASES:
        base = heads_view(**kwargs).get_state()
        for source, h, d_k, seed, word in settings:
            out.append(
                (
                    {**base, "source": source, "h": h, "d_k": d_k, "seed": seed, "word": word},
                    (source, h, d_k, seed, word),
                )
            )
    return out


def test_the_module_travels_as_one_text_each_module_once():
    text = heads_view().get_state()["_esm"]  # esbuild's bundle
    assert re.search(r"^\s*import\b|\bfrom\s+[\"']", text, re.M) is None  # no import statement
    for name in ("function allHeads", "function esc", "function renderView"):
        assert text.count(f"{name}(") == 1, name


def test_every_panel_shows_mhas_numbers_at_every_setting():
    states = _states()
    hook, seen, worst = expected.hook(), set(), 0.0
    for (state, setting), html in zip(states, draw([s for s, _ in states]), strict=True):
        views = expected.parse_views(html)
        names = [a["view"] for a, _ in views]
        assert names == [p for p in state["panels"] if setting[0] == "random" or p in DESIGNED]
        for attrs, cells in views:
            want = hook(attrs)
            assert want is not None and cells.keys() == want.keys(), (setting, attrs)
            assert expected.compare("heads view", attrs, cells, want) == []
            if attrs["view"] != "cost":
                worst = max(
                    worst, *(abs(float(cells[k]) - v) / max(1, abs(v)) for k, v in want.items())
                )
            seen.add((attrs["view"], attrs.get("source", "random"), attrs.get("seed")))
        source, h, d_k, seed, word = setting
        if source == "designed":
            h, d_k = 3, 3  # the designed heads' own, shown by the sliders too
            sliders = re.findall(r'<input type="range"[^>]*aria-valuetext="(\d)"[^>]*>', html)
            assert sliders in ([], ["3", "3"]) and " disabled" not in html
        rows = views[0][0]
        assert rows == {
            "view": "rows",
            "h": str(h),
            "dk": str(d_k),
            "word": str(word),
            "seed": str(seed),
            "source": source,
        }
    assert {
        ("rows", "random", "7"),
        ("concat", "random", str(2**53 - 1)),
        ("heads", "designed", "0"),
    } <= seen
    assert worst <= 1e-11, worst  # data-value has 12 significant digits


def test_the_cost_at_the_transformers_size():
    base = heads_view(
        h_values=(1, 2, 4, 8, 16),
        d_k_values=(32, 64, 128, 256, 512),
        h=8,
        d_k=64,
        show=("cost",),
        n=512,
        d_model=512,
    ).get_state()
    assert base["designed"] == {} and base["X"] == []  # the cost needs no weights
    states = [{**base, "h": h, "d_k": k} for h, k in [(8, 64), (16, 512), (1, 32)]]
    hook = expected.hook()
    for html in draw(states):
        ((attrs, cells),) = expected.parse_views(html)
        want = hook(attrs)
        assert attrs["n"] == "512" and cells.keys() == want.keys()
        assert expected.compare("cost", attrs, cells, want) == []


def test_sliders_announce_their_values_not_positions():
    state = heads_view(
        h_values=(1,), d_k_values=(1, 3, 9, 27, 81), h=1, d_k=27, show=("rows",)
    ).get_state()
    html = draw([state])[0]
    (d_k,) = re.findall(r'<input type="range"[^>]*>', html)
    assert 'value="3"' in d_k and 'aria-valuetext="27"' in d_k and 'max="4"' in d_k
    assert '<output data-control-value="d_k">27</output>' in html
    assert "heads h" not in html  # one position: no slider
    assert html.count("<select") == 1 and "selected>chased</option>" in html
    assert "<fieldset" in html and " inert" in html  # the first view's controls do nothing


def test_words_reach_the_page_as_text():
    state = {**heads_view(show=ALL).get_state(), "labels": ["<b>", "a&b", '"q"', "'", "x"]}
    html = draw([state])[0]
    assert "<b>" not in html and "&lt;b&gt;" in html and "a&amp;b" in html
    assert "&quot;q&quot;" in html and "&#x27;" in html


@pytest.mark.parametrize(
    ("bad", "named"),
    [
        ({"h": 5}, "h = 5"),
        ({"show": ("bars",)}, "bars"),
        ({"sources": ("trained",)}, "trained"),
        ({"sources": ("designed",), "h_values": (1, 2), "h": 1}, "designed heads"),
    ],
)
def test_bad_arguments_are_named(bad, named):
    with pytest.raises(ValueError, match=named):
        heads_view(**bad)


def test_the_words_are_the_toy_sentences_labels():
    state = heads_view().get_state()
    assert state["labels"] == list(toy.WORD_LABELS)  # the (1st), ..., the (2nd), mouse


CALL = """
import { readFileSync } from "node:fs";
const { esm, fn, args } = JSON.parse(readFileSync(0, "utf-8"));
const mod = await import("data:text/javascript;base64," + Buffer.from(esm).toString("base64"));
process.stdout.write(JSON.stringify(args.map((a) => mod[fn](...a))));
"""


def call(fn: str, args: list[list], module: str = "heads_view.mjs") -> list:
    """``fn(*a)`` for each ``a`` of ``args``: an export of a view's module (by default the
    heads view's), as it travels in the widget state, in Node."""
    esm = (DIST / module).with_suffix(".js").read_text(encoding="utf-8")  # the widget's _esm
    job = json.dumps({"esm": esm, "fn": fn, "args": args})
    run = subprocess.run(
        ["node", "--input-type=module", "-e", CALL], input=job, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_permalinks_read_valid_settings_and_write_the_offered_ones():
    state = heads_view(
        h_values=(1,), d_k_values=(1, 3, 9, 27, 81), h=1, d_k=9, show=("rows",), link="heads-2"
    ).get_state()
    hashes = [
        "#heads-2:dk=27,word=4",
        "#heads-2:dk=5,word=9,h=1,x=3",  # d_k 5 not offered, word 9 out of range
        "#heads-1:dk=27",  # another view's link
        "#heads-2:dk=1%2Cword=0",  # an encoded comma
        "#heads-2:dk=-3,word=",
    ]
    got = call("readLink", [[h, state] for h in hashes])
    assert got == [{"d_k": 27, "word": 4}, {"h": 1}, None, {"d_k": 1, "word": 0}, {}]
    written = call("linkOf", [[{**state, "d_k": 81, "word": 0}]])
    assert written == ["#heads-2:dk=81,seed=0,word=0"]  # h has one position: not in the link


def test_concat_rows_tell_the_two_thes_apart_and_numbers_read_on_their_tints():
    from mha.style import contrast

    html = draw(
        [heads_view(h_values=(4,), d_k_values=(9,), h=4, d_k=9, show=("concat",)).get_state()]
    )[0]
    labels = re.findall(r'<th scope="row">([^<]*)</th>', html)
    assert labels == ["the (1st)", "cat", "chased", "the (2nd)", "mouse"] * 4  # a block per head
    columns = re.findall(r'<th scope="col" style="[^"]*">(\d+)</th>', html)
    assert columns == [str(j) for j in range(1, 37)]  # numbered as in the concatenation
    cells = re.findall(r'style="background:(#[0-9a-f]{6});color:(#[0-9a-f]{6})" data-key', html)
    assert len(cells) == 5 * 4 * 9
    assert all(contrast(fg, bg) >= 4.5 for bg, fg in cells)  # WCAG AA


def test_the_controls_legend_says_what_they_choose():
    legends = [
        re.findall(r"<legend>([^<]*)</legend>", html)
        for html in draw(
            [
                heads_view(h_values=(1, 3), d_k_values=(3, 9), show=("cost",)).get_state(),
                heads_view(h_values=(1, 3), d_k_values=(3, 9), show=("rows",)).get_state(),
            ]
        )
    ]
    assert legends == [["Choose the layer&#x27;s heads"], ["Choose the heads"]]


def test_a_seed_box_takes_a_whole_number_from_0_to_its_maximum_only():
    """seedOf: digits only, 0 to 2^32 - 1 (torch's generator keeps a seed's low 32 bits, so
    every seed taken draws its own heads); "-1", "1.5", "1e3", a 16-digit seed refused."""
    texts = ["0", " 7 ", "007", "4294967295", "4294967296", "-1", "1.5", "1e3", "", "12a"]
    texts.append("1234567890123456")
    got = call("seedOf", [[t] for t in texts])
    assert got == [0, 7, 7, 4294967295, None, None, None, None, None, None, None]
    (rule,) = call("controlsHtml", [[heads_view(show=("rows",)).get_state()]])
    assert "A seed is a whole number from 0 to 4294967295." in rule
