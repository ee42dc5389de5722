"""Tables and figures of the P1 notebooks (results tables in, book tables and figures out).

Spreads are over trials: mean ± standard deviation (``ddof=1``) in tables; error bars of one
standard deviation, or box plots, in figures. Method names in the book: "private LASSO" is
private Frank-Wolfe from zero, "private LASSO, random start" the same from a random point of
the ball (Talwar et al.'s start), "Sparsifier" P1's method, "non-private" the exact optimum of
the same L1-constrained problem.
"""
from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import NullLocator

from .names import BASELINE_METHODS, CONVENTION_SOURCES
from .verdicts import CLEAR_Z, clear_verdicts

__all__ = [
    "dense_rules_table",
    "METHOD_LABELS",
    "mean_sd",
    "nonprivate_table",
    "private_table",
    "paired_differences",
    "sparsity_by_epsilon",
    "plot_dense",
    "plot_sparsity_summary",
    "baselines_summary_table",
    "plot_baselines_summary",
    "count_noise_table",
    "plot_count_noise",
    "rate_table",
    "plot_rate",
    "CONVENTION_MARGIN",
    "conventions_table",
    "conventions_cells",
    "conventions_verdicts",
    "conventions_ablation",
]

METHOD_LABELS = {
    "non-private": "non-private",
    "random-init": "private LASSO, random start",
    "zero-init": "private LASSO",
    "sparsifier": "Sparsifier",
    "default": "default estimator",
    "l2": "L2 reference",
}
_COLORS = {"random-init": "tab:orange", "zero-init": "tab:purple", "sparsifier": "tab:green",
           "default": "tab:blue", "l2": "tab:red", "non-private": "black"}
_NOISE_COLORS = {"geometric": "tab:blue", "laplace": "tab:red"}
_NOISE_LABELS = {"geometric": "double geometric", "laplace": "Laplace (rounded)"}


def mean_sd(values, fmt=".3g"):
    """``"mean ± sd"`` of ``values`` (one value, or no spread: just the value).

    Parameters
    ----------
    values : array-like
        One number per trial (NaN ignored).
    fmt : str, default=".3g"
        Format of both numbers.

    Returns
    -------
    str
    """
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    if v.size == 0:
        return "–"
    if v.size == 1 or np.ptp(v) == 0:
        return f"{v[0]:{fmt}}"
    return f"{v.mean():{fmt}} ± {v.std(ddof=1):{fmt}}"


def nonprivate_table(fits):
    """One row per dataset: sizes and the non-private optimum over the splits.

    Parameters
    ----------
    fits : pandas.DataFrame
        Output of :func:`dplasso.experiments.p1.private_lasso_experiment`.

    Returns
    -------
    pandas.DataFrame
        ``dataset, classes, n train/test, coefficients, splits, trials`` and, as mean ± sd
        over splits, the non-private ``nonzeros`` (the count :math:`c`), ``accuracy``,
        ``AUROC`` (binary), ``majority class`` (chance accuracy) and ``sklearn L1-LR``
        (scikit-learn's L1-penalised fit at ``C = 1`` on the same splits).
    """
    rows = []
    for dataset, part in fits.groupby("dataset", sort=False):
        reference = part[part["method"] == "non-private"]
        private = part[part["method"] != "non-private"]
        first = reference.iloc[0]
        row = {
            "dataset": dataset, "classes": int(first["n_classes"]),
            "n train / test": f"{int(first['n_train'])} / {int(first['n_test'])}",
            "coefficients": int(first["n_coef"]), "splits": len(reference),
            "trials": int(private["trial"].nunique()),
            "nonzeros (c)": mean_sd(reference["nnz"], ".3g"),
            "accuracy": mean_sd(reference["accuracy"], ".3f"),
        }
        if first["n_classes"] == 2:
            row["AUROC"] = mean_sd(reference["auroc"], ".3f")
        row["majority class"] = mean_sd(reference["majority"], ".3f")
        row["sklearn L1-LR"] = mean_sd(reference["sklearn_accuracy"], ".3f")
        rows.append(row)
    return pd.DataFrame(rows)


