"""The trained explorer's module (mha.views.trained_view), run in Node as the build runs it.

The widget's ES module, as its saved state holds it (``_esm``: trained_view.mjs with
mha_views.mjs and view_html.mjs inlined), draws views in Node through
book/_ext/anywidget_static.mjs, the script that draws first views at build time. For EVERY
stored run (each setting, each seed), typed sentences and heads switched off, every number
it shows equals what tests/oracles.py's expected_trained_rows/metrics compute in torch by
another route (PyTorch's SDPA on the stored float64 weights; heads switched off by zeroing
their rows of W_o); its answers over every held-out sentence equal the torch model's. The
browser side is tests/browser/test_trained_view.py.
"""

from __future__ import annotations

import base64
import copy
import json
import re
import subprocess

import numpy as np
import pytest
import torch

from mha import toy
from mha.training import NOUNS, PAD, SEEDS, SETTINGS, SHOW, VOCAB, split
from mha.training.reference import logits
from mha.training.store import load_state
from mha.views.anywidgets import DIST
from mha.views.trained import position_labels, vocabulary_message, words_of
from mha.views.trained_view import trained_view
from tests.browser import expected
from tests.test_mask_view import draw

WEIGHT_TOL = 1e-6  # float32 weights in the page against the stored float64 model
TYPED = ["the dog bit the hen", "hen the saw big", "the small fox chased the cat ."]


@pytest.fixture(scope="module")
def base() -> dict:
    return trained_view().get_state()


def _patterns(h: int, seed: int) -> list[list[int]]:
    """Heads off: none, one (a different one per seed), all."""
    out = [[], [seed % h]]
    return out + ([list(range(h))] if h > 1 else [])


def _states(base: dict) -> list[dict]:
    states = []
    for at, (h, _) in enumerate(SETTINGS):
        for seed in SEEDS:
            for k, off in enumerate(_patterns(h, seed)):
                text = [" ".join(SHOW), " ".join(toy.SENTENCE), *TYPED][(seed + k) % 5]
                word = (seed + 2 * k) % len(words_of(text))
                states.append({**base, "setting": at, "seed": seed, "text": text})
                states[-1] |= {"word": word, "off": off}
    return states


def stored_run_error(base: dict) -> tuple[float, int]:
    """The trained view drawn by its module (in Node) for every stored setting and seed, with
    heads off and typed sentences (_states), against the stored model run by mha/PyTorch:
    the max abs error of the weights shown, and the number of views. Checks on the way every
    number the views show, and that every run and both kinds of answer were drawn. make
    bench reports the error too (benchmarks/run.py)."""
    states = _states(base)
    hook, worst, seen = expected.hook(), 0.0, set()
    for state, html in zip(states, draw(states), strict=True):
        views = expected.parse_views(html)
        assert [a["view"] for a, _ in views] == ["trained-metrics", "trained-rows"]
        for attrs, cells in views:
            want = hook(attrs)
            assert want is not None and cells.keys() == want.keys(), attrs
            assert expected.compare("trained view", attrs, cells, want) == []
            for k, v in want.items():
                if attrs["view"] == "trained-rows" and k[0] in "rw":
                    worst = max(worst, abs(float(cells[k]) - v))
        rows = views[1][0]
        h, d_k = SETTINGS[state["setting"]]
        assert (rows["h"], rows["dk"], rows["seed"]) == (str(h), str(d_k), str(state["seed"]))
        assert rows["off"] == " ".join(map(str, state["off"]))
        seen.add((h, d_k, state["seed"]))
        if "subject" in cells:
            seen.add(("answer", bool(state["off"])))
    assert len(seen) >= len(SETTINGS) * len(SEEDS) + 2  # every run; answers with heads off
    return worst, len(states)


@pytest.mark.slow
def test_every_stored_run_shows_torchs_numbers(base):
    worst, views = stored_run_error(base)
    print(f"\n{views} views of every stored run: max abs error on weights {worst:.2e}")
    assert worst <= WEIGHT_TOL


