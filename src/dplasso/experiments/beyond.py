r"""Beyond P1: the library's default private model against the L2 reference and P1's designs
(artifact ``beyond-p1``).

Three experiment functions, each returning a tidy :class:`pandas.DataFrame`:

- :func:`ceiling_experiment`: what the data map and the L1 ball allow without privacy — the
  majority rate, the exact optimum of our problem (logistic loss in the ``lam`` ball, the
  intercept inside it) and scikit-learn's L1-penalised logistic regression at its default
  ``C = 1`` (liblinear), on the same splits, under each data map
  (:data:`dplasso.data.preprocess.SCALINGS`);
- :func:`beyond_p1_experiment`: on the binary datasets, the library's default private model
  (``SparseDPLogisticRegression()``: :func:`~dplasso.estimators.default_sparsifier_trials`),
  the L2 reference (``ObjectivePerturbationClassifier()``:
  :func:`~dplasso.baselines.l2_objective_perturbation.objective_perturbation_trials`),
  private LASSO with and without the private threshold, the Sparsifier with each earlier
  count design, and P1's Sparsifier as published (:data:`VARIANTS`), all at the same total
  :math:`\varepsilon` and the same data map, with the references of
  :func:`ceiling_experiment` beside them;
- :func:`multiclass_experiment`: the default model against private LASSO with the threshold
  on the multiclass datasets (:data:`MULTICLASS_VARIANTS`), with the references beside them;
- :func:`ablation_experiment`: P1's Sparsifier as published and the three changes of this
  chapter (the data map, the private threshold, the accuracy count) alone and together
  (:data:`ABLATION_VARIANTS` under each map), with the references beside them.

**Data maps.** A real dataset's map reads its per-feature summaries from each split's
training rows only (:meth:`dplasso.experiments.p1.P1Data.mapped_on`); the test rows are
mapped with them and clipped. **Splits and seeds** as in :mod:`dplasso.experiments.p1`:
trial ``t`` runs on stratified 80/20 split ``t mod n_splits``; the trials of one split run
batched, and the Frank-Wolfe steps of every variant of a split but the default (its own
selection) share one engine call (:func:`~dplasso.estimators.sparsify_runs`); each
variant's noise comes from a ``SeedSequence`` keyed by ``(seed, dataset, epsilon, split,
variant)``, so it draws what a call of its own would. **Checkpoints**: with ``cache_dir``, each
split's references and each (dataset, epsilon) block of private runs is stored as soon as it
is done and read back by a rerun with the same settings. These units are independent tasks,
run in this process, by joblib or on a Dask cluster (``n_jobs``,
:mod:`dplasso.experiments.execution`). The non-private count of a split (P1's count) is
solved once with its references and shared by every budget.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from dplasso.baselines.l2_objective_perturbation import objective_perturbation_trials
from dplasso.baselines.nonprivate import sklearn_l1_accuracy
from dplasso.data import catalog_ids, dataset_info, load_dataset
from dplasso.data.preprocess import SCALINGS
from dplasso.estimators import (
    DEFAULT_COUNT_FRACTION,
    DEFAULT_LAM,
    SparsifierRun,
    default_sparsifier_trials,
    sparsify_runs,
)
from dplasso.estimators.private_frank_wolfe import PrivateRun
from dplasso.estimators.threshold import DEFAULT_THRESHOLD_FRACTION
from dplasso.experiments.checkpoint import cached_tasks, chunks
from dplasso.experiments.execution import check_n_jobs
from dplasso.experiments.inputs import (
    SYNTHETIC,
    check_epsilons,
    check_int,
    check_openml_id,
    check_splits_by_dataset,
    check_synthetic,
    noise_rng,
    split_seed,
)
from dplasso.experiments.names import BEYOND_VARIANTS, DEFAULT_VARIANT, L2_VARIANT
from dplasso.experiments.p1 import (
    P1_COUNT_SENSITIVITY,
    P1Data,
    evaluate_weights,
    load_p1_data,
    nonprivate_optimum,
    public_n_classes,
    stratified_splits,
)
from dplasso.experiments.p1_baselines import support_metrics

__all__ = [
    "REFERENCES",
    "VARIANTS",
    "METHOD_COUNTS",
    "DEFAULT_VARIANT",
    "L2_VARIANT",
    "MULTICLASS_VARIANTS",
    "ABLATION_VARIANTS",
    "PAPER_RECORD",
    "load_beyond_data",
    "ceiling_experiment",
    "beyond_p1_experiment",
    "multiclass_experiment",
    "ablation_experiment",
]

REFERENCES = ("majority", "non-private (ours)", "sklearn L1-LR")
"""Reference rows: predicting the training majority class; the exact optimum of the private
fits' problem (radius ``lam``); scikit-learn's ``LogisticRegression(l1_ratio=1, C=1,
solver="liblinear")`` (one-vs-rest for more classes)."""

VARIANTS = BEYOND_VARIANTS
"""The private variants ``(method, threshold)`` of :func:`beyond_p1_experiment`, in the order
their noise streams are numbered: ``default`` is ``SparseDPLogisticRegression()`` (the
joint release); ``L2 reference`` is ``ObjectivePerturbationClassifier()``;
private LASSO is private Frank-Wolfe from zero; the Sparsifier's earlier count designs
(the accuracy count was the default before the joint release) run with the private threshold
at ``lam``; ``P1 count (declared 1)`` without a threshold is P1's Sparsifier as published."""

