r"""Experiments of paper P1 (sparse private LASSO logistic regression): parameters in, tables out.

Three experiment functions, each returning a tidy :class:`pandas.DataFrame`:

- :func:`private_lasso_experiment`: private Frank-Wolfe LASSO from a random start and from
  zero, and the Sparsifier, against the exact non-private optimum of the same L1-constrained
  problem, on train/test splits of binary or multiclass datasets, for each privacy budget
  (artifacts ``p1-dense``, ``p1-sparsity``, ``p1-multinomial``);
- :func:`count_noise_experiment`: the distribution of the Sparsifier's final number of
  nonzeros as the count's budget :math:`\varepsilon_1` shrinks, double-geometric against
  rounded Laplace count noise (``p1-count-noise``), with the exact noise spread
  :func:`count_noise_sd`;
- :func:`rate_experiment`: the excess empirical logistic risk of private Frank-Wolfe against
  the number of rows ``n`` (``p1-rate``), summarised by :func:`fit_rate_slope`.

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
its own step count and noise stream: :func:`dplasso.estimators.private_frank_wolfe_runs`;
``default`` alone runs by itself), so one product ``X^T R`` per step serves them all. The non-private optimum of a split is
solved once and shared by every budget and method: it gives the reference accuracy and the
Sparsifier's count :math:`c` (the same number
:func:`dplasso.estimators.lasso_support_size` returns).

**The Sparsifier** is composed here from the library's public pieces exactly as
:func:`dplasso.estimators.sparsify_trials` composes them (count noise first, then private
Frank-Wolfe at :math:`\varepsilon_2 = (1-f)\varepsilon`, then the top-:math:`\tilde c`
step, one generator for both), so that the count, the expensive part, is solved once per split
rather than once per budget; the unit tests check that both give the same output for the
same seed.

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
import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import rankdata
from sklearn.model_selection import StratifiedShuffleSplit
from tqdm import tqdm

from dplasso.baselines.nonprivate import sklearn_l1_accuracy
from dplasso.data import catalog_entry, catalog_ids, load_dataset, sparse_logistic_synthetic
from dplasso.estimators import (
    COUNT_NOISES,
    default_sparsifier_trials,
    DEFAULT_COUNT_FRACTION,
    DEFAULT_LAM,
    keep_largest_entries,
    noisy_count,
    private_frank_wolfe_trials,
    resolve_count_sensitivity,
    split_budget,
)
from dplasso.estimators.private_frank_wolfe import (
    PrivateRun,
    private_frank_wolfe_runs,
    talwar_n_iter,
)
from dplasso.estimators.problem import classification_loss, prepare_design
from dplasso.estimators.threshold import (
    DEFAULT_THRESHOLD_FRACTION,
    release_threshold,
    split_threshold_budget,
)
from dplasso.experiments.checkpoint import cached, cached_tasks, chunks
from dplasso.experiments.execution import check_n_jobs
from dplasso.optim.working_set import solve_working_set
from dplasso.privacy.rng import as_generator

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
    "stratified_splits",
    "nonprivate_optimum",
    "evaluate_weights",
    "sparsifier_from_count",
    "private_lasso_experiment",
    "count_noise_sd",
    "count_noise_experiment",
    "count_release_error",
    "rate_experiment",
    "fit_rate_slope",
]

DEFAULT_EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0)
"""The experiments' privacy budgets (``experiments.md``)."""

P1_COUNT_SENSITIVITY = 1
r"""P1's count sensitivity :math:`\Delta_c`, used by every experiment that reproduces P1.

Declared, not proven, and false in general (the book's ``prop-count-sensitivity``); the
library's default is the proven bound (``count_sensitivity="max"``). Every Sparsifier,
two-stage and DP-IGHT number computed with it holds its privacy claim only conditionally."""

SYNTHETIC = "synthetic"
"""Dataset name of P1's synthetic family (:func:`dplasso.data.sparse_logistic_synthetic`)."""

