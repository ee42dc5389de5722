r"""Experiments of paper P1 (sparse private LASSO logistic regression): parameters in, tables out.

The main experiment, returning a tidy :class:`pandas.DataFrame`:
:func:`private_lasso_experiment`: private Frank-Wolfe LASSO from a random start and from
zero, and the Sparsifier, against the exact non-private optimum of the same L1-constrained
problem, on train/test splits of binary or multiclass datasets, for each privacy budget
(artifacts ``p1-dense``, ``p1-sparsity``, ``p1-multinomial``); with the data, splits,
reference and evaluation the later chapters share. P1's count experiments are in
:mod:`dplasso.experiments.p1_count_noise`, its rate in :mod:`dplasso.experiments.p1_rate`,
the settings' checks and seeds in :mod:`dplasso.experiments.inputs`.

**Datasets.** A dataset is an OpenML id of the catalogue (:func:`dplasso.data.load_dataset`,
rows mapped into :math:`\|x_i\|_\infty \le 1` by P1's max-abs map) or the string
``"synthetic"``: one draw of :func:`dplasso.data.sparse_logistic_synthetic` with the sizes
given by ``synthetic`` and ``random_state=seed``. On a train/test split the map's per-feature
summaries are read from the training rows only (:meth:`P1Data.mapped_on`; test rows beyond
them are clipped), so nothing a fit or its scaling saw comes from the test rows; an
experiment without a split (the count's noise, the count's sensitivity) maps on every row.

**Trials, splits and batching.** Trial ``t`` of a dataset uses the stratified 80/20 split
number ``t mod n_splits`` (sklearn's ``StratifiedShuffleSplit``, seeded by ``(seed,
dataset)``, so every budget and method sees the same splits: comparisons are paired). By
default ``n_splits = n_trials``: a fresh split per trial. All trials of every budget and
method on one split run in one engine call (the columns of one weight matrix, each run with
its own step count and noise stream: :func:`dplasso.estimators.sparsify_runs`; ``default``
alone runs by itself), so one product ``X^T R`` per step serves them all. The non-private
optimum of a split is solved once and shared by every budget and method: it gives the
reference accuracy and the Sparsifier's count :math:`c` (the same number
:func:`dplasso.estimators.lasso_support_size` returns).

**The Sparsifier** is the library's (:func:`dplasso.estimators.sparsify_runs`, the function
behind :func:`~dplasso.estimators.sparsify_trials` and
:class:`~dplasso.estimators.SparsifierClassifier`) given the split's non-private count
(``support_size``), so that the count, the expensive part, is solved once per split rather
than once per budget.

**Seeds.** Every run draws its noise from a ``numpy.random.SeedSequence`` keyed by ``(seed,
dataset, epsilon, split, method)`` (``(seed, n, epsilon)`` for the rate), so results do not
depend on which other datasets or budgets were run. The keys are columns of the output.

**Checkpoints.** With ``cache_dir`` set, each unit of work (a split's non-private optimum, a
split's private fits, a (n, epsilon, seed) rate point) is written there
atomically as a CSV as soon as it is done, under a name that carries a hash of every
setting it depends on; a later call with the same settings reads it instead of recomputing,
so an interrupted run resumes where it stopped. In :func:`private_lasso_experiment` (units:
a split's non-private optimum, a split's private fits at every budget) these units are
independent tasks, run in this process, by joblib or on a Dask cluster
(``n_jobs``, :mod:`dplasso.experiments.execution`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import rankdata
from sklearn.model_selection import StratifiedShuffleSplit

from dplasso.baselines.l2_objective_perturbation import objective_perturbation_trials
from dplasso.baselines.nonprivate import sklearn_l1_accuracy
from dplasso.data import catalog_ids, dataset_info, load_dataset, sparse_logistic_synthetic
from dplasso.estimators import (
    COUNT_NOISES,
    default_sparsifier_trials,
    DEFAULT_COUNT_FRACTION,
    DEFAULT_LAM,
    SparsifierRun,
    sparsifier_budget,
    sparsify_runs,
)
from dplasso.estimators.private_frank_wolfe import PrivateRun, talwar_n_iter
from dplasso.estimators.problem import classification_loss, prepare_design
from dplasso.experiments.checkpoint import cached_tasks, chunks
from dplasso.experiments.execution import check_n_jobs
from dplasso.experiments.inputs import (
    SYNTHETIC,
    check_datasets,
    check_epsilons,
    check_int,
    check_openml_id,
    check_splits_by_dataset,
    check_synthetic,
    noise_rng,
    split_seed,
)
from dplasso.optim.working_set import solve_working_set

__all__ = [
    "DEFAULT_EPSILONS",
    "P1_COUNT_SENSITIVITY",
    "METHODS",
    "PRIVATE_METHODS",
    "N_ITER_RULES",
    "SYNTHETIC",
    "P1Data",
    "NonPrivateFit",
    "load_p1_data",
    "public_n_classes",
    "stratified_splits",
    "nonprivate_optimum",
    "evaluate_weights",
    "private_lasso_experiment",
]

DEFAULT_EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0)
"""The experiments' privacy budgets (``experiments.md``)."""

