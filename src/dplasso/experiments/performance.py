"""The benchmark record behind the book's performance page: tables and figures from it.

The scripts under ``benchmarks/`` measure on a machine and write one JSON record
(``book/paper-results/benchmark.json``: sections ``frank_wolfe``, ``frank_wolfe_before``,
``certified``, ``scaling``, ``setup``, ``setup_before``, and ``compiled`` when measured; each
with ``meta``, ``targets`` and ``data``, see ``benchmarks/_record.py``). The book build does
not rerun them (minutes of CPU on a quiet machine); this module only reads the committed
record, and the paper profile's per-notebook times (``book/paper-run.md`` against the run
before it, ``book/paper-run-previous.md``).
"""
from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from dplasso.experiments.runtimes import read_runtimes
from dplasso.experiments.schedule import makespan, work_of

__all__ = [
    "BENCHMARK_RECORD",
    "PAPER_RUN",
    "PAPER_RUN_PREVIOUS",
    "RETIRED_TARGETS",
    "compiled_table",
    "paper_run_table",
    "load_benchmark",
    "targets_table",
    "step_table",
    "certified_table",
    "scaling_frame",
    "plot_steps",
    "plot_scaling",
    "conditions_table",
    "scaling_table",
    "setup_table",
    "units_table",
    "TARGET_SECTIONS",
]

READS_RECORDS = ("benchmark.json", "../paper-run.md", "../paper-run-previous.md")
"""The committed record files this module reads (:data:`dplasso.experiments.closure.RECORDS_NAME`,
relative to ``book/paper-results/``): the benchmark record and the two paper-run tables, so
that rotating the tables (``make paper-record``) makes the performance page stale."""
BENCHMARK_RECORD = (Path(__file__).resolve().parents[3] / "book" / "paper-results"
                    / "benchmark.json")
"""The committed record (made by the benchmark scripts, read by the performance page)."""
PAPER_RUN = BENCHMARK_RECORD.parents[1] / "paper-run.md"
"""The committed paper-profile record (``make paper-record``)."""
PAPER_RUN_PREVIOUS = BENCHMARK_RECORD.parents[1] / "paper-run-previous.md"
"""The record it replaced (``make paper-record`` keeps it)."""

RETIRED_TARGETS = {
    "sparse batching K=20 speed-up":
        "issue 24: the product, the step's largest part, is not faster compiled (section "
        "compiled), and numpy/scipy have no fused step",
    "Dorothea step K=20 per trial (ms)": "issue 24: the same measurement",
}
"""Targets the team retired, with the measured reason (the page lists them as retired)."""

_SECTIONS = {"frank_wolfe": "Frank-Wolfe step", "certified": "certified solve",
             "setup": "setup", "frank_wolfe_before": "Frank-Wolfe step (before)",
             "setup_before": "setup (before)", "scaling": "scaling"}
_OPTIONAL_SECTIONS = {"compiled": "compiled product (numba)"}
TARGET_SECTIONS = ("frank_wolfe", "certified", "setup")
"""The sections whose targets the page lists (the others are the "before" runs and plots)."""
_PROBLEMS = ("dense", "sparse", "dorothea")


def load_benchmark(path=BENCHMARK_RECORD):
    """The record as a dict of sections; ``ValueError`` naming a missing section."""
    record = json.loads(Path(path).read_text())
    missing = [s for s in _SECTIONS if s not in record]
    if missing:
        raise ValueError(f"benchmark record {path} lacks section(s) {missing}; run the "
                         "scripts in benchmarks/ with --json")
    return record


