"""Tables of the "Beyond P2" chapter: results of :mod:`dplasso.experiments.beyond_p2` in,
summary frames out (one row per data set, budget and variant)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dplasso.experiments.names import BEYOND_P2_REFERENCE as REFERENCE
from dplasso.experiments.names import BEYOND_P2_VARIANTS as VARIANTS
from dplasso.experiments.verdicts import clear_verdicts

__all__ = [
    "METRICS",
    "cell_means",
    "frequency_label",
    "choice_table",
    "frequency_table",
    "gain",
    "headline_table",
    "release_table",
    "setting",
    "verdict_facts",
]

METRICS = ("f1", "precision", "recall", "nnz", "objective", "test_accuracy",
           "n_screened_true_nonzero", "screened_share")
"""The per-run numbers the tables average (``screened_share``: the true nonzeros screened
at any round over the size of that support)."""

_KEYS = ["data", "epsilon", "variant", "every", "share"]


def frequency_label(every):
    """``"every iteration"``, ``"every 2nd"``, ``"every 5th"``, ... (a round before every
    ``every``-th step)."""
    every = int(every)
    return {1: "every iteration", 2: "every 2nd", 3: "every 3rd"}.get(every, f"every {every}th")


def setting(variant, every):
    """A variant's name in the tables, e.g. ``"one per round, every 2nd"``."""
    if variant in ("no screening", REFERENCE):
        return variant
    if every is None or (isinstance(every, float) and math.isnan(every)):
        raise ValueError(f"{variant!r} needs a frequency")
    return f"{variant}, {frequency_label(every)}"


def cell_means(results):
    """Mean (and sd of F1, run count) of every :data:`METRICS` column per cell.

    Parameters
    ----------
    results : pandas.DataFrame
        Rows of :func:`~dplasso.experiments.beyond_p2.synthetic_experiment` or
        :func:`~dplasso.experiments.beyond_p2.real_experiment` (or both).

    Returns
    -------
    pandas.DataFrame
        One row per (data, epsilon, variant, every, share): the means, ``f1_sd`` and
        ``runs``; the reference rows have ``epsilon`` NaN.
    """
    frame = results.assign(share=results["share"].fillna("").astype(str),
                           screened_share=results["n_screened_true_nonzero"]
                           / results["n_true_nonzero"])
    grouped = frame.groupby(_KEYS, dropna=False, sort=False)
    means = grouped[list(METRICS)].mean()
    means["f1_sd"] = grouped["f1"].std(ddof=1)
    means["runs"] = grouped.size()
    return means.reset_index()


def _pm(mean, sd, fmt):
    if sd is None or (isinstance(sd, float) and math.isnan(sd)):
        return f"{mean:{fmt}}"
    return f"{mean:{fmt}} ± {sd:{fmt}}"


def _na(value, fmt):
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else \
        f"{value:{fmt}}"


def _chosen(cells, every, share):
    """The reference, no screening, and both screening variants at ``every`` (the rule at
    ``share``)."""
    variant = cells["variant"]
    keep = variant.isin([REFERENCE, "no screening"])
    keep |= (variant == "Algorithm 1") & (cells["every"] == every)
    keep |= (variant == "one per round") & (cells["every"] == every) & (cells["share"] == share)
    return cells[keep]


def headline_table(results, every, share):
    """Per data set and budget, the three variants at equal budget (screening every ``every``
    steps; the one-per-round rule at ``share``), and the exact non-private optimum.

    Returns
    -------
    pandas.DataFrame
        Columns ``data``, ``ε``, ``variant``, ``runs``, ``support F1`` (mean ± sd),
        ``precision``, ``recall``, ``nonzeros``, ``objective`` (training MSE or log-loss),
        ``test accuracy`` (logistic), ``true nonzeros screened`` (at any round, mean).
    """
    cells = _chosen(cell_means(results), every, share)
    order = {name: i for i, name in enumerate((REFERENCE,) + VARIANTS)}
    cells = cells.assign(_data=cells["data"].map({d: i for i, d in
                                                  enumerate(dict.fromkeys(cells["data"]))}),
                         _eps=cells["epsilon"].fillna(np.inf), _v=cells["variant"].map(order))
    rows = []
    for _, c in cells.sort_values(["_data", "_eps", "_v"]).iterrows():
        screening = c["variant"] in ("Algorithm 1", "one per round")
        rows.append({
            "data": c["data"],
            "ε": "–" if math.isnan(c["epsilon"]) else f"{c['epsilon']:g}",
            "variant": setting(c["variant"], c["every"]),
            "runs": int(c["runs"]),
            "support F1": _pm(c["f1"], c["f1_sd"], ".2f"),
            "precision": f"{c['precision']:.2f}",
            "recall": f"{c['recall']:.2f}",
            "nonzeros": f"{c['nnz']:.1f}",
            "objective": f"{c['objective']:.3f}",
            "test accuracy": _na(c["test_accuracy"], ".3f"),
            "true nonzeros screened": (f"{c['n_screened_true_nonzero']:.1f}" if screening
                                       else "–"),
        })
    return pd.DataFrame(rows)