METHODS = ("non-private", "random-init", "zero-init", "sparsifier", "default")
"""Methods in the output of :func:`private_lasso_experiment`.

``non-private``: the exact optimum of the L1-constrained problem (certified working-set solver);
``random-init``: private Frank-Wolfe from a uniform point of the ball (Talwar et al.'s start,
P1's "naive" variant); ``zero-init``: private Frank-Wolfe from zero ("private LASSO");
``sparsifier``: P1's Sparsifier; ``default``: beyond P1, the library's default
``SparsifierClassifier()`` (:func:`dplasso.estimators.default_sparsifier_trials`: the joint
release of size and threshold; every part proven). Each method's noise stream is keyed
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
        An OpenML id of the catalogue (:func:`dplasso.data.catalog_ids`), or ``"synthetic"``.
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
        data = sparse_logistic_synthetic(**_check_synthetic(synthetic), random_state=seed)
        return P1Data(SYNTHETIC, 0, data.X, data.y, 2, data.w_true, scaling=None)
    if isinstance(dataset, bool) or not isinstance(dataset, numbers.Integral) \
            or dataset not in catalog_ids():
        raise ValueError(f"dataset must be an OpenML id of the catalogue {catalog_ids()} or "
                         f"{SYNTHETIC!r}, got {dataset!r}")
    data = load_dataset(int(dataset))
    n_classes = catalog_entry(int(dataset)).n_classes  # the public label set's size
    if data.n_classes != n_classes:
        raise ValueError(f"OpenML {dataset} has {data.n_classes} classes; the catalogue "
                         f"declares {n_classes}")
    return P1Data(data.name, int(dataset), data.X, np.asarray(data.y), n_classes, None)


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
    n_splits = _check_int("n_splits", n_splits, 1)
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


def nonprivate_optimum(X, y, *, lam, n_classes=2):
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

    Returns
    -------
    NonPrivateFit
        Not private: the count may be released only through
        :func:`dplasso.estimators.noisy_count`.
    """
    loss, _ = classification_loss(n_classes)
    design = prepare_design(X, fit_intercept=True, bounds="error")
    solution = solve_working_set(loss, design, y, lam)
    w = solution.w[..., np.newaxis]
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


def sparsifier_from_count(X, y, count, *, epsilon, lam, n_trials, n_classes=2,
                          count_fraction=DEFAULT_COUNT_FRACTION,
                          count_sensitivity=P1_COUNT_SENSITIVITY,
                          count_noise="geometric", selection="laplace", threshold="none",
                          threshold_fraction=DEFAULT_THRESHOLD_FRACTION, n_iter="auto",
                          random_state=None):
    r"""``K`` Sparsifier fits from a precomputed non-private count.

    Same steps, order and generator use as :func:`dplasso.estimators.sparsify_trials`
    (``n_iter="auto"``, ``delta = 1/n^2``, intercept inside the ball): the noisy count
    :math:`\tilde c` of each trial first, then ``K`` private Frank-Wolfe fits from zero at
    :math:`\varepsilon_2 = (1 - f)\varepsilon`, then the top-:math:`\tilde c` step. Only the
    non-private count is passed in, so one count serves every budget.

    Parameters
    ----------
    X, y
        Training data (as for :func:`dplasso.estimators.sparsify_trials`).
    count : int
        :math:`c`, from :func:`nonprivate_optimum` on the same ``X, y`` and ``lam``.
    epsilon : float
        Total budget of one trial.
    lam : float
    n_trials : int
    n_classes : int, default=2
    count_fraction, count_sensitivity, count_noise, selection, threshold, threshold_fraction
        As in :func:`dplasso.estimators.sparsify_trials` (the threshold takes its share
        first and is released last).
    n_iter : int or "auto", default="auto"
        Frank-Wolfe steps.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    W : ndarray of shape (p, K) or (p, C, K)
    intercept : ndarray of shape (K,) or (C, K)
        With ``threshold="private"``, the released offsets included.
    targets : ndarray of int of shape (K,)
        :math:`\tilde c` of each trial.
    fit : TrialsResult
        The private Frank-Wolfe part (its ``guarantee`` is :math:`\varepsilon_2` only).
    """
    rng = as_generator(random_state)
    epsilon_threshold, epsilon_rest = split_threshold_budget(epsilon, threshold,
                                                             threshold_fraction)
    epsilon_count, epsilon_fw = split_budget(epsilon_rest, count_fraction)
    n_coef = X.shape[1] * (1 if n_classes == 2 else n_classes)
    targets = noisy_count(count, epsilon_count, count_sensitivity, count_noise, rng,
                          n_max=n_coef, size=n_trials)
    fit = private_frank_wolfe_trials(X, y, lam=lam, n_iter=n_iter, epsilon=epsilon_fw,
                                     n_trials=n_trials, n_classes=n_classes,
                                     selection=selection, init="zero", random_state=rng)
    W, intercept = keep_largest_entries(fit.W, targets), fit.intercept
    if threshold == "private":
        intercept, _ = release_threshold(prepare_design(X, fit_intercept=True, bounds="error"),
                                         y, W, intercept, n_classes=n_classes,
                                         epsilon=epsilon_threshold, rng=rng)
    return W, intercept, targets, fit


