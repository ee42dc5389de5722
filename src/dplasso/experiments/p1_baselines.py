r"""P1 against earlier private methods: parameters in, tables out.

Artifact ``p1-baselines`` (:func:`baselines_experiment`): the Sparsifier, private
Frank-Wolfe from zero (plain private LASSO), the two-stage method, private ADMM, DP-IGHT, the
L2 reference (:data:`L2_REFERENCE`, the private dense alternative) and the non-private
L1-constrained fit, on fresh stratified 80/20 splits of each dataset, over an
epsilon grid: test accuracy, nonzeros and, on synthetic data with a known support, support
precision, recall and F1. One row per (dataset, trial, method, epsilon).

**Hyperparameters** (all public rules, no tuning on the data; the ``tuning`` column says so):
the L1 radius ``lam`` and the automatic ``T`` of the Frank-Wolfe methods
(:data:`dplasso.estimators.params.DEFAULT_LAM`,
:func:`dplasso.estimators.private_frank_wolfe.auto_n_iter`), the Sparsifier's count share
(:data:`dplasso.estimators.params.DEFAULT_COUNT_FRACTION`), ADMM's
:func:`~dplasso.baselines.estimators.admm_hyperparameters`, DP-IGHT's
:func:`~dplasso.baselines.estimators.dp_ight_step_size` and
:data:`~dplasso.baselines.estimators.DP_IGHT_N_ITER`. The sparsity level of the two-stage
method and DP-IGHT is released from the same noisy count as the Sparsifier's, at the same
budget share (:func:`~dplasso.baselines.estimators.fit_with_private_count`).

**One count per split.** The non-private count is the number of nonzeros of the non-private
fit, which is also the ``non-private LASSO`` row; it is solved once per split and shared by
every method and epsilon that privatises it (each with its own noise and its own budget).
The Sparsifier is the library's (:func:`dplasso.estimators.sparsify_runs`, the function
behind :class:`~dplasso.estimators.SparsifierClassifier`) given that count; its runs and
plain private Frank-Wolfe's, of every budget of a split, share one engine call there (each
draws what its own call draws), and the two-stage method's block partition and block fits
are shared by the budgets of a split (each budget's output keeps its law;
:func:`dplasso.baselines.two_stage.fit_blocks`).

**Seeds.** Split ``t`` of dataset ``k`` comes from ``SeedSequence([seed, k, t])`` (``k`` the
OpenML id, 0 for the synthetic family, whose trials also draw fresh data); each method's
noise at each epsilon from ``SeedSequence([seed, k, t, round(1e6 * epsilon), m])`` (the
two-stage partition of the split from ``SeedSequence([seed, k, t, _BLOCKS_KEY])``), so results
do not depend on which other datasets, epsilons or methods ran, nor on where a (dataset,
trial) unit runs (``n_jobs``, :mod:`dplasso.experiments.execution`). With ``cache_dir`` every
unit is checkpointed (atomically, named by a hash of the settings) once done.
"""
from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split

from dplasso.baselines.admm import fit_private_admm
from dplasso.baselines.estimators import (
    ADMM_N_ITER,
    account_fit,
    admm_hyperparameters,
    fit_dp_ight_public_step,
    fit_with_private_count,
)
from dplasso.baselines.l2_objective_perturbation import objective_perturbation_trials
from dplasso.baselines.nonprivate import fit_nonprivate_lasso, sklearn_l1_coef
from dplasso.baselines.two_stage import default_n_blocks, fit_blocks, fit_two_stage
from dplasso.data.catalog import load_dataset
from dplasso.data.synthetic import sparse_logistic_synthetic
from dplasso.estimators.composition import compose_parts, pure_part
from dplasso.estimators.params import DEFAULT_LAM, check_choice, default_delta
from dplasso.estimators.private_frank_wolfe import PrivateRun
from dplasso.estimators.problem import with_intercept_column
from dplasso.estimators.sparsifier import SparsifierRun, sparsifier_budget, sparsify_runs
from dplasso.estimators.threshold import (
    DEFAULT_THRESHOLD_FRACTION,
    release_threshold,
    split_threshold_budget,
)
from dplasso.experiments.checkpoint import cached_tasks
from dplasso.experiments.conventions import authors_rows, steps_for
from dplasso.experiments.execution import check_n_jobs
from dplasso.experiments.names import (
    BASELINE_METHODS as METHODS,
    BASELINE_PRIVATE_METHODS as PRIVATE_METHODS,
    BASELINE_REFERENCES as REFERENCES,
    CONVENTION_AUTHORS,
    CONVENTION_OURS,
    L2_REFERENCE,
    SYNTHETIC,
)
from dplasso.experiments.p1 import P1_COUNT_SENSITIVITY
from dplasso.experiments.verdicts import CLEAR_Z, VERDICTS, clear_verdicts
from dplasso.privacy.accounting import PrivacyLedger

