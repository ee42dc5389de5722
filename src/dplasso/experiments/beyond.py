r"""Beyond P1: private models that beat chance, at equal total budget (artifact ``beyond-p1``).

Three experiment functions, each returning a tidy :class:`pandas.DataFrame`:

- :func:`ceiling_experiment`: what the data map and the L1 ball allow without privacy — the
  majority rate, the exact optimum of our problem (logistic loss in the ``lam`` ball, the
  intercept inside it) and scikit-learn's L1-penalised logistic regression at its default
  ``C = 1`` (liblinear), on the same splits, under each data map
  (:data:`dplasso.data.preprocess.SCALINGS`);
- :func:`threshold_share_experiment` and :func:`count_share_experiment`: the threshold's and
  the accuracy count's budget shares on P1's synthetic family only (how
  :data:`dplasso.estimators.threshold.DEFAULT_THRESHOLD_FRACTION` and the accuracy entry of
  :data:`dplasso.estimators.private_count.DEFAULT_COUNT_FRACTIONS` were set);
- :func:`beyond_p1_experiment`: private LASSO and the Sparsifier with each count design —
  P1's count at its declared sensitivity 1, at the proven :math:`m`, the noise floor, the
  block median and the accuracy count — each without and with the private threshold, all
  at the same total :math:`\varepsilon`, with the references of :func:`ceiling_experiment`
  beside them.

**Splits and seeds** as in :mod:`dplasso.experiments.p1`: trial ``t`` runs on stratified
80/20 split ``t mod n_splits``; the trials of one split run in one engine call; each run's
noise comes from a ``SeedSequence`` keyed by ``(seed, dataset, epsilon, split, variant)``.
**Checkpoints**: with ``cache_dir``, each split's references and each (dataset, epsilon)
block of private runs is stored as soon as it is done and read back by a rerun with the same
settings. These units (and each threshold share) are independent tasks, run in this process,
by joblib or on a Dask cluster (``n_jobs``, :mod:`dplasso.experiments.execution`).

Every private run uses the library's own pieces: :func:`~dplasso.estimators.\
private_frank_wolfe_trials` (private LASSO), :func:`~dplasso.estimators.sparsify_trials`
(noise floor, block median, accuracy count; the default ``SparsifierClassifier`` is
``count="accuracy", threshold="private"``) and :func:`dplasso.experiments.p1.sparsifier_from_count` (P1's count,
whose non-private solve is shared with the split's reference).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from dplasso.baselines.nonprivate import sklearn_l1_coef
from dplasso.data import catalog_ids, load_dataset
from dplasso.data.preprocess import SCALINGS
from dplasso.estimators import (
    DEFAULT_COUNT_FRACTION,
    DEFAULT_LAM,
    private_frank_wolfe_trials,
    sparsify_trials,
)
from dplasso.estimators.threshold import DEFAULT_THRESHOLD_FRACTION
from dplasso.experiments.checkpoint import cached_tasks, chunks
from dplasso.experiments.execution import check_n_jobs
from dplasso.experiments.p1 import (
    P1_COUNT_SENSITIVITY,
    SYNTHETIC,
    P1Data,
    _check_epsilons,
    _check_int,
    _check_splits_by_dataset,
    _check_synthetic,
    _noise_rng,
    _split_seed,
    evaluate_weights,
    load_p1_data,
    nonprivate_optimum,
    sparsifier_from_count,
    stratified_splits,
)
from dplasso.experiments.p1_baselines import support_metrics

__all__ = [
    "REFERENCES",
    "METHODS",
    "METHOD_COUNTS",
    "THRESHOLD_TREATMENTS",
    "DEFAULT_VARIANT",
    "PAPER_RECORD",
    "load_beyond_data",
    "ceiling_experiment",
    "threshold_share_experiment",
    "count_share_experiment",
    "beyond_p1_experiment",
]

REFERENCES = ("majority", "non-private (ours)", "sklearn L1-LR")
"""Reference rows: predicting the training majority class; the exact optimum of the private
fits' problem; scikit-learn's ``LogisticRegression(l1_ratio=1, C=1, solver="liblinear")``."""

METHODS = ("private LASSO", "noise floor", "block median", "P1 count (declared 1)",
           "P1 count (proven m)", "accuracy count")
"""Private methods: private Frank-Wolfe from zero, and the Sparsifier with each count (in the
order their noise streams are numbered: a method added later comes last, so the others'
results do not move)."""

METHOD_COUNTS = {"noise floor": "noise-floor", "block median": "block-median",
                 "accuracy count": "accuracy"}
"""The ``count`` of :func:`~dplasso.estimators.sparsify_trials` behind each Sparsifier method
run by it (P1's two run from the split's shared non-private count)."""

THRESHOLD_TREATMENTS = ("none", "private")
"""Each method runs without and with the private threshold."""

DEFAULT_VARIANT = ("accuracy count", "private")
"""The library's default private estimator: ``SparsifierClassifier()``."""