# ---------------------------------------------------------------------------------------
# private LASSO and the Sparsifier on train/test splits


def private_lasso_experiment(datasets, *, methods=PRIVATE_METHODS, epsilons=DEFAULT_EPSILONS,
                             n_trials=20, n_splits=None, splits_by_dataset=None,
                             lam=DEFAULT_LAM, count_fraction=DEFAULT_COUNT_FRACTION,
                             count_sensitivity=P1_COUNT_SENSITIVITY, count_noise="geometric",
                             selection="laplace", n_iter_rule="auto", synthetic=None, seed=0,
                             cache_dir=None, progress=False, n_jobs=1):
    r"""Private Frank-Wolfe LASSO (random or zero start) and the Sparsifier, per budget.

    Parameters
    ----------
    datasets : sequence of int or "synthetic"
        OpenML ids (binary or multiclass; the loss follows the number of classes) and/or
        ``"synthetic"`` (see the module docstring).
    methods : sequence of {"random-init", "zero-init", "sparsifier", "default"}, default=all
        Private methods to run (:data:`METHODS`); the non-private optimum is always included.
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
    datasets = _check_datasets(datasets)
    methods = _check_methods(methods)
    epsilons = _check_epsilons(epsilons)
    n_trials = _check_int("n_trials", n_trials, 1)
    default_splits = n_trials if n_splits is None else _check_int("n_splits", n_splits, 1)
    splits_by_dataset = _check_splits_by_dataset(splits_by_dataset, datasets)
    if count_noise not in COUNT_NOISES:
        raise ValueError(f"count_noise must be one of {COUNT_NOISES}, got {count_noise!r}")
    if n_iter_rule not in N_ITER_RULES:
        raise ValueError(f"n_iter_rule must be one of {N_ITER_RULES}, got {n_iter_rule!r}")
    synthetic = _check_synthetic(synthetic)
    seed = _check_int("seed", seed, 0)

    loaded, nonprivate_units, private_units = [], [], []
    for dataset in datasets:
        splits_here = splits_by_dataset.get(dataset, default_splits)
        data_settings = dict(dataset=dataset, lam=lam, seed=seed, n_splits=splits_here,
                             synthetic=synthetic if dataset == SYNTHETIC else None)
        data = load_p1_data(dataset, synthetic=synthetic, seed=seed)
        splits = stratified_splits(data.y, splits_here, random_state=_split_seed(seed, data.code))
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
    Sparsifier's (count drawn first) go through one engine call
    (:func:`~dplasso.estimators.private_frank_wolfe_runs`), each with the generator of its
    (budget, split, method), so each draws what a call of its own would; ``default`` runs
    by itself (its count and threshold are scored on its own weights)."""
    trials = np.arange(split, s["n_trials"], s["n_splits"])
    train, test = indices
    X = data.mapped_on(train)
    X_train, y_train = X[train], data.y[train]
    count = int(reference["count"])
    n_coef = X_train.shape[1] * (1 if data.n_classes == 2 else data.n_classes)
    common = dict(lam=s["lam"], n_classes=data.n_classes, selection=s["selection"])
    plans, runs, fits = [], [], {}
    for epsilon in s["epsilons"]:
        for method in s["methods"]:
            rng = _noise_rng(s["seed"], data.code, epsilon, split, METHODS.index(method))
            if method == "default":
                fit = default_sparsifier_trials(X_train, y_train, epsilon=epsilon,
                                                n_classes=data.n_classes,
                                                n_trials=trials.size, random_state=rng)
                fits[epsilon, method] = (fit.W, fit.intercept, fit.n_nonzero_target, fit,
                                         math.nan, math.nan)  # three parts
                continue
            if method == "sparsifier":
                epsilon_count, epsilon_fw = split_budget(epsilon, s["count_fraction"])
                targets = noisy_count(count, epsilon_count, s["count_sensitivity"],
                                      s["count_noise"], rng, n_max=n_coef, size=trials.size)
                init = "zero"
            else:
                epsilon_count, epsilon_fw = math.nan, epsilon
                targets, init = np.full(trials.size, math.nan), _INIT[method]
            plans.append((epsilon, method, targets, epsilon_count, epsilon_fw))
            runs.append(PrivateRun(epsilon_fw, _n_iter(s, train.size, epsilon_fw),
                                   trials.size, init, rng))
    if runs:
        for (epsilon, method, targets, epsilon_count, epsilon_fw), fit in zip(
                plans, private_frank_wolfe_runs(X_train, y_train, runs, **common)):
            W = keep_largest_entries(fit.W, targets) if method == "sparsifier" else fit.W
            fits[epsilon, method] = (W, fit.intercept, targets, fit, epsilon_count, epsilon_fw)
    rows = []
    for epsilon in s["epsilons"]:
        for method in s["methods"]:
            W, intercept, targets, fit, epsilon_count, epsilon_fw = fits[epsilon, method]
            metrics = evaluate_weights(W, intercept, X[test], data.y[test])
            rows.append(pd.DataFrame({
                **_describe(data, indices), "method": method, "epsilon": epsilon,
                "epsilon_count": epsilon_count, "epsilon_fw": epsilon_fw,
                "n_iter": fit.n_iter, "n_iter_rule": s["n_iter_rule"], "split": split,
                "trial": trials, "seed": s["seed"],
                "count": count, "target": targets, "nnz": metrics["nnz"],
                "fw_nnz": np.count_nonzero(fit.W.reshape(-1, trials.size), axis=0),
                "nnz_on_support": _on_support(data, W), "accuracy": metrics["accuracy"],
                "auroc": metrics["auroc"],
                "count_converged": bool(reference["count_converged"]),
                "count_gap": float(reference["count_gap"]),
            }))
    return pd.concat(rows, ignore_index=True)


