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