PAPER_RECORD = (Path(__file__).resolve().parents[3] / "book" / "paper-results" / "beyond-p1"
                / "beyond-p1.csv")
"""The committed results of ``dplasso reproduce beyond-p1 --profile paper`` (the book's CI
builds the ``ci`` profile; the chapter and its claim test also read this record)."""

_SKLEARN_C = 1.0


def load_beyond_data(dataset, *, scaling, synthetic=None, seed=0):
    """:func:`dplasso.experiments.p1.load_p1_data` with the data map ``scaling``.

    The synthetic family is generated in the domain already; ``scaling`` does not apply.
    """
    if dataset == SYNTHETIC:
        return load_p1_data(dataset, synthetic=synthetic, seed=seed)
    if scaling not in SCALINGS:
        raise ValueError(f"scaling must be one of {SCALINGS}, got {scaling!r}")
    if isinstance(dataset, bool) or dataset not in catalog_ids("binary"):
        raise ValueError(f"dataset must be a binary OpenML id of the catalogue "
                         f"{catalog_ids('binary')} or {SYNTHETIC!r}, got {dataset!r}")
    data = load_dataset(int(dataset), scaling)
    return P1Data(data.name, int(dataset), data.X, np.asarray(data.y), 2, None)


def _base(data, scaling, split):
    train, test = split
    majority_class = np.bincount(data.y[train], minlength=2).argmax()
    return {"dataset": data.name, "data_id": data.code,
            "scaling": "synthetic" if data.code == 0 else scaling,
            "n_train": train.size, "n_test": test.size, "n_coef": data.X.shape[1],
            "true_support": (math.nan if data.w_true is None
                             else int(np.count_nonzero(data.w_true))),
            "majority": float(np.mean(data.y[test] == majority_class))}


def _support(data, coef):
    if data.w_true is None:
        return {"precision": math.nan, "recall": math.nan, "f1": math.nan}
    precision, recall, f1 = support_metrics(coef, data.w_true)
    return {"precision": precision, "recall": recall, "f1": f1}


def _reference_rows(data, scaling, split, s, lam):
    """The split's three references; the count of ``non-private (ours)`` is P1's ``c``."""
    train, test = split
    X_train, y_train, X_test, y_test = data.X[train], data.y[train], data.X[test], data.y[test]
    base = {**_base(data, scaling, split), "kind": "reference", "split": s}
    fit = nonprivate_optimum(X_train, y_train, lam=lam)
    ours = evaluate_weights(fit.W, fit.intercept, X_test, y_test)
    coef, intercept = sklearn_l1_coef(X_train, y_train, C=_SKLEARN_C)
    sk = evaluate_weights(coef[:, np.newaxis], np.array([intercept]), X_test, y_test)
    rows = [
        {**base, "method": "majority", "accuracy": base["majority"], "auroc": 0.5,
         "nnz": 0, **_support(data, np.zeros(data.X.shape[1]))},
        {**base, "method": "non-private (ours)", "accuracy": float(ours["accuracy"][0]),
         "auroc": float(ours["auroc"][0]), "nnz": fit.count, "count": fit.count,
         "gap": fit.gap, **_support(data, fit.W[:, 0])},
        {**base, "method": "sklearn L1-LR", "accuracy": float(sk["accuracy"][0]),
         "auroc": float(sk["auroc"][0]), "nnz": int(np.count_nonzero(coef)),
         **_support(data, coef)},
    ]
    return pd.DataFrame(rows)


def _splits_of(data, n_splits, seed):
    return stratified_splits(data.y, n_splits, random_state=_split_seed(seed, data.code))


def _reference_units(data, scaling, splits, lam, seed):
    """The (name, settings, arguments) of each split's :func:`_reference_rows` task."""
    settings = dict(dataset=data.code, scaling=scaling, lam=lam, seed=seed,
                    n_splits=len(splits))
    return [(f"beyond-reference-{data.code}-{scaling}-split{s}", {**settings, "split": s},
             (data, scaling, splits[s], s, lam)) for s in range(len(splits))]