def _n_iter(settings, n_train, epsilon_fw):
    if settings["n_iter_rule"] == "talwar":
        return talwar_n_iter(settings["lam"], n_train, epsilon_fw)
    return "auto"


# ---------------------------------------------------------------------------------------
# p1-count-noise


def count_noise_sd(epsilon_count, sensitivity, noise):
    r"""Exact standard deviation of the count noise (before clipping).

    Parameters
    ----------
    epsilon_count : float
        The count's budget :math:`\varepsilon_1 > 0`.
    sensitivity : int
        Declared sensitivity :math:`\Delta_c`.
    noise : {"geometric", "laplace"}

    Returns
    -------
    float
        ``"geometric"``: :math:`Z` double-geometric, :math:`P(k) \propto \alpha^{|k|}`,
        :math:`\alpha = e^{-\varepsilon_1/\Delta_c}`, so
        :math:`\mathrm{Var}\,Z = 2\alpha/(1-\alpha)^2`. ``"laplace"``: :math:`Z` the
        rounded :math:`\mathrm{Lap}(b)`, :math:`b = \Delta_c/\varepsilon_1`, so :math:`P(Z =
        k) = \sinh(1/(2b))\, x^{|k|}` for :math:`k \ne 0`, :math:`x = e^{-1/b}`, and
        :math:`\mathrm{Var}\,Z = 2\sinh(1/(2b))\, x(1+x)/(1-x)^3`
        (:math:`\sum_k k^2 x^k = x(1+x)/(1-x)^3`). For large :math:`b` the variances are
        :math:`2b^2 - 1/6` and :math:`2b^2 + 1/12` plus :math:`O(b^{-2})`: the double
        geometric is narrower, by less and less as :math:`\varepsilon_1` shrinks.
    """
    if not (isinstance(epsilon_count, numbers.Real) and math.isfinite(epsilon_count)
            and epsilon_count > 0):
        raise ValueError(f"epsilon_count must be a finite number > 0, got {epsilon_count!r}")
    sensitivity = _check_int("sensitivity", sensitivity, 1)
    if noise not in COUNT_NOISES:
        raise ValueError(f"noise must be one of {COUNT_NOISES}, got {noise!r}")
    x = math.exp(-epsilon_count / sensitivity)
    if noise == "geometric":
        return math.sqrt(2.0 * x) / (1.0 - x)
    b = sensitivity / epsilon_count
    return math.sqrt(2.0 * math.sinh(0.5 / b) * x * (1.0 + x) / (1.0 - x) ** 3)