__all__ = [
    "METHODS",
    "L2_REFERENCE",
    "REFERENCES",
    "PRIVATE_METHODS",
    "SYNTHETIC",
    "TUNING",
    "CONVENTIONS",
    "baselines_experiment",
    "mean_sd_table",
    "paired_comparison",
    "support_metrics",
    "support_table",
    "verdict_counts",
]

TUNING = {
    "Sparsifier": "public heuristic; s: private count",
    "private FW (zero init)": "public heuristic",
    "two-stage": "public heuristic; s: private count",
    "private ADMM": "public heuristic",
    "DP-IGHT": "public heuristic; s: private count",
    L2_REFERENCE: "library default (public rule)",
    "non-private LASSO": "public heuristic (non-private)",
    "sklearn L1-LR": "library default C = 1 (non-private)",
    "majority": "none (chance)",
}
"""How each method's hyperparameters are set (the table's ``tuning`` column)."""

CONVENTIONS = ("ours", "authors")
"""The conventions a line-up runs under (:func:`baselines_experiment`)."""

_SYNTHETIC_KEY = 0
_TEST_SIZE = 0.2
_BLOCKS_KEY = 0xB10C5
"""Key of the two-stage partition's stream: ``SeedSequence([seed, k, t, _BLOCKS_KEY])``."""


def support_metrics(coef, w_true):
    """Support precision, recall and F1 of ``coef`` against the true coefficients.

    Parameters
    ----------
    coef : array-like of shape (p,)
        Fitted feature coefficients (intercept excluded).
    w_true : array-like of shape (p,)

    Returns
    -------
    precision, recall, f1 : float
        An empty fitted support has precision 0 (no true positive; scikit-learn's
        ``zero_division=0`` convention), and F1 is 0 whenever precision and recall both are.
    """
    selected = np.asarray(coef) != 0
    true = np.asarray(w_true) != 0
    hits = int(np.count_nonzero(selected & true))
    precision = hits / int(selected.sum()) if selected.any() else 0.0
    recall = hits / int(true.sum())
    f1 = 2 * precision * recall / (precision + recall) if hits else 0.0
    return precision, recall, f1


def _accuracy(coef, intercept, X, y):
    """Test accuracy; ``intercept`` None (a fit without one) counts as 0."""
    margin = np.asarray(X @ coef).ravel() + (0.0 if intercept is None else intercept)
    return float(np.mean((margin > 0) == (y == 1)))


def _split(X, y, seed_sequence, mapped_on=None):
    """``X_train, X_test, y_train, y_test`` of a stratified split; with ``mapped_on``,
    ``X`` is first replaced by ``mapped_on(train)``, the rows mapped by the data map fitted
    on the training rows only."""
    state = int(seed_sequence.generate_state(1)[0])
    train, test = train_test_split(np.arange(y.size), test_size=_TEST_SIZE, stratify=y,
                                   random_state=state)
    if mapped_on is not None:
        X = mapped_on(np.sort(train))
    return X[train], X[test], y[train], y[test]


