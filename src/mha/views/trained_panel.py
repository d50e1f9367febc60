"""The trained-heads panel: setting, seed, sentence and word pickers, and a live text box.

Every view it shows without a kernel is precomputed by :mod:`mha.views.trained`. With a
live kernel (by default when a Jupyter server started it) a text box takes any sentence
of the task's vocabulary; the static site has no kernel, so there the box is left out.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import ipywidgets as widgets

from mha.training import SETTINGS, encode
from mha.views.html import STYLE, esc, note
from mha.views.switch import choose, slider, switch
from mha.views.trained import (
    SENTENCES,
    START_SEED,
    START_SETTING,
    VIEW_SEEDS,
    metrics_html,
    position_labels,
    rows_html,
    setting_label,
    vocabulary_message,
    words_of,
)


def _live_kernel() -> bool:
    """A kernel that a Jupyter server started (JupyterLab, Notebook): ``JPY_SESSION_NAME``."""
    return "JPY_SESSION_NAME" in os.environ


def _verb_or_first(words: Sequence[str]) -> int:
    try:
        return encode(words)[1]
    except ValueError:
        return 0


class TrainedPanel(widgets.VBox):
    """Setting and seed sliders, a sentence and a word picker over stored trained heads.

    Args:
        settings: the ``(h, d_k)`` settings the slider offers (stored ones only).
        seeds: the seeds the seed slider offers.
        sentences: the sentences offered without a kernel.
        setting, seed: the starting position.
        live: add a text box for any sentence (default: only in a live Jupyter kernel).

    Attributes: ``setting_slider``, ``seed_slider``, ``sentence_picker``, ``word_pickers``
    (one per sentence), ``metrics`` and ``rows`` (one stack of views per sentence);
    with ``live``, ``text``, ``text_word`` and ``text_view``.
    """

    def __init__(
        self,
        settings: Sequence[tuple[int, int]] = SETTINGS,
        seeds: Sequence[int] = VIEW_SEEDS,
        sentences: Sequence[tuple[str, ...]] = SENTENCES,
        setting: tuple[int, int] = START_SETTING,
        seed: int = START_SEED,
        live: bool | None = None,
    ) -> None:
        self.settings, self.seeds = list(settings), list(seeds)
        labels = [setting_label(*s) for s in self.settings]
        self.setting_slider = slider("heads h × width d_k", labels, setting_label(*setting))
        self.seed_slider = slider("seed", self.seeds, seed)
        self.sentence_picker = widgets.Dropdown(
            options=[(" ".join(s), i) for i, s in enumerate(sentences)],
            value=0,
            description="sentence",
            layout=widgets.Layout(width="360px", max_width="100%"),
        )
        sd = (self.setting_slider, self.seed_slider)
        self.metrics = switch(sd, lambda k: metrics_html(*self.settings[k[0]], self.seeds[k[1]]))
        self.word_pickers, self.rows, boxes = [], [], []
        for words in sentences:
            picker = _word_picker(words)
            rows = switch(
                (*sd, picker),
                lambda k, words=words: rows_html(
                    *self.settings[k[0]], self.seeds[k[1]], words, k[2]
                ),
            )
            self.word_pickers.append(picker)
            self.rows.append(rows)
            boxes.append(widgets.VBox([picker, rows]))
        wrap = widgets.Layout(flex_flow="row wrap")
        children = [widgets.HTML(STYLE), widgets.HBox(list(sd), layout=wrap), self.metrics]
        children.append(self.sentence_picker)
        children.append(choose(self.sentence_picker, boxes))
        if _live_kernel() if live is None else live:
            children.append(self._live_box())
        super().__init__(children)

    def _live_box(self) -> widgets.VBox:
        """A text box for any sentence of the vocabulary, its word picker and its view."""
        self.text = widgets.Text(
            value="the dog bit the hen",
            description="your sentence",
            continuous_update=False,
            style={"description_width": "initial"},  # (JupyterLab cut it to "your sent…")
            layout=widgets.Layout(width="360px", max_width="100%"),
        )
        self.text_word = _word_picker(words_of(self.text.value))
        self.text_view = widgets.HTML()
        self.text.observe(self._new_sentence, names="value")
        for control in (self.text_word, self.setting_slider, self.seed_slider):
            control.observe(self._show_typed, names="index")
        self._new_sentence()
        return widgets.VBox([self.text, self.text_word, self.text_view])

    def _new_sentence(self, _: object = None) -> None:
        words = words_of(self.text.value)
        problem = vocabulary_message(words)
        if problem:
            self.text_view.value = note(esc(problem))
            return
        self.text_word.options = list(zip(position_labels(words), range(len(words)), strict=False))
        self.text_word.index = _verb_or_first(words)
        self._show_typed()

    def _show_typed(self, _: object = None) -> None:
        words = words_of(self.text.value)
        if vocabulary_message(words) or self.text_word.index is None:
            return
        h, d_k = self.settings[self.setting_slider.index]
        seed = self.seeds[self.seed_slider.index]
        self.text_view.value = rows_html(h, d_k, seed, words, self.text_word.index)


def _word_picker(words: Sequence[str]) -> widgets.Dropdown:
    """A dropdown over the words of a sentence, starting at its verb."""
    return widgets.Dropdown(
        options=list(zip(position_labels(words), range(len(words)), strict=False)),
        index=_verb_or_first(words),
        description="row of",
        layout=widgets.Layout(width="200px"),
    )