def ceiling_experiment(datasets, *, scalings=SCALINGS, n_splits=5, splits_by_dataset=None,
                       lam=DEFAULT_LAM, seed=0, cache_dir=None, progress=False, n_jobs=1):
    """The three references on each dataset, split and data map.

    Parameters
    ----------
    datasets : sequence of int or "synthetic"
        Binary OpenML ids of the catalogue and/or ``"synthetic"`` (map-free).
    scalings : sequence of {"max-abs", "standard"}, default=both
    n_splits : int, default=5
        Stratified 80/20 splits per dataset (the same splits for every map).
    splits_by_dataset : dict, optional
        ``{dataset: n_splits}`` overrides (keys may be decimal strings).
    lam : float, default=10.0
    seed : int, default=0
    cache_dir : path-like, optional
    progress : bool, default=False
    n_jobs : int, default=1
        Where the units of work run (:func:`dplasso.experiments.execution.run_tasks`).

    Returns
    -------
    pandas.DataFrame
        One row per (dataset, scaling, split, reference): ``dataset, data_id, scaling,
        n_train, n_test, n_coef, true_support, majority, kind, split, method, accuracy,
        auroc, nnz, count, gap, precision, recall, f1``. Nothing here is private.
    """
    n_jobs = check_n_jobs(n_jobs)
    overrides = _check_splits_by_dataset(splits_by_dataset, datasets)
    units = []
    for dataset in datasets:
        for scaling in ([SYNTHETIC] if dataset == SYNTHETIC else scalings):
            data = load_beyond_data(dataset, scaling=scaling if dataset != SYNTHETIC
                                    else "max-abs", seed=seed)
            splits = _splits_of(data, overrides.get(dataset, n_splits), seed)
            units += _reference_units(data, scaling, splits, lam, seed)
    return pd.concat(cached_tasks(cache_dir, units, _reference_rows, n_jobs=n_jobs,
                                  desc="ceiling", progress=progress), ignore_index=True)


def _private_variant(method, threshold, X, y, *, count, epsilon, lam, n_trials,
                     count_fraction, threshold_fraction, rng):
    """``(W, intercept, targets, n_iter)`` of ``n_trials`` runs of one variant."""
    common = dict(lam=lam, n_iter="auto", epsilon=epsilon, n_trials=n_trials,
                  threshold=threshold, threshold_fraction=threshold_fraction, random_state=rng)
    if method == "private LASSO":
        fit = private_frank_wolfe_trials(X, y, **common)
        return fit.W, fit.intercept, np.full(n_trials, math.nan), fit.n_iter
    if method in METHOD_COUNTS:
        fit = sparsify_trials(X, y, count=METHOD_COUNTS[method],
                              count_fraction=count_fraction, **common)
        return fit.W, fit.intercept, fit.n_nonzero_target, fit.n_iter
    sensitivity = P1_COUNT_SENSITIVITY if method == "P1 count (declared 1)" else "max"
    common.pop("n_iter")
    W, intercept, targets, fit = sparsifier_from_count(
        X, y, count, count_fraction=(DEFAULT_COUNT_FRACTION if count_fraction is None
                                     else count_fraction),
        count_sensitivity=sensitivity, **common)
    return W, intercept, targets, fit.n_iter


def _private_rows(data, scaling, splits, references, epsilon, s):
    n_splits = len(splits)
    rows = []
    for split, (train, test) in enumerate(splits):
        trials = np.arange(split, s["n_trials"], n_splits)
        if trials.size == 0:
            continue
        count = int(references[split].set_index("method").loc["non-private (ours)", "count"])
        for index, (method, threshold) in enumerate(
                (m, t) for m in METHODS for t in THRESHOLD_TREATMENTS):
            rng = _noise_rng(s["seed"], data.code, epsilon, split, 100 + index)
            W, intercept, targets, n_iter = _private_variant(
                method, threshold, data.X[train], data.y[train], count=count,
                epsilon=epsilon, lam=s["lam"], n_trials=trials.size,
                count_fraction=s["count_fraction"],
                threshold_fraction=s["threshold_fraction"], rng=rng)
            metrics = evaluate_weights(W, intercept, data.X[test], data.y[test])
            support = [_support(data, W[:, k]) for k in range(trials.size)]
            rows.append(pd.DataFrame({
                **_base(data, scaling, (train, test)), "kind": "private", "method": method,
                "threshold": threshold, "epsilon": epsilon, "split": split, "trial": trials,
                "n_iter": n_iter, "target": targets, "nnz": metrics["nnz"],
                "accuracy": metrics["accuracy"], "auroc": metrics["auroc"],
                **{key: [row[key] for row in support] for key in ("precision", "recall", "f1")},
            }))
    return pd.concat(rows, ignore_index=True)