def targets_table(record, section="frank_wolfe"):
    """One row per target of ``section`` (of every :data:`TARGET_SECTIONS` when None).

    ``spread over rounds`` is the lowest and highest value over the benchmark's paired rounds
    when the record has them (``"one run"`` otherwise), ``load`` the machine's load average
    at the start and end of the section's run; a target of :data:`RETIRED_TARGETS` has state
    ``retired`` (its value is still shown)."""
    sections = TARGET_SECTIONS if section is None else [section]
    rows = []
    for name in sections:
        meta = record[name]["meta"]
        load = f"{meta['load_average_start']:.1f} / {meta['load_average_end']:.1f}"
        for target in record[name]["targets"]:
            spread = target.get("spread")
            state = "met" if target["met"] else "missed"
            rows.append({"part": _SECTIONS[name], "target": target["name"],
                         "goal": ("≤ " if target["better"] == "below" else "≥ ")
                         + f"{target['threshold']:g}",
                         "measured": target["value"],
                         "spread over rounds": "one run" if spread is None
                         else f"{spread[0]:.3g}–{spread[1]:.3g}",
                         "load": load,
                         "state": "retired" if target["name"] in RETIRED_TARGETS else state})
    return pd.DataFrame(rows)


def compiled_table(record):
    """The compiled product ``X^T R`` (numba) against scipy's, per design and ``K``; empty
    when the record has no ``compiled`` section (``benchmarks/bench_compiled.py``)."""
    rows = []
    for case, data in record.get("compiled", {}).get("data", {}).get("cases", {}).items():
        rows.append({"design, K": case, "scipy (ms)": data["scipy_ms"],
                     "numba (ms)": data["numba_ms"],
                     "speed-up (×)": data["speed_up"],
                     "spread over rounds": f"{data['speed_up_min']:.2f}–"
                                           f"{data['speed_up_max']:.2f}",
                     "largest relative difference": data["rel_err"],
                     "first call (s)": data["first_call_s"]})
    return pd.DataFrame(rows)


def paper_run_table(current=PAPER_RUN, previous=PAPER_RUN_PREVIOUS):
    """Each notebook's paper-profile wall time in the record and in the one before it.

    Rows in the current record's order, longest first; ``ratio`` is current over previous
    (NaN for a notebook new in the current record); a last row sums both."""
    now, before = read_runtimes(current), read_runtimes(previous)
    rows = [{"notebook": name, "previous (s)": before.get(name, float("nan")),
             "current (s)": seconds,
             "ratio": seconds / before[name] if name in before else float("nan")}
            for name, seconds in sorted(now.items(), key=lambda item: -item[1])]
    frame = pd.DataFrame(rows, columns=["notebook", "previous (s)", "current (s)", "ratio"])
    if not frame.empty:
        shared = frame["previous (s)"].notna()
        total_before = frame.loc[shared, "previous (s)"].sum()
        frame.loc[len(frame)] = {
            "notebook": "total (notebooks in both)", "previous (s)": total_before,
            "current (s)": frame.loc[shared, "current (s)"].sum(),
            "ratio": frame.loc[shared, "current (s)"].sum() / total_before
            if total_before else float("nan")}
    return frame


RECORD_RUNS = BENCHMARK_RECORD.parent
"""The committed paper record's folder, one ``<notebook>/run.json`` each."""
SCALING_WORKERS = (1, 2, 8)
"""The worker counts of :func:`scaling_table`."""


def _run_records(folder):
    records = []
    for path in sorted(Path(folder).glob("*/run.json")):
        with open(path) as handle:
            records.append(json.load(handle))
    return records


def units_table(folder=RECORD_RUNS):
    """Each notebook of the paper record: its wall time, its experiment units (how many were
    read from the unit cache, how many computed), the seconds of all its units when computed,
    its serial seconds (outside its unit grids) and its longest unit; a last row sums them.
    Notebooks recorded before units were counted have none."""
    rows = []
    for record in _run_records(folder):
        units = record.get("units") or {}
        work = work_of(record)
        rows.append({"notebook": record["notebook"], "wall time (s)": record["seconds"],
                     "units": units.get("read", 0) + units.get("computed", 0),
                     "from the cache": units.get("read", 0),
                     "unit seconds": sum(work.units), "serial (s)": work.serial,
                     "longest unit (s)": max(work.units, default=0.0)})
    frame = pd.DataFrame(rows, columns=["notebook", "wall time (s)", "units", "from the cache",
                                        "unit seconds", "serial (s)", "longest unit (s)"])
    if not frame.empty:
        total = frame.drop(columns="notebook").sum()
        total["longest unit (s)"] = frame["longest unit (s)"].max()
        frame.loc[len(frame)] = {"notebook": "total", **total.to_dict()}
    return frame.astype({"units": int, "from the cache": int})