P1_COUNT_SENSITIVITY = 1
r"""P1's count sensitivity :math:`\Delta_c`, used by every experiment that reproduces P1.

Declared, not proven, and false in general (the book's ``prop-count-sensitivity``); the
library's default is the proven bound (``count_sensitivity="max"``). Every Sparsifier,
two-stage and DP-IGHT number computed with it holds its privacy claim only conditionally."""

METHODS = ("non-private", "random-init", "zero-init", "sparsifier", "default", "l2")
"""Methods in the output of :func:`private_lasso_experiment`.

``non-private``: the exact optimum of the L1-constrained problem (certified working-set solver);
``random-init``: private Frank-Wolfe from a uniform point of the ball (Talwar et al.'s start,
P1's "naive" variant); ``zero-init``: private Frank-Wolfe from zero ("private LASSO");
``sparsifier``: P1's Sparsifier; ``default``: beyond P1, the library's default
``SparseDPLogisticRegression()`` (:func:`dplasso.estimators.default_sparsifier_trials`: the
joint release of size and threshold; every part proven); ``l2``: the L2 reference beside them,
``ObjectivePerturbationClassifier()`` (L2 objective perturbation, then its private threshold;
one-vs-rest for more than two classes). Each method's noise stream is keyed
by its place here, so a method added last leaves the others' results unchanged.
"""

PRIVATE_METHODS = METHODS[1:]
"""The methods that spend a privacy budget."""

N_ITER_RULES = ("auto", "talwar")
"""Step-count rules of :func:`private_lasso_experiment`."""

_INIT = {"random-init": "random", "zero-init": "zero"}
_TEST_SIZE = 0.2


# ---------------------------------------------------------------------------------------
# data, splits, the non-private reference and evaluation


@dataclass(frozen=True, eq=False)
class P1Data:
    """One dataset of the P1 experiments.

    Attributes
    ----------
    name : str
        Catalogue name, or ``"synthetic"``.
    code : int
        OpenML id, 0 for the synthetic set (a key of the seeds and the cache).
    X : ndarray or scipy.sparse.csr_matrix of shape (n, p)
        Rows with :math:`\\|x_i\\|_\\infty \\le 1`, no intercept column.
    y : ndarray of int64 of shape (n,)
        Labels ``0..C-1``.
    n_classes : int
        ``C``, the size of the public label set: the catalogue's (checked against the
        data), 2 for the synthetic set; the fits use it, never the labels present in a split.
    w_true : ndarray of shape (p,) or None
        The true coefficients (synthetic data only).
    scaling : str or None, default="max-abs"
        The data map of an OpenML dataset (:data:`dplasso.data.preprocess.SCALINGS`); None
        for the synthetic set, generated in the domain. ``X`` is the map fitted on every row
        (for experiments that use every row); a train/test split uses :meth:`mapped_on`.
    """

    name: str
    code: int
    X: object
    y: np.ndarray
    n_classes: int
    w_true: np.ndarray | None
    scaling: str | None = "max-abs"

    def mapped_on(self, train):
        """Every row mapped by the data map fitted on the rows ``train`` only (read-only;
        the synthetic set as it is): a split's test rows never enter the map's summaries."""
        if self.scaling is None:
            return self.X
        return load_dataset(self.code, self.scaling, fit_rows=train).X


