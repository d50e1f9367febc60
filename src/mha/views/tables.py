"""Markdown tables of training results, for ``IPython.display.Markdown``."""

from __future__ import annotations

from mha.training import Run, role_of


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
