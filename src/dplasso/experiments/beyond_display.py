"""Tables, summaries and the figure of the "Beyond P1" chapter (from :mod:`.beyond`'s frames)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from dplasso.experiments.beyond import DEFAULT_VARIANT, METHODS, THRESHOLD_TREATMENTS
from dplasso.experiments.p1 import SYNTHETIC

__all__ = [
    "BEATS_MARGIN",
    "SPARSER_WITHIN",
    "variant_name",
    "per_dataset",
    "ceiling_table",
    "threshold_share_table",
    "headline_table",
    "design_table",
    "support_table",
    "default_summary",
    "plot_margins",
]

BEATS_MARGIN = 0.05
"""A model "beats the majority rate" when its mean test accuracy is at least 5 points above it."""

SPARSER_WITHIN = 0.03
"""The default Sparsifier's accuracy target: within 3 points of private LASSO (same threshold)."""


def variant_name(method, threshold):
    """``"noise floor + threshold"`` or ``"private LASSO"`` (no threshold)."""
    return f"{method} + threshold" if threshold == "private" else method


def _private(results):
    return results[results["kind"] == "private"]


def per_dataset(results):
    """Mean accuracy, nnz and majority per (dataset, epsilon, method, threshold)."""
    private = _private(results)
    return (private.groupby(["dataset", "epsilon", "method", "threshold"], sort=False)
            .agg(accuracy=("accuracy", "mean"), accuracy_sd=("accuracy", "std"),
                 trials=("accuracy", "size"), nnz=("nnz", "mean"), majority=("majority", "mean"),
                 n_coef=("n_coef", "first"))
            .reset_index())


def _references(frame):
    refs = frame[frame["kind"] == "reference"]
    return refs.pivot_table(index=["dataset", "scaling"], columns="method", values="accuracy",
                            aggfunc="mean", sort=False)


def ceiling_table(ceiling):
    """Per dataset: majority, our non-private optimum and sklearn's L1-LR under each map."""
    refs = _references(ceiling).reset_index()
    wide = refs.pivot_table(index="dataset", columns="scaling",
                            values=["non-private (ours)", "sklearn L1-LR"], sort=False)
    wide.columns = [f"{method}, {scaling}" for method, scaling in wide.columns]
    majority = refs.groupby("dataset", sort=False)["majority"].mean()
    return pd.concat([majority.rename("majority"), wide], axis=1).reset_index()


def threshold_share_table(share):
    """Mean test accuracy (and sd) per threshold share, budget and method (synthetic)."""
    grouped = share.groupby(["method", "epsilon", "fraction"])["accuracy"]
    table = grouped.agg(["mean", "std"]).reset_index()
    table["accuracy"] = [f"{m:.3f} ± {s:.3f}" for m, s in zip(table["mean"], table["std"])]
    return table.pivot_table(index=["method", "epsilon"], columns="fraction",
                             values="accuracy", aggfunc="first").reset_index()


def headline_table(results, epsilons):
    """Per real dataset: majority, the references and the default estimator at ``epsilons``."""
    means = per_dataset(results)
    refs = _references(results)
    refs.index = refs.index.get_level_values("dataset")
    rows = []
    for dataset, group in means.groupby("dataset", sort=False):
        if dataset == SYNTHETIC:
            continue
        row = {"dataset": dataset, "majority": group["majority"].iloc[0],
               "non-private (ours)": refs.loc[dataset, "non-private (ours)"],
               "sklearn L1-LR": refs.loc[dataset, "sklearn L1-LR"]}
        for epsilon in epsilons:
            here = group[group["epsilon"] == epsilon].set_index(["method", "threshold"])
            row[f"default, ε={epsilon:g}"] = here.loc[DEFAULT_VARIANT, "accuracy"]
            row[f"private LASSO (no threshold), ε={epsilon:g}"] = here.loc[
                ("private LASSO", "none"), "accuracy"]
        rows.append(row)
    return pd.DataFrame(rows)


