"""Figures of heads laid side by side and of the reshape that lays them there.

Each head has one colour (``mha.style.HEAD_COLOURS``, from the Okabe-Ito
palette) and every cell also carries printed text naming what it holds, so the
figures can be read without telling colours apart.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from torch import Tensor

from mha.concat import cell_labels, decode
from mha.figures import WIDTH
from mha.style import head_colour, tint

SUBSCRIPTS = "₁₂₃₄₅₆₇₈₉"
STRAY = "#D55E00"  # Okabe-Ito vermillion: a number in the wrong row
# Each head's cells also carry their own hatching, so heads stay apart in grayscale print.
HEAD_HATCHES = ("", "////", "....", "\\\\\\\\", "xxxx", "++++")


def _cell(ax: Axes, x: float, y: float, text: str, head: int, fontsize: float = 8) -> None:
    ax.add_patch(
        Rectangle(
            (x, y),
            1,
            1,
            facecolor=tint(head_colour(head), alpha=0.28),
            edgecolor="#555",
            linewidth=0.5,
            hatch=HEAD_HATCHES[head % len(HEAD_HATCHES)],
            hatchcolor="#bbb",
        )
    )
    ax.text(
        x + 0.5,
        y + 0.5,
        text,
        ha="center",
        va="center",
        fontsize=fontsize,
        bbox={"boxstyle": "square,pad=0.1", "facecolor": "white", "edgecolor": "none"},
    )


def _frame(ax: Axes, x: float, y: float, w: float, h: float, head: int) -> None:
    colour = head_colour(head)
    ax.add_patch(Rectangle((x, y), w, h, fill=False, edgecolor=colour, linewidth=2.2))


def concat_matrix(
    ax: Axes,
    concat: Tensor,
    words: Sequence[str],
    h: int,
    col_labels: Sequence[str] | None = None,
    head_names: Sequence[str] | None = None,
    title: str = "",
) -> None:
    """Draw the concatenated heads ``(n, h*d_v)`` with each head's block of columns coloured.

    Rows are words; columns ``i*d_v .. (i+1)*d_v - 1`` are tinted and framed in
    head ``i``'s colour and headed by its name. Every value is printed.
    """
    c = concat.detach().cpu().double().numpy()
    n, width = c.shape
    if width % h:
        raise ValueError(f"concat {tuple(c.shape)} has {width} columns, not a multiple of h = {h}")
    d_v = width // h
    names = head_names or [f"head {i + 1}" for i in range(h)]
    for r in range(n):
        for col in range(width):
            _cell(ax, col, r, f"{c[r, col]:.2f}", col // d_v, fontsize=9)
    for i in range(h):
        _frame(ax, i * d_v, 0, d_v, n, i)
        ax.text(
            i * d_v + d_v / 2,
            -0.35,
            names[i],
            ha="center",
            va="bottom",
            fontsize=10,
            fontweight="bold",
        )
    ax.set_xlim(-0.1, width + 0.1)
    ax.set_ylim(n + 0.1, -1.2)
    ax.set_yticks([r + 0.5 for r in range(n)], list(words))
    labels = col_labels or [str(col + 1) for col in range(width)]
    ax.set_xticks([col + 0.5 for col in range(width)], labels, rotation=30, ha="right")
    ax.tick_params(length=0)
    ax.spines[:].set_visible(False)
    if title:
        ax.set_title(title, pad=4)


def reach(ax: Axes, touched: Tensor, title: str = "") -> None:
    """Draw a boolean ``(h, d_out)`` grid: head ``i``'s row filled where it reaches a column."""
    t = touched.detach().cpu().numpy()
    h, width = t.shape
    for i in range(h):
        for col in range(width):
            colour = head_colour(i)
            ax.add_patch(
                Rectangle(
                    (col, i),
                    1,
                    1,
                    facecolor=colour if t[i, col] else "white",
                    edgecolor="#555",
                    linewidth=0.5,
                )
            )
            ax.text(
                col + 0.5,
                i + 0.5,
                "✓" if t[i, col] else "·",
                ha="center",
                va="center",
                fontsize=10,
                color="white" if t[i, col] else "#555",
            )
    ax.set_xlim(0, width)
    ax.set_ylim(h, 0)
    ax.set_yticks([i + 0.5 for i in range(h)], [f"head {i + 1}" for i in range(h)])
    ax.set_xticks([c + 0.5 for c in range(width)], [str(c + 1) for c in range(width)])
    ax.set_xlabel("output column")
    ax.tick_params(length=0)
    ax.spines[:].set_visible(False)
    if title:
        ax.set_title(title, fontsize=10)


def _label_text(label: int, n: int, d_v: int, words: Sequence[str]) -> tuple[str, int]:
    """Text for one cell (its word and component, e.g. ``cat₂``) and the head it came from."""
    head, word, comp = decode(label, n, d_v)
    return f"{words[word]}{SUBSCRIPTS[comp % 9]}", head