METHOD_COUNTS = {"noise floor": "noise-floor", "block median": "block-median",
                 "accuracy count": "accuracy"}
"""The ``count`` of :func:`~dplasso.estimators.sparsify_trials` behind each earlier
Sparsifier design (P1's two run from the split's shared non-private count)."""

MULTICLASS_VARIANTS = (("default", "private"), ("private LASSO", "private"),
                       ("L2 reference", "private"))
"""The variants of :func:`multiclass_experiment`: the default model, private LASSO with the
threshold at ``lam`` and the L2 reference (one-vs-rest, the book's ``cor-one-vs-rest``)."""

ABLATION_VARIANTS = (
    ("P1 count (declared 1)", "none"),
    ("P1 count (declared 1)", "private"),
    ("accuracy count", "none"),
    ("accuracy count", "private"),
    ("default", "private"),
)
"""The variants of :func:`ablation_experiment`, each run under both data maps: P1's
Sparsifier as published; with the private threshold; with the accuracy count in place of
P1's count; with both; and the default, which releases the accuracy count's size and the
threshold in one draw, with the constant classifiers among its candidates, after
exponential-mechanism vertex selections (the other rows keep P1's Laplace selections)."""

_STREAMS = {"beyond-p1": 100, "beyond-multiclass": 100, "beyond-ablation": 200}
"""First noise-stream key of each grid's variants (its variant ``i`` draws from key
``first + i``): the ablation's streams differ from the main table's."""

PAPER_RECORD = (Path(__file__).resolve().parents[3] / "book" / "paper-results" / "beyond-p1"
                / "beyond-p1.csv")
"""The committed results of ``dplasso reproduce beyond-p1 --profile paper`` (the book's CI
builds the ``ci`` profile; the chapter and its claim test also read this record)."""

_SKLEARN_C = 1.0


def load_beyond_data(dataset, *, scaling, synthetic=None, seed=0):
    """A catalogue dataset with the data map ``scaling`` (fitted per split by
    :meth:`~dplasso.experiments.p1.P1Data.mapped_on`), or P1's synthetic family (generated
    in the domain; ``scaling`` does not apply)."""
    if dataset == SYNTHETIC:
        return load_p1_data(dataset, synthetic=synthetic, seed=seed)
    if scaling not in SCALINGS:
        raise ValueError(f"scaling must be one of {SCALINGS}, got {scaling!r}")
    dataset = check_openml_id(dataset)
    data = load_dataset(dataset, scaling)
    return P1Data(data.name, dataset, data.X, np.asarray(data.y),
                  public_n_classes(dataset, data), None, scaling=scaling)


def _check_binary(datasets):
    multiclass = [d for d in datasets if d != SYNTHETIC
                  and dataset_info(check_openml_id(d)).task == "multiclass"]
    if multiclass:
        raise ValueError(f"datasets must be binary (or {SYNTHETIC!r}); {multiclass} are "
                         "multiclass: use multiclass_experiment")


def _base(data, scaling, split):
    train, test = split
    majority_class = np.bincount(data.y[train], minlength=data.n_classes).argmax()
    return {"dataset": data.name, "data_id": data.code,
            "scaling": "synthetic" if data.code == 0 else scaling,
            "n_train": train.size, "n_test": test.size, "n_coef": data.X.shape[1],
            "n_classes": data.n_classes,
            "true_support": (math.nan if data.w_true is None
                             else int(np.count_nonzero(data.w_true))),
            "majority": float(np.mean(data.y[test] == majority_class))}