def count_noise_experiment(dataset, *, epsilons_count, epsilon_fw, noises=COUNT_NOISES,
                           n_fw_trials=100, n_draws=10000, lam=DEFAULT_LAM,
                           count_sensitivity=P1_COUNT_SENSITIVITY, selection="laplace",
                           synthetic=None, seed=0, cache_dir=None, progress=False):
    r"""The Sparsifier's final number of nonzeros as the count's budget shrinks.

    One dataset, all its rows as the training set (the subject is the count release, not
    test performance). The non-private count :math:`c` is solved once; private
    Frank-Wolfe at the fixed budget ``epsilon_fw`` runs ``n_fw_trials`` times in one engine
    call; then for each count noise and budget :math:`\varepsilon_1`, ``n_draws`` noisy
    counts :math:`\tilde c_j` are drawn and draw ``j`` keeps the :math:`\tilde c_j` largest
    coefficients of Frank-Wolfe trial ``j mod n_fw_trials`` (the Sparsifier's output
    distribution, with the Frank-Wolfe part held fixed so that only the count varies; the
    counts are cheap, so they get many more draws).

    Parameters
    ----------
    dataset : int or "synthetic"
    epsilons_count : sequence of float
        Budgets :math:`\varepsilon_1` of the count.
    epsilon_fw : float
        Budget :math:`\varepsilon_2` of private Frank-Wolfe (``delta = 1/n^2``, automatic
        ``T``); a Sparsifier fit then spends :math:`\varepsilon_1 + \varepsilon_2`.
    noises : sequence of {"geometric", "laplace"}, default=both
    n_fw_trials : int, default=100
    n_draws : int, default=10000
        Noisy counts per (noise, :math:`\varepsilon_1`).
    lam, count_sensitivity, selection, synthetic, seed, cache_dir, progress
        As in :func:`private_lasso_experiment`; the whole table is one checkpoint unit.

    Returns
    -------
    pandas.DataFrame
        One row per (noise, :math:`\varepsilon_1`, draw): ``dataset, noise, epsilon_count,
        epsilon_fw, n_iter, draw, fw_trial, count`` (:math:`c`), ``target``
        (:math:`\tilde c`), ``fw_nnz`` (nonzeros before the top-:math:`\tilde c` step),
        ``nnz`` (after), ``n_coef``, ``noise_sd`` (:func:`count_noise_sd`), ``seed``.
    """
    epsilons_count = _check_epsilons(epsilons_count, name="epsilons_count")
    (epsilon_fw,) = _check_epsilons([epsilon_fw], name="epsilon_fw")
    noises = list(noises)
    if not noises or any(noise not in COUNT_NOISES for noise in noises):
        raise ValueError(f"noises must be among {COUNT_NOISES}, got {noises}")
    n_fw_trials = _check_int("n_fw_trials", n_fw_trials, 1)
    n_draws = _check_int("n_draws", n_draws, 1)
    synthetic = _check_synthetic(synthetic)
    seed = _check_int("seed", seed, 0)
    (dataset,) = _check_datasets([dataset])
    settings = dict(dataset=dataset, epsilons_count=epsilons_count, epsilon_fw=epsilon_fw,
                    noises=noises, n_fw_trials=n_fw_trials, n_draws=n_draws, lam=lam,
                    count_sensitivity=count_sensitivity, selection=selection, seed=seed,
                    synthetic=synthetic if dataset == SYNTHETIC else None)

    def compute():
        data = load_p1_data(dataset, synthetic=synthetic, seed=seed)
        count = nonprivate_optimum(data.X, data.y, lam=lam, n_classes=data.n_classes).count
        fit = private_frank_wolfe_trials(
            data.X, data.y, lam=lam, n_iter="auto", epsilon=epsilon_fw, n_trials=n_fw_trials,
            n_classes=data.n_classes, selection=selection, init="zero",
            random_state=_noise_rng(seed, data.code, epsilon_fw, 0, 0))
        fw_trial = np.arange(n_draws) % n_fw_trials
        W = fit.W.reshape(-1, n_fw_trials)[:, fw_trial]
        fw_nnz = np.count_nonzero(W, axis=0)
        frames = []
        cases = [(noise, e) for noise in noises for e in epsilons_count]
        for noise, epsilon_count in tqdm(cases, desc="count noise", disable=not progress):
            rng = _noise_rng(seed, data.code, epsilon_count, 0, 1 + COUNT_NOISES.index(noise))
            targets = noisy_count(count, epsilon_count, count_sensitivity, noise, rng,
                                  n_max=W.shape[0], size=n_draws)
            frames.append(pd.DataFrame({
                "dataset": data.name, "noise": noise, "epsilon_count": epsilon_count,
                "epsilon_fw": epsilon_fw, "n_iter": fit.n_iter, "draw": np.arange(n_draws),
                "fw_trial": fw_trial, "count": count, "target": targets, "fw_nnz": fw_nnz,
                "nnz": np.count_nonzero(keep_largest_entries(W, targets), axis=0),
                "n_coef": W.shape[0],
                "noise_sd": count_noise_sd(
                    epsilon_count, resolve_count_sensitivity(count_sensitivity, W.shape[0]),
                    noise),
                "seed": seed,
            }))
        return pd.concat(frames, ignore_index=True)

    return cached(cache_dir, "p1-count-noise", settings, compute)