def _blocks(
    ax: Axes,
    labels: Tensor,
    words: Sequence[str],
    n: int,
    d_v: int,
    block_names: Sequence[str],
    row_names: Sequence[str],
    per_line: int,
    mark_strays: bool = False,
) -> float:
    """Draw a ``(blocks, rows, cols)`` label tensor as blocks side by side, ``per_line`` a line.

    With ``mark_strays`` (rows are words), a cell holding another word's number
    than its row's gets a thick vermillion frame. Returns the height drawn.
    """
    b, rows, cols = labels.shape
    line_height = rows + 1.2
    for k in range(b):
        x0 = (k % per_line) * (cols + 0.6)
        y0 = (k // per_line) * line_height
        for r in range(rows):
            for col in range(cols):
                text, head = _label_text(int(labels[k, r, col]), n, d_v, words)
                _cell(ax, x0 + col, y0 + r, text, head, fontsize=7.5)
                _, word, _ = decode(int(labels[k, r, col]), n, d_v)
                if mark_strays and word != r:
                    ax.add_patch(
                        Rectangle(
                            (x0 + col + 0.06, y0 + r + 0.06),
                            0.88,
                            0.88,
                            fill=False,
                            edgecolor=STRAY,
                            linewidth=1.8,
                        )
                    )
        if block_names[k]:
            ax.text(x0 + cols / 2, y0 - 0.1, block_names[k], ha="center", va="bottom", fontsize=9)
        if k % per_line == 0:
            for r in range(rows):
                ax.text(-0.2, y0 + r + 0.5, row_names[r], ha="right", va="center", fontsize=9)
    lines = -(-b // per_line)
    return lines * line_height - 1.2


def reshape_steps(
    words: Sequence[str], h: int = 3, d_v: int = 3, cell_words: Sequence[str] | None = None
) -> Figure:
    """Where each number of the heads ``(h, n, d_v)`` goes, right and wrong.

    The cells are integer labels pushed through the real ``transpose`` and
    ``reshape`` calls (see :func:`mha.concat.cell_labels`); each is drawn in
    its head's colour with the word and component it came from, e.g. ``cat₂``.
    In the last two rows a cell sitting in another word's row is framed.

    Rows of the figure: the heads ``(h, n, d_v)``; after ``.transpose(0, 1)``,
    ``(n, h, d_v)``; after ``.reshape(n, h*d_v)``, the correct concatenation;
    and the common bug, ``.reshape(n, h*d_v)`` without the transpose.

    Args:
        words: row labels, one per word.
        h, d_v: number and width of the heads.
        cell_words: shorter names printed inside the cells (default ``words``).
    """
    n = len(words)
    short = list(cell_words or words)
    if len(short) != n:
        raise ValueError(f"cell_words has {len(short)} names for {n} words")
    L = cell_labels(h, n, d_v)  # (h, n, d_v)
    T = L.transpose(0, 1)  # (n, h, d_v)
    right = T.reshape(n, h * d_v)  # (n, h*d_v)
    wrong = L.reshape(n, h * d_v)  # (n, h*d_v): memory order of L cut into rows
    heads = [f"head {i + 1}" for i in range(h)]
    per_line = max(1, h)  # blocks per line: as wide as the h heads side by side
    steps = (
        (f"1. heads: shape (h, n, d_v) = ({h}, {n}, {d_v})", L, heads, list(words)),
        (
            f"2. heads.transpose(0, 1): shape (n, h, d_v) = ({n}, {h}, {d_v}), one block per word",
            T,
            short,
            heads,
        ),
        (
            f"3. then .reshape(n, h·d_v): shape ({n}, {h * d_v}), one row per word  ✓",
            right.unsqueeze(0),
            [""],
            list(words),
        ),
        (
            f"bug: heads.reshape(n, h·d_v), no transpose: shape ({n}, {h * d_v})  ✗\n"
            "framed cells hold another word's numbers",
            wrong.unsqueeze(0),
            [""],
            list(words),
        ),
    )

    def height(labels: Tensor) -> float:
        b, rows, _ = labels.shape
        return -(-b // per_line) * (rows + 1.2) - 1.2

    heights = [height(s[1]) + 1.6 for s in steps]
    width = max(min(s[1].shape[0], per_line) * (s[1].shape[2] + 0.6) for s in steps)
    fig, axes = plt.subplots(
        len(steps),
        1,
        figsize=(min(WIDTH, 0.5 * (width + 2.4)), 0.26 * sum(heights)),
        gridspec_kw={"height_ratios": heights},
    )
    for k, (ax, (title, labels, block_names, row_names)) in enumerate(
        zip(axes, steps, strict=True)
    ):
        drawn = _blocks(
            ax, labels, short, n, d_v, block_names, row_names, per_line, mark_strays=k >= 2
        )
        ax.set_xlim(-2.4, width)
        ax.set_ylim(drawn + 0.1, -1.0)
        ax.set_title(title, loc="left", fontsize=9)
        ax.axis("off")
    fig.tight_layout()
    return fig
