"""The figures draw what they are given: bar heights, printed values, hatching, legends."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

import mha
from mha import budget, style, toy
from mha.figures.attention import (
    LABELLED_BAND,
    growth,
    heatmap,
    matrix_and_row,
    stacked_rows,
)
from mha.figures.mask import before_after


def test_mask_figure_hatches_forbidden_cells() -> None:
    w = torch.full((5, 5), 0.2, dtype=torch.float64)
    forbidden = ~mha.causal_mask(5)
    fig = before_after(w, w, forbidden, toy.SENTENCE, toy.SENTENCE)
    assert len(fig.axes[1].patches) == int(forbidden.sum()) == 10
    assert len(fig.axes[0].patches) == 0
    # the masked panel prints a dash exactly where the mask forbids, as the mask view does
    dashes = [t.get_text() == "\u2013" for t in fig.axes[1].texts]
    assert dashes == forbidden.flatten().tolist()
    assert [t.get_text() for t in fig.axes[0].texts] == ["0.20"] * 25
    plt.close(fig)
    with pytest.raises(ValueError, match="must all be"):
        before_after(w, w[:3], forbidden, toy.SENTENCE, toy.SENTENCE)


def test_matrix_and_row_draws_the_framed_row_as_bars() -> None:
    _, weights = budget.single_head_attention()  # (5, 5)
    fig = matrix_and_row(weights, toy.SENTENCE, toy.CHASED, "W")
    left, right = fig.axes
    heights = [p.get_height() for p in right.patches]
    assert heights == pytest.approx(weights[toy.CHASED].tolist())
    printed = [t.get_text() for t in left.texts]
    assert printed == [f"{v:.2f}" for v in weights.flatten().tolist()]
    plt.close(fig)


def test_heatmap_text_meets_wcag_aa_on_every_cell() -> None:
    _, ax = plt.subplots()
    values = torch.linspace(0, 1, 25, dtype=torch.float64).reshape(5, 5)
    heatmap(ax, values, toy.SENTENCE, toy.SENTENCE)
    for text, v in zip(ax.texts, values.flatten().tolist(), strict=True):
        ratio = style.contrast(matplotlib.colors.to_hex(text.get_color()), style.weight_colour(v))
        assert ratio >= 4.5, (v, ratio)
    plt.close("all")


def test_stacked_rows_fill_to_one_and_growth_labels_each_curve() -> None:
    rows = torch.stack([budget.chased_tilted(t) for t in budget.TILTS])  # (17, 5)
    _, ax = plt.subplots()
    stacked_rows(ax, budget.TILTS, rows, toy.SENTENCE, "tilt")
    top = ax.collections[-1].get_paths()[0].vertices[:, 1].max()
    assert top == pytest.approx(1.0)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(reversed(toy.SENTENCE))
    # Each band thick enough is labelled inside itself, legibly (WCAG AA on its colour).
    bottoms = torch.cat([torch.zeros(len(rows), 1), rows.cumsum(1)[:, :-1]], dim=1)  # (17, 5)
    labelled = {t.get_text(): t for t in ax.texts}
    for i, word in enumerate(toy.SENTENCE):
        if rows[:, i].max() < LABELLED_BAND:
            assert word not in labelled
            continue
        x, y = labelled[word].get_position()
        k = budget.TILTS.index(x)
        assert bottoms[k, i] < y < bottoms[k, i] + rows[k, i]
        band = matplotlib.colors.to_hex(ax.collections[i].get_facecolor()[0])
        assert style.contrast(matplotlib.colors.to_hex(labelled[word].get_color()), band) >= 4.5
    _, ax2 = plt.subplots()
    growth(ax2, [1, 2, 4], {"a": [1, 2, 4], "b": [1, 4, 16]}, "x", "y")
    assert [line.get_label() for line in ax2.get_lines()] == ["a", "b"]
    assert list(ax2.get_lines()[1].get_ydata()) == [1, 4, 16]
    plt.close("all")


def test_cross_weights_draws_one_labelled_table_per_head() -> None:
    from mha.figures.cross import cross_weights
    from mha.translation import HEAD_NAMES, TARGET, Y, cross_heads

    _, w = mha.cross_attention(Y, toy.X, *cross_heads(), toy.random_output(3, 3))  # (3, 3, 5)
    fig = cross_weights(w, TARGET, toy.WORD_LABELS, HEAD_NAMES)
    assert len(fig.axes) == 3
    for ax, head, name in zip(fig.axes, w, HEAD_NAMES, strict=True):
        assert ax.get_title() == name
        assert [t.get_text() for t in ax.get_yticklabels()] == list(TARGET)
        assert [t.get_text() for t in ax.texts] == [f"{v:.2f}" for v in head.flatten().tolist()]
    assert [t.get_text() for t in fig.axes[-1].get_xticklabels()] == list(toy.WORD_LABELS)
    plt.close(fig)
    with pytest.raises(ValueError, match=r"weights \(3, 3, 5\) need 3 head names"):
        cross_weights(w, TARGET, toy.WORD_LABELS, HEAD_NAMES[:2])


def test_head_maps_grid_prints_every_non_zero_entry_and_leaves_zeros_blank() -> None:
    from mha.concat import head_maps
    from mha.figures.maps import head_maps_grid

    _, _, W_v = toy.designed_heads()
    maps = head_maps(W_v, toy.random_output(3, 3))  # (3, 9, 9)
    fig = head_maps_grid(maps, toy.FEATURES, ["a", "b", "c"])
    assert len(fig.axes) == 4  # two panels a row; the spare one holds the key
    for i, ax in enumerate(fig.axes[:3]):
        printed = [t.get_text() for t in ax.texts]
        nonzero = maps[i][maps[i] != 0]  # row by row, as drawn
        assert printed == [f"{v:.2f}" for v in nonzero.tolist()]
        assert len(printed) == 3 * 9  # three features read, nine output columns
    for first_in_row in (fig.axes[0], fig.axes[2]):
        assert [t.get_text() for t in first_in_row.get_yticklabels()] == list(toy.FEATURES)
    assert "Blank: exactly zero" in fig.axes[3].texts[0].get_text()
    plt.close(fig)
    with pytest.raises(ValueError, match="need 9 feature names and 3 titles"):
        head_maps_grid(maps, toy.FEATURES[:8], ["a", "b", "c"])


def test_signed_colours_run_from_orange_through_white_to_purple() -> None:
    assert style.signed_colour(-1.0, 1.0) == "#7f3b08"  # PuOr's orange end
    assert style.signed_colour(1.0, 1.0) == "#2d004b"  # its purple end
    assert style.signed_colour(5.0, 1.0) == style.signed_colour(1.0, 1.0)  # clipped
    mid = style.luminance(style.signed_colour(0.0, 1.0))
    assert mid > 0.9  # near white


def test_weight_colour_is_the_colormaps_own_colour() -> None:
    """The table behind weight_colour gives what matplotlib's cividis gives, edges included."""
    values = [*torch.rand(2000, generator=torch.Generator().manual_seed(0)).tolist()]
    values += [i / 256 for i in range(257)] + [-0.5, 1.5, 0.999999]
    for v in values:
        want = matplotlib.colors.to_hex(style.CMAP(min(max(v, 0.0), 1.0)))
        assert style.weight_colour(v) == want, v
    assert style.weight_colour(2.0, vmax=4.0) == style.weight_colour(0.5)