def count_release_error(datasets, counts, n_countable, *, epsilon_count,
                        sensitivities=(P1_COUNT_SENSITIVITY, "max"), noise="geometric",
                        n_draws=10000, seed=0):
    r"""How much of the count survives its release, at each count sensitivity.

    For each dataset, ``n_draws`` releases :math:`\tilde c = \mathrm{clip}(c + Z, 1, m)` by
    :func:`dplasso.estimators.noisy_count` at budget :math:`\varepsilon_1` and each
    sensitivity (P1's declared 1 and the library's proven ``"max"`` = :math:`m` by default).

    Parameters
    ----------
    datasets : sequence of str
        Names, one per count.
    counts : sequence of int
        The non-private counts :math:`c`, ``0 <= c <= m``.
    n_countable : sequence of int
        :math:`m` per dataset (``p``, or ``p*C``).
    epsilon_count : float
        :math:`\varepsilon_1 > 0`.
    sensitivities : sequence of "max" or int, default=(1, "max")
    noise : {"geometric", "laplace"}, default="geometric"
    n_draws : int, default=10000
    seed : int, default=0
        Dataset ``i`` draws from ``SeedSequence([seed, i])``, one stream per sensitivity.

    Returns
    -------
    pandas.DataFrame
        One row per (dataset, sensitivity): ``dataset, c, m, count_sensitivity`` (as given),
        ``sensitivity`` (resolved :math:`\Delta_c`), ``epsilon_count, noise_sd``
        (:func:`count_noise_sd`, before clipping), ``mean_abs_error`` (mean
        :math:`|\tilde c - c|`), ``at_ends`` (share of releases equal to 1 or :math:`m`, the
        clip bounds), ``n_draws``.
    """
    n_draws = _check_int("n_draws", n_draws, 1)
    seed = _check_int("seed", seed, 0)
    rows = []
    for i, (name, c, m) in enumerate(zip(datasets, counts, n_countable, strict=True)):
        streams = np.random.SeedSequence([seed, i]).spawn(len(sensitivities))
        for given, stream in zip(sensitivities, streams):
            sensitivity = resolve_count_sensitivity(given, int(m))
            released = noisy_count(int(c), epsilon_count, sensitivity, noise,
                                   np.random.default_rng(stream), n_max=int(m), size=n_draws)
            rows.append({
                "dataset": name, "c": int(c), "m": int(m), "count_sensitivity": str(given),
                "sensitivity": sensitivity, "epsilon_count": float(epsilon_count),
                "noise_sd": count_noise_sd(epsilon_count, sensitivity, noise),
                "mean_abs_error": float(np.abs(released - int(c)).mean()),
                "at_ends": float(np.isin(released, (1, int(m))).mean()), "n_draws": n_draws})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------
# p1-rate