def load_p1_data(dataset, *, synthetic=None, seed=0):
    """Load a dataset of the P1 experiments.

    Parameters
    ----------
    dataset : int or "synthetic"
        An OpenML dataset id (the catalogue's, :func:`dplasso.data.catalog_ids`, or any
        other), or ``"synthetic"``.
    synthetic : dict, optional
        Keyword arguments ``n, p, k, coef_value`` of
        :func:`dplasso.data.sparse_logistic_synthetic` (its defaults where missing).
    seed : int, default=0
        ``random_state`` of the synthetic draw.

    Returns
    -------
    P1Data
    """
    if isinstance(dataset, str):
        if dataset != SYNTHETIC:
            raise ValueError(f"dataset must be an OpenML id or {SYNTHETIC!r}, got {dataset!r}")
        data = sparse_logistic_synthetic(**check_synthetic(synthetic), random_state=seed)
        return P1Data(SYNTHETIC, 0, data.X, data.y, 2, data.w_true, scaling=None)
    dataset = check_openml_id(dataset)
    data = load_dataset(dataset)
    return P1Data(data.name, dataset, data.X, np.asarray(data.y),
                  public_n_classes(dataset, data), None)


def public_n_classes(dataset: int, data) -> int:
    """The size of dataset ``dataset``'s public label set: the catalogue's, or the number of
    values its OpenML target declares (:func:`dplasso.data.dataset_info`); the fits use it,
    never the labels a split holds. A loaded ``data`` with more labels is an error."""
    n_classes = dataset_info(dataset).n_classes
    if data.n_classes > n_classes or (dataset in catalog_ids() and data.n_classes != n_classes):
        raise ValueError(f"OpenML {dataset} has {data.n_classes} classes; its metadata "
                         f"declares {n_classes}")
    return n_classes


def stratified_splits(y, n_splits, *, random_state):
    """``n_splits`` stratified 80/20 train/test splits (index arrays), reproducibly.

    Parameters
    ----------
    y : array-like of shape (n,)
        Labels (every class needs at least two rows).
    n_splits : int
        Number of independent splits.
    random_state : int
        Seed of ``sklearn.model_selection.StratifiedShuffleSplit``.

    Returns
    -------
    list of (ndarray, ndarray)
        ``(train, test)`` row indices, sorted, of each split.
    """
    n_splits = check_int("n_splits", n_splits, 1)
    splitter = StratifiedShuffleSplit(n_splits=n_splits, test_size=_TEST_SIZE,
                                      random_state=random_state)
    y = np.asarray(y)
    return [(np.sort(train), np.sort(test))
            for train, test in splitter.split(np.zeros((y.size, 1)), y)]


@dataclass(frozen=True)
class NonPrivateFit:
    """The exact optimum of the L1-constrained problem on one training set.

    Attributes
    ----------
    W : ndarray of shape (p, 1) or (p, C, 1)
        Coefficients of the input features (a trial axis of length 1).
    intercept : ndarray of shape (1,) or (C, 1)
        Coefficient(s) of the constant feature.
    count : int
        Nonzero coefficients (intercept excluded): the Sparsifier's non-private count.
    converged : bool
        Whether the certified solver reached its Wolfe-gap target.
    gap : float
        The certified Wolfe gap at ``W``.
    objective : float
        The optimum's training loss.
    """

    W: np.ndarray
    intercept: np.ndarray
    count: int
    converged: bool
    gap: float
    objective: float


def nonprivate_optimum(X, y, *, lam, n_classes=2, fit_intercept=True):
    r"""Solve the private fits' problem without privacy: the reference and the count.

    The same problem as every private fit here (logistic or multinomial loss, radius ``lam``,
    the intercept as a constant feature inside the ball) solved to the certified solver's
    default certified accuracy, exactly as :func:`dplasso.estimators.lasso_support_size`
    solves it, so ``count`` is the Sparsifier's :math:`c`.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, p)
        Training rows, :math:`\|x_i\|_\infty \le 1`.
    y : array-like of shape (n,)
        Labels ``0..n_classes-1``.
    lam : float
        L1-ball radius.
    n_classes : int, default=2
    fit_intercept : bool, default=True
        False: no constant feature (the intercept is 0).

    Returns
    -------
    NonPrivateFit
        Not private: the count may be released only through
        :func:`dplasso.estimators.noisy_count`.
    """
    loss, _ = classification_loss(n_classes)
    design = prepare_design(X, fit_intercept=fit_intercept, bounds="error")
    solution = solve_working_set(loss, design, y, lam)
    w = solution.w[..., np.newaxis]
    if not fit_intercept:
        w = np.concatenate([w, np.zeros_like(w[:1])])
    return NonPrivateFit(W=w[:-1], intercept=w[-1], count=int(np.count_nonzero(w[:-1])),
                         converged=bool(solution.converged), gap=float(solution.gap),
                         objective=float(solution.objective))