# Each script reads its job from standard input and imports the module from the state.
HEAD = """
import { readFileSync } from "node:fs";
const job = JSON.parse(readFileSync(0, "utf-8"));
const esm = Buffer.from(job.state._esm).toString("base64");
const mod = await import("data:text/javascript;base64," + esm);
const maths = await import(job.maths); // mha_views.mjs, for what the view's module does not export
"""
MATHS = (DIST.parent / "static" / "mha_views.mjs").as_uri()


def node(script: str, job: dict) -> object:
    """What ``script`` (after :data:`HEAD`) writes, as JSON, given ``job``."""
    done = subprocess.run(
        ["node", "--input-type=module", "-e", HEAD + script],
        input=json.dumps({**job, "maths": MATHS}),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


CALL = """
const { state, runs, sentences } = job;
const out = runs.map(([setting, seed, off]) => sentences.map((text) => {
  const c = mod.trainedComputed({ ...state, setting, seed, off, text });
  return [c.answer.subject, c.answer.object];
}));
process.stdout.write(JSON.stringify(out));
"""


@pytest.mark.slow
def test_answers_over_every_held_out_sentence_equal_torchs(base):
    test = split()[1]
    sentences = [" ".join(VOCAB[t] for t in row) for row in test.tokens.tolist()]
    runs = [
        [at, seed, off]
        for at, (h, _) in enumerate(SETTINGS)
        for seed in SEEDS
        for off in _patterns(h, seed)[:2]
    ]
    got = node(CALL, {"state": base, "runs": runs, "sentences": sentences})
    changed = 0
    for (at, seed, off), answers in zip(runs, got, strict=True):
        h, d_k = SETTINGS[at]
        state = load_state(h, d_k, seed)
        W_o = state["W_o"].clone()  # (h*d_k, d_model)
        for i in off:
            W_o[i * d_k : (i + 1) * d_k] = 0.0  # head i's rows
        guess = logits({**state, "W_o": W_o}, test.tokens, test.verb).argmax(-1)  # (N, 2)
        want = [[NOUNS[s], NOUNS[o]] for s, o in guess.tolist()]
        assert answers == want, (h, d_k, seed, off)
        if off:
            full = logits(state, test.tokens, test.verb).argmax(-1)  # (N, 2)
            changed += int((guess != full).any(-1).sum())
    assert changed > 0  # switching a head off changes some answers


def test_the_weights_travel_as_float32_within_a_millionth(base):
    for h, d_k in SETTINGS:
        blob = base["weights"][SETTINGS.index((h, d_k))]
        flat = np.frombuffer(base64.b64decode(blob), dtype="<f4")
        first = load_state(h, d_k, SEEDS[0])
        n = sum(v.numel() for v in first.values())
        assert flat.size == n * len(SEEDS)
        got = torch.from_numpy(flat[: first["embed"].numel()].astype("f8"))
        assert torch.allclose(got, first["embed"].ravel(), rtol=1e-7, atol=0)


LABELS = """
const { state, texts } = job;
process.stdout.write(JSON.stringify(texts.map((t) => {
  const words = mod.wordsOf(t, state.pad);
  return [words, mod.vocabularyMessage(words, state.vocab, state.max_len, state.pad),
          mod.positionLabels(words, state.max_len)];
})));
"""


def test_words_messages_and_labels_are_pythons(base):
    texts = [
        "the cat chased the mouse",
        "The Cat chased the mouse.",
        "the unicorn chased the dragon unicorn",
        "",
        "the the the the the the the the",
        "the cat the cat the",
    ]
    got = node(LABELS, {"state": base, "texts": texts})
    for text, (words, message, labels) in zip(texts, got, strict=True):
        assert words == words_of(text)
        assert message == vocabulary_message(words)
        if message is None:
            assert labels == position_labels(words)
    assert position_labels(toy.SENTENCE)[:5] == list(toy.WORD_LABELS)


def test_an_unknown_word_gets_one_line_naming_the_vocabulary(base):
    (html,) = draw([{**base, "text": "the cat chased the unicorn"}])
    listed = ", ".join(w for w in VOCAB if w != PAD) + f" and the full stop “{PAD}”"
    assert "“unicorn”" in html and f"The vocabulary is: {listed}." in html
    assert ".." not in html.replace("...", "")  # the full stop is named, not printed twice
    assert 'data-view="trained-rows"' not in html  # the first view has no earlier sentence


def test_a_loss_prints_as_python_formats_it_and_solved_runs_are_named(base):
    """One format for a loss on a page: Python's format(v, ".2g") (the chapters' text and
    the training-steps view), never JavaScript's 1.8e-5; and the solved runs in the book's
    words (a run "solves the task")."""
    metrics = copy.deepcopy(base["metrics"])
    seed = base["seeds"].index(base["seed"])
    metrics[base["setting"]][seed][0] = 1.8e-5
    (html,) = draw([{**base, "metrics": metrics}])
    shown = re.search(r'data-key="loss" data-value="[^"]+">([^<]+)<', html).group(1)
    assert shown == format(1.8e-5, ".2g") == "1.8e-05"
    assert re.search(
        r">\d+</span> of the <span[^>]*>10</span> stored seeds of .* solve the task", html
    )


def test_the_setting_control_lists_every_setting_in_full_in_order(base):
    (html,) = draw([base])
    for h, d_k in SETTINGS:
        label = f"{h} × {d_k}" + (" (each head full width)" if h * d_k != 12 else "")
        assert f'data-control="setting">{label}</label>' in html
    assert html.count('type="radio"') == len(SETTINGS) and " inert" in html
    assert html.count('type="checkbox"') == 3 and 'max="9"' in html  # 3 heads, seeds 0..9


PERMALINK = """
const { state, hashes } = job;
const read = hashes.map((h) => mod.readLink(h, state));
const text = "the dog bit the hen";
const written = mod.linkOf({ ...state, setting: 5, seed: 7, text, word: 2, off: [1] });
process.stdout.write(JSON.stringify({ read, written, back: mod.readLink(written, state) }));
"""


def test_permalinks_read_valid_settings_and_write_them_all(base):
    link = base["link"]
    hashes = [
        f"#{link}:h=2,dk=12,seed=7,text=the+dog+bit+the+hen,word=2,off=2",
        f"#{link}:h=5,dk=3,seed=11,text=the+unicorn,word=9,off=4",  # none valid
        "#other-1:h=2,dk=6",
        f"#{link}:h=6,dk=2,off=1-6",
    ]
    out = node(PERMALINK, {"state": base, "hashes": hashes})
    five = SETTINGS.index((2, 12))
    assert out["read"] == [
        {"setting": five, "seed": 7, "text": "the dog bit the hen", "word": 2, "off": [1]},
        {},
        None,
        {"setting": SETTINGS.index((6, 2)), "off": [0, 5]},
    ]
    assert out["written"] == f"#{link}:h=2,dk=12,seed=7,text=the+dog+bit+the+hen,word=2,off=2"
    assert out["back"] == out["read"][0]


WHICH = """
const { state, sentences } = job;
const which = sentences.map((t) => {
  const words = mod.wordsOf(t, state.pad);
  const ids = maths.wordIds(words, state.vocab, state.max_len, state.pad);
  return mod.whichSentences(state, words, ids);
});
process.stdout.write(JSON.stringify(which));
"""


def test_each_sentence_is_named_training_held_out_or_neither(base):
    train, test = split()
    say = lambda ids: " ".join(VOCAB[t] for t in ids)  # noqa: E731
    parts = {"a training sentence": train, "a held-out sentence": test}
    cases = {say(ids): part for part, data in parts.items() for ids in data.tokens.tolist()}
    others = ["the cat chased the cat", "the dog bit the hen the", "cat bit hen", "the grey ."]
    cases |= {"the dog bit the hen .": cases["the dog bit the hen . ."]}
    cases |= dict.fromkeys(others, "not one of the task's sentences")
    got = node(WHICH, {"state": base, "sentences": list(cases)})
    assert dict(zip(cases, got, strict=True)) == cases