def frequency_table(results, share):
    """Support F1 (and nonzeros at the largest budget) of the two screening variants at every
    frequency, beside no screening.

    Returns
    -------
    pandas.DataFrame
        One row per (data, variant, every): ``F1 at ε = e`` for each budget, ``nonzeros at
        ε = e_max``, ``true nonzeros screened at ε = e_max``.
    """
    cells = cell_means(results)
    cells = cells[cells["variant"] != REFERENCE]
    cells = cells[(cells["variant"] != "one per round") | (cells["share"] == share)]
    epsilons = sorted(cells["epsilon"].unique())
    top = epsilons[-1]
    rows = []
    order = {name: i for i, name in enumerate(VARIANTS)}
    for (data, variant, every), group in cells.groupby(
            ["data", "variant", "every"], dropna=False, sort=False):
        by_eps = group.set_index("epsilon")
        row = {"data": data, "variant": setting(variant, every),
               "_v": order[variant], "_e": -1 if math.isnan(every) else every}
        for epsilon in epsilons:
            row[f"F1 at ε = {epsilon:g}"] = f"{by_eps.loc[epsilon, 'f1']:.2f}"
        row[f"nonzeros at ε = {top:g}"] = f"{by_eps.loc[top, 'nnz']:.1f}"
        row[f"true nonzeros screened at ε = {top:g}"] = (
            "–" if variant == "no screening"
            else f"{by_eps.loc[top, 'n_screened_true_nonzero']:.1f}")
        rows.append(row)
    frame = pd.DataFrame(rows)
    frame["_d"] = frame["data"].map({d: i for i, d in enumerate(dict.fromkeys(frame["data"]))})
    return frame.sort_values(["_d", "_v", "_e"]).drop(columns=["_d", "_v", "_e"]).reset_index(
        drop=True)


def choice_table(synthetic, chosen):
    """The one-per-round rule's mean support F1 on the synthetic design, per (share, every).

    Parameters
    ----------
    synthetic : pandas.DataFrame
        :func:`~dplasso.experiments.beyond_p2.synthetic_experiment` rows.
    chosen : dict
        :func:`~dplasso.experiments.beyond_p2.choose_rule`'s result.

    Returns
    -------
    pandas.DataFrame
        ``share``, ``every``, ``runs``, ``mean F1`` and its standard error, ``mean
        nonzeros``, ``chosen``.
    """
    rule = synthetic[synthetic["variant"] == "one per round"].assign(
        share=lambda f: f["share"].astype(str))
    grouped = rule.groupby(["share", "every"], sort=False)
    out = pd.DataFrame({
        "runs": grouped.size(), "mean F1": grouped["f1"].mean(),
        "standard error": grouped["f1"].std(ddof=1) / np.sqrt(grouped.size()),
        "mean nonzeros": grouped["nnz"].mean()}).reset_index()
    out["every"] = out["every"].astype(int)
    out["chosen"] = np.where((out["share"] == chosen["share"]) &
                             (out["every"] == chosen["every"]), "yes", "")
    return out


def release_table(searches, audits):
    """The rule's sensitivity searches and audits in one table.

    Parameters
    ----------
    searches : list of (SensitivityCase, SearchResult)
    audits : list of (AuditCase, AuditResult)

    Returns
    -------
    pandas.DataFrame
        ``check``, ``case``, ``declared / claimed``, ``found / audited lower bound``,
        ``ratio``, ``verdict``.
    """
    rows = [{"check": "sensitivity search", "case": case.quantity,
             "declared / claimed": result.declared, "found / audited lower bound": result.found,
             "ratio": result.ratio, "tight": case.tight,
             "verdict": "exceeded" if result.exceeded else "within"}
            for case, result in searches]
    rows += [{"check": f"audit ({case.variant})", "case": case.pair,
              "declared / claimed": result.eps_claimed,
              "found / audited lower bound": result.eps_lower,
              "ratio": result.eps_lower / result.eps_claimed, "tight": False,
              "verdict": result.verdict, "trials": result.n_trials}
             for case, result in audits]
    return pd.DataFrame(rows)


def gain(results, data, epsilon, variant, every, share=None, metric="f1"):
    """Mean of ``metric`` of a variant minus that of no screening in one cell, and the
    standard error of the difference (runs of different variants are independent; a gain is
    clear by :func:`~dplasso.experiments.verdicts.clear_verdicts`).

    Returns
    -------
    (float, float)
    """
    cell = results[(results["data"] == data) & (results["epsilon"] == epsilon)]
    base = cell.loc[cell["variant"] == "no screening", metric]
    other = cell[(cell["variant"] == variant) & (cell["every"] == every)]
    if share is not None:
        other = other[other["share"].astype(str) == str(share)]
    other = other[metric]
    if base.empty or other.empty:
        raise ValueError(f"no runs of {variant!r} every {every} or no screening for "
                         f"{data!r} at epsilon={epsilon!r}")
    se = math.sqrt(base.var(ddof=1) / base.size + other.var(ddof=1) / other.size)
    return float(other.mean() - base.mean()), se


