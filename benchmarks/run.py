"""Benchmarks: what the book claims, and how fast the book runs.

Run with ``make bench``. Writes ``benchmarks/results.json`` and a readable
``benchmarks/results.md``, a report for the book's developers (readers see
the measurements that teach, such as the cost of heads, in the chapters).

Every comparison is a ratio of two things timed in the same process,
interleaved (A B A B ...) after warm-up; we report the median, min and max of
the per-pair ratios. These are measurements, not tests: nothing here asserts a
time.

Sections (``--only`` picks some): ``code``, ``cost``, ``torch``, ``live``, ``unit``, ``build``,
``static``, ``a11y``. The first table of results.md is issue 37's goals; ``make test`` on a
fresh clone takes too long to run here: its time is read from ``MHA_FRESH_CLONE_TEST_S``
(seconds) or ``benchmarks/fresh_clone.json`` (``{"seconds": ..., "date": ..., "commit": ...}``,
written by whoever ran it), and reported as given.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch
import yaml

import mha
from mha import measure
from mha.attention import project

ROOT = Path(__file__).resolve().parents[1]
OUT_JSON = ROOT / "benchmarks" / "results.json"
OUT_MD = ROOT / "benchmarks" / "results.md"
EXT = ROOT / "book" / "_ext"
FRESH_CLONE = ROOT / "benchmarks" / "fresh_clone.json"


def spread(values: list[float]) -> dict[str, float]:
    """Median, min and max of a list of numbers."""
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "runs": len(values),
    }


def ratio_of_pairs(a: measure.Timing, b: measure.Timing) -> dict[str, float]:
    """Per-pair ratios a_i / b_i of two interleaved timings, summarised."""
    return spread([x / y for x, y in zip(a.runs, b.runs, strict=True)])


def machine() -> dict[str, Any]:
    """Cores, CPU model and torch threads of this machine."""
    model = platform.processor() or ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "cores": os.cpu_count(),
        "cpu": model,
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "python": platform.python_version(),
    }


# 0. The build's own code -----------------------------------------------------------------------

# What counts as book/_ext's code: Python, JavaScript, CSS and templates (every text file but
# caches).
CODE_SUFFIXES = {".py", ".js", ".mjs", ".cjs", ".css", ".html", ".jinja", ".j2", ".txt"}


def ext_lines(ext: Path = EXT) -> dict[str, int]:
    """{path under ``ext``: its lines} for the code, CSS and template files of ``ext`` that git
    keeps (not what the build writes there, such as esbuild's ``static/mha-views.js``)."""
    tracked = subprocess.run(
        ["git", "ls-files", "-z", "--", "."], cwd=ext, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    paths = sorted(ext / t for t in tracked if t)
    return {
        p.relative_to(ext).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
        for p in paths
        if p.is_file() and p.suffix in CODE_SUFFIXES
    }


def local_extensions(config: dict, ext: Path = EXT) -> dict[str, list[str]]:
    """The local Sphinx extensions: those ``_config.yml`` lists (``sphinx: local_extensions``)
    and the book's own modules that those set up in turn (``app.setup_extension("name")``)."""
    listed = sorted((config.get("sphinx", {}).get("local_extensions") or {}).keys())
    own = {p.stem for p in ext.glob("*.py")}
    set_up = set()
    for name in listed:
        path = ext / f"{name}.py"
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        for other in own - set(listed):
            if f'setup_extension("{other}")' in text or f"setup_extension('{other}')" in text:
                set_up.add(other)
    return {"listed": listed, "set_up": sorted(set_up)}


def bench_code() -> dict[str, Any]:
    """Lines of book/_ext, patches of other packages (tests/patches.py's reading of the code)
    and local Sphinx extensions."""
    from tests import patches

    lines = ext_lines()
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    extensions = local_extensions(config)
    found = patches.patches()
    return {
        "ext_lines": sum(lines.values()),
        "ext_files": len(lines),
        "ext_lines_by_file": lines,
        "patches": len(found),
        "patches_found": found,
        "local_extensions_listed": len(extensions["listed"]),
        "local_extensions": extensions,
    }


# 1. The cost claim ---------------------------------------------------------------------------


def bench_cost(repeats: int) -> dict[str, Any]:
    """8 heads of width 64 against 1 head of width 512 at n = d_model = 512."""
    n, d_model = 512, 512
    narrow = measure.random_layer(n, d_model, h=8, seed=1)
    wide = measure.random_layer(n, d_model, h=1, seed=1)
    counts = {}
    for name, layer in (("narrow", narrow), ("wide", wide)):
        whole = measure.flops(mha.all_heads, *layer.projections)["total"]
        Q, K, V = (project(layer.X, W) for W in (layer.W_q, layer.W_k, layer.W_v))  # (h, n, d_k)
        attention = measure.flops(mha.scaled_dot_product, Q, K, V)["total"]
        layer_flops = measure.flops(mha.multi_head_attention, *layer.projections, layer.W_o)[
            "total"
        ]
        params = sum(w.numel() for w in (layer.W_q, layer.W_k, layer.W_v))
        counts[name] = {
            "projection_flops": whole - attention,
            "scoring_blending_flops": attention,
            "layer_flops": layer_flops,
            "params_without_out": params,
            "params_with_out": params + layer.W_o.numel(),
            "predicted": layer.cost.as_dict(),
        }
    with torch.no_grad():
        heads_t = measure.time_interleaved(
            {
                "narrow": lambda: mha.all_heads(*narrow.projections),
                "wide": lambda: mha.all_heads(*wide.projections),
            },
            repeats=repeats,
        )
        layer_t = measure.time_interleaved(
            {
                "narrow": lambda: mha.multi_head_attention(*narrow.projections, narrow.W_o),
                "wide": lambda: mha.multi_head_attention(*wide.projections, wide.W_o),
            },
            repeats=repeats,
        )
    equal = all(
        counts["narrow"][k] == counts["wide"][k]
        for k in ("projection_flops", "scoring_blending_flops", "layer_flops")
    )
    return {
        "n": n,
        "d_model": d_model,
        "narrow": "h = 8, d_k = 64",
        "wide": "h = 1, d_k = 512",
        "counts": counts,
        "split_flops_equal": equal,
        "split_time_ratio": ratio_of_pairs(heads_t["narrow"], heads_t["wide"]),
        "layer_time_ratio": ratio_of_pairs(layer_t["narrow"], layer_t["wide"]),
        "narrow_ms": 1e3 * heads_t["narrow"].median,
        "wide_ms": 1e3 * heads_t["wide"].median,
    }


# 2. Our attention against PyTorch's ---------------------------------------------------------


def torch_layer(d_model: int, h: int) -> tuple[torch.nn.MultiheadAttention, tuple]:
    """A bias-free ``torch.nn.MultiheadAttention`` and the same weights in mha's layout."""
    torch.manual_seed(0)
    layer = torch.nn.MultiheadAttention(d_model, h, bias=False, batch_first=True).eval()
    A_q, A_k, A_v = layer.in_proj_weight.detach().split(d_model)  # (d, d) each, y = x A^T
    W = tuple(mha.split_heads(A.T, h).contiguous() for A in (A_q, A_k, A_v))  # (h, d, d_k)
    W_o = layer.out_proj.weight.detach().T.contiguous()  # (h*d_k, d)
    return layer, (*W, W_o)


def bench_torch(repeats: int) -> dict[str, Any]:
    """``mha.multi_head_attention`` against ``torch.nn.MultiheadAttention``, float32."""
    n, d_model, h = 512, 512, 8
    layer, weights = torch_layer(d_model, h)
    out: dict[str, Any] = {"n": n, "d_model": d_model, "h": h, "cases": {}}
    for batch in (None, 8):
        shape = (n, d_model) if batch is None else (batch, n, d_model)
        X = torch.randn(*shape, generator=torch.Generator().manual_seed(2))
        Xb = X if batch is not None else X.unsqueeze(0)  # torch's batch_first wants a batch

        def ours(X: torch.Tensor = X) -> Any:
            return mha.multi_head_attention(X, *weights)

        def theirs(Xb: torch.Tensor = Xb) -> Any:  # per-head weights, as ours returns
            return layer(Xb, Xb, Xb, need_weights=True, average_attn_weights=False)

        def theirs_fast(Xb: torch.Tensor = Xb) -> Any:  # no weights: the fused SDPA path
            return layer(Xb, Xb, Xb, need_weights=False)

        with torch.no_grad():
            got, want = ours(), theirs()
            max_diff = float((got[0] - want[0].reshape(got[0].shape)).abs().max())
            t = measure.time_interleaved(
                {"ours": ours, "torch": theirs, "torch_fast": theirs_fast}, repeats=repeats
            )
        out["cases"]["unbatched" if batch is None else f"batch {batch}"] = {
            "ratio": ratio_of_pairs(t["ours"], t["torch"]),
            "ratio_vs_no_weights": ratio_of_pairs(t["ours"], t["torch_fast"]),
            "ours_ms": 1e3 * t["ours"].median,
            "torch_ms": 1e3 * t["torch"].median,
            "torch_no_weights_ms": 1e3 * t["torch_fast"].median,
            "max_abs_diff": max_diff,
        }
    out["mha_vs_torch_ratio"] = max(c["ratio"]["median"] for c in out["cases"].values())
    return out


# 3. The live slider step --------------------------------------------------------------------


LIVE_JS = """
import { readFileSync } from "node:fs";
const state = JSON.parse(readFileSync(0, "utf-8"));
const esm = Buffer.from(state._esm).toString("base64");
const mod = await import("data:text/javascript;base64," + esm);
const time = (f) => { const t0 = performance.now(); f(); return performance.now() - t0; };
const steps = [], full = [];
for (let setting = 0; setting < state.settings.length; setting++) {
  for (const seed of state.seeds) {
    const s = { ...state, setting, seed };
    steps.push(time(() => mod.outputHtml(s)));
    full.push(time(() => mod.renderView(s)));
  }
}
process.stdout.write(JSON.stringify({ steps, full }));
"""


def bench_live() -> dict[str, Any]:
    """The trained explorer's browser-side response to a change (its module's recompute of
    the views, in Node), at every setting and seed, and a full redraw with its controls."""
    from mha.views.trained_view import trained_view

    start = time.perf_counter()
    state = trained_view().get_state()
    build_s = time.perf_counter() - start
    run = subprocess.run(
        ["node", "--input-type=module", "-e", LIVE_JS],
        input=json.dumps(state),
        capture_output=True,
        text=True,
        check=True,
    )
    times = json.loads(run.stdout)
    steps, recompute = sorted(times["steps"]), times["full"]
    # The module's numbers against PyTorch's, by the tests' own comparisons (not timed)
    from tests.test_js_module import N_RANDOM, random_layer_errors
    from tests.test_trained_view import stored_run_error

    random_errors = random_layer_errors()
    stored_error, stored_views = stored_run_error(state)
    return {
        "js_random_layers": N_RANDOM,
        "js_vs_torch_random_max_abs": random_errors["torch"],
        "js_vs_torch_stored_views": stored_views,
        "js_vs_torch_stored_max_abs": stored_error,
        "js_vs_torch_max_abs_error": max(random_errors["torch"], stored_error),
        "positions": len(steps),
        "live_step_ms_median": statistics.median(steps),
        "live_step_ms_p95": steps[int(0.95 * (len(steps) - 1))],
        "recompute_ms_median": statistics.median(recompute),
        "recompute_ms_max": max(recompute),
        "explorer_build_s": build_s,
    }


# 4. The static site --------------------------------------------------------------------------


def bench_static() -> dict[str, Any]:
    """Slider switch times, first render and page weights in headless Chromium."""
    from tests.browser.site_metrics import measure_site

    return measure_site(ROOT / "_build" / "html")


# 5. Accessibility ----------------------------------------------------------------------------


def bench_a11y() -> dict[str, Any]:
    """axe-core's serious and critical violations on every page of the built site."""
    from tests.browser.a11y import axe_site

    return axe_site(ROOT / "_build" / "html")


# 5b. The unit tests and make test ---------------------------------------------------------


def bench_unit(runs: int = 1) -> dict[str, Any]:
    """Wall seconds of ``make unit`` (pytest -m unit), with the load average around it."""
    out = []
    for _ in range(runs):
        load = os.getloadavg()[0]
        start = time.perf_counter()
        done = subprocess.run(
            ["make", "unit"], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        out.append(
            {
                "wall_s": time.perf_counter() - start,
                "passed": done.returncode == 0,
                "load_avg_1min": [load, os.getloadavg()[0]],
            }
        )
    return {"make_unit_s": statistics.median(r["wall_s"] for r in out), "runs": out}


def fresh_clone_test() -> dict[str, Any] | None:
    """The last ``make test`` on a fresh clone, as given (not measured here): seconds from
    ``MHA_FRESH_CLONE_TEST_S``, else benchmarks/fresh_clone.json; None when neither says."""
    if os.environ.get("MHA_FRESH_CLONE_TEST_S"):
        return {"seconds": float(os.environ["MHA_FRESH_CLONE_TEST_S"]), "source": "environment"}
    if FRESH_CLONE.is_file():
        return {**json.loads(FRESH_CLONE.read_text()), "source": FRESH_CLONE.name}
    return None


# 6. The build --------------------------------------------------------------------------------


def build(clean: bool) -> dict[str, float]:
    """Wall and CPU seconds (this process's children) of the book command, ``make book``."""
    if clean:
        shutil.rmtree(ROOT / "_build", ignore_errors=True)
    cpu_before = os.times()
    start = time.perf_counter()
    subprocess.run(["make", "book"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    cpu_after = os.times()
    cpu = (cpu_after.children_user - cpu_before.children_user) + (
        cpu_after.children_system - cpu_before.children_system
    )
    return {"wall_s": wall, "cpu_s": cpu, "load_avg_1min": os.getloadavg()[0]}


def notebook_times() -> dict[str, float]:
    """Each notebook's execution seconds in the last build that executed it."""
    report = json.loads((ROOT / "_build" / "execution.json").read_text())
    return {Path(doc).name: entry["seconds"] for doc, entry in report.items()}


def bench_build(runs: int) -> dict[str, Any]:
    """``runs`` cold builds (nothing built, empty execution cache), then one with nothing changed.

    This machine is a shared VM whose speed drifts by half from one minute to the next, so
    the cold build's figure is the median of several runs, with every run kept.
    """
    cold = [build(clean=True) for _ in range(runs)]
    nochange = build(clean=False)
    return {
        "build_cold_s": statistics.median(r["wall_s"] for r in cold),
        "build_cold_runs": cold,
        "build_nochange_s": nochange["wall_s"],
        "notebooks_s": notebook_times(),
    }


# Report ---------------------------------------------------------------------------------------


def fmt_ratio(r: dict[str, float]) -> str:
    return f"{r['median']:.2f} ({r['min']:.2f}–{r['max']:.2f}; {r['runs']})"


# Issue 37's goals: (summary key, what, the issue's "today", the goal, at most, as shown).
GOALS = [
    ("ext_lines", "lines in `book/_ext` (code, CSS, templates)", "3,890", 1200, "{:,.0f}"),
    ("patches", "replaced or disconnected functions of other packages", "≈ 13", 0, "{:.0f}"),
    ("local_extensions_listed", "local Sphinx extensions in `_config.yml`", "12", 5, "{:.0f}"),
    (
        "max_page_gzip_mb",
        "largest page, transferred (gzip), with all it loads (MB)",
        "0.58",
        0.75,
        "{:.2f}",
    ),
    (
        "module_repeated_kb_max",
        "bytes of view modules per page, repeated (KB, largest page)",
        "up to 91",
        0,
        "{:.1f}",
    ),
    ("build_cold_s", "cold build, median of three, 2 cores (s)", "28", 60, "{:.1f}"),
    ("all_widgets_live_s", "controls live after navigation, median (s)", "0.44", 1.0, "{:.2f}"),
    ("step_work_ms_p95", "one control step, compute + draw, p95 (ms)", "15.8", 33, "{:.1f}"),
    ("make_unit_s", "`make unit` (s)", "—", 60, "{:.1f}"),
    ("make_test_fresh_clone_min", "`make test`, fresh clone (min), as given", "12", 12, "{:.1f}"),
]


def goals_table(results: dict[str, Any]) -> list[str]:
    """Issue 37's goals table, each goal with its last value (— when not measured yet) and
    when its section was measured (sections run alone keep the others' older values)."""
    summary = results.get("summary", {})
    derived = {"max_page_gzip_mb": "static", "module_repeated_kb_max": "static"}

    def when(key: str) -> str:
        if key == "make_test_fresh_clone_min":
            fresh = results.get("fresh_clone_test") or {}
            return f"{fresh.get('date', '')} (given)" if fresh else ""
        section = derived.get(key) or SUMMARY.get(key, ("",))[0]
        found = results.get(section) or {}
        return found.get("measured_on", "an earlier run") if found else ""

    lines = [
        "| goal (issue 37) | issue's today | now | goal | met | measured |",
        "|---|---|---|---|---|---|",
    ]
    for key, what, before, goal, shown in GOALS:
        value = summary.get(key)
        now = "—" if value is None else shown.format(value)
        met = "" if value is None else ("yes" if value <= goal else "**no**")
        limit = f"≤ {goal:,}" if goal else "0"
        lines.append(f"| {what} | {before} | {now} | {limit} | {met} | {when(key)} |")
    return lines


def markdown(results: dict[str, Any]) -> str:
    """The results as Markdown tables: issue 37's goals, then every measurement."""
    m = results["machine"]
    lines = [
        "<!-- generated by benchmarks/run.py (make bench); do not edit by hand -->",
        f"Measured {results['date']} on {m['cores']} cores ({m['cpu']}), "
        f"torch {m['torch']} with {m['torch_threads']} threads, Python {m['python']}.",
        "",
        *goals_table(results),
        "",
        "| measurement | result | goal |",
        "|---|---|---|",
    ]

    def row(name: str, value: str, goal: str = "") -> None:
        lines.append(f"| {name} | {value} | {goal} |")

    if code := results.get("code"):
        row(
            f"lines in book/_ext, {code['ext_files']} files (`ext_lines`)",
            f"{code['ext_lines']:,}",
            "≤ 1,200",
        )
        row(
            "patches of other packages found in book/_ext (tests/patches.py) (`patches`)",
            "; ".join(code["patches_found"]) or "none",
            "0",
        )
        ext = code["local_extensions"]
        row(
            "local Sphinx extensions listed in _config.yml / set up by them",
            f"{len(ext['listed'])} ({', '.join(ext['listed'])}) / "
            f"{len(ext['set_up'])} ({', '.join(ext['set_up'])})",
            "listed ≤ 5",
        )
    if u := results.get("unit"):
        each = ", ".join(
            f"{r['wall_s']:.1f} s (load {r['load_avg_1min'][0]:.1f}"
            f"{'' if r['passed'] else ', FAILED'})"
            for r in u["runs"]
        )
        row("`make unit`, median (s) (`make_unit_s`)", f"{u['make_unit_s']:.1f}; {each}", "≤ 60 s")
    if f := results.get("fresh_clone_test"):
        row(
            "`make test` on a fresh clone (min), as given, not measured by make bench",
            f"{f['seconds'] / 60:.1f} ({f.get('date', '')} {f.get('commit', '')}, "
            f"from {f['source']})",
            "≤ 12 min",
        )
    if c := results.get("cost"):
        row(
            "FLOPs equal, 8×64 vs 1×512 (`split_flops_equal`)",
            str(c["split_flops_equal"]),
            "True (chapter)",
        )
        cn, cw = c["counts"]["narrow"], c["counts"]["wide"]
        row(
            "projection FLOPs, narrow / wide",
            f"{cn['projection_flops']:,} / {cw['projection_flops']:,}",
        )
        row(
            "scoring+blending FLOPs, narrow / wide",
            f"{cn['scoring_blending_flops']:,} / {cw['scoring_blending_flops']:,}",
        )
        row(
            "parameters without / with W^O (narrow)",
            f"{cn['params_without_out']:,} / {cn['params_with_out']:,}",
            "3·d² / 4·d²",
        )
        row(
            "time, 8 narrow / 1 wide head (`split_time_ratio`)",
            fmt_ratio(c["split_time_ratio"]),
            "≈ 1 if cost were all FLOPs",
        )
        row("time of the whole layer with W^O, narrow / wide", fmt_ratio(c["layer_time_ratio"]))
    if t := results.get("torch"):
        for case, v in t["cases"].items():
            row(f"mha / torch.nn.MultiheadAttention, {case}", fmt_ratio(v["ratio"]), "≤ 1.2")
            row(
                f"mha / torch without weights (fused path), {case}",
                fmt_ratio(v["ratio_vs_no_weights"]),
            )
        row("`mha_vs_torch_ratio` (worst case, median)", f"{t['mha_vs_torch_ratio']:.2f}", "≤ 1.2")
    if live := results.get("live"):
        row(
            "trained explorer: one step recomputed in JS (Node), median / p95 (ms)",
            f"{live['live_step_ms_median']:.3f} / {live['live_step_ms_p95']:.3f}",
        )
        row(
            "trained explorer: full redraw with controls (Node), median / max (ms)",
            f"{live['recompute_ms_median']:.1f} / {live['recompute_ms_max']:.1f}",
        )
        if "js_vs_torch_max_abs_error" in live:
            row(
                "JS vs torch, max abs error on attention weights: "
                f"{live['js_random_layers']} random layers / every stored run "
                f"({live['js_vs_torch_stored_views']} views) (`js_vs_torch_max_abs_error`)",
                f"{live['js_vs_torch_random_max_abs']:.1e} / "
                f"{live['js_vs_torch_stored_max_abs']:.1e}",
                "≤ 1e-6",
            )
    if s := results.get("static"):
        row(
            "pages / widget pages / sliders and pickers moved by key",
            f"{s['pages']} / {s['widget_pages']} / {s['static_switches']}",
        )
        row(
            "one step, compute + draw: key press → view changed, plus that frame's style, "
            "layout and paint, median / p95 / max (ms) (`step_work_ms_*`)",
            f"{s['step_work_ms_median']:.1f} / {s['step_work_ms_p95']:.1f} / "
            f"{s['step_work_ms_max']:.1f}",
            "p95 ≤ 33 ms (two frames)",
        )
        row(
            "… key press → view changed (handlers done), median / p95 / max (ms) "
            "(`static_switch_ms_*`)",
            f"{s['static_switch_ms_median']:.1f} / {s['static_switch_ms_p95']:.1f} / "
            f"{s['static_switch_ms_max']:.1f}",
        )
        row(
            "… key press → next frame painted (waits for the frame too), median / p95 / max "
            "(ms) (`key_to_paint_ms_*`)",
            f"{s['key_to_paint_ms_median']:.1f} / {s['key_to_paint_ms_p95']:.1f} / "
            f"{s['key_to_paint_ms_max']:.1f}",
        )
        row(
            "first widget view after navigation, median / slowest page (s) (`first_render_s`)",
            f"{s['first_render_s']:.2f} / {s['first_render_s_max']:.2f}",
        )
        if s.get("all_widgets_live_s") is not None:
            row(
                "every widget of a page live (controls work), median / slowest page (s); each "
                "page: median of 3 loads",
                f"{s['all_widgets_live_s']:.2f} / {s['all_widgets_live_s_max']:.2f}",
                "median ≤ 1.0 s",
            )
        if s.get("throttled_live_s_max") is not None:
            row(
                "… with the CPU slowed 4× (DevTools), slowest page (s), median of 3 loads "
                "(`throttled_live_s_max`)",
                f"{s['throttled_live_s_max']:.2f}",
                "≤ 3 s",
            )
        if s.get("load_avg_1min"):
            row(
                "load average (1 min) before / after the browser measurements",
                " / ".join(f"{x:.1f}" for x in s["load_avg_1min"]),
                "2 cores",
            )
        row(
            "largest page with everything it loads, decoded (`max_page_bytes`)",
            f"{s['max_page_bytes'] / 1e6:.2f} MB ({Path(s.get('max_page', '')).stem})",
        )
        row(
            "largest page's transfer, gzip-compressed (`max_page_gzip_bytes`)",
            f"{s['max_page_gzip_bytes'] / 1e6:.2f} MB",
            "≤ 0.75 MB",
        )
        if s.get("on_demand_gzip_bytes") is not None:
            row(
                "loaded only when the reader asks: the trained explorer's other settings, all "
                "of them, gzip (`on_demand_gzip_bytes`)",
                f"{s['on_demand_gzip_bytes'] / 1e6:.2f} MB",
            )
        if s.get("module_repeated_bytes_max") is not None:
            row(
                "view-module text repeated on a page, largest (site_metrics.py says how it "
                "counts) (`module_repeated_bytes_max`)",
                f"{s['module_repeated_bytes_max'] / 1e3:.1f} KB",
                "0",
            )
        assets = ", ".join(
            f"{Path(url.split('?')[0]).name} {size / 1e6:.2f} MB"
            for url, size in s.get("max_page_largest_assets", [])[:3]
        )
        row("largest assets on that page", assets)
        for page in s.get("per_page", []):
            row(
                f"page {Path(page['page']).stem}",
                f"{page['page_bytes'] / 1e6:.2f} MB ({page['page_gzip_bytes'] / 1e6:.2f} MB "
                f"gzip), {page['requests']} requests",
            )
    if a := results.get("a11y"):
        row(
            "axe-core serious + critical violations, all pages (`axe_violations`)",
            f"{a['axe_violations']} on {a['pages']} pages",
            "0",
        )
    if b := results.get("build"):
        runs = b.get("build_cold_runs", [])
        each = ", ".join(f"{r['wall_s']:.1f} s ({r['cpu_s']:.0f} CPU-s)" for r in runs)
        row(
            "cold build, nothing built, median of runs (s) (`build_cold_s`)",
            f"{b['build_cold_s']:.1f}" + (f"; runs: {each}" if runs else ""),
            "≤ 60 s",
        )
        row("no-change rebuild (s) (`build_nochange_s`)", f"{b['build_nochange_s']:.1f}", "≤ 3 s")
        for nb, sec in b["notebooks_s"].items():
            goal = "< 60 s" if nb.startswith("05_") else "< 20 s"  # chapter 5 trains models
            row(f"execution of {nb}, pages side by side (s)", f"{sec:.1f}", goal)
    return "\n".join(lines) + "\n"


SECTIONS: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {
    "code": lambda a: bench_code(),
    "cost": lambda a: bench_cost(a.repeats),
    "torch": lambda a: bench_torch(a.repeats),
    "live": lambda a: bench_live(),
    "unit": lambda a: bench_unit(),
    "build": lambda a: bench_build(a.build_runs),
    "static": lambda a: bench_static(),  # after "build": it measures the built site
    "a11y": lambda a: bench_a11y(),  # after "build" too
}

# The keys, flat at the top of results.json: (section, path into it).
SUMMARY = {
    "ext_lines": ("code", ["ext_lines"]),
    "patches": ("code", ["patches"]),
    "local_extensions_listed": ("code", ["local_extensions_listed"]),
    "make_unit_s": ("unit", ["make_unit_s"]),
    "module_repeated_bytes_max": ("static", ["module_repeated_bytes_max"]),
    "split_flops_equal": ("cost", ["split_flops_equal"]),
    "split_time_ratio": ("cost", ["split_time_ratio", "median"]),
    "mha_vs_torch_ratio": ("torch", ["mha_vs_torch_ratio"]),
    "live_step_ms_median": ("live", ["live_step_ms_median"]),
    "live_step_ms_p95": ("live", ["live_step_ms_p95"]),
    "js_vs_torch_max_abs_error": ("live", ["js_vs_torch_max_abs_error"]),
    "static_switch_ms_median": ("static", ["static_switch_ms_median"]),
    "static_switch_ms_p95": ("static", ["static_switch_ms_p95"]),
    "step_work_ms_median": ("static", ["step_work_ms_median"]),
    "step_work_ms_p95": ("static", ["step_work_ms_p95"]),
    "key_to_paint_ms_p95": ("static", ["key_to_paint_ms_p95"]),
    "first_render_s": ("static", ["first_render_s"]),
    "first_render_s_max": ("static", ["first_render_s_max"]),
    "all_widgets_live_s": ("static", ["all_widgets_live_s"]),
    "throttled_live_s_max": ("static", ["throttled_live_s_max"]),
    "max_page_bytes": ("static", ["max_page_bytes"]),
    "max_page_gzip_bytes": ("static", ["max_page_gzip_bytes"]),
    "axe_violations": ("a11y", ["axe_violations"]),
    "build_cold_s": ("build", ["build_cold_s"]),
    "build_nochange_s": ("build", ["build_nochange_s"]),
}


def summary(results: dict[str, Any]) -> dict[str, Any]:
    """The issue's keys, picked out of the sections measured so far."""
    out = {}
    for key, (section, path) in SUMMARY.items():
        value: Any = results.get(section)
        for step in path:
            value = value.get(step) if isinstance(value, dict) else None
        if value is not None:
            out[key] = value
    # in the goals' units
    if "max_page_gzip_bytes" in out:
        out["max_page_gzip_mb"] = out["max_page_gzip_bytes"] / 1e6
    if "module_repeated_bytes_max" in out:
        out["module_repeated_kb_max"] = out["module_repeated_bytes_max"] / 1e3
    if fresh := results.get("fresh_clone_test"):
        out["make_test_fresh_clone_min"] = fresh["seconds"] / 60
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=list(SECTIONS), default=list(SECTIONS))
    parser.add_argument("--skip", nargs="*", choices=list(SECTIONS), default=[])
    parser.add_argument("--repeats", type=int, default=25, help="timed pairs per comparison")
    parser.add_argument("--build-runs", type=int, default=3, help="cold builds; the median counts")
    args = parser.parse_args()
    results: dict[str, Any] = json.loads(OUT_JSON.read_text()) if OUT_JSON.exists() else {}
    results["machine"] = machine()
    results["date"] = time.strftime("%Y-%m-%d")
    for name in [s for s in args.only if s not in args.skip]:
        print(f"[bench] {name} ...", flush=True)
        start = time.perf_counter()
        results[name] = {**SECTIONS[name](args), "measured_on": time.strftime("%Y-%m-%d %H:%M")}
        print(f"[bench] {name} done in {time.perf_counter() - start:.1f} s", flush=True)
    results["fresh_clone_test"] = fresh_clone_test()
    results["summary"] = summary(results)
    OUT_JSON.write_text(json.dumps(results, indent=2) + "\n")
    OUT_MD.write_text(markdown(results))
    print(OUT_MD.read_text())


if __name__ == "__main__":
    main()