def _private_fits(X, y, *, count, epsilons, delta, knobs, count_sensitivity, seeds, blocks):
    """``{(epsilon, method): (coef, intercept, target, guarantee, seconds)}``, private methods.

    ``seeds[epsilon]`` holds one seed sequence per method. The Sparsifier's and plain
    private Frank-Wolfe's runs of every budget go through one call of the library's
    Sparsifier core (:func:`~dplasso.estimators.sparsify_runs`, the count given; one engine
    call), each with its own generator, so each draws what a call of its own draws; their
    ``seconds`` are their shares of that call by step count. The two-stage fits of every
    budget share the partition ``blocks`` and its block fits. With ``threshold="private"``
    every method fits at :math:`(1 - f_b)\varepsilon` and its offset is then released at
    :math:`f_b\varepsilon` (the same treatment for all). ``knobs``: the conventions'
    settings (:func:`_knobs`)."""
    threshold, lam, share = knobs["threshold"], knobs["radius"], knobs["share"]
    design = with_intercept_column(X) if threshold == "private" else None
    out = {}

    def finish(epsilon, method, rng, coef, intercept, target, guarantee, seconds):
        if threshold == "private":
            epsilon_threshold, _ = split_threshold_budget(epsilon, threshold,
                                                          DEFAULT_THRESHOLD_FRACTION)
            started = time.perf_counter()
            moved, event = release_threshold(design, y, coef[:, np.newaxis], np.array([intercept]),
                                             n_classes=2, epsilon=epsilon_threshold, rng=rng)
            intercept = float(moved[0])
            _, guarantee = compose_parts([(PrivacyLedger(), guarantee), pure_part(event)])
            seconds += time.perf_counter() - started
        out[epsilon, method] = (coef, intercept, target, guarantee, seconds)

    rngs = {(epsilon, method): np.random.default_rng(seed) for epsilon in epsilons
            for method, seed in zip(PRIVATE_METHODS, seeds[epsilon])}
    plans, runs = [], []
    for epsilon in epsilons:
        _, _, epsilon_fw = sparsifier_budget(epsilon, y.size, count="lasso-support",
                                             count_fraction=share, threshold=threshold)
        plans.append((epsilon, "Sparsifier"))
        runs.append(SparsifierRun(
            epsilon, 1, rngs[plans[-1]], steps_for(knobs, y.size, epsilon_fw), delta,
            count="lasso-support", count_fraction=share, count_sensitivity=count_sensitivity,
            count_noise="geometric", threshold=threshold,
            threshold_fraction=DEFAULT_THRESHOLD_FRACTION))
        _, epsilon_fw = split_threshold_budget(epsilon, threshold, DEFAULT_THRESHOLD_FRACTION)
        plans.append((epsilon, "private FW (zero init)"))
        runs.append(PrivateRun(epsilon, steps_for(knobs, y.size, epsilon_fw), 1, "zero",
                               rngs[plans[-1]], delta, threshold, DEFAULT_THRESHOLD_FRACTION))
    started = time.perf_counter()
    fits = sparsify_runs(X, y, runs, lam=lam, support_size=count,
                         fit_intercept=knobs["intercept"], calibration=knobs["calibration"])
    elapsed = time.perf_counter() - started
    total_steps = sum(fit.n_iter for fit in fits)
    for (epsilon, method), fit in zip(plans, fits):
        target = None if fit.n_nonzero_target is None else int(fit.n_nonzero_target[0])
        out[epsilon, method] = (fit.W[:, 0], float(fit.intercept[0]), target, fit.guarantee,
                                elapsed * fit.n_iter / total_steps)

    for epsilon in epsilons:
        _, budget = split_threshold_budget(epsilon, threshold, DEFAULT_THRESHOLD_FRACTION)

        def counted(method, function, **fit_params):
            r = fit_with_private_count(
                function, X, y, count=count, epsilon=budget, delta=delta,
                count_fraction=share, count_sensitivity=count_sensitivity,
                count_noise="geometric", random_state=rngs[epsilon, method],
                fit_intercept=knobs["intercept"], **fit_params)
            return r.fit.coef, r.fit.intercept, r.n_nonzero_target, r.guarantee

        def admm():
            alpha, rho = admm_hyperparameters(X.shape[0], X.shape[1] + knobs["intercept"],
                                              budget, delta, ADMM_N_ITER)
            fit = fit_private_admm(X, y, epsilon=budget, delta=delta, alpha=alpha, rho=rho,
                                   n_iter=ADMM_N_ITER, fit_intercept=knobs["intercept"],
                                   random_state=rngs[epsilon, "private ADMM"])
            r = account_fit(fit, delta)
            return r.fit.coef, r.fit.intercept, None, r.guarantee

        for method, run in (
                ("two-stage", lambda: counted("two-stage", fit_two_stage, block_fits=blocks)),
                ("private ADMM", admm),
                ("DP-IGHT", lambda: counted("DP-IGHT", fit_dp_ight_public_step))):
            started = time.perf_counter()
            result = run()
            finish(epsilon, method, rngs[epsilon, method], *result,
                   time.perf_counter() - started)
    return out