def dense_rules_table(rules):
    """Per dataset: ``p``, the count ``c`` and, per step rule, ``T`` and the nonzeros of
    private LASSO from zero at the smallest and largest budget.

    Parameters
    ----------
    rules : pandas.DataFrame
        Rows of :func:`dplasso.experiments.p1.private_lasso_experiment` (``"non-private"``
        and ``"zero-init"``, both ``n_iter_rule`` values).
    """
    rows = []
    for dataset, part in rules.groupby("dataset", sort=False):
        zero = part[part["method"] == "zero-init"]
        row = {"dataset": dataset, "p": int(part["n_coef"].iloc[0]),
               "c": f"{part.loc[part['method'] == 'non-private', 'nnz'].mean():.3g}"}
        for rule, of_rule in zero.groupby("n_iter_rule", sort=False):
            by_eps = of_rule.groupby("epsilon")[["n_iter", "nnz"]].mean()
            low, high = by_eps.index.min(), by_eps.index.max()
            row[f"T ({rule}), ε={low:g} / {high:g}"] = (
                f"{by_eps.loc[low, 'n_iter']:.0f} / {by_eps.loc[high, 'n_iter']:.0f}")
            row[f"nonzeros ({rule}), ε={low:g} / {high:g}"] = (
                f"{by_eps.loc[low, 'nnz']:.3g} / {by_eps.loc[high, 'nnz']:.3g}")
        rows.append(row)
    return pd.DataFrame(rows)


def private_table(fits, methods, metrics):
    """One row per (dataset, epsilon): each metric of each method as mean ± sd over trials.

    Parameters
    ----------
    fits : pandas.DataFrame
        Output of :func:`dplasso.experiments.p1.private_lasso_experiment`.
    methods : sequence of str
        Private methods to show, in order.
    metrics : dict
        ``{header: (column, format)}``, e.g. ``{"nonzeros": ("nnz", ".3g")}``.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset``, ``ε``, ``T`` (Frank-Wolfe steps of each method, ``/``-joined),
        ``majority`` (the test accuracy of predicting the training majority class: chance)
        and ``<header>: <method>`` for every metric and method.
    """
    rows = []
    private = fits[fits["method"].isin(methods)]
    for (dataset, epsilon), part in private.groupby(["dataset", "epsilon"], sort=False):
        by_method = {m: part[part["method"] == m] for m in methods}
        row = {"dataset": dataset, "ε": f"{epsilon:g}",
               "T": " / ".join(str(int(by_method[m]["n_iter"].iloc[0])) for m in methods),
               "majority": f"{part['majority'].mean():.3f}"}
        for header, (column, fmt) in metrics.items():
            for method in methods:
                row[f"{header}: {METHOD_LABELS[method]}"] = mean_sd(by_method[method][column],
                                                                    fmt)
        rows.append(row)
    return pd.DataFrame(rows)


def paired_differences(fits, metric, method, baseline):
    """Per (dataset, epsilon): ``method - baseline`` of ``metric``, paired by trial.

    Trial ``t`` of two methods uses the same train/test split (and different noise), so the
    differences are paired.

    Parameters
    ----------
    fits : pandas.DataFrame
        Output of :func:`dplasso.experiments.p1.private_lasso_experiment`.
    metric : str
        A column, e.g. ``"nnz"`` or ``"accuracy"``.
    method, baseline : str
        Two private methods of ``fits``.

    Returns
    -------
    pandas.DataFrame
        ``dataset, epsilon, mean, sd, n`` (trials), ``se`` (``sd / sqrt(n)``), and
        ``ratio_of_means`` (mean of ``method`` over mean of ``baseline``).
    """
    keys = ["dataset", "epsilon", "trial"]
    left = fits[fits["method"] == method].set_index(keys)[metric]
    right = fits[fits["method"] == baseline].set_index(keys)[metric]
    joined = pd.DataFrame({"a": left, "b": right}).dropna().reset_index()
    joined["d"] = joined["a"] - joined["b"]
    out = joined.groupby(["dataset", "epsilon"], sort=False).agg(
        mean=("d", "mean"), sd=("d", "std"), n=("d", "size"), mean_a=("a", "mean"),
        mean_b=("b", "mean")).reset_index()
    out["se"] = out["sd"] / np.sqrt(out["n"])
    out["ratio_of_means"] = out["mean_a"] / out["mean_b"]
    return out.drop(columns=["mean_a", "mean_b"])


