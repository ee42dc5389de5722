r"""P1 under its authors' conventions and under this project's, knob by knob (artifact
``p1-conventions``).

P1's Sparsifier and private LASSO (its comparator) depend on settings P1 does not state or
states without numbers. This project's P1 chapters choose them one way
(:data:`~dplasso.experiments.names.CONVENTION_OURS`); the authors' group's public code chooses
several of them another way (:data:`~dplasso.experiments.names.CONVENTION_AUTHORS`, each with
its source in :data:`~dplasso.experiments.names.CONVENTION_SOURCES`).
:func:`conventions_experiment` runs both methods under :data:`CONFIGS`: each set, each knob of
this project's set switched alone, the authors' set with each knob switched back alone, and the
authors' set with the library's private threshold, all on the same splits, with the majority
rate and the non-private optimum of each (map, radius, intercept) beside them.

**Knobs.** ``calibration``: the Frank-Wolfe noise, this project's proven replace-one
calibration or Talwar et al.'s closed-form Laplace scale (the authors' code; about half the
noise, and about twice the budget under replace-one, which the ``epsilon_spent`` column
records); ``steps``: the automatic :math:`T` or Talwar et al.'s
:math:`\lceil(\lambda n\varepsilon_{\mathrm{FW}})^{2/3}\rceil`; ``radius`` :math:`\lambda`;
``map``: each feature divided by its largest absolute value, or the authors' map (each
feature standardised, here by this project's ``"standard"`` map, which also clips at
:data:`~dplasso.data.preprocess.STANDARD_CLIP_Z` standard deviations, then every row divided by
the largest row L1 norm, read, like every map here, from the split's training rows only; test
rows are scaled alike and clipped to the domain); ``intercept``: a constant feature inside the
ball, or none (the authors' code fits none); ``share``: the count's share :math:`f` of the
budget; ``threshold``: none, as in P1, or the library's private threshold. The count's
sensitivity is P1's declared 1 throughout, :math:`\delta = 1/n^2`, Laplace report-noisy-min.

**Splits and seeds** as in :mod:`dplasso.experiments.p1`: trial ``t`` runs on stratified
80/20 split ``t mod n_splits``; each (configuration, method, budget, split) draws from its own
generator. **Units**: one per (dataset, split), cached by content
(:func:`~dplasso.experiments.checkpoint.cached_tasks`).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import scipy.sparse

from dplasso.estimators import SparsifierRun, sparsify_runs
from dplasso.estimators.private_frank_wolfe import PrivateRun, talwar_n_iter
from dplasso.estimators.sparsifier import sparsifier_budget
from dplasso.estimators.threshold import DEFAULT_THRESHOLD_FRACTION, split_threshold_budget
from dplasso.experiments.checkpoint import cached_tasks, chunks
from dplasso.experiments.execution import check_n_jobs
from dplasso.experiments.inputs import (
    SYNTHETIC,
    check_datasets,
    check_epsilons,
    check_int,
    check_splits_by_dataset,
    noise_rng,
    split_seed,
)
from dplasso.experiments.p1 import (
    P1_COUNT_SENSITIVITY,
    P1Data,
    evaluate_weights,
    load_p1_data,
    nonprivate_optimum,
    stratified_splits,
)
from dplasso.experiments.names import (
    CONVENTION_AUTHORS as AUTHORS,
    CONVENTION_KNOBS as KNOBS,
    CONVENTION_METHODS,
    CONVENTION_OURS as OURS,
)

__all__ = ["KNOBS", "OURS", "AUTHORS", "SWITCHED", "CONFIGS", "authors_rows",
           "conventions_experiment", "steps_for"]

SWITCHED = {**AUTHORS, "threshold": "private"}
"""Each knob's other value: the authors' (the threshold: the library's private one)."""


def _configs():
    configs = [("ours", dict(OURS))]
    configs += [(f"ours + {knob}", {**OURS, knob: SWITCHED[knob]}) for knob in KNOBS]
    configs.append(("authors", dict(AUTHORS)))
    configs += [(f"authors − {knob}", {**AUTHORS, knob: OURS[knob]})
                for knob in KNOBS if OURS[knob] != AUTHORS[knob]]
    configs.append(("authors + threshold", {**AUTHORS, "threshold": "private"}))
    return tuple(configs)


CONFIGS = _configs()
"""``(name, settings)`` of every configuration, in the order their noise streams are
numbered."""

_STREAM = 300
"""First noise-stream key (configuration ``i``, method ``j`` draw from ``_STREAM + 2 i + j``)."""


def _mapped(data, train, name):
    """Every row under map ``name`` fitted on ``train`` (:func:`authors_rows` of the standard
    map for the authors')."""
    if name == "max-abs":
        return data.mapped_on(train)
    return authors_rows(P1Data(data.name, data.code, data.X, data.y, data.n_classes, None,
                               scaling="standard").mapped_on(train), train)


def authors_rows(X, train):
    """The authors' row scaling of standardised rows ``X``: every row divided by the largest
    L1 norm among the ``train`` rows, entries clipped to the domain ``[-1, 1]``."""
    norms = np.asarray(abs(X[train]).sum(axis=1)).ravel()
    largest = float(norms.max()) if norms.size and norms.max() > 0 else 1.0
    if scipy.sparse.issparse(X):
        X = X.multiply(1.0 / largest).tocsr()
        X.data = np.clip(X.data, -1.0, 1.0)
        return X
    return np.clip(np.asarray(X) / largest, -1.0, 1.0)


def steps_for(settings, n_train, epsilon_fw):
    """Frank-Wolfe steps of a run under ``settings``: Talwar's :math:`T` or ``"auto"``."""
    if settings["steps"] == "talwar":
        return talwar_n_iter(settings["radius"], n_train, epsilon_fw)
    return "auto"


def _describe(data, train, test):
    majority_class = np.bincount(data.y[train], minlength=data.n_classes).argmax()
    return {"dataset": data.name, "data_id": data.code, "n_train": train.size,
            "n_coef": data.X.shape[1],
            "majority": float(np.mean(data.y[test] == majority_class))}


def _split_rows(data, split, indices, s):
    """Every configuration, method and budget on one split."""
    train, test = indices
    trials = np.arange(split, s["n_trials"], s["n_splits"])
    base = _describe(data, train, test)
    maps, counts, rows = {}, {}, []
    for name, settings in s["configs"]:
        key = settings["map"], settings["radius"], settings["intercept"]
        if key in counts:
            continue
        if settings["map"] not in maps:
            maps[settings["map"]] = _mapped(data, train, settings["map"])
        X = maps[settings["map"]]
        fit = nonprivate_optimum(X[train], data.y[train], lam=settings["radius"],
                                 n_classes=data.n_classes, fit_intercept=key[2])
        counts[key] = fit.count
        metrics = evaluate_weights(fit.W, fit.intercept, X[test], data.y[test])
        rows.append(pd.DataFrame([{
            **base, "map": key[0], "radius": key[1], "intercept": key[2],
            "method": "non-private",
            "split": split, "count": fit.count, "nnz": int(metrics["nnz"][0]),
            "accuracy": float(metrics["accuracy"][0])}]))
    if trials.size == 0:
        return pd.concat(rows, ignore_index=True)
    for index, (name, settings) in enumerate(s["configs"]):
        X = maps[settings["map"]]
        X_train, y_train = X[train], data.y[train]
        for epsilon in s["epsilons"]:
            _, _, epsilon_fw = sparsifier_budget(
                epsilon, train.size, count="lasso-support", count_fraction=settings["share"],
                threshold=settings["threshold"])
            # private LASSO's steps: what its threshold (if any) leaves, as in p1_baselines
            _, epsilon_lasso = split_threshold_budget(epsilon, settings["threshold"],
                                                      DEFAULT_THRESHOLD_FRACTION)
            rngs = [noise_rng(s["seed"], data.code, epsilon, split, _STREAM + 2 * index + j)
                    for j in range(len(CONVENTION_METHODS))]
            runs = [SparsifierRun(epsilon, trials.size, rngs[0],
                                  steps_for(settings, train.size, epsilon_fw),
                                  count="lasso-support", count_fraction=settings["share"],
                                  count_sensitivity=P1_COUNT_SENSITIVITY,
                                  threshold=settings["threshold"]),
                    PrivateRun(epsilon, steps_for(settings, train.size, epsilon_lasso),
                               trials.size, "zero", rngs[1], threshold=settings["threshold"])]
            fits = sparsify_runs(X_train, y_train, runs, lam=settings["radius"],
                                 n_classes=data.n_classes,
                                 fit_intercept=settings["intercept"],
                                 support_size=counts[settings["map"], settings["radius"],
                                                     settings["intercept"]],
                                 calibration=settings["calibration"])
            for method, fit in zip(CONVENTION_METHODS, fits):
                metrics = evaluate_weights(fit.W, fit.intercept, X[test], data.y[test])
                rows.append(pd.DataFrame({
                    **base, "map": settings["map"], "radius": settings["radius"],
                    "intercept": settings["intercept"], "config": name, "method": method,
                    "epsilon": epsilon,
                    "epsilon_spent": fit.guarantee.epsilon, "split": split, "trial": trials,
                    "n_iter": fit.n_iter,
                    "target": (math.nan if fit.n_nonzero_target is None
                               else fit.n_nonzero_target),
                    "nnz": metrics["nnz"], "accuracy": metrics["accuracy"]}))
    return pd.concat(rows, ignore_index=True)


def conventions_experiment(datasets, *, epsilons, n_trials=10, n_splits=5,
                           splits_by_dataset=None, configs=None, seed=0, cache_dir=None,
                           progress=False, n_jobs=1):
    r"""P1's Sparsifier and private LASSO under every configuration of :data:`CONFIGS`.

    Parameters
    ----------
    datasets : sequence of int
        OpenML ids, binary or multiclass (the multinomial model; the synthetic set has no
        data map).
    epsilons : sequence of float
        Total budgets of one fit.
    n_trials : int, default=10
        Trials per (dataset, configuration, method, budget).
    n_splits : int, default=5
        Distinct stratified 80/20 splits the trials cycle through.
    splits_by_dataset : dict, optional
        ``{dataset: n_splits}`` overrides (keys may be decimal strings).
    configs : sequence of str, optional
        Names of :data:`CONFIGS` to run (default: all).
    seed : int, default=0
    cache_dir : path-like, optional
    progress : bool, default=False
    n_jobs : int, default=1
        Where the units run (:func:`dplasso.experiments.execution.run_tasks`).

    Returns
    -------
    pandas.DataFrame
        Per (dataset, split): one ``"non-private"`` row per (``map``, ``radius``,
        ``intercept``) the configurations use (``count``: its nonzeros, P1's :math:`c`); per
        private trial:
        ``config, method`` (:data:`~dplasso.experiments.names.CONVENTION_METHODS`),
        ``epsilon, epsilon_spent`` (the run's total under replace-one, from its ledger),
        ``split, trial, n_iter, target`` (the Sparsifier's released count), ``nnz,
        accuracy``; with ``dataset, data_id, n_train, n_coef, majority`` (the training
        majority class's test accuracy).

    Notes
    -----
    Privacy of one fit (replace-one): the ``"proven"`` calibrations are
    :math:`(\varepsilon, \delta)`-DP if P1's declared count sensitivity holds; the
    ``"talwar"`` calibration spends ``epsilon_spent`` (about :math:`2\varepsilon`).
    """
    n_jobs = check_n_jobs(n_jobs)
    datasets = check_datasets(datasets)
    if SYNTHETIC in datasets:
        raise ValueError(f"the conventions compare data maps; {SYNTHETIC!r} has none")
    epsilons = check_epsilons(epsilons)
    n_trials = check_int("n_trials", n_trials, 1)
    n_splits = check_int("n_splits", n_splits, 1)
    overrides = check_splits_by_dataset(splits_by_dataset, datasets)
    names = [name for name, _ in CONFIGS]
    chosen = names if configs is None else list(configs)
    unknown = sorted(set(chosen) - set(names))
    if not chosen or unknown or len(set(chosen)) != len(chosen):
        raise ValueError(f"configs must be distinct names among {names}, got {configs!r}")
    seed = check_int("seed", seed, 0)
    loaded, units = [], []
    for dataset in datasets:
        data = load_p1_data(dataset, seed=seed)
        n_here = overrides.get(dataset, n_splits)
        splits = stratified_splits(data.y, n_here, random_state=split_seed(seed, data.code))
        settings = dict(dataset=data.code, seed=seed, n_splits=n_here, n_trials=n_trials,
                        epsilons=epsilons, configs=[c for c in CONFIGS if c[0] in chosen],
                        count_sensitivity=P1_COUNT_SENSITIVITY)
        units += [(f"p1-conventions-{data.code}-split{split}", {**settings, "split": split},
                   (data, split, splits[split], settings)) for split in range(n_here)]
        loaded.append(n_here)
    frames = chunks(cached_tasks(cache_dir, units, _split_rows, n_jobs=n_jobs,
                                 desc="p1 conventions", progress=progress), loaded)
    return pd.concat([frame for part in frames for frame in part], ignore_index=True)
