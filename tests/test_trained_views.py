"""Views of trained heads: their numbers against PyTorch's SDPA on the stored weights,
the live text box, and the explorer's source picker."""

from __future__ import annotations

import re

import pytest
import torch

from mha import toy
from mha import training as T
from mha.training import reference
from mha.views import switch as mw
from mha.views.explorer import Explorer
from mha.views.trained import SENTENCES, metrics_html, rows_html, vocabulary_message, words_of
from mha.views.trained_panel import TrainedPanel

VALUE = re.compile(r'data-key="([^"]+)" data-value="([^"]+)"')
ATTR = re.compile(r'data-([a-z]+)="([^"]*)"')


def shown(html: str) -> tuple[str, dict[str, str], dict[str, str]]:
    root = html.split(">", 1)[0]
    attrs = dict(ATTR.findall(root))
    return attrs.pop("view"), attrs, dict(VALUE.findall(html))


def check(html: str) -> dict[str, str]:
    """The view's numbers equal what its registered expected function recomputes."""
    view, attrs, values = shown(html)
    want = mw.expected(view, **attrs)
    assert want is not None and values and set(values) == set(want), (view, set(values))
    for key, value in values.items():
        if isinstance(want[key], str):
            assert value == want[key], key
        else:
            assert float(value) == pytest.approx(want[key], rel=1e-5, abs=1e-6), key
    return values


@pytest.mark.parametrize(("h", "d_k"), T.SETTINGS)
def test_rows_views_match_sdpa_on_the_stored_weights(h: int, d_k: int) -> None:
    for words in SENTENCES:
        for word in (0, T.encode(words)[1]):
            values = check(rows_html(h, d_k, 2, words, word))
            for i in range(h):  # each head's row is a softmax row over the seven positions
                total = sum(float(values[f"r{i}-{j}"]) for j in range(T.MAX_LEN))
                assert total == pytest.approx(1.0, abs=1e-5)


def test_the_running_sentence_is_named_right_by_a_solving_run() -> None:
    values = check(rows_html(3, 4, 0, SENTENCES[0], 2))
    # The run solves the task, by SDPA on its stored weights (not by the stored metric) ...
    assert reference.held_out(3, 4, 0)["both"] >= T.SOLVED_AT
    # ... and names this sentence's nouns: the view shows what the read-out says.
    assert SENTENCES[0] == ("the", "cat", "chased", "the", "mouse")
    assert (values["subject"], values["object"]) == ("cat", "mouse")


@pytest.mark.parametrize(("h", "d_k"), T.SETTINGS)
def test_metrics_views_match_sdpa_on_the_stored_weights(h: int, d_k: int) -> None:
    values = check(metrics_html(h, d_k, 1))
    # The count of solving seeds, by SDPA on every stored seed's weights.
    solved = sum(reference.held_out(h, d_k, s)["both"] >= T.SOLVED_AT for s in T.SEEDS)
    assert (values["runs"], values["solved"]) == (str(len(T.SEEDS)), str(solved))


def test_a_view_for_a_sentence_outside_the_task_shows_rows_only() -> None:
    html = rows_html(2, 6, 0, ["cat", "cat", "saw"], 2)
    values = check(html)
    assert "subject" not in values and "no subject or object" in html


def test_typed_words_and_the_vocabulary_message() -> None:
    assert words_of("The dog bit the hen.") == ["the", "dog", "bit", "the", "hen", "."]
    assert vocabulary_message(["the", "dog", "bit", "the", "hen"]) is None
    message = vocabulary_message(["the", "cow", "bit", "the", "hen"])
    assert message is not None and "\n" not in message and "“cow”" in message
    assert all(w in message for w in T.VOCAB)
    assert "1 to 7 words" in vocabulary_message(["the"] * 8)


@pytest.fixture(scope="module")
def panel() -> TrainedPanel:
    return TrainedPanel(live=True)


def test_the_text_box_shows_rows_or_a_one_line_message(panel: TrainedPanel) -> None:
    panel.text.value = "the cow chased the mouse"
    html = panel.text_view.value
    assert "mha-view" not in html and "“cow”" in html and "grey" in html
    assert html.count("<p") == 1 and "\n" not in html
    panel.text.value = "The fox bit the small hen."
    assert panel.text_word.label == "bit"
    view, attrs, _ = shown(panel.text_view.value)
    assert view == "trained-rows" and attrs["sentence"] == "the fox bit the small hen ."
    check(panel.text_view.value)
    panel.setting_slider.value = panel.setting_slider.options[0]  # one head
    panel.text_word.index = 1  # fox
    _, attrs, values = shown(panel.text_view.value)
    assert (attrs["h"], attrs["word"]) == ("1", "1") and "r1-0" not in values
    check(panel.text_view.value)


def test_no_text_box_without_a_live_kernel() -> None:
    p = TrainedPanel(live=False, seeds=(0,), sentences=SENTENCES[:1])
    assert not hasattr(p, "text")


def test_the_panel_follows_its_controls(panel: TrainedPanel) -> None:
    for s, picker in enumerate(panel.word_pickers):
        panel.sentence_picker.value = s
        for setting in panel.setting_slider.options[::2]:
            panel.setting_slider.value = setting
            picker.index = len(picker.options) - 1
            _, attrs, _ = shown(mw.visible_html(panel.rows[s]))
            h, d_k = T.SETTINGS[panel.setting_slider.index]
            assert (attrs["h"], attrs["dk"]) == (str(h), str(d_k))
            assert attrs["sentence"] == " ".join(SENTENCES[s])
            assert attrs["word"] == str(len(picker.options) - 1)
            check(mw.visible_html(panel.rows[s]))
            check(mw.visible_html(panel.metrics))


def test_the_explorer_offers_designed_random_and_trained_heads() -> None:
    e = Explorer(
        h_values=(1, 2),
        d_k_values=(3,),
        show=("rows", "heads"),
        h=1,
        sources=("designed", "random", "trained"),
    )
    assert [label for label, _ in e.source_picker.options] == [
        "designed (h = 3)",
        "random",
        "trained",
    ]
    stack = e.children[2]
    e.source_picker.value = 0
    assert stack.selected_index == 0
    e.designed.value = toy.CHASED
    view, attrs, values = shown(mw.visible_html(stack.children[0].children[1]))
    assert (view, attrs["source"]) == ("rows", "designed")
    assert float(values["r0-1"]) > 0.5 and float(values["r1-4"]) > 0.5  # subject, object heads
    check(mw.visible_html(stack.children[0].children[1]))
    check(stack.children[0].children[2].value)
    e.source_picker.value = 2
    assert stack.selected_index == 2 and stack.children[2] is e.trained
    with pytest.raises(ValueError, match="choose from"):
        Explorer(sources=("learned",))


def test_full_width_heads_have_their_own_width() -> None:
    model = T.HeadsModel(2, d_k=12)
    assert model.W_q.shape == (2, 12, 12) and model.W_o.shape == (24, 12)
    assert T.RunConfig(h=3).d_k == 4 and T.RunConfig(h=2, d_k=12).d_k == 12
    narrow = T.HeadsModel(2)
    assert narrow.d_k == 6
    with torch.no_grad():
        logits, weights = model(T.split()[1])
    assert logits.shape == (288, 2, 6) and weights.shape == (288, 2, 7, 7)
    with pytest.raises(ValueError, match="positive"):
        T.HeadsModel(2, d_k=0)