def evaluate_weights(W, intercept, X, y):
    """Test accuracy, AUROC and nonzeros of ``K`` linear models at once.

    Parameters
    ----------
    W : ndarray of shape (p, K) or (p, C, K)
        Coefficients (binary: of class 1).
    intercept : ndarray of shape (K,) or (C, K)
    X : ndarray or scipy.sparse matrix of shape (n, p)
        Test rows.
    y : ndarray of shape (n,)
        Test labels ``0..C-1``.

    Returns
    -------
    dict of ndarray of shape (K,)
        ``accuracy``; ``auroc`` (binary: the Mann-Whitney statistic of the scores, ties
        counted one half; NaN for more than two classes); ``nnz`` (nonzero coefficients,
        intercept excluded).
    """
    W = np.asarray(W, dtype=np.float64)
    n_trials = W.shape[-1]
    y = np.asarray(y)
    nnz = np.count_nonzero(W.reshape(-1, n_trials), axis=0)
    if W.ndim == 2:
        scores = np.asarray(X @ W) + intercept[np.newaxis, :]
        accuracy = ((scores > 0) == (y[:, np.newaxis] == 1)).mean(axis=0)
        positive = y == 1
        n_pos, n_neg = int(positive.sum()), int((~positive).sum())
        ranks = rankdata(scores, axis=0)  # average ranks for ties
        auroc = (ranks[positive].sum(axis=0) - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)
    else:
        p, n_classes, _ = W.shape
        scores = np.asarray(X @ W.reshape(p, n_classes * n_trials))
        scores = scores.reshape(-1, n_classes, n_trials) + intercept[np.newaxis]
        accuracy = (np.argmax(scores, axis=1) == y[:, np.newaxis]).mean(axis=0)
        auroc = np.full(n_trials, math.nan)
    return {"accuracy": accuracy, "auroc": auroc, "nnz": nnz}


# ---------------------------------------------------------------------------------------
# private LASSO and the Sparsifier on train/test splits