def _support(data, coef):
    if data.w_true is None:
        return {"precision": math.nan, "recall": math.nan, "f1": math.nan}
    precision, recall, f1 = support_metrics(coef, data.w_true)
    return {"precision": precision, "recall": recall, "f1": f1}


def _nonprivate_row(base, method, data, X, split, lam):
    train, test = split
    fit = nonprivate_optimum(X[train], data.y[train], lam=lam, n_classes=data.n_classes)
    ours = evaluate_weights(fit.W, fit.intercept, X[test], data.y[test])
    return {**base, "method": method, "lam": lam, "accuracy": float(ours["accuracy"][0]),
            "auroc": float(ours["auroc"][0]), "nnz": fit.count, "count": fit.count,
            "gap": fit.gap, **_support(data, fit.W[..., 0])}


def _reference_rows(data, scaling, split, s, lam):
    """The split's references; the count of ``non-private (ours)`` is P1's ``c``."""
    train, test = split
    X = data.mapped_on(train)
    base = {**_base(data, scaling, split), "kind": "reference", "split": s}
    rows = [{**base, "method": "majority", "accuracy": base["majority"], "auroc": 0.5,
             "nnz": 0, **_support(data, np.zeros(data.X.shape[1]))},
            _nonprivate_row(base, "non-private (ours)", data, X, split, lam)]
    sklearn = sklearn_l1_accuracy(X[train], data.y[train], X[test], data.y[test],
                                  C=_SKLEARN_C)
    rows.append({**base, "method": "sklearn L1-LR", "accuracy": sklearn})
    return pd.DataFrame(rows)


def _splits_of(data, n_splits, seed):
    return stratified_splits(data.y, n_splits, random_state=split_seed(seed, data.code))