def test_whole_layer_prints_every_head_average_and_the_output() -> None:
    from mha.concat import layer_output
    from mha.figures.layer import FONT, whole_layer

    W_q, W_k, W_v = toy.designed_heads()  # (3, 9, 3) each
    W_o = toy.random_output(3, 3)  # (9, 9)
    out, weights = mha.multi_head_attention(toy.X, W_q, W_k, W_v, W_o)  # (5, 9), (3, 5, 5)
    H, _ = mha.all_heads(toy.X, W_q, W_k, W_v)  # (3, 5, 3)
    concat = layer_output(toy.X, W_q, W_k, W_v)  # (5, 9)
    c = toy.CHASED
    fig = whole_layer(weights[:, c], H[:, c], concat[c], W_o, out[c], toy.WORD_LABELS, "chased")
    *bars, lower = fig.axes
    assert len(bars) == 3
    for i, ax in enumerate(bars):  # each head's bars are its row of weights
        heights = [p.get_height() for p in ax.patches]
        assert heights == pytest.approx(weights[i, c].tolist())
    printed = [t.get_text() for t in lower.texts]
    for v in [*H[:, c].flatten().tolist(), *out[c].tolist()]:
        assert f"{v:.2f}" in printed
    ticks = [t for ax in fig.axes if ax.axison for t in ax.get_xticklabels() + ax.get_yticklabels()]
    texts = [*ticks, *(t for ax in fig.axes for t in [*ax.texts, ax.title])]
    sizes = [t.get_fontsize() for t in texts if t.get_text()]
    assert (
        min(sizes) >= FONT - 2 >= 9
    )  # the figure prints at about its own size (tests/test_pdf.py)
    plt.close(fig)
    with pytest.raises(ValueError, match="side by side"):
        whole_layer(weights[:, c], H[:, c], concat[c].flip(0), W_o, out[c], toy.WORD_LABELS, "x")