def design_table(results, epsilon):
    """Per method and threshold treatment, over the real datasets at ``epsilon``."""
    means = per_dataset(results)
    real = means[(means["dataset"] != SYNTHETIC) & (means["epsilon"] == epsilon)]
    rows = []
    for method in METHODS:
        for threshold in THRESHOLD_TREATMENTS:
            here = real[(real["method"] == method) & (real["threshold"] == threshold)]
            margin = here["accuracy"] - here["majority"]
            rows.append({"variant": variant_name(method, threshold),
                         "mean accuracy": here["accuracy"].mean(),
                         "mean margin over majority": margin.mean(),
                         f"datasets ≥ {BEATS_MARGIN:.0%} above majority":
                             f"{int((margin >= BEATS_MARGIN).sum())} / {len(here)}",
                         "mean nnz": here["nnz"].mean(),
                         "mean nnz / p": (here["nnz"] / here["n_coef"]).mean()})
    return pd.DataFrame(rows)


def support_table(results):
    """Support precision / recall / F1 and accuracy on the synthetic family."""
    private = _private(results)
    synthetic = private[private["dataset"] == SYNTHETIC]
    if synthetic.empty:
        return pd.DataFrame()
    table = (synthetic.groupby(["epsilon", "method", "threshold"], sort=False)
             [["precision", "recall", "f1", "nnz", "accuracy"]].mean().reset_index())
    table.insert(1, "variant", [variant_name(m, t) for m, t in
                                zip(table.pop("method"), table.pop("threshold"))])
    return table


def default_summary(results, epsilon):
    """How the default estimator compares at ``epsilon`` on the real datasets.

    Returns
    -------
    dict
        ``datasets`` (number of real datasets), ``beats`` (datasets where the default's mean
        accuracy is at least :data:`BEATS_MARGIN` above the majority rate), ``sparser``
        (datasets where it keeps fewer nonzeros on average than private LASSO with the
        threshold), ``accuracy_gap`` (mean over datasets of the default's accuracy minus
        private LASSO's with the threshold).
    """
    means = per_dataset(results)
    real = means[(means["dataset"] != SYNTHETIC) & (means["epsilon"] == epsilon)]
    default = real[(real["method"] == DEFAULT_VARIANT[0])
                   & (real["threshold"] == DEFAULT_VARIANT[1])].set_index("dataset")
    lasso = real[(real["method"] == "private LASSO")
                 & (real["threshold"] == "private")].set_index("dataset")
    return {"datasets": len(default),
            "beats": int(((default["accuracy"] - default["majority"]) >= BEATS_MARGIN).sum()),
            "sparser": int((default["nnz"] < lasso["nnz"]).sum()),
            "accuracy_gap": float((default["accuracy"] - lasso["accuracy"]).mean())}


_SHOWN = [("private LASSO", "none"), ("private LASSO", "private"), ("P1 count (declared 1)", "none"),
          DEFAULT_VARIANT]
_MARKERS = ["x", "s", "^", "o"]


def plot_margins(results, epsilons):
    """Accuracy minus the majority rate per real dataset, one panel per budget."""
    means = per_dataset(results)
    real = means[means["dataset"] != SYNTHETIC]
    names = list(dict.fromkeys(real["dataset"]))
    fig, axes = plt.subplots(len(epsilons), 1, figsize=(9, 3.2 * len(epsilons)),
                             sharex=True, squeeze=False)
    position = np.arange(len(names))
    for ax, epsilon in zip(axes[:, 0], epsilons):
        here = real[real["epsilon"] == epsilon]
        for offset, ((method, threshold), marker) in enumerate(zip(_SHOWN, _MARKERS)):
            rows = here[(here["method"] == method) & (here["threshold"] == threshold)]
            rows = rows.set_index("dataset").reindex(names)
            ax.plot(position + (offset - 1.5) * 0.12, rows["accuracy"] - rows["majority"],
                    marker, label=variant_name(method, threshold), markersize=6,
                    linestyle="none")
        ax.axhline(0.0, color="black", linewidth=0.8)
        ax.axhline(BEATS_MARGIN, color="grey", linestyle="--", linewidth=0.8)
        ax.set_ylabel("accuracy − majority")
        ax.set_title(f"ε = {epsilon:g}", fontsize=11)
        ax.grid(axis="y", alpha=0.3)
    axes[-1, 0].set_xticks(position, names, rotation=35, ha="right")
    axes[0, 0].legend(fontsize=9, ncol=2, loc="upper left")
    fig.tight_layout()
    return fig