def scaling_table(folder=RECORD_RUNS, workers=SCALING_WORKERS):
    """The paper record's work computed from scratch (every unit at its recorded time, every
    notebook's serial part) scheduled longest first on each number of ``workers``: notebook by
    notebook, and with the units of all notebooks sharing the workers
    (:func:`dplasso.experiments.schedule.makespan`), with the speed-up over one worker."""
    works = [work_of(record) for record in _run_records(folder)]
    one = makespan(works, 1, "notebooks")
    rows = [{"workers": n, "notebook by notebook (s)": makespan(works, n, "notebooks"),
             "shared unit workers (s)": makespan(works, n, "units"),
             "speed-up, shared": one / makespan(works, n, "units") if one else float("nan")}
            for n in workers]
    return pd.DataFrame(rows)


def step_table(record):
    """Private Frank-Wolfe per problem: step over one product and batching, before and after.

    ``product amortisation K=20 (×)`` is 20 products ``X^T r`` over one ``X^T R`` with 20
    columns (the fastest form of each): what batching would give if the product were the
    whole step.
    """
    rows = []
    for problem in _PROBLEMS:
        for section in ("frank_wolfe_before", "frank_wolfe"):
            data = record[section]["data"].get(problem)
            if data is None:
                continue
            rows.append({
                "problem": problem, "code": record[section]["meta"]["code"],
                "n": data["n"], "p": data["p"],
                "product K=1 (ms)": data["product_ms"]["1"],
                "step / product, K=1": data["step_over_product"]["1"],
                "step / product, K=20": data["step_over_product"]["20"],
                "selector / product, K=1": data["selector_over_product"]["1"],
                "batching K=20 (×)": data["batching_speed_up"],
                "product amortisation K=20 (×)":
                    20 * data["product_ms"]["1"] / data["product_ms"]["20"]})
    return pd.DataFrame(rows)


def certified_table(record):
    """Certified solves: whole-design FISTA, the working set, and liblinear, celer and skglm at
    the matched penalty (their columns empty where the record did not run them)."""
    rows = []
    for problem, data in record["certified"]["data"].items():
        if "working_set" not in data:
            continue
        whole = data.get("whole_design_fista") or data.get("fista_capped")
        liblinear = data["others"].get("liblinear", {})
        rows.append({
            "problem": problem, "n": data["n"], "p": data["p"],
            "working set (s)": data["working_set"]["seconds"],
            "working-set gap / L(0)": data["working_set"]["gap_over_L0"],
            "whole-design FISTA (s)": whole["seconds"],
            "FISTA gap / L(0)": whole["gap_over_L0"],
            "FISTA converged": whole["converged"],
            "liblinear (s)": liblinear.get("seconds"),
            "liblinear L − ours": liblinear.get("objective_minus_ours"),
            "liblinear same support": liblinear.get("same_support"),
            **{f"{peer} {column}": data["others"].get(peer, {}).get(key)
               for peer in ("celer", "skglm")
               for column, key in (("(s)", "seconds"), ("L − ours", "objective_minus_ours"))}})
    return pd.DataFrame(rows)