def _book_figures() -> dict[str, object]:
    """Each figure function of mha.figures, drawn from the toy model's numbers."""
    from mha.concat import head_maps
    from mha.figures.attention import head_rows
    from mha.figures.concat import reshape_steps
    from mha.figures.cost import cost_vs_heads
    from mha.figures.cross import cross_weights
    from mha.figures.layer import whole_layer
    from mha.figures.maps import head_maps_grid
    from mha.figures.scaling import saturation_panels
    from mha.figures.training import loss_grid, rows_before_after, solved_by_variant
    from mha.translation import HEAD_NAMES, TARGET, Y, cross_heads

    W_q, W_k, W_v = toy.designed_heads()  # (3, 9, 3) each
    W_o = toy.random_output(3, 3)  # (9, 9)
    out, weights = mha.multi_head_attention(toy.X, W_q, W_k, W_v, W_o)  # (5, 9), (3, 5, 5)
    H, _ = mha.all_heads(toy.X, W_q, W_k, W_v)  # (3, 5, 3)
    c, words = toy.CHASED, toy.WORD_LABELS
    _, single = budget.single_head_attention()  # (5, 5)
    _, cross = mha.cross_attention(Y, toy.X, *cross_heads(), W_o)  # (3, 3, 5)
    widths = [2**i for i in range(10)]
    series = {"max_weight": [0.5] * 10, "entropy": [1.5] * 10, "gradient": [1.0] * 10}
    curve = (list(range(20)), [2.0**-i for i in range(20)], True)
    rows = [weights[:, c]] * 3  # (3, 5) per run
    heads = [f"head {i + 1}" for i in range(3)]
    return {
        "matrix_and_row": matrix_and_row(single, words, c, "single head: weights (5 × 5)"),
        "head_rows": head_rows(weights, words, c),
        "saturation_panels": saturation_panels(widths, {"unscaled": series, "scaled": series}, 5),
        "whole_layer": whole_layer(
            weights[:, c], H[:, c], H[:, c].reshape(-1), W_o, out[c], words, "chased"
        ),
        "cost_vs_heads": cost_vs_heads(512, 512, (1, 2, 4, 8, 16)),
        "reshape_steps": reshape_steps(words, 3, 3),
        "head_maps_grid": head_maps_grid(head_maps(W_v, W_o), toy.FEATURES, heads),
        "loss_grid": loss_grid(
            {f"h = {h}, d_k = {12 // h} (each head narrow)": [curve] * 3 for h in (1, 2, 3, 6)},
            "held-out loss",
        ),
        "rows_before_after": rows_before_after(rows, rows, words, ["seed 0", "seed 1", "seed 2"]),
        "solved_by_variant": solved_by_variant({"a": {"h = 1": (0.5, 0.2, 0.8, [0.1, 0.3])}}, "y"),
        "before_after": before_after(single, single, ~mha.causal_mask(5), words, words),
        "cross_weights": cross_weights(cross, TARGET, words, HEAD_NAMES),
    }