def private_lasso_experiment(datasets, *, methods=PRIVATE_METHODS[:-1],
                             epsilons=DEFAULT_EPSILONS, n_trials=20, n_splits=None,
                             splits_by_dataset=None, lam=DEFAULT_LAM,
                             count_fraction=DEFAULT_COUNT_FRACTION,
                             count_sensitivity=P1_COUNT_SENSITIVITY, count_noise="geometric",
                             selection="laplace", n_iter_rule="auto", synthetic=None, seed=0,
                             cache_dir=None, progress=False, n_jobs=1):
    r"""Private Frank-Wolfe LASSO (random or zero start) and the Sparsifier, per budget.

    Parameters
    ----------
    datasets : sequence of int or "synthetic"
        OpenML ids (binary or multiclass; the loss follows the number of classes) and/or
        ``"synthetic"`` (see the module docstring).
    methods : sequence of {"random-init", "zero-init", "sparsifier", "default", "l2"}
        Private methods to run (:data:`METHODS`; default: all but ``"l2"``, the L2 reference,
        one-vs-rest for more than two classes); the non-private optimum is always included.
    epsilons : sequence of float, default=(0.1, 0.5, 1, 2, 5)
        Total budgets of one fit (the Sparsifier splits its budget, the others spend it all
        on Frank-Wolfe); ``delta = 1/n^2`` with ``n`` the training rows.
    n_trials : int, default=20
        Trials per (dataset, epsilon, method), each with fresh noise.
    n_splits : int, optional
        Number of distinct train/test splits the trials cycle through (default
        ``n_trials``: a fresh split per trial).
    splits_by_dataset : dict, optional
        ``{dataset: n_splits}`` overrides (for datasets whose non-private solve is slow); an
        OpenML id may also be given as its decimal string (papermill passes dict keys as
        strings).
    lam : float, default=10.0
        L1-ball radius of every fit (:data:`dplasso.estimators.DEFAULT_LAM`).
    count_fraction, count_sensitivity, count_noise, selection
        The Sparsifier's settings (:func:`dplasso.estimators.sparsify_trials`), except that
        ``count_sensitivity`` defaults to P1's :data:`P1_COUNT_SENSITIVITY`, not the library's
        proven ``"max"``; ``selection`` is also the private Frank-Wolfe selection of the other
        methods.
    n_iter_rule : {"auto", "talwar"}, default="auto"
        Frank-Wolfe steps of every private fit: :func:`dplasso.estimators.auto_n_iter` (the
        error bound with its logarithms and constants) or
        :func:`~dplasso.estimators.private_frank_wolfe.talwar_n_iter`
        (:math:`\lceil(\lambda n\varepsilon_{\mathrm{FW}})^{2/3}\rceil`); both public.
    synthetic : dict, optional
        Sizes of the synthetic set (:func:`load_p1_data`).
    seed : int, default=0
        Seeds the splits, the noise and the synthetic draw.
    cache_dir : path-like, optional
        Folder for checkpoints (module docstring).
    progress : bool, default=False
        Show progress bars.
    n_jobs : int, default=1
        Where the units of work run (:func:`dplasso.experiments.execution.run_tasks`: this
        process, joblib workers, or the Dask cluster named by ``DPLASSO_SCHEDULER``).

    Returns
    -------
    pandas.DataFrame
        One row per private fit (``method`` in ``methods``; ``trial`` ``0..n_trials-1``)
        and one per split for ``"non-private"`` (``epsilon`` and ``trial`` NaN). Columns:
        ``dataset, data_id`` (OpenML id, 0 synthetic), ``n_classes, n_train, n_test,
        n_coef`` (``p`` or ``p*C``), ``true_support`` (synthetic: nonzeros of ``w_true``;
        else NaN), ``method, epsilon, epsilon_count, epsilon_fw`` (the Sparsifier's split;
        NaN elsewhere, ``epsilon_fw = epsilon`` for plain private Frank-Wolfe, both NaN for
        ``default``, whose budget has three parts), ``n_iter``
        (Frank-Wolfe steps, automatic), ``split, trial, seed, count`` (the split's
        non-private count :math:`c`), ``target`` (the released :math:`\tilde c`),
        ``nnz``, ``fw_nnz`` (nonzeros of the private Frank-Wolfe output before the
        Sparsifier's top-:math:`\tilde c` step; equal to ``nnz`` for plain private
        Frank-Wolfe, NaN for the non-private rows), ``nnz_on_support`` (synthetic: nonzeros
        on the true support), ``accuracy, auroc`` (test set), ``majority`` (test accuracy of
        predicting the training set's most frequent class: chance), ``count_converged,
        count_gap`` (the certificate of the split's non-private solve, which gives ``count``
        and the non-private row).

    Notes
    -----
    Privacy of one fit (replace-one): private Frank-Wolfe :math:`(\varepsilon,
    \delta)`-DP; the Sparsifier :math:`(\varepsilon, \delta)`-DP if the count's declared
    sensitivity ``count_sensitivity`` holds (see :mod:`dplasso.estimators.count`);
    ``default`` :math:`(\varepsilon, \delta)`-DP by proof (its steps are always
    ``n_iter="auto"``, as in the estimator). The ``n_trials`` repetitions are experiments,
    not one release.
    """
    n_jobs = check_n_jobs(n_jobs)
    datasets = check_datasets(datasets)
    methods = _check_methods(methods)
    epsilons = check_epsilons(epsilons)
    n_trials = check_int("n_trials", n_trials, 1)
    default_splits = n_trials if n_splits is None else check_int("n_splits", n_splits, 1)
    splits_by_dataset = check_splits_by_dataset(splits_by_dataset, datasets)
    if count_noise not in COUNT_NOISES:
        raise ValueError(f"count_noise must be one of {COUNT_NOISES}, got {count_noise!r}")
    if n_iter_rule not in N_ITER_RULES:
        raise ValueError(f"n_iter_rule must be one of {N_ITER_RULES}, got {n_iter_rule!r}")
    synthetic = check_synthetic(synthetic)
    seed = check_int("seed", seed, 0)

    loaded, nonprivate_units, private_units = [], [], []
    for dataset in datasets:
        splits_here = splits_by_dataset.get(dataset, default_splits)
        data_settings = dict(dataset=dataset, lam=lam, seed=seed, n_splits=splits_here,
                             synthetic=synthetic if dataset == SYNTHETIC else None)
        data = load_p1_data(dataset, synthetic=synthetic, seed=seed)
        splits = stratified_splits(data.y, splits_here, random_state=split_seed(seed, data.code))
        loaded.append((data, splits, data_settings))
        nonprivate_units += [(f"p1-nonprivate-{data.code}-split{s}",
                              {**data_settings, "split": s}, (data, splits[s], s, lam, seed))
                             for s in range(splits_here)]
    nonprivate = chunks(cached_tasks(cache_dir, nonprivate_units, _nonprivate_row,
                                     n_jobs=n_jobs, desc="p1 non-private", progress=progress),
                        [len(splits) for _, splits, _ in loaded])
    sizes = []
    for (data, splits, data_settings), frames in zip(loaded, nonprivate):
        settings = dict(data_settings, methods=methods, n_trials=n_trials,
                        count_fraction=count_fraction, count_sensitivity=count_sensitivity,
                        count_noise=count_noise, selection=selection, n_iter_rule=n_iter_rule,
                        epsilons=epsilons)
        units = [(f"p1-private-{data.code}-split{split}", {**settings, "split": split},
                  (data, split, splits[split], frames[split].iloc[0], settings))
                 for split in range(len(splits)) if split < n_trials]
        private_units += units
        sizes.append(len(units))
    private = chunks(cached_tasks(cache_dir, private_units, _private_rows, n_jobs=n_jobs,
                                  desc="p1 private", progress=progress), sizes)
    # each dataset's non-private rows, then its private rows by budget, split and method
    frames = []
    for references, split_frames in zip(nonprivate, private):
        frames += references
        if split_frames:
            rows = pd.concat(split_frames, ignore_index=True)
            order = rows["epsilon"].map({e: i for i, e in enumerate(epsilons)})
            frames.append(rows.iloc[np.lexsort((rows["split"], order))])
    frame = pd.concat(frames, ignore_index=True)
    return frame[_FIT_COLUMNS]


