"""Markdown tables of training results, for ``IPython.display.Markdown``."""

from __future__ import annotations

from mha.training import Run, role_of
from mha.training.results import Setting


def results_table(runs: list[Run]) -> str:
    """A Markdown table of the final loss and accuracy of each run."""
    lines = [
        "| h | d_k | seed | train loss | test loss | subject acc. | object acc. | both right |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for run in runs:
        m, c = run.metrics, run.config
        lines.append(
            f"| {c.h} | {c.d_k} | {c.seed} | {m['train_loss']:.4f} | "
            f"{m['test_loss']:.4f} | {m['test_subject']:.3f} | {m['test_object']:.3f} | "
            f"{m['test_both']:.3f} |"
        )
    return "\n".join(lines)


def roles_table(runs: list[Run]) -> str:
    """A Markdown table: per run, the role each head's verb row weighs most, and how much.

    Each cell reads ``role (subject / object / other weight)``, averaged over the
    test sentences.
    """
    h = runs[0].config.h
    head_cols = " | ".join(f"head {i + 1}" for i in range(h))
    lines = [f"| seed | {head_cols} |", "|---:|" + ":---|" * h]
    for run in runs:
        assert run.roles is not None
        cells = [
            f"**{role}** ({' / '.join(f'{x:.2f}' for x in run.roles[i].tolist())})"
            for i, role in enumerate(role_of(run.roles))
        ]
        lines.append(f"| {run.config.seed} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def settings_table(settings: list[Setting]) -> str:
    """A Markdown table: per setting, its size, how many seeds solved the task, and how well."""
    lines = [
        "| heads h | width d_k | h·d_k | weights | solved | 95 % interval "
        "| both right: mean (lowest) | held-out loss: median |",
        "|---:|---:|---:|---:|---:|:---:|---:|---:|",
    ]
    for s in settings:
        mean = sum(s.both) / len(s.both)
        lines.append(
            f"| {s.h} | {s.d_k} | {s.h * s.d_k} | {s.weights:,} | {s.solved} of {s.runs} | "
            f"{s.low:.2f} to {s.high:.2f} | {mean:.3f} ({min(s.both):.3f}) | {s.median_loss:.4f} |"
        )
    return "\n".join(lines)


def kinds_table(rows: dict[tuple[int, int], dict[str, int]]) -> str:
    """A Markdown table: per setting ``(h, d_k)``, how many heads of each kind, and how many
    runs have both a subject head and an object head."""
    lines = [
        "| heads h | width d_k | subject heads | object heads | noun heads | mixed heads "
        "| runs with a subject and an object head |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for (h, d_k), c in rows.items():
        lines.append(
            f"| {h} | {d_k} | {c['subject']} | {c['object']} | {c['noun']} | {c['mixed']} | "
            f"{c['role_split']} |"
        )
    return "\n".join(lines)


def tied_table(one: Setting, rows: list[tuple[Setting, Setting, float, float]]) -> str:
    """A Markdown table comparing ordinary heads with tied-values heads, setting by setting.

    Args:
        one: the single head's setting (its own row; it has nothing to compare within).
        rows: per ``h``, ``(ordinary, tied, p_vs_ordinary, p_vs_one)``: the two settings and
            Fisher's exact test of the tied count against the ordinary and the one-head count.
    """

    def count(s: Setting) -> str:
        return f"{s.solved} of {s.runs} ({s.low:.2f} to {s.high:.2f})"

    lines = [
        "| heads h | query/key width d_k | own values: solved (95 % interval) "
        "| tied values: solved (95 % interval) | tied against own: Fisher p "
        "| tied against one head: Fisher p |",
        "|---:|---:|:---:|:---:|---:|---:|",
        f"| {one.h} | {one.d_k} | {count(one)} | (one head is both) | | |",
    ]
    for own, tied, p_own, p_one in rows:
        lines.append(
            f"| {tied.h} | {tied.d_k} | {count(own)} | {count(tied)} | {p_own:.3f} | {p_one:.3f} |"
        )
    return "\n".join(lines)