def _row(base, method, epsilon, delta, coef, intercept, target, guarantee, seconds, X_test,
         y_test, w_true):
    precision = recall = f1 = np.nan
    if w_true is not None:
        precision, recall, f1 = support_metrics(coef, w_true)
    return {
        **base, "method": method, "tuning": TUNING[method], "epsilon": epsilon,
        "delta": delta, "accuracy": _accuracy(coef, intercept, X_test, y_test),
        "nnz": int(np.count_nonzero(coef)),
        "n_nonzero_target": np.nan if target is None else int(target),
        "epsilon_spent": np.nan if guarantee is None else guarantee.epsilon,
        "delta_spent": np.nan if guarantee is None else guarantee.delta,
        "precision": precision, "recall": recall, "f1": f1, "seconds": seconds,
    }


def _knobs(conventions, lam, threshold):
    """The settings of a run under ``conventions`` (:data:`CONVENTIONS`): this project's P1
    conventions at radius ``lam``, or the authors' (their radius), each with ``threshold``."""
    knobs = dict(CONVENTION_OURS, radius=lam) if conventions == "ours" else dict(
        CONVENTION_AUTHORS)
    return {**knobs, "threshold": threshold}


def _trial_rows(name, key, X, y, w_true, *, trial, epsilons, lam, count_sensitivity, seed,
                threshold, conventions="ours", mapped_on=None):
    """Every method on one fresh split of one dataset, over the epsilon grid (``mapped_on``:
    the data map fitted on a split's training rows, as in :func:`_split`)."""
    knobs = _knobs(conventions, lam, threshold)
    X_train, X_test, y_train, y_test = _split(X, y, np.random.SeedSequence([seed, key, trial]),
                                              mapped_on)
    base = {"dataset": name, "n_train": X_train.shape[0], "n_test": X_test.shape[0],
            "p": X.shape[1], "trial": trial}
    started = time.perf_counter()
    reference = fit_nonprivate_lasso(X_train, y_train, lam=knobs["radius"],
                                     fit_intercept=knobs["intercept"])
    count = int(np.count_nonzero(reference.coef))
    base["count"] = count
    base["count_converged"] = bool(reference.info["converged"])
    rows = [_row(base, "non-private LASSO", np.nan, np.nan, reference.coef,
                 reference.intercept, None, None, time.perf_counter() - started, X_test,
                 y_test, w_true)]
    started = time.perf_counter()
    coef, intercept = sklearn_l1_coef(X_train, y_train, C=1.0)
    rows.append(_row(base, "sklearn L1-LR", np.nan, np.nan, coef, intercept, None, None,
                     time.perf_counter() - started, X_test, y_test, w_true))
    majority = 1.0 if 2 * np.count_nonzero(y_train) > y_train.size else -1.0
    rows.append(_row(base, "majority", np.nan, np.nan, np.zeros(X.shape[1]), majority, None,
                     None, 0.0, X_test, y_test, w_true))
    delta = default_delta(X_train.shape[0])
    seeds = {epsilon: np.random.SeedSequence([seed, key, trial, round(1e6 * epsilon)]).spawn(
        len(PRIVATE_METHODS) + 1) for epsilon in epsilons}  # the last: the L2 reference
    started = time.perf_counter()
    partition = np.random.default_rng(np.random.SeedSequence([seed, key, trial, _BLOCKS_KEY]))
    blocks = fit_blocks(X_train, y_train, np.array_split(
        partition.permutation(X_train.shape[0]), default_n_blocks(X_train.shape[0])))
    blocks_seconds = (time.perf_counter() - started) / len(epsilons)
    fits = _private_fits(X_train, y_train, count=count, epsilons=epsilons, delta=delta,
                         knobs=knobs, count_sensitivity=count_sensitivity, seeds=seeds,
                         blocks=blocks)
    for epsilon in epsilons:
        for method in PRIVATE_METHODS:
            coef, intercept, target, guarantee, seconds = fits[epsilon, method]
            if method == "two-stage":
                seconds += blocks_seconds  # its share of the block fits
            rows.append(_row(base, method, epsilon, delta, coef, intercept, target, guarantee,
                             seconds, X_test, y_test, w_true))
        rows.append(_row(base, L2_REFERENCE, epsilon, delta,
                         *_l2_reference(X_train, y_train, epsilon=epsilon, delta=delta,
                                        seed=seeds[epsilon][-1]), X_test, y_test, w_true))
    return rows