_FIT_COLUMNS = [
    "dataset", "data_id", "n_classes", "n_train", "n_test", "n_coef", "true_support", "method",
    "epsilon", "epsilon_count", "epsilon_fw", "n_iter", "n_iter_rule", "split", "trial", "seed",
    "count",
    "target", "nnz", "fw_nnz", "nnz_on_support", "accuracy", "auroc", "majority",
    "sklearn_accuracy", "count_converged", "count_gap",
]


def _describe(data, split):
    train, test = split
    y_train = data.y[train]
    majority_class = np.bincount(y_train, minlength=data.n_classes).argmax()
    n_coef = data.X.shape[1] * (1 if data.n_classes == 2 else data.n_classes)
    return {
        "dataset": data.name, "data_id": data.code, "n_classes": data.n_classes,
        "n_train": train.size, "n_test": test.size, "n_coef": n_coef,
        "true_support": math.nan if data.w_true is None else int(np.count_nonzero(data.w_true)),
        "majority": float(np.mean(data.y[test] == majority_class)),
    }


def _on_support(data, W):
    if data.w_true is None:
        return np.full(W.shape[-1], math.nan)
    return np.count_nonzero(W[data.w_true != 0], axis=0)


def _nonprivate_row(data, split, s, lam, seed):
    train, test = split
    X = data.mapped_on(train)
    fit = nonprivate_optimum(X[train], data.y[train], lam=lam, n_classes=data.n_classes)
    metrics = evaluate_weights(fit.W, fit.intercept, X[test], data.y[test])
    return pd.DataFrame([{
        **_describe(data, split), "method": "non-private", "epsilon": math.nan,
        "epsilon_count": math.nan, "epsilon_fw": math.nan, "n_iter": math.nan,
        "n_iter_rule": math.nan, "split": s,
        "trial": math.nan, "seed": seed, "count": fit.count, "target": math.nan,
        "nnz": int(metrics["nnz"][0]), "fw_nnz": math.nan,
        "nnz_on_support": _on_support(data, fit.W)[0],
        "accuracy": float(metrics["accuracy"][0]), "auroc": float(metrics["auroc"][0]),
        "sklearn_accuracy": sklearn_l1_accuracy(X[train], data.y[train], X[test],
                                                data.y[test]),
        "count_converged": fit.converged, "count_gap": fit.gap,
    }])