def test_every_figure_is_drawn_at_the_print_width_with_text_of_7_5_pt_or_more() -> None:
    """Drawn no wider than the PDF's text column (tight box, as the book saves them), so that
    the PDF prints the figure at its own size; tests/test_pdf.py measures the printed text."""
    from mha.figures import WIDTH

    wide, small = {}, {}
    for name, fig in _book_figures().items():
        fig.canvas.draw()
        width = fig.get_tightbbox().width  # inches
        if width > WIDTH + 0.15:
            wide[name] = round(width, 2)
        texts = [t for t in fig.findobj(matplotlib.text.Text) if t.get_text() and t.get_visible()]
        smallest = min(t.get_fontsize() for t in texts)
        if smallest < 7.5:
            small[name] = smallest
        plt.close(fig)
    assert wide == {}, f"figures wider than {WIDTH} in: {wide}"
    assert small == {}, f"figures with text under 7.5 pt: {small}"


def _rgba(png: bytes) -> tuple[str, np.ndarray]:
    """A PNG's mode and its pixels, ``(height, width, 4)`` integers 0..255."""
    from io import BytesIO

    from PIL import Image

    with Image.open(BytesIO(png)) as image:
        return image.mode, np.asarray(image.convert("RGBA")).astype(int)


def test_a_palette_png_is_the_full_colour_figure_in_a_quarter_of_the_bytes() -> None:
    from IPython.core.pylabtools import print_figure

    from mha.figures.png import palette_png

    w = torch.full((5, 5), 0.2, dtype=torch.float64)
    fig = before_after(w, w, ~mha.causal_mask(5), toy.SENTENCE, toy.SENTENCE)
    full, palette = print_figure(fig, "png"), palette_png(fig)  # what the inline backend shows
    (full_mode, seen), (mode, shown) = _rgba(full), _rgba(palette)
    assert (full_mode, mode) == ("RGBA", "P") and shown.shape == seen.shape
    assert len(np.unique(seen.reshape(-1, 4), axis=0)) > 256  # anti-aliased edges
    diff = np.abs(shown - seen)  # (height, width, 4)
    assert diff.mean() < 2 and diff.max() < 32, (diff.mean(), diff.max())
    assert len(palette) < len(full) / 3
    assert palette_png(plt.figure()) is None  # nothing drawn: no picture, as IPython's
    plt.close("all")


@pytest.mark.slow  # starts a kernel
def test_the_builds_kernels_show_figures_as_palette_png_and_vector_pdf(tmp_path, monkeypatch):
    """A kernel started with the IPython profile that book/_ext/execution.py writes."""
    import base64
    from types import SimpleNamespace

    from jupyter_client.manager import start_new_kernel

    from tests.book_ext import execution

    monkeypatch.setenv("IPYTHONDIR", "")  # restored after the test: kernel_profile sets it
    execution.kernel_profile(SimpleNamespace(srcdir=tmp_path))
    km, kc = start_new_kernel()
    shown = []
    try:  # %matplotlib inline again, as a reader's cell may: the formats stay
        cell = kc.execute("%matplotlib inline\nimport matplotlib.pyplot as plt\nplt.plot([0, 1])")
        while True:
            msg = kc.get_iopub_msg(timeout=60)
            if msg["parent_header"].get("msg_id") != cell:
                continue
            if msg["msg_type"] == "display_data":
                shown.append(msg["content"]["data"])
            if msg["content"].get("execution_state") == "idle":
                break
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    [data] = shown
    assert _rgba(base64.b64decode(data["image/png"]))[0] == "P"
    assert base64.b64decode(data["application/pdf"]).startswith(b"%PDF")


@pytest.mark.build
def test_every_figure_of_the_site_is_a_palette_png() -> None:
    from PIL import Image

    from tests.browser.harness import SITE

    pngs = sorted((SITE / "_images").glob("*.png"))
    assert pngs, "no figure in _build/html/_images: run make book"
    modes = {p.name: Image.open(p).mode for p in pngs}
    assert set(modes.values()) == {"P"}, modes