def _l2_reference(X, y, *, epsilon, delta, seed):
    """``(coef, intercept, None, guarantee, seconds)`` of ``ObjectivePerturbationClassifier``
    at ``epsilon`` (its defaults: the private threshold included) on ``X, y``."""
    started = time.perf_counter()
    fit = objective_perturbation_trials(X, y, epsilon=epsilon, delta=delta, threshold="private",
                                        random_state=np.random.default_rng(seed))
    return (fit.W[:, 0], float(fit.intercept[0]), None, fit.guarantee,
            time.perf_counter() - started)


def baselines_experiment(dataset_ids, epsilons, n_trials, *, synthetic=None, lam=DEFAULT_LAM,
                         count_sensitivity=P1_COUNT_SENSITIVITY, threshold="none",
                         conventions="ours", seed=0, cache_dir=None, progress=False, n_jobs=1):
    r"""The ``p1-baselines`` runs: every method on fresh splits of every dataset and epsilon.

    Parameters
    ----------
    dataset_ids : sequence of int
        OpenML ids of binary catalogue datasets (:func:`dplasso.data.load_dataset`).
    epsilons : sequence of float
        The budgets, each ``> 0``; ``delta = 1/n_train**2``.
    n_trials : int
        Fresh stratified 80/20 splits (and fresh noise) per dataset.
    synthetic : dict or None, default=None
        Keyword arguments of :func:`dplasso.data.sparse_logistic_synthetic` (``n``, ``p``,
        ``k``, ``coef_value``) to add the synthetic family, each trial a fresh draw, with
        support precision, recall and F1.
    lam : float, default=10.0
        L1 radius of the Frank-Wolfe methods, the count and the non-private fit under this
        project's conventions (the authors' fix it at theirs).
    count_sensitivity : "max" or int, default=1
        Sensitivity the count of the Sparsifier, two-stage and DP-IGHT is noised at: P1's
        declared :data:`~dplasso.experiments.p1.P1_COUNT_SENSITIVITY` (unproven) or the
        proven ``"max"``.
    threshold : {"none", "private"}, default="none"
        ``"none"``: P1's pipeline as published. ``"private"``: every private method fits at
        :math:`(1 - f_b)\varepsilon` and releases its decision threshold at
        :math:`f_b\varepsilon` (:mod:`dplasso.estimators.threshold`), the same treatment for
        all, so the comparison stays fair.
    conventions : {"ours", "authors"}, default="ours"
        ``"ours"``: this project's P1 conventions
        (:data:`~dplasso.experiments.names.CONVENTION_OURS`, radius ``lam``). ``"authors"``:
        the authors' (:data:`~dplasso.experiments.names.CONVENTION_AUTHORS`): their data
        map (:func:`~dplasso.experiments.conventions.authors_rows` of the standard map), radius
        and no intercept for every method, half the budget on the count of the Sparsifier, the
        two-stage method and DP-IGHT, and Talwar et al.'s scale and :math:`T` for the
        Sparsifier and private Frank-Wolfe (their ``epsilon_spent`` says what that costs under
        replace-one). OpenML datasets only.
    seed : int, default=0
    cache_dir : path-like or None, default=None
        Checkpoint folder: one CSV per (dataset, trial), reused by a later call with the same
        settings.
    progress : bool, default=False
        Show a progress bar over (dataset, trial) units.
    n_jobs : int, default=1
        Where the (dataset, trial) units run (:func:`dplasso.experiments.execution.run_tasks`:
        this process, joblib workers, or the Dask cluster named by ``DPLASSO_SCHEDULER``).

    Returns
    -------
    pandas.DataFrame
        One row per (dataset, trial, method, epsilon); the non-private row once per trial
        with ``epsilon`` NaN. Columns: ``dataset, n_train, n_test, p, trial, count,
        count_converged, method, tuning, epsilon, delta, accuracy, nnz, n_nonzero_target,
        epsilon_spent, delta_spent, precision, recall, f1, seconds``. ``count`` is the
        non-private count (an analysis column, never released by a method); ``precision``,
        ``recall`` and ``f1`` are NaN on real data.
    """
    n_jobs = check_n_jobs(n_jobs)
    epsilons = [float(e) for e in epsilons]
    conventions = check_choice(conventions, "conventions", CONVENTIONS)
    if conventions == "authors" and synthetic is not None:
        raise ValueError("the authors' conventions map OpenML data; the synthetic family has "
                         "no such map (synthetic must be None)")
    common = {"epsilons": epsilons, "lam": lam, "seed": seed,
              "count_sensitivity": count_sensitivity, "threshold": threshold,
              "conventions": conventions}
    datasets = [(int(i), None) for i in dataset_ids]
    if synthetic is not None:
        datasets.append((_SYNTHETIC_KEY, dict(synthetic)))
    units = []
    for key, synthetic_params in datasets:
        data = None if synthetic_params is not None else load_dataset(key)
        settings = {**common, "key": key, "synthetic": synthetic_params,
                    "n_trials": int(n_trials), "lam": float(lam), "seed": int(seed)}
        units += [(f"p1-baselines-{key}-trial{trial}", {**settings, "trial": trial},
                   (key, data, synthetic_params, trial, common))
                  for trial in range(int(n_trials))]
    frames = cached_tasks(cache_dir, units, _baselines_trial, n_jobs=n_jobs,
                          desc="p1-baselines", progress=progress)
    return pd.concat(frames, ignore_index=True)