def sparsity_by_epsilon(nnz, accuracy, auroc):
    """The Sparsifier against private LASSO, one row per epsilon, over the datasets.

    Parameters
    ----------
    nnz, accuracy, auroc : pandas.DataFrame
        :func:`paired_differences` of ``nnz``, ``accuracy`` and ``auroc`` (Sparsifier minus
        private LASSO), same cells.

    Returns
    -------
    pandas.DataFrame
        ``ε``, ``datasets``, ``sparser on`` (datasets with fewer mean nonzeros), ``median
        ratio of nonzeros``, and the mean over datasets of the paired accuracy and AUROC
        differences.
    """
    rows = []
    for epsilon, part in nnz.groupby("epsilon"):
        acc = accuracy[accuracy["epsilon"] == epsilon]["mean"]
        auc = auroc[auroc["epsilon"] == epsilon]["mean"]
        rows.append({"ε": f"{epsilon:g}", "datasets": len(part),
                     "sparser on": int((part["mean"] < 0).sum()),
                     "median ratio of nonzeros": float(part["ratio_of_means"].median()),
                     "accuracy difference": float(acc.mean()),
                     "AUROC difference": float(auc.mean())})
    return pd.DataFrame(rows)


def plot_dense(fits, datasets):
    """p1-dense: nonzeros against epsilon, one panel per dataset.

    Parameters
    ----------
    fits : pandas.DataFrame
        Output of :func:`dplasso.experiments.p1.private_lasso_experiment` with the methods
        ``random-init``, ``zero-init`` and ``sparsifier``.
    datasets : sequence of str
        Dataset names, one panel each.

    Returns
    -------
    matplotlib.figure.Figure
        Log-log axes; markers at the mean over trials with one-sd error bars; the
        Sparsifier's noisy target :math:`\\tilde c` (mean, crosses); dashed lines for the
        number of coefficients ``p``, the non-private count :math:`c` (mean over splits) and,
        on synthetic data, the true support; a dotted line for the number of Frank-Wolfe
        steps ``T`` of private LASSO (an upper bound on its nonzeros from a zero start).
    """
    fig, axes = plt.subplots(1, len(datasets), figsize=(4.6 * len(datasets), 3.6),
                             squeeze=False)
    for ax, dataset in zip(axes[0], datasets):
        part = fits[fits["dataset"] == dataset]
        for i, method in enumerate(("random-init", "zero-init", "sparsifier")):
            rows = part[part["method"] == method]
            stats = rows.groupby("epsilon")["nnz"].agg(["mean", "std"])
            eps = stats.index.to_numpy() * (1.0 + 0.04 * (i - 1))  # a small offset per method
            ax.errorbar(eps, stats["mean"], yerr=stats["std"].fillna(0.0), marker="o",
                        markersize=4, capsize=3, color=_COLORS[method],
                        label=METHOD_LABELS[method])
        targets = part[part["method"] == "sparsifier"].groupby("epsilon")["target"].mean()
        ax.plot(targets.index * 1.04, targets.to_numpy(), "x", color=_COLORS["sparsifier"],
                label=r"Sparsifier target $\tilde c$ (mean)")
        steps = part[part["method"] == "zero-init"].groupby("epsilon")["n_iter"].mean()
        ax.plot(steps.index, steps.to_numpy(), ":", color=_COLORS["zero-init"],
                label="steps T of private LASSO")
        reference = part[part["method"] == "non-private"]
        ax.axhline(part["n_coef"].iloc[0], color="gray", linestyle="--", linewidth=1,
                   label="all coefficients p")
        ax.axhline(reference["nnz"].mean(), color="black", linestyle="--", linewidth=1,
                   label="non-private count c")
        if not math.isnan(part["true_support"].iloc[0]):
            ax.axhline(part["true_support"].iloc[0], color="tab:brown", linestyle="-.",
                       linewidth=1, label="true support")
        ax.set_xscale("log")
        ax.set_yscale("log")
        epsilons = sorted(part["epsilon"].dropna().unique())
        ax.set_xticks(epsilons, [f"{e:g}" for e in epsilons])
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlabel("privacy budget ε (total per fit)")
        ax.set_ylabel("nonzero coefficients")
        ax.set_title(f"{dataset} (n train = {int(part['n_train'].iloc[0])})", fontsize=9)
    axes[0, -1].legend(fontsize=9, loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.tight_layout()
    return fig


def plot_sparsity_summary(nnz, accuracy):
    """Sparsifier against private LASSO, one point per (dataset, epsilon).

    Parameters
    ----------
    nnz, accuracy : pandas.DataFrame
        :func:`paired_differences` of ``nnz`` and of ``accuracy`` (Sparsifier minus private
        LASSO), same rows.

    Returns
    -------
    matplotlib.figure.Figure
        x: ratio of mean nonzeros (log scale); y: mean paired accuracy difference with
        error bars of :data:`~dplasso.experiments.verdicts.CLEAR_Z` (two) standard errors,
        the margin of a clear difference; colour: epsilon; the points of the largest
        epsilon carry their dataset's name.
    """
    merged = nnz.merge(accuracy, on=["dataset", "epsilon"], suffixes=("_nnz", "_acc"))
    fig, ax = plt.subplots(figsize=(6.0, 3.8))
    epsilons = sorted(merged["epsilon"].unique())
    colors = plt.cm.viridis(np.linspace(0.0, 0.9, len(epsilons)))
    for epsilon, color in zip(epsilons, colors):
        part = merged[merged["epsilon"] == epsilon]
        ax.errorbar(part["ratio_of_means_nnz"], part["mean_acc"], yerr=CLEAR_Z * part["se_acc"],
                    fmt="o", markersize=4, color=color, capsize=2, label=f"ε = {epsilon:g}")
    top = merged[merged["epsilon"] == epsilons[-1]]
    for _, row in top.iterrows():
        ax.annotate(row["dataset"], (row["ratio_of_means_nnz"], row["mean_acc"]),
                    xytext=(3, 3), textcoords="offset points", fontsize=7, color=colors[-1])
    ax.axhline(0.0, color="gray", linewidth=1)
    ax.axvline(1.0, color="gray", linewidth=1)
    ax.set_xscale("log")
    ax.set_xlabel("nonzeros: Sparsifier / private LASSO (ratio of means)")
    ax.set_ylabel("test accuracy: Sparsifier − private LASSO")
    ax.legend(fontsize=9, loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.tight_layout()
    return fig


def baselines_summary_table(results, value, *, digits=2, methods=None):
    """Compact table of ``value``: per method and epsilon, the mean over datasets of the
    per-dataset means over trials (the real datasets and the synthetic family alike).

    The full per-dataset table is
    :func:`dplasso.experiments.p1_baselines.mean_sd_table`; this one has one row per method.

    Parameters
    ----------
    results : pandas.DataFrame
        From :func:`dplasso.experiments.p1_baselines.baselines_experiment`.
    value : str
        A numeric column (``accuracy``, ``nnz``, ...).
    digits : int, default=2
    methods : sequence of str, optional
        Methods shown, in this order (default: every method of the table,
        :data:`dplasso.experiments.p1_baselines.METHODS`).

    Returns
    -------
    pandas.DataFrame
        Columns ``method``, ``datasets`` (how many were averaged), then ``ε = <eps>``.
    """
    epsilons = sorted(results["epsilon"].dropna().unique())
    rows = []
    for method in BASELINE_METHODS if methods is None else methods:
        runs = results[results["method"] == method]
        if runs.empty:
            continue
        row = {"method": method, "datasets": int(runs["dataset"].nunique())}
        for epsilon in epsilons:
            cell = runs if runs["epsilon"].isna().all() else runs[runs["epsilon"] == epsilon]
            row[f"ε = {epsilon:g}"] = round(float(cell.groupby("dataset")[value].mean().mean()),
                                            digits)
        rows.append(row)
    return pd.DataFrame(rows)


def plot_baselines_summary(accuracy, nnz):
    """The ``p1-baselines`` comparison at a glance: one line per method against epsilon.

    Parameters
    ----------
    accuracy, nnz : pandas.DataFrame
        :func:`baselines_summary_table` of ``accuracy`` and of ``nnz``.

    Returns
    -------
    matplotlib.figure.Figure
        Left: mean test accuracy over datasets; right: mean nonzeros (log scale; methods
        with no nonzeros, the majority rule, are left out there). Methods that do not depend
        on epsilon (the references) are dashed horizontal lines.
    """
    columns = [c for c in accuracy.columns if c.startswith("ε = ")]
    epsilons = [float(c.split("= ")[1]) for c in columns]
    fig, axes = plt.subplots(1, 2, figsize=(9.4, 3.8))
    colors = plt.cm.tab10(np.arange(len(accuracy)))
    for ax, table, label in ((axes[0], accuracy, "test accuracy, mean over datasets"),
                             (axes[1], nnz, "nonzero coefficients, mean over datasets")):
        for (_, row), color in zip(table.iterrows(), colors):
            values = row[columns].to_numpy(dtype=float)
            if table is nnz and not (values > 0).all():
                continue
            if np.allclose(values, values[0]):
                ax.axhline(values[0], color=color, linestyle="--", linewidth=1.2,
                           label=row["method"])
            else:
                ax.plot(epsilons, values, marker="o", markersize=4, color=color,
                        label=row["method"])
        ax.set_xscale("log")
        ax.set_xticks(epsilons, [f"{e:g}" for e in epsilons])
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlabel("total privacy budget ε")
        ax.set_ylabel(label)
    axes[1].set_yscale("log")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, fontsize=9, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    return fig


def count_noise_table(draws):
    """One row per (noise, epsilon_count): the spread of the noisy count and of the output.

    Parameters
    ----------
    draws : pandas.DataFrame
        Output of :func:`dplasso.experiments.p1_count_noise.count_noise_experiment`.

    Returns
    -------
    pandas.DataFrame
        ``noise, ε₁``, ``noise sd (exact)``, ``sd of c̃``, ``sd of nonzeros``, ``IQR of
        nonzeros``, ``5–95% of nonzeros``, ``c̃ < c`` (share of draws below the non-private
        count) and ``c̃ = 1`` (share at the lower clip).
    """
    rows = []
    for (noise, epsilon), part in draws.groupby(["noise", "epsilon_count"], sort=False):
        q05, q25, q75, q95 = np.quantile(part["nnz"], [0.05, 0.25, 0.75, 0.95])
        rows.append({
            "noise": _NOISE_LABELS[noise], "ε₁": f"{epsilon:g}",
            "noise sd (exact)": f"{part['noise_sd'].iloc[0]:.3f}",
            "sd of c̃": f"{part['target'].std(ddof=1):.3f}",
            "sd of nonzeros": f"{part['nnz'].std(ddof=1):.3f}",
            "IQR of nonzeros": f"{q75 - q25:g}",
            "5–95% of nonzeros": f"{q05:g}–{q95:g}",
            "c̃ < c": f"{np.mean(part['target'] < part['count']):.1%}",
            "c̃ = 1": f"{np.mean(part['target'] == 1):.1%}",
        })
    return pd.DataFrame(rows)


def plot_count_noise(draws):
    """p1-count-noise: box plots of the final nonzeros per count budget and noise.

    Parameters
    ----------
    draws : pandas.DataFrame
        Output of :func:`dplasso.experiments.p1_count_noise.count_noise_experiment`.

    Returns
    -------
    matplotlib.figure.Figure
        Boxes: quartiles; whiskers: 5th and 95th percentiles; dots: means. Dashed line: the
        non-private count :math:`c`; dotted: the clip bounds 1 and ``p``.
    """
    epsilons = sorted(draws["epsilon_count"].unique())
    noises = list(dict.fromkeys(draws["noise"]))
    fig, ax = plt.subplots(figsize=(7.0, 3.8))
    width = 0.8 / len(noises)
    for j, noise in enumerate(noises):
        data = [draws.loc[(draws["noise"] == noise) & (draws["epsilon_count"] == e), "nnz"]
                .to_numpy() for e in epsilons]
        positions = np.arange(len(epsilons)) + (j - (len(noises) - 1) / 2) * width
        ax.boxplot(data, positions=positions, widths=width * 0.85, whis=(5, 95),
                   showfliers=False, patch_artist=True,
                   boxprops={"facecolor": _NOISE_COLORS[noise], "alpha": 0.4},
                   medianprops={"color": _NOISE_COLORS[noise]})
        ax.plot(positions, [d.mean() for d in data], "o", markersize=3,
                color=_NOISE_COLORS[noise], label=_NOISE_LABELS[noise])
    ax.axhline(draws["count"].iloc[0], color="black", linestyle="--", linewidth=1,
               label="non-private count c")
    for bound in (1, draws["n_coef"].iloc[0]):
        ax.axhline(bound, color="gray", linestyle=":", linewidth=1)
    ax.set_xticks(np.arange(len(epsilons)), [f"{e:g}" for e in epsilons])
    ax.set_xlabel("count budget ε₁")
    ax.set_ylabel("nonzero coefficients of the Sparsifier")
    ax.legend(fontsize=9)
    fig.tight_layout()
    return fig


def rate_table(rates, slopes):
    """One row per epsilon: the fitted slope, its spread, and the steps used.

    Parameters
    ----------
    rates : pandas.DataFrame
        Output of :func:`dplasso.experiments.p1_rate.rate_experiment`.
    slopes : pandas.DataFrame
        Output of :func:`dplasso.experiments.p1_rate.fit_rate_slope`.

    Returns
    -------
    pandas.DataFrame
        ``ε``, the range of ``n`` and ``T``, the number of data sets, the fitted slope ± its
        bootstrap sd, the 95% bootstrap interval and the last segment's slope.
    """
    rows = []
    for _, fit in slopes.iterrows():
        part = rates[rates["epsilon"] == fit["epsilon"]]
        rows.append({
            "ε": f"{fit['epsilon']:g}", "n": f"{int(fit['n_min'])}–{int(fit['n_max'])}",
            "T": f"{int(part['n_iter'].min())}–{int(part['n_iter'].max())}",
            "data sets": int(fit["n_points"]),
            "fitted slope": f"{fit['slope']:.3f} ± {fit['slope_se']:.3f}",
            "95% bootstrap interval": f"[{fit['ci_low']:.3f}, {fit['ci_high']:.3f}]",
            "slope between the two largest n": f"{fit['last_slope']:.3f}",
        })
    return pd.DataFrame(rows)


def plot_rate(rates, slopes):
    """p1-rate: excess empirical risk against ``n`` (log-log), and the steps ``T``.

    Parameters
    ----------
    rates, slopes : pandas.DataFrame
        As in :func:`rate_table`.

    Returns
    -------
    matplotlib.figure.Figure
        Left: per data set the mean excess over its trials (small dots), the geometric mean
        over data sets per ``n`` (markers) with a band from the smallest to the largest
        data set, the fitted line (solid), a slope −2/3 line through the fit at the
        largest ``n`` (dotted), and the excess of the zero model (dashed). Right: ``T``
        from the bound's balance, with a slope 2/3 line.
    """
    fig, (ax, ax_t) = plt.subplots(1, 2, figsize=(9.4, 3.8),
                                   gridspec_kw={"width_ratios": [1.6, 1.0]})
    colors = plt.cm.plasma(np.linspace(0.1, 0.7, len(slopes)))
    for (_, fit), color in zip(slopes.iterrows(), colors):
        part = rates[rates["epsilon"] == fit["epsilon"]]
        points = part.groupby(["n", "seed"], as_index=False)[["excess", "zero_excess"]].mean()
        ax.plot(points["n"], points["excess"], ".", color=color, alpha=0.35, markersize=3)
        log = points.assign(log=np.log(points["excess"])).groupby("n")["log"]
        n = log.mean().index.to_numpy(dtype=float)
        ax.fill_between(n, np.exp(log.min()), np.exp(log.max()), color=color, alpha=0.15,
                        linewidth=0)
        ax.plot(n, np.exp(log.mean()), "o", color=color, markersize=4,
                label=f"ε = {fit['epsilon']:g}: fitted slope {fit['slope']:.2f}")
        ax.plot(n, np.exp(fit["intercept"] + fit["slope"] * np.log(n)), "-", color=color,
                linewidth=1)
        anchor = math.exp(fit["intercept"] + fit["slope"] * math.log(n[-1]))
        ax.plot(n, anchor * (n / n[-1]) ** (-2.0 / 3.0), ":", color=color, linewidth=1.2)
        zero = points.groupby("n")["zero_excess"].mean()
        ax.plot(zero.index, zero.to_numpy(), "--", color=color, linewidth=0.8, alpha=0.7)
        steps = part.groupby("n")["n_iter"].first()
        ax_t.plot(steps.index, steps.to_numpy(), "o-", color=color, markersize=3,
                  label=f"ε = {fit['epsilon']:g}")
        ax_t.plot(steps.index, steps.iloc[-1] * (steps.index / steps.index[-1]) ** (2.0 / 3.0),
                  ":", color=color, linewidth=1)
    ax.plot([], [], ":", color="gray", label="slope −2/3 (the bound's rate)")
    ax.plot([], [], "--", color="gray", label="zero model L(0) − L*")
    for a in (ax, ax_t):
        a.set_xscale("log")
        a.set_yscale("log")
        a.set_xlabel("rows n")
    ax.set_ylabel("excess empirical risk L(w_T) − L* (nats)")
    ax_t.set_ylabel("Frank-Wolfe steps T")
    ax.legend(fontsize=9)
    ax_t.legend(fontsize=9, title="dotted: slope 2/3", title_fontsize=9)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------
# p1-conventions

CONVENTION_MARGIN = 0.02
"""How far above the majority rate a method must clearly be to count as better than chance
(the 2 points of the p1-sparsity page)."""


def conventions_table():
    """Each knob: this project's P1 chapters, the authors' convention, and its source."""
    return pd.DataFrame(CONVENTION_SOURCES, columns=["knob", "this project's P1 chapters",
                                                     "the authors'", "source"])


def _mean_se(values):
    values = np.asarray(values, dtype=np.float64)
    se = values.std(ddof=1) / math.sqrt(values.size) if values.size > 1 else math.nan
    return values.mean(), se


def conventions_cells(frame):
    """Per (config, epsilon, dataset): each method's mean accuracy, nonzeros and the mean and
    standard error of its margin over the majority rate, and the Sparsifier's paired
    difference from private LASSO (same split and trial)."""
    private = frame[frame["method"] != "non-private"]
    rows = []
    for (config, epsilon, dataset), cell in private.groupby(["config", "epsilon", "dataset"],
                                                            sort=False):
        wide = cell.pivot(index=["split", "trial"], columns="method")
        sparsifier, lasso = wide["accuracy"]["Sparsifier"], wide["accuracy"]["private LASSO"]
        majority = wide["majority"]["Sparsifier"]
        row = {"config": config, "epsilon": epsilon, "dataset": dataset,
               "majority": majority.mean()}
        for name, accuracy in (("sparsifier", sparsifier), ("lasso", lasso)):
            row[f"{name}_accuracy"] = accuracy.mean()
            row[f"{name}_over_majority"], row[f"{name}_over_majority_se"] = _mean_se(
                accuracy - majority)
        row["sparsifier_nnz"] = wide["nnz"]["Sparsifier"].mean()
        row["lasso_nnz"] = wide["nnz"]["private LASSO"].mean()
        row["difference"], row["difference_se"] = _mean_se(sparsifier - lasso)
        rows.append(row)
    return pd.DataFrame(rows)


def conventions_verdicts(cells):
    """P1's verdicts per (config, epsilon), from :func:`conventions_cells`: datasets, those
    where each method is clearly more than :data:`CONVENTION_MARGIN` above the majority rate,
    where the Sparsifier is clearly ahead of, tied with or behind private LASSO, and where it
    keeps fewer nonzeros on average; the mean accuracies over the datasets."""
    rows = []
    for (config, epsilon), group in cells.groupby(["config", "epsilon"], sort=False):
        above = {name: clear_verdicts(group[f"{name}_over_majority"] - CONVENTION_MARGIN,
                                      group[f"{name}_over_majority_se"]).better
                 for name in ("sparsifier", "lasso")}
        versus = clear_verdicts(group["difference"], group["difference_se"])
        rows.append({
            "config": config, "epsilon": epsilon, "datasets": len(group),
            "Sparsifier accuracy": group["sparsifier_accuracy"].mean(),
            "private LASSO accuracy": group["lasso_accuracy"].mean(),
            "majority": group["majority"].mean(),
            "Sparsifier above chance": above["sparsifier"],
            "private LASSO above chance": above["lasso"],
            "Sparsifier ahead": versus.better, "tie": versus.tie, "Sparsifier behind": versus.worse,
            "Sparsifier sparser": int((group["sparsifier_nnz"] < group["lasso_nnz"]).sum())})
    return pd.DataFrame(rows)


def conventions_summary(verdicts):
    """The verdicts of this project's and the authors' conventions, one row per (set,
    epsilon), as the chapters show them (from :func:`conventions_verdicts`)."""
    both = verdicts[verdicts["config"].isin(["ours", "authors"])]
    return pd.DataFrame({
        "conventions": both["config"].map({"ours": "this project's", "authors": "the authors'"}),
        "ε": [f"{e:g}" for e in both["epsilon"]],
        "accuracy: Sparsifier": both["Sparsifier accuracy"],
        "accuracy: private LASSO": both["private LASSO accuracy"],
        "majority": both["majority"],
        "above chance": [f"{a} / {b}" for a, b in zip(both["Sparsifier above chance"],
                                                    both["private LASSO above chance"])],
        "vs private LASSO": [f"{a} / {t} / {b}" for a, t, b in zip(
            both["Sparsifier ahead"], both["tie"], both["Sparsifier behind"])],
        "sparser": both["Sparsifier sparser"]}).reset_index(drop=True)


def conventions_ablation(cells, start):
    """Each configuration's Sparsifier against the configuration it starts from
    (``start(config)``, None for none): its mean accuracy over the datasets, the change, and
    the datasets where it is clearly better or worse (independent runs on the same splits)."""
    key = ["epsilon", "dataset"]
    indexed = cells.set_index(["config", *key])
    rows = []
    for (config, epsilon), group in cells.groupby(["config", "epsilon"], sort=False):
        row = {"config": config, "epsilon": epsilon,
               "Sparsifier accuracy": group["sparsifier_accuracy"].mean(),
               "private LASSO accuracy": group["lasso_accuracy"].mean()}
        base = start(config)
        if base is not None:
            other = indexed.loc[base].loc[epsilon].reindex(group["dataset"])
            mine = group.set_index("dataset")
            change = mine["sparsifier_accuracy"] - other["sparsifier_accuracy"]
            se = np.hypot(mine["sparsifier_over_majority_se"], other["sparsifier_over_majority_se"])
            verdicts = clear_verdicts(change, se)
            row.update({"from": base, "change": change.mean(), "clearly better": verdicts.better,
                        "clearly worse": verdicts.worse})
        rows.append(row)
    frame = pd.DataFrame(rows)
    for column in ("clearly better", "clearly worse"):
        if column in frame:
            frame[column] = frame[column].astype("Int64")
    return frame


SPARSE_FACTOR = 2
"""A fit *keeps sparsity* when its mean nonzeros are at most this many times the true ones."""


def kept_sparse(results, method, k):
    """Per epsilon, ``method``'s mean nonzeros over trials and whether it kept sparsity.

    Parameters
    ----------
    results : pandas.DataFrame
        From :func:`dplasso.experiments.p1_baselines.baselines_experiment`, one synthetic
        family.
    method : str
    k : int
        True nonzeros of the family.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``epsilon``: ``nnz`` (mean) and ``sparse`` (``nnz <= SPARSE_FACTOR * k``).
    """
    runs = results[(results["method"] == method) & results["epsilon"].notna()]
    nnz = runs.groupby("epsilon")["nnz"].mean()
    return pd.DataFrame({"nnz": nnz, "sparse": nnz <= SPARSE_FACTOR * k})


OUTPERFORM_SHARE = 0.1
"""A method *outperforms* another when it is clearly more accurate in more than this share of
the (dataset, epsilon) cells; with no true difference anywhere a cell is clearly better by
chance with probability about 2.5%, so more than a tenth of 65 cells happens with probability
about 0.1%."""


def outperforms(better, cells):
    """Whether ``better`` clearly-better cells out of ``cells`` count as outperforming."""
    return better > OUTPERFORM_SHARE * cells