def setup_table(record):
    """Dense fit: traced memory peak in copies of ``X``, before and after; sparse setup time."""
    rows = []
    for section in ("setup_before", "setup"):
        data = record[section]["data"]
        rows.append({
            "code": record[section]["meta"]["code"],
            "peak with intercept (× X)": data["dense_peak_with_intercept"]["copies_of_X"],
            "peak without intercept (× X)": data["dense_peak_without_intercept"]["copies_of_X"],
            "X (MB)": data["dense_peak_with_intercept"]["X_bytes"] / 1e6,
            "sparse setup (s)": data["sparse_setup_s"]})
    return pd.DataFrame(rows)


def scaling_frame(record, axis):
    """The scaling rows along ``axis`` (``"n"`` or ``"p"``) as a DataFrame."""
    return pd.DataFrame(record["scaling"]["data"][f"in_{axis}"])


_STEP_TARGETS = {"dense": "dense step K=1 / one X^T r",
                 "sparse": "sparse step K=1 / one X^T r",
                 "dorothea": "Dorothea step K=1 / one X^T r"}
_BATCHING_TARGETS = {"dense": "dense batching K=20 speed-up",
                     "sparse": "sparse batching K=20 speed-up"}


def plot_steps(record):
    """Bars: step over one product (K = 1) and batching speed-up, before and after.

    Each problem's target, where it has one, is a black dash over its bars.
    """
    steps = step_table(record)
    codes = list(dict.fromkeys(steps["code"]))  # before, then after
    thresholds = {t["name"]: t["threshold"] for t in record["frank_wolfe"]["targets"]}
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    for ax, column, names in ((axes[0], "step / product, K=1", _STEP_TARGETS),
                              (axes[1], "batching K=20 (×)", _BATCHING_TARGETS)):
        pivot = steps.pivot(index="problem", columns="code", values=column)
        pivot = pivot.reindex([p for p in _PROBLEMS if p in pivot.index])[codes]
        pivot.plot.bar(ax=ax, rot=0)
        for x, problem in enumerate(pivot.index):
            if names.get(problem) in thresholds:
                ax.hlines(thresholds[names[problem]], x - 0.4, x + 0.4, color="k",
                          linestyles="--", label="target" if x == 0 else None)
        ax.set_title(column)
        ax.set_xlabel("")
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_scaling(record):
    """Log-log, against n (left) and p (right): the private FW step and one product X^T r
    in ms (top), the certified solve in s (bottom)."""
    fig, axes = plt.subplots(2, 2, figsize=(9, 5.5), sharex="col")
    for column, axis in enumerate(("n", "p")):
        frame = scaling_frame(record, axis)
        top, bottom = axes[0, column], axes[1, column]
        top.loglog(frame[axis], frame["step_ms"], "o-", label="private FW step")
        top.loglog(frame[axis], frame["product_ms"], "s--", label="one product X^T r")
        top.set_ylabel("ms")
        top.legend(fontsize=8)
        bottom.loglog(frame[axis], frame["certified_s"], "^-", color="tab:green",
                      label="certified solve")
        bottom.set_ylabel("s")
        bottom.legend(fontsize=8)
        fixed = "p" if axis == "n" else "n"
        bottom.set_xlabel(f"{axis} ({fixed} = {int(frame[fixed].iloc[0])})")
        bottom.set_xticks(frame[axis], [f"{v:,}" for v in frame[axis]])
        bottom.minorticks_off()
    fig.tight_layout()
    return fig


def conditions_table(record):
    """Code measured, machine, load and versions of each section."""
    rows = []
    for section, label in {**_SECTIONS, **_OPTIONAL_SECTIONS}.items():
        if section not in record:
            continue
        meta = record[section]["meta"]
        rows.append({"part": label, "code": meta["code"], "finished": meta["finished"],
                     "command": meta["command"], "cpu": f"{meta['cpu']} ({meta['cpu_count']})",
                     "load start / end": f"{meta['load_average_start']:.1f} / "
                                         f"{meta['load_average_end']:.1f}",
                     "BLAS threads": meta["blas_threads"] or "not limited"})
    return pd.DataFrame(rows)