def verdict_facts(results, chosen, often):
    """The numbers the chapter's verdict states (:func:`gain` per cell; see the notebook).

    Parameters
    ----------
    results : pandas.DataFrame
        Synthetic and real runs (column ``source``: ``"synthetic"`` or ``"real"``).
    chosen : dict
        :func:`~dplasso.experiments.beyond_p2.choose_rule`'s result.
    often : int
        The frequent screening the verdict compares (every ``often`` steps).

    Returns
    -------
    dict
    """
    top = float(results["epsilon"].max())
    epsilons = sorted(results["epsilon"].dropna().unique())
    synthetic = list(dict.fromkeys(results.loc[results["source"] == "synthetic", "data"]))
    real = list(dict.fromkeys(results.loc[results["source"] == "real", "data"]))
    every, share = chosen["every"], chosen["share"]
    rule = {(d, e): gain(results, d, e, "one per round", every, share)
            for d in synthetic + real for e in epsilons}
    alg1 = {(d, e): gain(results, d, e, "Algorithm 1", every)
            for d in synthetic + real for e in epsilons}
    frequent = {d: gain(results, d, top, "one per round", often, share)
                for d in synthetic + real}
    accuracy = {d: gain(results, d, top, "one per round", often, share, "test_accuracy")
                for d in real}
    cells = cell_means(results)

    def mean(data, variant, metric, epsilon=top, every_=None):
        c = cells[(cells["data"] == data) & (cells["variant"] == variant)]
        if variant != REFERENCE:
            c = c[c["epsilon"] == epsilon]
        if every_ is not None:
            c = c[c["every"] == every_]
        if variant == "one per round":
            c = c[c["share"] == str(share)]
        return float(c[metric].iloc[0])

    screened = cells[cells["every"] == every]
    rule_true = screened[(screened["variant"] == "one per round")
                         & (screened["share"] == str(share))]
    alg1_true = screened[screened["variant"] == "Algorithm 1"]
    alg1_share = alg1_true["screened_share"]
    helped = [d for d in synthetic + real if clear_verdicts(*frequent[d]).better]
    syn_rule = [rule[(d, e)] for d in synthetic for e in epsilons]
    return {
        "top": top, "often": often, "helped": helped, "real": real, "synthetic": synthetic,
        "syn_rule_max_abs": max(abs(g) for g, _ in syn_rule),
        "syn_rule_clear": clear_verdicts(*zip(*syn_rule)).better,
        "syn_cells": len(syn_rule),
        "syn_alg1_min_drop": min(-alg1[(d, e)][0] for d in synthetic for e in epsilons),
        "syn_alg1_max_drop": max(-alg1[(d, e)][0] for d in synthetic for e in epsilons),
        "syn_none_max_f1": max(mean(d, "no screening", "f1", e) for d in synthetic
                               for e in epsilons),
        "syn_reference_min_f1": min(mean(d, REFERENCE, "f1") for d in synthetic),
        "rule_true_max": float(rule_true["n_screened_true_nonzero"].max()),
        "rule_fewer_everywhere": all(
            rule_true.set_index(["data", "epsilon"])["n_screened_true_nonzero"]
            < alg1_true.set_index(["data", "epsilon"])["n_screened_true_nonzero"]),
        "alg1_true_share_min": float(alg1_share.min()),
        "alg1_true_share_max": float(alg1_share.max()),
        "chosen_gain_max": max(g for g, _ in rule.values()),
        "frequent": frequent, "accuracy": accuracy,
        "none_f1": {d: mean(d, "no screening", "f1") for d in synthetic + real},
        "often_f1": {d: mean(d, "one per round", "f1", every_=often) for d in synthetic + real},
        "none_accuracy": {d: mean(d, "no screening", "test_accuracy") for d in real},
        "often_accuracy": {d: mean(d, "one per round", "test_accuracy", every_=often)
                           for d in real},
        "none_nnz": {d: mean(d, "no screening", "nnz") for d in real},
        "often_nnz": {d: mean(d, "one per round", "nnz", every_=often) for d in real},
        "reference_nnz": {d: mean(d, REFERENCE, "nnz") for d in real},
        "alg1_nnz_max": float(alg1_true["nnz"].max()),
        "alg1_accuracy_below": {d: all(gain(results, d, e, "Algorithm 1", every,
                                            metric="test_accuracy")[0] < 0
                                       for e in epsilons) for d in real},
    }