def _baselines_trial(key, data, synthetic_params, trial, common):
    """The rows of one (dataset, trial): a catalogue dataset ``data``, or a fresh draw of the
    synthetic family."""
    if synthetic_params is not None:
        rng = np.random.default_rng([common["seed"], key, trial, 1])
        data = sparse_logistic_synthetic(**synthetic_params, random_state=rng)
        name, w_true, mapped_on = SYNTHETIC, data.w_true, None
    else:
        name, w_true = data.name, None

        def mapped_on(train):
            if common["conventions"] == "authors":
                return authors_rows(load_dataset(key, "standard", fit_rows=train).X, train)
            return load_dataset(key, fit_rows=train).X
    return pd.DataFrame(_trial_rows(name, key, data.X, data.y, w_true, trial=trial,
                                    mapped_on=mapped_on, **common))


def _mean_sd(values, digits):
    values = np.asarray(values, dtype=float)
    if values.size == 0 or np.all(np.isnan(values)):
        return "–"
    sd = np.nanstd(values, ddof=1) if values.size > 1 else 0.0
    return f"{np.nanmean(values):.{digits}f} ± {sd:.{digits}f}"


def mean_sd_table(results, value, *, digits=2, methods=METHODS):
    """Wide table of ``value`` as "mean ± sd" over trials: rows (dataset, method), columns eps.

    The non-private row (``epsilon`` NaN) is repeated in every epsilon column.

    Parameters
    ----------
    results : pandas.DataFrame
        From :func:`baselines_experiment`.
    value : str
        A numeric column (``accuracy``, ``nnz``, ``f1``, ...).
    digits : int, default=2
    methods : sequence of str, default=METHODS
        Methods shown, in this order.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset``, ``method``, ``tuning``, then ``ε = <eps>`` per epsilon.
    """
    epsilons = sorted(results["epsilon"].dropna().unique())
    rows = []
    for dataset in results["dataset"].unique():
        of_dataset = results[results["dataset"] == dataset]
        for method in methods:
            runs = of_dataset[of_dataset["method"] == method]
            if runs.empty:
                continue
            row = {"dataset": dataset, "method": method, "tuning": TUNING[method]}
            for epsilon in epsilons:
                cell = runs if runs["epsilon"].isna().all() else runs[runs["epsilon"] == epsilon]
                row[f"ε = {epsilon:g}"] = _mean_sd(cell[value], digits)
            rows.append(row)
    return pd.DataFrame(rows)