def _reference_units(data, scaling, splits, lam, seed):
    """The (name, settings, arguments) of each split's :func:`_reference_rows` task."""
    settings = dict(dataset=data.code, scaling=scaling, lam=lam, seed=seed,
                    n_splits=len(splits), map="training rows")
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
        n_train, n_test, n_coef, n_classes, true_support, majority, kind, split, method,
        lam, accuracy, auroc, nnz, count, gap, precision, recall, f1``. Nothing here is
        private; each map reads the split's training rows only.
    """
    n_jobs = check_n_jobs(n_jobs)
    _check_binary(datasets)
    overrides = check_splits_by_dataset(splits_by_dataset, datasets)
    units = []
    for dataset in datasets:
        for scaling in ([SYNTHETIC] if dataset == SYNTHETIC else scalings):
            data = load_beyond_data(dataset, scaling=scaling if dataset != SYNTHETIC
                                    else "max-abs", seed=seed)
            splits = _splits_of(data, overrides.get(dataset, n_splits), seed)
            units += _reference_units(data, scaling, splits, lam, seed)
    return pd.concat(cached_tasks(cache_dir, units, _reference_rows, n_jobs=n_jobs,
                                  desc="ceiling", progress=progress), ignore_index=True)


def _private_fits(variants, X, y, *, count, epsilon, lam, n_trials, n_classes, rngs):
    """``{variant: TrialsResult}`` of ``n_trials`` runs of each variant on one split.

    ``default`` and the L2 reference run by themselves (their own selection and radius, no
    Frank-Wolfe); every other variant's Frank-Wolfe steps share one engine call
    (:func:`~dplasso.estimators.sparsify_runs`, the split's non-private count given), each
    drawing from its own generator ``rngs[variant]`` what its own call would draw."""
    fits, batched, runs = {}, [], []
    for variant in variants:
        method, threshold = variant
        rng = rngs[variant]
        if method == "default":
            fits[variant] = default_sparsifier_trials(X, y, epsilon=epsilon, n_classes=n_classes,
                                                      n_trials=n_trials, random_state=rng)
        elif method == "L2 reference":
            fits[variant] = objective_perturbation_trials(X, y, epsilon=epsilon,
                                                          n_trials=n_trials,
                                                          n_classes=n_classes,
                                                          threshold="private", random_state=rng)
        elif method == "private LASSO":
            batched.append(variant)
            runs.append(PrivateRun(epsilon, "auto", n_trials, "zero", rng, None, threshold,
                                   DEFAULT_THRESHOLD_FRACTION))
        elif method in METHOD_COUNTS:
            batched.append(variant)
            runs.append(SparsifierRun(epsilon, n_trials, rng, count=METHOD_COUNTS[method],
                                      threshold=threshold))
        else:  # P1's count, at the proven or the declared sensitivity
            batched.append(variant)
            runs.append(SparsifierRun(
                epsilon, n_trials, rng, count="lasso-support",
                count_fraction=DEFAULT_COUNT_FRACTION,
                count_sensitivity=(P1_COUNT_SENSITIVITY if method == "P1 count (declared 1)"
                                   else "max"),
                threshold=threshold))
    if runs:
        fits.update(zip(batched, sparsify_runs(X, y, runs, lam=lam, n_classes=n_classes,
                                               support_size=count)))
    return fits


def _private_rows(data, scaling, splits, references, epsilon, s):
    n_splits = len(splits)
    rows = []
    for split, (train, test) in enumerate(splits):
        trials = np.arange(split, s["n_trials"], n_splits)
        if trials.size == 0:
            continue
        count = int(references[split].set_index("method").loc["non-private (ours)", "count"])
        X = data.mapped_on(train)
        variants = [tuple(variant) for variant in s["variants"]]
        rngs = {variant: noise_rng(s["seed"], data.code, epsilon, split, s["stream"] + index)
                for index, variant in enumerate(variants)}
        fits = _private_fits(variants, X[train], data.y[train], count=count, epsilon=epsilon,
                             lam=s["lam"], n_trials=trials.size, n_classes=data.n_classes,
                             rngs=rngs)
        for method, threshold in variants:
            fit = fits[method, threshold]
            targets = (np.full(trials.size, math.nan) if fit.n_nonzero_target is None
                       else fit.n_nonzero_target)
            metrics = evaluate_weights(fit.W, fit.intercept, X[test], data.y[test])
            flat = fit.W.reshape(fit.W.shape[0], -1, trials.size)
            support = [_support(data, flat[:, 0, k]) for k in range(trials.size)]
            rows.append(pd.DataFrame({
                **_base(data, scaling, (train, test)), "kind": "private", "method": method,
                "threshold": threshold, "epsilon": epsilon, "split": split, "trial": trials,
                "n_iter": fit.n_iter, "target": targets, "nnz": metrics["nnz"],
                "accuracy": metrics["accuracy"], "auroc": metrics["auroc"],
                **{key: [row[key] for row in support] for key in ("precision", "recall", "f1")},
            }))
    return pd.concat(rows, ignore_index=True)


def _grid(datasets, *, epsilons, n_trials, n_splits, splits_by_dataset, scaling, lam,
          synthetic, seed, cache_dir, progress, n_jobs, variants, name):
    n_jobs = check_n_jobs(n_jobs)
    epsilons = check_epsilons(epsilons)
    n_trials = check_int("n_trials", n_trials, 1)
    default_splits = n_trials if n_splits is None else check_int("n_splits", n_splits, 1)
    overrides = check_splits_by_dataset(splits_by_dataset, datasets)
    synthetic = check_synthetic(synthetic)
    loaded, reference_units, private_units = [], [], []
    for dataset in datasets:
        data = load_beyond_data(dataset, scaling=scaling, synthetic=synthetic, seed=seed)
        map_name = SYNTHETIC if dataset == SYNTHETIC else scaling
        splits = _splits_of(data, overrides.get(dataset, default_splits), seed)
        loaded.append((dataset, data, map_name, splits))
        reference_units += _reference_units(data, map_name, splits, lam, seed)
    references = chunks(cached_tasks(cache_dir, reference_units, _reference_rows,
                                     n_jobs=n_jobs, desc=f"{name} references",
                                     progress=progress),
                        [len(splits) for *_, splits in loaded])
    for (dataset, data, map_name, splits), frames in zip(loaded, references):
        settings = dict(dataset=data.code, scaling=map_name, lam=lam, seed=seed,
                        n_splits=len(splits), n_trials=n_trials, variants=variants,
                        stream=_STREAMS[name], map="training rows",
                        synthetic=synthetic if dataset == SYNTHETIC else None)
        private_units += [(f"{name}-private-{data.code}-{map_name}-eps{epsilon:g}",
                           {**settings, "epsilon": epsilon},
                           (data, map_name, splits, frames, epsilon, settings))
                          for epsilon in epsilons]
    private = chunks(cached_tasks(cache_dir, private_units, _private_rows, n_jobs=n_jobs,
                                  desc=f"{name} private", progress=progress),
                     [len(epsilons)] * len(loaded))
    # each dataset's references, then its private runs (the order of a sequential loop)
    return pd.concat([frame for pair in zip(references, private) for part in pair
                      for frame in part], ignore_index=True)


def beyond_p1_experiment(datasets, *, epsilons, n_trials=20, n_splits=None,
                         splits_by_dataset=None, scaling="standard", lam=DEFAULT_LAM,
                         synthetic=None, seed=0, cache_dir=None, progress=False, n_jobs=1):
    r"""Every variant of :data:`VARIANTS`, per binary dataset and total budget, with references.

    Parameters
    ----------
    datasets : sequence of int or "synthetic"
        Binary OpenML ids of the catalogue and/or ``"synthetic"``.
    epsilons : sequence of float
        Total budgets of one fit; every variant spends exactly this (``delta = 1/n^2``; the
        L2 reference's Gamma noise spends 0).
    n_trials : int, default=20
    n_splits : int, optional
        Distinct splits the trials cycle through (default ``n_trials``).
    splits_by_dataset : dict, optional
        ``{dataset: n_splits}`` overrides.
    scaling : {"standard", "max-abs"}, default="standard"
        Data map of the real datasets (fitted on each split's training rows).
    lam : float, default=10.0
        Radius of private LASSO, of the earlier Sparsifier designs and of the reference
        optimum; the default model uses its own default (10, P1's radius).
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
        split, trial, n_iter, target`` (the released size: 0 for a constant; NaN for private
        LASSO and the L2 reference), ``nnz, accuracy, auroc`` (test set) and, on the
        synthetic family, ``precision, recall, f1`` of the support.

    Notes
    -----
    Privacy of one fit (replace-one): every variant is :math:`(\varepsilon, \delta)`-DP by
    proof except ``"P1 count (declared 1)"``, whose count rests on P1's unproven
    sensitivity 1 (kept as the labelled reproduction setting).
    """
    _check_binary(datasets)
    return _grid(datasets, epsilons=epsilons, n_trials=n_trials, n_splits=n_splits,
                 splits_by_dataset=splits_by_dataset, scaling=scaling, lam=lam,
                 synthetic=synthetic, seed=seed, cache_dir=cache_dir, progress=progress,
                 n_jobs=n_jobs, variants=VARIANTS, name="beyond-p1")


def multiclass_experiment(datasets, *, epsilons, n_trials=10, n_splits=5,
                          splits_by_dataset=None, scaling="standard", lam=DEFAULT_LAM, seed=0,
                          cache_dir=None, progress=False, n_jobs=1):
    """:data:`MULTICLASS_VARIANTS` on multiclass catalogue datasets, with references.

    Parameters and returns as in :func:`beyond_p1_experiment` (``datasets``: multiclass
    OpenML ids).
    """
    binary = [d for d in datasets if d == SYNTHETIC
              or dataset_info(check_openml_id(d)).task != "multiclass"]
    if binary:
        raise ValueError(f"datasets must be multiclass OpenML ids (the catalogue's are "
                         f"{catalog_ids('multiclass')}), got {binary}")
    return _grid(datasets, epsilons=epsilons, n_trials=n_trials, n_splits=n_splits,
                 splits_by_dataset=splits_by_dataset, scaling=scaling, lam=lam,
                 synthetic=None, seed=seed, cache_dir=cache_dir, progress=progress,
                 n_jobs=n_jobs, variants=MULTICLASS_VARIANTS,
                 name="beyond-multiclass")


def ablation_experiment(datasets, *, epsilons, n_trials=10, n_splits=5, scalings=SCALINGS,
                        lam=DEFAULT_LAM, seed=0, cache_dir=None, progress=False, n_jobs=1):
    """:data:`ABLATION_VARIANTS` under each data map, per binary dataset and budget.

    Parameters and returns as in :func:`beyond_p1_experiment` (``datasets``: binary OpenML
    ids; the synthetic family has no data map), with ``scalings`` the data maps compared
    (each fitted on the split's training rows). The trials of one (dataset, budget, split)
    draw the same noise under every map, so the maps are compared on paired draws.
    """
    _check_binary(datasets)
    if SYNTHETIC in datasets:
        raise ValueError(f"the ablation compares data maps; {SYNTHETIC!r} has none")
    if not scalings or any(scaling not in SCALINGS for scaling in scalings):
        raise ValueError(f"scalings must be a non-empty subset of {SCALINGS}, got {scalings!r}")
    return pd.concat([_grid(datasets, epsilons=epsilons, n_trials=n_trials, n_splits=n_splits,
                            splits_by_dataset=None, scaling=scaling, lam=lam, synthetic=None,
                            seed=seed, cache_dir=cache_dir, progress=progress, n_jobs=n_jobs,
                            variants=ABLATION_VARIANTS, name="beyond-ablation")
                      for scaling in scalings], ignore_index=True)
