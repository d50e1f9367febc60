"""Markdown tables of training results, for ``IPython.display.Markdown``."""

from __future__ import annotations

from mha.stats import wilson_interval
from mha.training import SOLVED_AT, Run, role_of
from mha.training.ablation import Removal
from mha.training.results import Comparison, Setting
from mha.views.text import fmt_p


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


def comparison_table(comparisons: list[Comparison]) -> str:
    """A Markdown table: per pair of settings, both counts (of the comparison's measure),
    Newcombe's 95 % interval for the difference of their shares, and Fisher's exact p-value."""
    what = {"solved": "solved", "reached": "met the mark"}[comparisons[0].measure]
    if any(c.measure != comparisons[0].measure for c in comparisons):
        raise ValueError("comparison_table needs comparisons of one measure")
    lines = [
        f"| setting | {what} | against | {what} | difference | 95 % interval | Fisher's p |",
        "|:---|---:|:---|---:|---:|:---:|---:|",
    ]
    for c in comparisons:
        ka, kb = c.a.count(c.measure), c.b.count(c.measure)
        lines.append(
            f"| {_name(c.a.h, c.a.d_k)} | {ka} of {c.a.runs} | {_name(c.b.h, c.b.d_k)} | "
            f"{kb} of {c.b.runs} | {c.difference:+.2f} | "
            f"{c.low:+.2f} to {c.high:+.2f} | {fmt_p(c.p)} |"
        )
    return "\n".join(lines)


def two_measures_table(pairs: list[tuple[Comparison, Comparison]]) -> str:
    """A Markdown table: per setting, runs solved at the last step and runs that met the mark
    at some evaluation step, each with Fisher's exact p against the same other setting.

    ``pairs``: per setting, its ``solved`` and its ``reached`` comparison (same ``a``, ``b``).
    """
    lines = [
        "| setting | solved at the last step | Fisher's p against one head "
        "| met the mark at some evaluation step | Fisher's p against one head |",
        "|:---|---:|---:|---:|---:|",
    ]
    for solved, reached in pairs:
        if (solved.measure, reached.measure) != ("solved", "reached") or solved.a is not reached.a:
            raise ValueError("each pair needs a solved and a reached comparison of one setting")
        a = solved.a
        is_b = a is solved.b
        p_s, p_r = ("", "") if is_b else (fmt_p(solved.p), fmt_p(reached.p))
        lines.append(
            f"| {_name(a.h, a.d_k)} | {a.solved} of {a.runs} | {p_s} "
            f"| {a.reached} of {a.runs} | {p_r} |"
        )
    return "\n".join(lines)


def removal_table(removals: list[Removal]) -> str:
    """A Markdown table: per setting, held-out both-right accuracy with all heads and with one
    head switched off (lowest and highest over heads and seeds), and how many runs still
    solve the task without the head they need least, with its Wilson 95 % interval."""
    lines = [
        "| heads h | width d_k | runs solved | both right, all heads: mean "
        "| one head off: lowest to highest | solved runs that survive losing some head "
        "| 95 % interval |",
        "|---:|---:|---:|---:|:---:|---:|:---:|",
    ]
    for r in removals:
        solved = int(r.solved.sum())
        survive = int((r.solved & r.spare.any(-1)).sum())
        low, high = wilson_interval(survive, solved) if solved else (float("nan"),) * 2
        off = r.acc[:, 1:, 2]  # (runs, h)
        lines.append(
            f"| {r.h} | {r.d_k} | {solved} of {len(r.seeds)} | {float(r.acc[:, 0, 2].mean()):.3f} "
            f"| {float(off.min()):.3f} to {float(off.max()):.3f} | {survive} of {solved} "
            f"| {low:.2f} to {high:.2f} |"
        )
    return "\n".join(lines)


def longer_table(
    short: dict[int, dict[str, float]], long: dict[int, dict[str, float]], steps: int, more: int
) -> str:
    """A Markdown table: per seed, held-out accuracy and loss after ``steps`` and after ``more``
    steps of the same run (``short`` and ``long`` map seeds to their recorded metrics)."""
    lines = [
        f"| seed | both right, {steps} steps | both right, {more} steps "
        f"| held-out loss, {steps} steps | held-out loss, {more} steps "
        f"| solved at {more} steps |",
        "|---:|---:|---:|---:|---:|:---:|",
    ]
    for seed, m in short.items():
        m2 = long[seed]
        done = "yes" if m2["test_both"] >= SOLVED_AT else "no"
        lines.append(
            f"| {seed} | {m['test_both']:.3f} | {m2['test_both']:.3f} | {m['test_loss']:.3f} "
            f"| {m2['test_loss']:.3f} | {done} |"
        )
    return "\n".join(lines)


def _name(h: int, d_k: int) -> str:
    return f"{h} × {d_k}"


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