def _private_rows(data, split, indices, reference, s):
    """Every budget and method on one split: the plain private Frank-Wolfe runs and the
    Sparsifier's go through one engine call (:func:`~dplasso.estimators.sparsify_runs`, the
    split's non-private count given), each with the generator of its (budget, split,
    method), so each draws what a call of its own would; ``default`` runs by itself (its
    count and threshold are scored on its own weights, its selection is another)."""
    trials = np.arange(split, s["n_trials"], s["n_splits"])
    train, test = indices
    X = data.mapped_on(train)
    X_train, y_train = X[train], data.y[train]
    count = int(reference["count"])
    plans, runs, fits = [], [], {}
    for epsilon in s["epsilons"]:
        for method in s["methods"]:
            rng = noise_rng(s["seed"], data.code, epsilon, split, METHODS.index(method))
            if method == "default":
                fit = default_sparsifier_trials(X_train, y_train, epsilon=epsilon,
                                                n_classes=data.n_classes,
                                                n_trials=trials.size, random_state=rng)
                fits[epsilon, method] = (fit, math.nan, math.nan)  # three parts
                continue
            if method == "l2":
                fit = objective_perturbation_trials(X_train, y_train, epsilon=epsilon,
                                                    n_trials=trials.size,
                                                    n_classes=data.n_classes,
                                                    threshold="private", random_state=rng)
                fits[epsilon, method] = (fit, math.nan, math.nan)  # weights, threshold
                continue
            if method == "sparsifier":
                _, epsilon_count, epsilon_fw = sparsifier_budget(
                    epsilon, train.size, count="lasso-support",
                    count_fraction=s["count_fraction"], threshold="none")
                runs.append(SparsifierRun(
                    epsilon, trials.size, rng, _n_iter(s, train.size, epsilon_fw),
                    count="lasso-support", count_fraction=s["count_fraction"],
                    count_sensitivity=s["count_sensitivity"], count_noise=s["count_noise"]))
            else:
                epsilon_count, epsilon_fw = math.nan, epsilon
                runs.append(PrivateRun(epsilon_fw, _n_iter(s, train.size, epsilon_fw),
                                       trials.size, _INIT[method], rng))
            plans.append((epsilon, method, epsilon_count, epsilon_fw))
    if runs:
        for (epsilon, method, epsilon_count, epsilon_fw), fit in zip(plans, sparsify_runs(
                X_train, y_train, runs, lam=s["lam"], n_classes=data.n_classes,
                selection=s["selection"], support_size=count)):
            fits[epsilon, method] = (fit, epsilon_count, epsilon_fw)
    rows = []
    for epsilon in s["epsilons"]:
        for method in s["methods"]:
            fit, epsilon_count, epsilon_fw = fits[epsilon, method]
            # the Sparsifier's nonzeros before its cut; the others' (the default's after)
            fw_nnz = (fit.weights_nnz if method == "sparsifier"
                      else np.count_nonzero(fit.W.reshape(-1, trials.size), axis=0))
            metrics = evaluate_weights(fit.W, fit.intercept, X[test], data.y[test])
            rows.append(pd.DataFrame({
                **_describe(data, indices), "method": method, "epsilon": epsilon,
                "epsilon_count": epsilon_count, "epsilon_fw": epsilon_fw,
                "n_iter": fit.n_iter, "n_iter_rule": s["n_iter_rule"], "split": split,
                "trial": trials, "seed": s["seed"],
                "count": count, "target": (np.full(trials.size, math.nan)
                                           if fit.n_nonzero_target is None
                                           else fit.n_nonzero_target),
                "nnz": metrics["nnz"], "fw_nnz": fw_nnz,
                "nnz_on_support": _on_support(data, fit.W), "accuracy": metrics["accuracy"],
                "auroc": metrics["auroc"],
                "count_converged": bool(reference["count_converged"]),
                "count_gap": float(reference["count_gap"]),
            }))
    return pd.concat(rows, ignore_index=True)


def _n_iter(settings, n_train, epsilon_fw):
    if settings["n_iter_rule"] == "talwar":
        return talwar_n_iter(settings["lam"], n_train, epsilon_fw)
    return "auto"


def _check_methods(methods):
    methods = [methods] if isinstance(methods, str) else list(methods)
    bad = [m for m in methods if m not in PRIVATE_METHODS]
    if not methods or bad or len(set(methods)) != len(methods):
        raise ValueError(f"methods must be distinct values among {PRIVATE_METHODS}, got {methods}")
    return methods
