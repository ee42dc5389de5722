"""Figures and summary tables of the P2 notebooks (results tables in, matplotlib figures out).

Every spread is shown over runs: the seeds (one data set each) and, for runs with a private
part, the noise trials within a seed. Lines are means (or medians where stated) and bands
or error bars span the smallest to the largest run.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dplasso.experiments.names import P2_SEMANTICS, SEMANTICS, TASKS

__all__ = [
    "plot_gap_curves",
    "plot_noise_vs_dimension",
    "plot_nonzeros_over_iterations",
    "plot_screened_over_iterations",
    "semantics_label",
    "spread",
    "spread_table",
]

_ZERO, _NONZERO = "tab:blue", "tab:red"


def spread(values, fmt=".0f", scale=1.0):
    """``"mean ± sd (min–max)"`` of ``values`` times ``scale`` (all equal: just the value).

    Parameters
    ----------
    values : array-like
        Numbers, one per run.
    fmt : str, default=".0f"
        Format of each number.
    scale : float, default=1.0
        Factor applied first (100 for percentages).
    """
    v = np.asarray(values, dtype=float) * scale
    if v.size == 1 or np.ptp(v) == 0:
        return f"{v[0]:{fmt}}"
    return f"{v.mean():{fmt}} ± {v.std(ddof=1):{fmt}} ({v.min():{fmt}}–{v.max():{fmt}})"


def semantics_label(semantics):
    """How the tables name a screening semantics: P2's reading, or our variant.

    Examples
    --------
    >>> semantics_label("zero-and-exclude")
    'zero-and-exclude (our variant)'
    """
    if semantics not in SEMANTICS:
        raise ValueError(f"semantics must be one of {SEMANTICS}, got {semantics!r}")
    reading = "P2's reading" if semantics == P2_SEMANTICS else "our variant"
    return f"{semantics} ({reading})"


def spread_table(finals, columns):
    """One row per (task, schedule[, semantics]) of :func:`final_counts` rows, each cell a
    :func:`spread`.

    Parameters
    ----------
    finals : pandas.DataFrame
        Rows of :func:`dplasso.experiments.p2.final_counts` (one combination).
    columns : dict
        ``{header: (column, percent)}``: which columns to show; a percent column is shown
        times 100 with `` (%)`` added to its header.

    Returns
    -------
    pandas.DataFrame
        Columns ``task``, ``schedule``, ``ε₁, ε₂`` (when ``finals`` has the budget columns
        ``epsilon1`` and ``epsilon2``, a run of several budgets), ``semantics`` (when
        ``finals`` holds more than one, named by :func:`semantics_label`, P2's reading
        first), ``runs`` and one per header; schedules in the order every iteration, every
        k-th, last iteration.
    """
    rows = []
    order = {label: i for i, label in enumerate(_schedule_order(finals))}
    finals = finals.assign(_order=finals["schedule"].map(order))
    both = "semantics" in finals and finals["semantics"].nunique() > 1
    budgets = "epsilon1" in finals and finals["epsilon1"].notna().all()
    keys = ["task", "_order", "schedule"] + (["epsilon1", "epsilon2"] if budgets else [])
    if both:
        finals = finals.assign(_semantics=finals["semantics"].map(
            lambda s: (s != P2_SEMANTICS, s)))
        keys += ["_semantics"]
    for key, group in finals.groupby(keys):
        task, schedule = key[0], key[2]
        row = {"task": task, "schedule": schedule}
        if budgets:
            row["ε₁, ε₂"] = f"{key[3]:g}, {key[4]:g}"
        if both:
            row["semantics"] = semantics_label(key[-1][1])
        row["runs"] = len(group)
        for header, (column, percent) in columns.items():
            name = f"{header} (%)" if percent else header
            row[name] = spread(group[column], scale=100.0 if percent else 1.0)
        rows.append(row)
    return pd.DataFrame(rows)


def _schedule_order(frame):
    labels = frame.drop_duplicates("schedule").assign(
        _key=lambda f: f["every"].fillna(np.inf))
    return list(labels.sort_values("_key")["schedule"])


def _band(ax, t, values, color, label, linestyle="-"):
    """Mean line with a min–max band of ``values`` (one column per run, one row per ``t``)."""
    ax.plot(t, values.mean(axis=1), color=color, linestyle=linestyle, label=label)
    ax.fill_between(t, values.min(axis=1), values.max(axis=1), color=color, alpha=0.2,
                    linewidth=0)


def plot_screened_over_iterations(rounds, reference=None):
    """Figure 1: share of true zeros and true nonzeros screened so far, per round.

    Parameters
    ----------
    rounds : pandas.DataFrame
        :func:`dplasso.experiments.p2.screening_experiment` rows of one combination.
    reference : pandas.DataFrame, optional
        Rows of the non-private combination, drawn dashed for comparison.

    Returns
    -------
    matplotlib.figure.Figure
        One row of panels per schedule, one column per task.
    """
    tasks = [t for t in TASKS if t in set(rounds["task"])]
    schedules = _schedule_order(rounds)
    fig, axes = plt.subplots(len(schedules), len(tasks), figsize=(4.2 * len(tasks),
                             2.6 * len(schedules)), sharex=True, sharey=True, squeeze=False)
    for i, schedule in enumerate(schedules):
        for j, task in enumerate(tasks):
            ax = axes[i, j]
            for frame, style, suffix in ((rounds, "-", ""), (reference, "--", " (non-private)")):
                if frame is None:
                    continue
                part = frame[(frame["task"] == task) & (frame["schedule"] == schedule)]
                for column, total, color, name in (
                        ("n_screened_true_zero", "n_true_zero", _ZERO, "true zeros"),
                        ("n_screened_true_nonzero", "n_true_nonzero", _NONZERO,
                         "true nonzeros")):
                    share = part.assign(share=100.0 * part[column] / part[total]).pivot_table(
                        index="t", columns=["seed", "trial"], values="share")
                    t = share.index.to_numpy()
                    if t.size == 1:  # one round: markers, the reference shifted to the right
                        v = share.to_numpy()[0]
                        shift = 0.015 * t[0] * (1 if style == "--" else -1)
                        ax.errorbar(t + shift, [v.mean()], yerr=[[v.mean() - v.min()],
                                                         [v.max() - v.mean()]],
                                    fmt="o" if style == "-" else "s", color=color,
                                    mfc="none" if style == "--" else color, capsize=4,
                                    label=name + suffix)
                    else:
                        _band(ax, t, share.to_numpy(), color, name + suffix, style)
            ax.set_ylim(-3, 103)
            ax.set_title(f"{task}, screening {schedule}", fontsize=9)
            if j == 0:
                ax.set_ylabel("screened so far (%)")
            if i == len(schedules) - 1:
                ax.set_xlabel("iteration t (Frank-Wolfe steps)")
    axes[0, 0].legend(fontsize=9, loc="center right")
    fig.tight_layout()
    return fig


def plot_nonzeros_over_iterations(rounds):
    """Nonzero coefficients of the iterate at each screening round, per semantics.

    Parameters
    ----------
    rounds : pandas.DataFrame
        :func:`dplasso.experiments.p2.screening_experiment` rows of one combination, both
        semantics.

    Returns
    -------
    matplotlib.figure.Figure
        One row of panels per schedule with more than one round, one column per task;
        ``nnz`` (the iterate the round sees, before its mask), mean line and min–max band
        over runs, one colour per semantics (P2's reading solid, our variant dashed);
        symmetric-log scale, so zero is shown.
    """
    tasks = [t for t in TASKS if t in set(rounds["task"])]
    counts = rounds.groupby("schedule")["t"].nunique()
    schedules = [s for s in _schedule_order(rounds) if counts[s] > 1]
    fig, axes = plt.subplots(len(schedules), len(tasks), figsize=(4.2 * len(tasks),
                             2.6 * len(schedules)), sharex=True, sharey=True, squeeze=False)
    top = max(1.0, float(rounds["nnz"].max()))
    for i, schedule in enumerate(schedules):
        for j, task in enumerate(tasks):
            ax = axes[i, j]
            for semantics, color, style in ((P2_SEMANTICS, "tab:green", "-"),
                                            *[(s, "tab:gray", "--") for s in SEMANTICS
                                              if s != P2_SEMANTICS]):
                part = rounds[(rounds["task"] == task) & (rounds["schedule"] == schedule)
                              & (rounds["semantics"] == semantics)]
                if part.empty:
                    continue
                nnz = part.pivot_table(index="t", columns=["seed", "trial"], values="nnz")
                _band(ax, nnz.index.to_numpy(), nnz.to_numpy(), color,
                      semantics_label(semantics), style)
            ax.set_yscale("symlog", linthresh=1.0)
            ax.set_ylim(-0.2, 1.5 * top)
            ax.set_title(f"{task}, screening {schedule}", fontsize=9)
            if j == 0:
                ax.set_ylabel("nonzero coefficients")
            if i == len(schedules) - 1:
                ax.set_xlabel("iteration t (Frank-Wolfe steps)")
    axes[0, 0].legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    return fig


def plot_gap_curves(curves):
    """Figure 2: Wolfe gap per iteration, private against non-private Frank-Wolfe.

    Parameters
    ----------
    curves : pandas.DataFrame
        Output of :func:`dplasso.experiments.p2.wolfe_gap_curves`.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per task; log scale; median line and min–max band over runs.
    """
    tasks = [t for t in TASKS if t in set(curves["task"])]
    fig, axes = plt.subplots(1, len(tasks), figsize=(4.4 * len(tasks), 3.2), squeeze=False)
    for ax, task in zip(axes[0], tasks):
        for optimiser, color in (("non-private", "tab:green"), ("private", "tab:purple")):
            part = curves[(curves["task"] == task) & (curves["optimiser"] == optimiser)]
            gap = part.pivot_table(index="t", columns=["seed", "trial"], values="gap")
            t = gap.index.to_numpy()
            values = gap.to_numpy()
            ax.plot(t, np.median(values, axis=1), color=color, label=f"{optimiser} Frank-Wolfe")
            ax.fill_between(t, values.min(axis=1), values.max(axis=1), color=color, alpha=0.2,
                            linewidth=0)
        ax.set_yscale("log")
        ax.set_title(f"{task} regression", fontsize=9)
        ax.set_xlabel("iteration t (Frank-Wolfe steps)")
        ax.set_ylabel("Wolfe gap G(w_t) (loss units)")
    axes[0, 0].legend(fontsize=9)
    fig.tight_layout()
    return fig


def plot_noise_vs_dimension(noise):
    """p2-noise: noise of the released margin against the rule's terms, per dimension.

    Parameters
    ----------
    noise : pandas.DataFrame
        Output of :func:`dplasso.experiments.p2.noise_scale_vs_dimension`.

    Returns
    -------
    matplotlib.figure.Figure
        One panel per task, log-log: ``sigma * sqrt(2)`` with a slope-1/2 reference through
        its first point, the per-coordinate sensitivity, and the medians over true zeros of
        the negative term and the gap term (mean over seeds, band min–max over seeds).
    """
    tasks = [t for t in TASKS if t in set(noise["task"])]
    fig, axes = plt.subplots(1, len(tasks), figsize=(4.4 * len(tasks), 3.4), squeeze=False)
    for ax, task in zip(axes[0], tasks):
        part = noise[noise["task"] == task]
        by_d = part.groupby("d")
        d = np.array(sorted(part["d"].unique()), dtype=float)
        for column, color, label, marker in (
                ("noise_sd_margin", "tab:purple", r"noise sd of released margin $\sigma\sqrt{2}$",
                 "o"),
                ("sensitivity_coordinate", "tab:orange",
                 r"one coordinate's sensitivity $\Delta_u$", "^"),
                ("negative_term", _NONZERO, r"negative term $|g_j|-|g_i|$ (median)", "s"),
                ("gap_term", "tab:gray", "gap term (median)", "d")):
            mean = by_d[column].mean().to_numpy()
            ax.plot(d, mean, marker=marker, color=color, label=label, markersize=4)
            ax.fill_between(d, by_d[column].min().to_numpy(), by_d[column].max().to_numpy(),
                            color=color, alpha=0.2, linewidth=0)
        first = by_d["noise_sd_margin"].mean().to_numpy()[0]
        ax.plot(d, first * np.sqrt(d / d[0]), color="black", linestyle=":", linewidth=1,
                label=r"slope 1/2 ($\propto\sqrt{d}$)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{task} regression", fontsize=9)
        ax.set_xlabel("number of features d")
        ax.set_ylabel("size (gradient units)")
    axes[0, 0].legend(fontsize=9)
    fig.tight_layout()
    return fig