def beyond_p1_experiment(datasets, *, epsilons, n_trials=20, n_splits=None,
                         splits_by_dataset=None, scaling="standard", lam=DEFAULT_LAM,
                         count_fraction=None,
                         threshold_fraction=DEFAULT_THRESHOLD_FRACTION, synthetic=None, seed=0,
                         cache_dir=None, progress=False, n_jobs=1):
    r"""Every method × threshold treatment, per dataset and total budget, with references.

    Parameters
    ----------
    datasets : sequence of int or "synthetic"
        Binary OpenML ids of the catalogue and/or ``"synthetic"``.
    epsilons : sequence of float
        Total budgets of one fit; every variant spends exactly this (``delta = 1/n^2``).
    n_trials : int, default=20
    n_splits : int, optional
        Distinct splits the trials cycle through (default ``n_trials``).
    splits_by_dataset : dict, optional
        ``{dataset: n_splits}`` overrides.
    scaling : {"standard", "max-abs"}, default="standard"
        Data map of the real datasets.
    lam : float, default=10.0
    count_fraction : float or None, default=None
        The counts' share of the budget left after the threshold; None is each count's
        default (:data:`dplasso.estimators.private_count.DEFAULT_COUNT_FRACTIONS`: 0.1 for
        the accuracy count, 0.25 for the block median and P1's count).
    threshold_fraction : float, default=0.1
    synthetic : dict, optional
        Sizes of P1's synthetic family.
    seed : int, default=0
    cache_dir : path-like, optional
    progress : bool, default=False
    n_jobs : int, default=1
        Where the units of work run (:func:`dplasso.experiments.execution.run_tasks`).

    Returns
    -------
    pandas.DataFrame
        The reference rows of :func:`ceiling_experiment` (``kind == "reference"``) and one
        row per private trial (``kind == "private"``) with ``method, threshold, epsilon,
        split, trial, n_iter, target`` (the released count, NaN for private LASSO), ``nnz,
        accuracy, auroc`` (test set) and, on the synthetic family, ``precision, recall, f1``
        of the support.

    Notes
    -----
    Privacy of one fit (replace-one): every variant is :math:`(\varepsilon, \delta)`-DP by
    proof except ``"P1 count (declared 1)"``, whose count rests on P1's unproven
    sensitivity 1 (kept as the labelled reproduction setting).
    """
    n_jobs = check_n_jobs(n_jobs)
    epsilons = _check_epsilons(epsilons)
    n_trials = _check_int("n_trials", n_trials, 1)
    default_splits = n_trials if n_splits is None else _check_int("n_splits", n_splits, 1)
    overrides = _check_splits_by_dataset(splits_by_dataset, datasets)
    synthetic = _check_synthetic(synthetic)
    loaded, reference_units, private_units = [], [], []
    for dataset in datasets:
        data = load_beyond_data(dataset, scaling=scaling, synthetic=synthetic, seed=seed)
        map_name = SYNTHETIC if dataset == SYNTHETIC else scaling
        splits = _splits_of(data, overrides.get(dataset, default_splits), seed)
        loaded.append((dataset, data, map_name, splits))
        reference_units += _reference_units(data, map_name, splits, lam, seed)
    references = chunks(cached_tasks(cache_dir, reference_units, _reference_rows,
                                     n_jobs=n_jobs, desc="beyond-p1 references",
                                     progress=progress),
                        [len(splits) for *_, splits in loaded])
    for (dataset, data, map_name, splits), frames in zip(loaded, references):
        settings = dict(dataset=data.code, scaling=map_name, lam=lam, seed=seed,
                        n_splits=len(splits), n_trials=n_trials, count_fraction=count_fraction,
                        methods=METHODS,
                        threshold_fraction=threshold_fraction,
                        synthetic=synthetic if dataset == SYNTHETIC else None)
        private_units += [(f"beyond-private-{data.code}-{map_name}-eps{epsilon:g}",
                           {**settings, "epsilon": epsilon},
                           (data, map_name, splits, frames, epsilon, settings))
                          for epsilon in epsilons]
    private = chunks(cached_tasks(cache_dir, private_units, _private_rows, n_jobs=n_jobs,
                                  desc="beyond-p1 private", progress=progress),
                     [len(epsilons)] * len(loaded))
    # each dataset's references, then its private runs (the order of a sequential loop)
    return pd.concat([frame for pair in zip(references, private) for part in pair
                      for frame in part], ignore_index=True)