def rate_experiment(ns, *, epsilons=(1.0, 5.0), seeds=(0, 1, 2, 3, 4), n_trials=4, p=20, k=5,
                    coef_value=5.0, lam=DEFAULT_LAM, selection="laplace", cache_dir=None,
                    progress=False):
    r"""Excess empirical logistic risk of private Frank-Wolfe against the number of rows.

    For each ``n``, budget and seed, one synthetic data set
    ``sparse_logistic_synthetic(n, p, k, coef_value, random_state=seed)`` is the training
    set; its L1-constrained optimum :math:`L^\star` is solved by the certified working-set
    solver and ``n_trials`` private Frank-Wolfe fits from zero run in one engine call, with
    ``T`` chosen by :func:`dplasso.estimators.auto_n_iter` (the ``T`` minimising Talwar et
    al.'s bound, :math:`T \propto (\lambda n \varepsilon)^{2/3}` up to logarithms) and
    ``delta = 1/n^2``.

    Parameters
    ----------
    ns : sequence of int
        Numbers of rows.
    epsilons : sequence of float, default=(1, 5)
    seeds : sequence of int, default=(0, ..., 4)
        One data set per seed and ``n``.
    n_trials : int, default=4
        Private fits per data set (independent noise).
    p, k, coef_value : default=20, 5, 5.0
        Synthetic sizes.
    lam, selection, cache_dir, progress
        As in :func:`private_lasso_experiment`; one checkpoint per (n, epsilon, seed).

    Returns
    -------
    pandas.DataFrame
        One row per fit: ``n, epsilon, seed, trial, n_iter, objective`` (:math:`L(w_T)` on
        the training set, intercept inside the ball), ``optimum`` (:math:`L^\star`),
        ``excess`` (:math:`L(w_T) - L^\star`), ``zero_excess`` (:math:`L(0) - L^\star`, the
        excess of the zero model), ``converged, gap`` (the reference's certificate).
    """
    ns = [_check_int("each n", n, 2) for n in ns]
    if not ns:
        raise ValueError("ns must hold at least one number of rows")
    epsilons = _check_epsilons(epsilons)
    seeds = [_check_int("each seed", s, 0) for s in seeds]
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be distinct and at least one, got {seeds}")
    n_trials = _check_int("n_trials", n_trials, 1)
    settings = dict(p=p, k=k, coef_value=coef_value, lam=lam, selection=selection,
                    n_trials=n_trials)
    loss, _ = classification_loss(2)

    def compute(n, epsilon, seed):
        data = sparse_logistic_synthetic(n=n, p=p, k=k, coef_value=coef_value,
                                         random_state=seed)
        design = prepare_design(data.X, fit_intercept=True, bounds="error")
        reference = solve_working_set(loss, design, data.y, lam)
        fit = private_frank_wolfe_trials(data.X, data.y, lam=lam, n_iter="auto",
                                         epsilon=epsilon, n_trials=n_trials,
                                         selection=selection, init="zero",
                                         random_state=_noise_rng(seed, n, epsilon, 0, 0))
        objective = loss.value(design, data.y, np.vstack([fit.W, fit.intercept]))
        zero = float(loss.value(design, data.y, np.zeros((design.shape[1], 1)))[0])
        return pd.DataFrame({
            "n": n, "epsilon": epsilon, "seed": seed, "trial": np.arange(n_trials),
            "n_iter": fit.n_iter, "objective": objective, "optimum": reference.objective,
            "excess": objective - reference.objective,
            "zero_excess": zero - reference.objective, "converged": reference.converged,
            "gap": reference.gap,
        })

    units = [(n, e, s) for e in epsilons for n in ns for s in seeds]
    frames = [
        cached(cache_dir, f"p1-rate-n{n}-eps{e:g}-seed{s}", {**settings, "n": n, "epsilon": e,
                                                                "seed": s},
                lambda n=n, e=e, s=s: compute(n, e, s))
        for n, e, s in tqdm(units, desc="p1-rate", unit="fit", disable=not progress)]
    return pd.concat(frames, ignore_index=True)


def fit_rate_slope(rates, *, n_boot=4000, random_state=0):
    r"""Log-log slope of the excess risk against ``n``, per budget, with a bootstrap spread.

    Each data set (one ``(n, seed)``) contributes one point, :math:`(\log n, \log \bar e)`
    with :math:`\bar e` the mean excess over its noise trials; the slope is the
    least-squares fit through all points of one budget. The bootstrap resamples the seeds
    with replacement within each ``n`` (the data sets are independent), refits, and
    repeats ``n_boot`` times.

    Parameters
    ----------
    rates : pandas.DataFrame
        Output of :func:`rate_experiment`.
    n_boot : int, default=4000
    random_state : int, default=0

    Returns
    -------
    pandas.DataFrame
        One row per ``epsilon``: ``slope``, ``intercept`` (of :math:`\log \bar e = a +
        \text{slope}\,\log n`), ``slope_se`` (bootstrap standard deviation), ``ci_low,
        ci_high`` (bootstrap 2.5% and 97.5% quantiles), ``last_slope`` (slope between the
        two largest ``n``, from the per-``n`` means of :math:`\log \bar e`), ``bend``
        (``last_slope - slope``: negative when the curve steepens at large ``n``) with its
        bootstrap standard deviation ``bend_se``, ``n_points``, ``n_min``, ``n_max``.
    """
    n_boot = _check_int("n_boot", n_boot, 2)
    rng = np.random.default_rng(random_state)
    points = rates.groupby(["epsilon", "n", "seed"], as_index=False)["excess"].mean()
    if (points["excess"] <= 0).any():
        raise ValueError("every mean excess must be > 0 to take its logarithm")
    rows = []
    for epsilon, part in points.groupby("epsilon"):
        ns = np.sort(part["n"].unique())
        if ns.size < 2:
            raise ValueError(f"epsilon={epsilon}: a slope needs at least two values of n")
        groups = [np.log(part.loc[part["n"] == n, "excess"].to_numpy()) for n in ns]
        x = np.concatenate([np.full(g.size, math.log(n)) for n, g in zip(ns, groups)])
        slope, intercept = np.polyfit(x, np.concatenate(groups), 1)
        # least squares with fixed x is linear in y: slope = (y - mean y) . (x - mean x) / Sxx
        resampled = np.concatenate(
            [g[rng.integers(0, g.size, size=(n_boot, g.size))] for g in groups], axis=1)
        centred = x - x.mean()
        boot = (resampled - resampled.mean(axis=1, keepdims=True)) @ centred / (centred @ centred)
        means = np.array([g.mean() for g in groups])
        step = math.log(ns[-1] / ns[-2])
        last = (means[-1] - means[-2]) / step
        ends = np.cumsum([0] + [g.size for g in groups])
        boot_last = (resampled[:, ends[-2]:ends[-1]].mean(axis=1)
                     - resampled[:, ends[-3]:ends[-2]].mean(axis=1)) / step
        rows.append({
            "epsilon": epsilon, "slope": slope, "intercept": intercept,
            "slope_se": boot.std(ddof=1), "ci_low": np.quantile(boot, 0.025),
            "ci_high": np.quantile(boot, 0.975),
            "last_slope": last, "bend": last - slope, "bend_se": (boot_last - boot).std(ddof=1),
            "n_points": x.size, "n_min": int(ns[0]), "n_max": int(ns[-1]),
        })
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------
# checks, seeds and checkpoints


