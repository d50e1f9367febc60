"""Markdown tables of training results, for ``IPython.display.Markdown``."""

from __future__ import annotations

from mha.training.ablation import Removal
from mha.training.results import Setting


def settings_table(settings: list[Setting]) -> str:
    """A Markdown table: per setting, its size, how many seeds solved the task, and how well."""
    lines = [
        "| heads h | width d_k | h·d_k | parameters | solved | 95 % interval "
        "| both-right accuracy: mean (lowest) | held-out loss: median |",
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


def removal_table(removals: list[Removal]) -> str:
    """A Markdown table: per setting, held-out both-right accuracy with all heads and with one
    head taken out (lowest to highest over heads and seeds), and how many solved runs still
    solve the task without some head, switched off or replaced by its mean."""
    lines = [
        "| heads h | width d_k | runs solved | both-right accuracy, all heads: mean "
        "| one head switched off: lowest to highest "
        "| solved runs that can spare a head: switched off | replaced by its mean |",
        "|---:|---:|---:|---:|:---:|---:|---:|",
    ]
    for r in removals:
        solved = int(r.solved.sum())
        survive = int((r.solved & r.spare.any(-1)).sum())
        survive_mean = int((r.solved & r.spare_mean.any(-1)).sum())
        off = r.acc[:, 1:, 2]  # (runs, h)
        lines.append(
            f"| {r.h} | {r.d_k} | {solved} of {len(r.seeds)} | {float(r.acc[:, 0, 2].mean()):.3f} "
            f"| {float(off.min()):.3f} to {float(off.max()):.3f} | {survive} of {solved} "
            f"| {survive_mean} of {solved} |"
        )
    return "\n".join(lines)


def _name(h: int, d_k: int) -> str:
    return f"{h} × {d_k}"


def tied_table(one: Setting, rows: list[tuple[Setting, Setting, float, float]]) -> str:
    """A Markdown table comparing ordinary heads with tied-values heads, setting by setting.

    Args:
        one: the single head's setting (its own row; it has nothing to compare within).
        rows: per ``h``, ``(ordinary, tied, p_vs_ordinary, p_vs_one)``: the two settings and
            the paired test (:func:`~mha.stats.mcnemar_exact`, seed by seed) of the tied runs
            against the ordinary runs and against one head's runs.
    """

    def count(s: Setting) -> str:
        return f"{s.solved} of {s.runs} ({s.low:.2f} to {s.high:.2f})"

    lines = [
        "| heads h | query/key width d_k | ordinary layers: solved (95 % interval) "
        "| tied-values layers: solved (95 % interval) | tied against ordinary: paired p "
        "| tied against one head: paired p |",
        "|---:|---:|:---:|:---:|---:|---:|",
        f"| {one.h} | {one.d_k} | {count(one)} | (one head is both) | | |",
    ]
    for own, tied, p_own, p_one in rows:
        lines.append(
            f"| {tied.h} | {tied.d_k} | {count(own)} | {count(tied)} | {p_own:.3f} | {p_one:.3f} |"
        )
    return "\n".join(lines)