def _synthetic_share_experiment(kind, fractions, *, epsilons, n_trials, synthetic, seed, lam,
                                cache_dir, progress, n_jobs):
    """Test accuracy of the default Sparsifier and of private LASSO, both with the private
    threshold, for each ``kind`` share (``"threshold"`` or ``"count"``), on P1's synthetic
    family only; the other share at its default. Each share is one task of
    :func:`dplasso.experiments.execution.run_tasks` (``n_jobs``), checkpointed in
    ``cache_dir``."""
    n_jobs = check_n_jobs(n_jobs)
    epsilons = _check_epsilons(epsilons)
    synthetic = _check_synthetic(synthetic)
    data = load_p1_data(SYNTHETIC, synthetic=synthetic, seed=seed)
    (train, test), = _splits_of(data, 1, seed)
    majority = _base(data, SYNTHETIC, (train, test))["majority"]
    stream = {"threshold": 200, "count": 300}[kind]

    def run(fraction):
        shares = {"count_fraction": None, "threshold_fraction": DEFAULT_THRESHOLD_FRACTION,
                  f"{kind}_fraction": fraction}
        rows = []
        for epsilon in epsilons:
            for index, method in enumerate((DEFAULT_VARIANT[0], "private LASSO")):
                rng = _noise_rng(seed, 0, epsilon, int(round(fraction * 1000)), stream + index)
                W, intercept, _, _ = _private_variant(
                    method, "private", data.X[train], data.y[train], count=0,
                    epsilon=epsilon, lam=lam, n_trials=n_trials, rng=rng, **shares)
                metrics = evaluate_weights(W, intercept, data.X[test], data.y[test])
                rows.append(pd.DataFrame({"fraction": fraction, "epsilon": epsilon,
                                          "method": method, "trial": np.arange(n_trials),
                                          "accuracy": metrics["accuracy"],
                                          "nnz": metrics["nnz"], "majority": majority}))
        return pd.concat(rows, ignore_index=True)

    settings = dict(synthetic=synthetic, seed=seed, lam=lam, epsilons=epsilons,
                    n_trials=n_trials, default=DEFAULT_VARIANT)
    units = [(f"beyond-{kind}-share-{fraction:g}", {**settings, "fraction": fraction},
              (fraction,)) for fraction in fractions]
    return pd.concat(cached_tasks(cache_dir, units, run, n_jobs=n_jobs,
                                  desc=f"{kind} share", progress=progress), ignore_index=True)


def threshold_share_experiment(fractions, *, epsilons, n_trials=20, synthetic=None, seed=0,
                               lam=DEFAULT_LAM, cache_dir=None, progress=False, n_jobs=1):
    """Test accuracy of the default Sparsifier and of private LASSO, both with the private
    threshold, for each threshold share, on P1's synthetic family only (each share one task,
    ``n_jobs`` as in :func:`beyond_p1_experiment`).

    Returns
    -------
    pandas.DataFrame
        One row per (fraction, epsilon, method, trial): ``fraction, epsilon, method, trial,
        accuracy, nnz, majority``.
    """
    return _synthetic_share_experiment(
        "threshold", fractions, epsilons=epsilons, n_trials=n_trials, synthetic=synthetic,
        seed=seed, lam=lam, cache_dir=cache_dir, progress=progress, n_jobs=n_jobs)


def count_share_experiment(fractions, *, epsilons, n_trials=20, synthetic=None, seed=0,
                           lam=DEFAULT_LAM, cache_dir=None, progress=False, n_jobs=1):
    """:func:`threshold_share_experiment` for the accuracy count's share of the budget left
    after the threshold (private LASSO, which has no count, is the fixed reference).

    Returns
    -------
    pandas.DataFrame
        As :func:`threshold_share_experiment`.
    """
    return _synthetic_share_experiment(
        "count", fractions, epsilons=epsilons, n_trials=n_trials, synthetic=synthetic,
        seed=seed, lam=lam, cache_dir=cache_dir, progress=progress, n_jobs=n_jobs)