def _check_int(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_epsilons(epsilons, name="epsilons"):
    epsilons = [epsilons] if isinstance(epsilons, numbers.Real) else list(epsilons)
    bad = [e for e in epsilons if isinstance(e, bool) or not isinstance(e, numbers.Real)
           or not math.isfinite(e) or e <= 0]
    if not epsilons or bad:
        raise ValueError(f"{name} must hold finite numbers > 0, got {epsilons}")
    if len(set(epsilons)) != len(epsilons):
        raise ValueError(f"{name} must be distinct, got {epsilons}")
    return [float(e) for e in epsilons]


def _check_datasets(datasets):
    datasets = [datasets] if isinstance(datasets, (str, numbers.Integral)) else list(datasets)
    if not datasets:
        raise ValueError("datasets must name at least one dataset")
    if len(set(datasets)) != len(datasets):
        raise ValueError(f"datasets must be distinct, got {datasets}")
    for dataset in datasets:
        if dataset != SYNTHETIC and (isinstance(dataset, bool) or dataset not in catalog_ids()):
            raise ValueError(f"each dataset must be an OpenML id of the catalogue "
                             f"{catalog_ids()} or {SYNTHETIC!r}, got {dataset!r}")
    return datasets


def _check_methods(methods):
    methods = [methods] if isinstance(methods, str) else list(methods)
    bad = [m for m in methods if m not in PRIVATE_METHODS]
    if not methods or bad or len(set(methods)) != len(methods):
        raise ValueError(f"methods must be distinct values among {PRIVATE_METHODS}, got {methods}")
    return methods


def _check_splits_by_dataset(splits_by_dataset, datasets):
    """``{dataset: n_splits}`` with decimal-string keys (papermill's) read as OpenML ids."""
    overrides = {int(key) if isinstance(key, str) and key.isdigit() else key: value
                 for key, value in (splits_by_dataset or {}).items()}
    unknown = sorted(map(str, set(overrides) - set(datasets)))
    if unknown:
        raise ValueError(f"splits_by_dataset names datasets not in datasets: {unknown}")
    return {key: _check_int(f"splits_by_dataset[{key!r}]", value, 1)
            for key, value in overrides.items()}


_SYNTHETIC_KEYS = ("n", "p", "k", "coef_value")


def _check_synthetic(synthetic):
    synthetic = dict(synthetic or {})
    unknown = sorted(set(synthetic) - set(_SYNTHETIC_KEYS))
    if unknown:
        raise ValueError(f"synthetic takes the keys {_SYNTHETIC_KEYS}, got unknown {unknown}")
    return synthetic


def _split_seed(seed, code):
    """A 32-bit seed for the splits of one dataset."""
    return int(np.random.SeedSequence([seed, code, 0x5EED]).generate_state(1)[0])


def _noise_rng(seed, code, epsilon, split, method):
    """The generator of one batched run; ``epsilon`` enters by its exact float bits."""
    bits = int(np.float64(epsilon).view(np.uint64))
    return np.random.default_rng(np.random.SeedSequence([seed, code, bits, split, method]))