def paired_comparison(results, method="Sparsifier", others=PRIVATE_METHODS[1:],
                      value="accuracy", z=CLEAR_Z):
    r"""``method`` against each of ``others``, per dataset and epsilon, paired by split.

    For trials :math:`t = 1..m` (the same split for both methods), :math:`d_t` = value of
    ``method`` minus value of the other, with mean :math:`\bar d` and standard error
    :math:`s_d/\sqrt m` (:math:`s_d` the sample standard deviation; 0 with one trial). The
    verdict is :func:`~dplasso.experiments.verdicts.clear_verdicts`'s: ``"better"`` when
    :math:`\bar d > z\,s_d/\sqrt m`, ``"worse"`` when :math:`\bar d < -z\,s_d/\sqrt m`,
    else ``"tie"`` (with one trial, or differences that are all equal, the margin is 0).

    Parameters
    ----------
    results : pandas.DataFrame
        From :func:`baselines_experiment`.
    method : str, default="Sparsifier"
    others : sequence of str, default: the other private methods
    value : str, default="accuracy"
    z : float, default=CLEAR_Z

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset, epsilon, other, n_trials, mean_difference, se, margin``
        (``z * se``), ``verdict``.
    """
    private = results[results["epsilon"].notna()]
    rows = []
    for (dataset, epsilon), cell in private.groupby(["dataset", "epsilon"], sort=False):
        ours = cell[cell["method"] == method].set_index("trial")[value]
        for other in others:
            theirs = cell[cell["method"] == other].set_index("trial")[value]
            difference = (ours - theirs.reindex(ours.index)).dropna()
            m = difference.size
            rows.append({"dataset": dataset, "epsilon": float(epsilon), "other": other,
                         "n_trials": m, "mean_difference": float(difference.mean()),
                         "se": difference.std(ddof=1) / math.sqrt(m) if m > 1 else 0.0})
    frame = pd.DataFrame(rows, columns=["dataset", "epsilon", "other", "n_trials",
                                        "mean_difference", "se"])
    frame["margin"] = z * frame["se"]
    frame["verdict"] = clear_verdicts(frame["mean_difference"], frame["se"], z=z).labels
    return frame


def verdict_counts(comparison):
    """Counts of :func:`paired_comparison` verdicts per other method and epsilon.

    Parameters
    ----------
    comparison : pandas.DataFrame
        From :func:`paired_comparison`.

    Returns
    -------
    pandas.DataFrame
        Rows: the other methods (in table order); columns ``ε = <eps>`` and ``all``; cells
        ``"better / tie / worse"`` (number of datasets in each verdict).
    """
    def cell(frame):
        counts = frame["verdict"].value_counts()
        return " / ".join(str(int(counts.get(v, 0))) for v in VERDICTS)

    rows = []
    for other in [m for m in METHODS if m in set(comparison["other"])]:
        of_other = comparison[comparison["other"] == other]
        row = {"against": other}
        for epsilon, frame in of_other.groupby("epsilon"):
            row[f"ε = {epsilon:g}"] = cell(frame)
        row["all"] = cell(of_other)
        rows.append(row)
    return pd.DataFrame(rows)


def support_table(results, *, digits=2, methods=METHODS[:-1]):
    """Support precision, recall and F1 on the synthetic rows, "mean ± sd" per method and eps.

    Parameters
    ----------
    results : pandas.DataFrame
        From :func:`baselines_experiment` (rows of other datasets are ignored).
    digits : int, default=2
    methods : sequence of str, default=every method but ``"majority"`` (no support)

    Returns
    -------
    pandas.DataFrame
        Rows (method, measure), columns ``ε = <eps>``.
    """
    synthetic = results[results["dataset"] == SYNTHETIC]
    frames = []
    for measure in ("precision", "recall", "f1"):
        wide = mean_sd_table(synthetic, measure, digits=digits, methods=methods)
        wide.insert(2, "measure", "F1" if measure == "f1" else measure)
        frames.append(wide.drop(columns=["dataset"]))
    order = {m: i for i, m in enumerate(methods)}
    table = pd.concat(frames, ignore_index=True)
    table["_order"] = table["method"].map(order)
    return table.sort_values(["_order"], kind="stable").drop(columns="_order").reset_index(
        drop=True)
