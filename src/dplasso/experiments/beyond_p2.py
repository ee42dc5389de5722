r"""Beyond P2: private screening that screens at most one coordinate per round, against P2's
Algorithm 1 and against no screening, at equal total budget (artifacts ``beyond-p2-*``).

Three variants of private Frank-Wolfe over the ``lam`` L1 ball, all with ``T`` report-noisy-min
steps and the same total ``(epsilon, delta)``:

- ``"no screening"``: the whole budget on the steps (advanced composition, slack ``delta``);
- ``"Algorithm 1"``: P2's rule (:func:`dplasso.screening.make_screening_callback`, every
  coordinate tested each round, Gaussian release), with P2's even split
  ``(epsilon/2, delta/2)`` between the steps and the rounds;
- ``"one per round"``: :func:`dplasso.screening.plan_noisy_min_screening` (report-noisy-min
  over the iterate's nonzero coordinates and "screen nothing"), with a public share of the
  budget.

Every screening round zeroes what it screens and later steps may select it again
(``"zero-and-may-return"``, P2's reading). ``T`` is the library's public rule
(:func:`dplasso.estimators.private_frank_wolfe.auto_n_iter` for the total budget) unless
given; ``delta`` is ``1/n`` (P2's ``delta1 + delta2 = 2/(2n)``) unless given.

Two experiment functions, each returning one row per run (and one reference row per data
set and split), and :func:`choose_rule`, which fixes the one-per-round rule's share
and frequency from the synthetic runs alone:

- :func:`synthetic_experiment`: P2's design (:func:`dplasso.data.synthetic.raj_synthetic`,
  both tasks); support against the true coefficients;
- :func:`real_experiment`: binary OpenML datasets, logistic loss, stratified 80/20 splits;
  support against the non-private solution of the same problem on the training rows.

**Batching and seeds.** All runs of one data set (or split) and one budget go through the
engine together, as the columns of one weight matrix (one product with ``X`` per step for
all; :mod:`dplasso.experiments.columns`): every step's selection is report-noisy-min for
every column, at that column's scale, in one draw
(:class:`~dplasso.experiments.columns.ScaledNoisyMinSelector`); each screening variant has
its own hook on its columns. Their noise comes from a ``SeedSequence`` keyed by
(seed, data set or task, split, epsilon), spawned per run group in the order of the
configurations. **Checkpoints**: with ``cache_dir``, each (task, seed) or (dataset, split)
unit is stored as soon as it is done and read back by a rerun with the same settings; the
units are independent tasks (``n_jobs``, :mod:`dplasso.experiments.execution`).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from dplasso.data import load_dataset
from dplasso.data.synthetic import raj_synthetic
from dplasso.estimators.private_frank_wolfe import auto_n_iter
from dplasso.experiments.checkpoint import cached_tasks
from dplasso.experiments.columns import ColumnCallback, ScaledNoisyMinSelector
from dplasso.experiments.execution import check_n_jobs
from dplasso.experiments.inputs import check_int, check_openml_id
from dplasso.experiments.names import (
    BEYOND_P2_REFERENCE as REFERENCE,
    BEYOND_P2_VARIANTS as VARIANTS,
    TASKS,
)
from dplasso.experiments.p1 import stratified_splits
from dplasso.optim.frank_wolfe import frank_wolfe
from dplasso.optim.losses import LogisticLoss, SquaredLoss
from dplasso.optim.reference import solve_reference
from dplasso.privacy.accounting import advanced_composition, basic_composition
from dplasso.privacy.calibration import calibrate_report_noisy_min, fw_score_sensitivity
from dplasso.privacy.selection import report_noisy_min_event
from dplasso.screening import (
    ScreeningSchedule,
    make_screening_callback,
    plan_noisy_min_screening,
)

__all__ = [
    "VARIANTS",
    "TASKS",
    "REFERENCE",
    "PAPER_RECORD",
    "Config",
    "choose_rule",
    "real_configs",
    "real_experiment",
    "synthetic_configs",
    "synthetic_experiment",
]

PAPER_RECORD = (Path(__file__).resolve().parents[3] / "book" / "paper-results" / "beyond-p2"
                / "beyond-p2.csv")
"""The committed results of ``dplasso reproduce beyond-p2 --profile paper`` (the book's CI
builds the ``ci`` profile; the chapter's claim tests also read this record)."""

_SALT = 0xB2


@dataclass(frozen=True)
class Config:
    """One variant's settings: ``every`` (rounds before every ``every``-th step; None for no
    screening) and ``share`` (``"equal"`` or a number: the one-per-round rule's share; 0.5 for
    Algorithm 1's even split)."""

    variant: str
    every: int | None = None
    share: object = None

    @property
    def share_label(self):
        return "" if self.share is None else str(self.share)


def synthetic_configs(everys, shares):
    """No screening; Algorithm 1 at each frequency; the one-per-round rule at each frequency
    and share."""
    return ([Config("no screening")] + [Config("Algorithm 1", every, 0.5) for every in everys]
            + [Config("one per round", every, share) for share in shares for every in everys])


def real_configs(everys, share):
    """No screening; Algorithm 1 and the one-per-round rule (one share) at each frequency."""
    return synthetic_configs(everys, [share])


# ---------------------------------------------------------------------------------------
# problems


@dataclass(frozen=True, eq=False)
class _Problem:
    """Training and test rows, the loss, the reference support and the keys of the rows."""

    keys: dict
    X: object
    y: np.ndarray
    X_test: object
    y_test: np.ndarray
    loss: object
    support: np.ndarray
    fw_sensitivity: float
    reference: np.ndarray


def _synthetic_problem(task, seed, n, p, n_pos, n_neg, n_test, lam):
    data = raj_synthetic(n=n + n_test, p=p, n_pos=n_pos, n_neg=n_neg, task=task,
                         random_state=seed)
    if task == "linear":
        loss = SquaredLoss(y_bound=data.y_bound)
        sensitivity = fw_score_sensitivity("squared", lam, n, y_bound=data.y_bound)
    else:
        loss = LogisticLoss()
        sensitivity = fw_score_sensitivity("logistic", lam, n)
    X, y = data.X[:n], data.y[:n]
    solution = solve_reference(loss, X, y, lam, tol=1e-12)
    return _Problem(keys={"data": task, "seed": seed}, X=X, y=y, X_test=data.X[n:],
                    y_test=data.y[n:], loss=loss, support=data.w_true != 0,
                    fw_sensitivity=sensitivity, reference=solution.w)


def _real_problem(data_id, split, n_splits, scaling, lam, seed):
    data = load_dataset(int(data_id), scaling)
    y = np.asarray(data.y)
    state = int(np.random.SeedSequence([seed, int(data_id), _SALT]).generate_state(1)[0])
    train, test = stratified_splits(y, n_splits, random_state=state)[split]
    X, y_train = data.X[train], y[train]
    loss = LogisticLoss()
    solution = solve_reference(loss, X, y_train, lam, tol=1e-12)
    return _Problem(keys={"data": data.name, "seed": split}, X=X, y=y_train,
                    X_test=data.X[test], y_test=y[test], loss=loss, support=solution.w != 0,
                    fw_sensitivity=fw_score_sensitivity("logistic", lam, train.size),
                    reference=solution.w)


# ---------------------------------------------------------------------------------------
# one budget, every configuration, one engine call


def _metrics(problem, W):
    """Support, objective and test accuracy of the columns of ``W`` (``K`` runs)."""
    nonzero = W != 0
    support = problem.support[:, np.newaxis]
    hits = (nonzero & support).sum(axis=0)
    nnz = nonzero.sum(axis=0)
    precision = np.where(nnz > 0, hits / np.maximum(nnz, 1), 0.0)
    recall = hits / support.sum()
    f1 = np.where(hits > 0, 2 * precision * recall / np.maximum(precision + recall, 1e-300),
                  0.0)
    squared = isinstance(problem.loss, SquaredLoss)
    scale = 2.0 if squared else 1.0  # the 1/2-squared loss: MSE is twice it
    out = {"nnz": nnz, "true_positive": hits, "precision": precision, "recall": recall,
           "f1": f1, "objective": scale * problem.loss.value(problem.X, problem.y, W),
           "test_objective": scale * problem.loss.value(problem.X_test, problem.y_test, W)}
    margins = np.asarray(problem.X_test @ W)
    out["test_accuracy"] = (np.full(W.shape[1], math.nan) if squared else
                            np.mean((margins > 0) == (problem.y_test[:, np.newaxis] == 1),
                                    axis=0))
    return out


def _budget_runs(problem, configs, epsilon, delta, lam, n_iter, n_trials, rng_key):
    """All ``configs`` at one budget, ``n_trials`` runs each, in one engine call."""
    n, p = problem.X.shape
    delta = 1.0 / n if delta is None else delta
    T = auto_n_iter(lam, n, epsilon, delta, p) if n_iter is None else n_iter
    streams = np.random.SeedSequence(rng_key).spawn(1 + len(configs))
    callbacks, extra = [], []
    for i, config in enumerate(configs):
        cols = np.arange(i * n_trials, (i + 1) * n_trials)
        rng = np.random.default_rng(streams[1 + i])
        if config.variant == "no screening":
            scale = calibrate_report_noisy_min(epsilon, delta, T, problem.fw_sensitivity)
            total = advanced_composition([report_noisy_min_event(
                problem.fw_sensitivity, scale, T)], delta).epsilon
            extra.append((None, scale, math.nan, total))
        elif config.variant == "Algorithm 1":
            scale = calibrate_report_noisy_min(epsilon / 2, delta / 2, T,
                                               problem.fw_sensitivity)
            callback = make_screening_callback(
                problem.X, problem.y, lam, problem.loss, ScreeningSchedule(T, config.every),
                private=True, epsilon=epsilon / 2, delta=delta / 2, rng=rng)
            callbacks.append((cols, callback))
            extra.append((callback, scale, math.nan, None))
        else:
            plan = plan_noisy_min_screening(n, p, lam, problem.loss, T, epsilon, delta,
                                            every=config.every, share=config.share)
            callback = plan.callback(problem.X, problem.y, lam, problem.loss, rng)
            callbacks.append((cols, callback))
            extra.append((callback, plan.fw_scale, plan.screen_scale,
                          plan.guarantee().epsilon))
    select = ScaledNoisyMinSelector(np.repeat([fw_scale for _, fw_scale, _, _ in extra],
                                              n_trials))
    result = frank_wolfe(problem.loss, problem.X, problem.y, lam, T, select,
                         n_trials=len(configs) * n_trials,
                         rng=np.random.default_rng(streams[0]),
                         callback=ColumnCallback(callbacks) if callbacks else None,
                         mask_semantics="zero-and-may-return")
    metrics = _metrics(problem, result.W)
    rows = []
    for i, (config, (callback, fw_scale, screen_scale, total)) in enumerate(zip(configs, extra)):
        cols = slice(i * n_trials, (i + 1) * n_trials)
        screened = (np.zeros((p, n_trials), dtype=bool)
                    if callback is None or callback.screened is None else callback.screened)
        if config.variant == "Algorithm 1":
            screen_scale = float(callback.records[0]["sigma"])
            fw_total = advanced_composition([report_noisy_min_event(
                problem.fw_sensitivity, fw_scale, T)], delta / 2).epsilon
            total = fw_total + basic_composition(callback.ledger.events).epsilon
        for k in range(n_trials):
            rows.append({
                **problem.keys, "epsilon": epsilon, "delta": delta, "n_iter": T,
                "variant": config.variant,
                "every": math.nan if config.every is None else float(config.every),
                "share": config.share_label,
                "trial": k,
                **{name: values[cols][k].item() for name, values in metrics.items()},
                "n_screened": int(screened[:, k].sum()),
                "n_screened_true_nonzero": int((screened[:, k] & problem.support).sum()),
                "n_screened_true_zero": int((screened[:, k] & ~problem.support).sum()),
                "n_true_nonzero": int(problem.support.sum()),
                "fw_scale": fw_scale, "screen_scale": screen_scale, "epsilon_composed": total,
            })
    return rows


def _reference_row(problem):
    """The exact optimum of the same problem (not private): the ceiling of every variant."""
    metrics = _metrics(problem, problem.reference[:, np.newaxis])
    return {**problem.keys, "epsilon": math.nan, "delta": math.nan, "n_iter": math.nan,
            "variant": REFERENCE, "every": math.nan, "share": "", "trial": 0,
            **{name: values[0].item() for name, values in metrics.items()},
            "n_true_nonzero": int(problem.support.sum())}


def _unit_frame(problem, configs, epsilons, delta, lam, n_iter, n_trials, code, seed):
    rows = [_reference_row(problem)]
    for epsilon in epsilons:
        bits = int(np.float64(epsilon).view(np.uint64))
        rows += _budget_runs(problem, configs, epsilon, delta, lam, n_iter, n_trials,
                             [seed, code, problem.keys["seed"], bits, _SALT])
    frame = pd.DataFrame(rows)
    if "n_screened" in frame:
        frame = frame.astype({"n_screened": "Int64", "n_screened_true_nonzero": "Int64",
                              "n_screened_true_zero": "Int64"})
    return frame


# ---------------------------------------------------------------------------------------
# validation


def _check_distinct(name, values, check):
    values = [check(v) for v in values]
    if not values or len(set(values)) != len(values):
        raise ValueError(f"{name} must be a non-empty list of distinct values, got {values}")
    return values


def _check_epsilon(value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (
            math.isfinite(value) and value > 0):
        raise ValueError(f"each epsilon must be a finite number > 0, got {value!r}")
    return float(value)


def _check_share(value):
    if value == "equal":
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < 1:
        raise ValueError(f"each share must be 'equal' or a number in (0, 1), got {value!r}")
    return float(value)


def _check_common(epsilons, everys, n_trials, delta, n_iter, n_jobs):
    epsilons = _check_distinct("epsilons", epsilons, _check_epsilon)
    everys = _check_distinct("everys", everys, lambda v: check_int("each every", v, 1))
    n_trials = check_int("n_trials", n_trials, 1)
    if delta is not None and not (isinstance(delta, numbers.Real) and 0 < delta < 1):
        raise ValueError(f"delta must be None (1/n) or a number in (0, 1), got {delta!r}")
    if n_iter is not None:
        n_iter = check_int("n_iter", n_iter, 1)
        if max(everys) > n_iter:
            raise ValueError(f"every={max(everys)} exceeds n_iter={n_iter}")
    return epsilons, everys, n_trials, n_iter, check_n_jobs(n_jobs)


def _check_frequencies_fit(everys, lam, n, p, epsilons, delta, n_iter):
    """Every frequency must leave at least one round at every budget's ``T``."""
    delta = 1.0 / n if delta is None else delta
    steps = [n_iter] if n_iter is not None else [auto_n_iter(lam, n, e, delta, p)
                                                 for e in epsilons]
    if max(everys) > min(steps):
        raise ValueError(f"every={max(everys)} exceeds the smallest number of steps "
                         f"T={min(steps)}: its schedule would have no round")


# ---------------------------------------------------------------------------------------
# the experiments


def synthetic_experiment(tasks=TASKS, *, seeds=(0,), n=3000, p=600, n_pos=35, n_neg=35,
                         n_test=750, lam=5.0, epsilons=(0.5, 1.0, 2.0, 5.0),
                         everys=(1, 2, 5, 10), shares=("equal", 0.1), n_trials=4,
                         delta=None, n_iter=None, seed=0,
                         cache_dir=None, progress=False, n_jobs=1):
    r"""The three variants on P2's synthetic design, with every one-per-round setting tried.

    Parameters
    ----------
    tasks : sequence of {"linear", "logistic"}, default=both
    seeds : sequence of int, default=(0,)
        One data set per seed (:func:`~dplasso.data.synthetic.raj_synthetic` with ``n +
        n_test`` rows: the first ``n`` train, the others are the test rows).
    n, p, n_pos, n_neg : int, default=3000, 600, 35, 35
        P2's sizes (training rows).
    n_test : int, default=750
        Test rows (a fifth of all rows, as an 80/20 split).
    lam : float, default=5.0
        L1-ball radius.
    epsilons : sequence of float, default=(0.5, 1, 2, 5)
        Total budgets.
    everys : sequence of int, default=(1, 2, 5, 10)
        Screening frequencies (a round before every ``every``-th step).
    shares : sequence, default=("equal", 0.1)
        Shares of the one-per-round rule (:func:`~dplasso.screening.plan_noisy_min_screening`).
    n_trials : int, default=4
        Runs of each configuration per data set and budget, independent noise.
    delta : float or None, default=None
        Total delta of every variant; None: ``1/n``.
    n_iter : int or None, default=None
        Frank-Wolfe steps of every variant; None: ``auto_n_iter`` for each budget.
    seed : int, default=0
        Seeds the noise.
    cache_dir, progress, n_jobs
        Checkpoints, progress bar, where the (task, seed) units run.

    Returns
    -------
    pandas.DataFrame
        One row per run: ``data`` (the task), ``seed``, ``epsilon``, ``delta``, ``n_iter``,
        ``variant``, ``every``, ``share``, ``trial``; the output's ``nnz``,
        ``true_positive``, ``precision``, ``recall``, ``f1`` (against the true support),
        ``objective`` and ``test_objective`` (MSE or log-loss), ``test_accuracy``
        (logistic); ``n_screened``, ``n_screened_true_nonzero``, ``n_screened_true_zero``
        (coordinates screened at any round), ``n_true_nonzero``; ``fw_scale``,
        ``screen_scale`` (Laplace scale, or Algorithm 1's Gaussian sigma) and
        ``epsilon_composed`` (the variant's own composition of what it spent). One
        ``variant = "non-private"`` row per data set: the exact optimum.
    """
    tasks = list(tasks)
    if not tasks or not set(tasks) <= set(TASKS) or len(set(tasks)) != len(tasks):
        raise ValueError(f"tasks must be distinct values of {TASKS}, got {tasks}")
    seeds = _check_distinct("seeds", seeds, lambda v: check_int("each seed", v, 0))
    epsilons, everys, n_trials, n_iter, n_jobs = _check_common(epsilons, everys, n_trials,
                                                               delta, n_iter, n_jobs)
    shares = _check_distinct("shares", shares, _check_share)
    _check_frequencies_fit(everys, lam, n, p, epsilons, delta, n_iter)
    configs = synthetic_configs(everys, shares)
    settings = dict(n=n, p=p, n_pos=n_pos, n_neg=n_neg, n_test=n_test, lam=lam,
                    epsilons=epsilons, configs=[repr(c) for c in configs], n_trials=n_trials,
                    delta=delta, n_iter=n_iter, seed=seed)

    def compute(task, data_seed):
        problem = _synthetic_problem(task, data_seed, n, p, n_pos, n_neg, n_test, lam)
        return _unit_frame(problem, configs, epsilons, delta, lam, n_iter, n_trials,
                           TASKS.index(task), seed)

    units = [(f"beyond-p2-{task}-seed{s}", {"kind": "beyond-p2-synthetic", **settings},
              (task, s)) for task in tasks for s in seeds]
    frames = cached_tasks(cache_dir, units, compute, n_jobs=n_jobs, desc="synthetic",
                          progress=progress)
    return pd.concat(frames, ignore_index=True)


def choose_rule(synthetic):
    """The one-per-round rule's (share, every) with the highest mean support F1 over every
    synthetic run (both tasks, every seed, budget and trial).

    Parameters
    ----------
    synthetic : pandas.DataFrame
        Output of :func:`synthetic_experiment`.

    Returns
    -------
    dict
        ``share`` (as in the results: ``"equal"`` or the number's text), ``every`` (int) and
        ``f1`` (its mean).
    """
    rule = synthetic[synthetic["variant"] == "one per round"]
    means = rule.groupby(["share", "every"])["f1"].mean()
    share, every = means.idxmax()
    return {"share": share, "every": int(every), "f1": float(means.max())}


def _share_value(share):
    return share if share == "equal" else float(share)


def real_experiment(datasets=(44, 3, 1485), *, share="equal",
                    n_splits=3, scaling="standard", lam=5.0, epsilons=(0.5, 1.0, 2.0, 5.0),
                    everys=(1, 2, 5, 10), n_trials=4, delta=None, n_iter=None, seed=0,
                    cache_dir=None, progress=False, n_jobs=1):
    r"""The three variants on binary OpenML datasets (logistic loss, no intercept).

    Parameters
    ----------
    datasets : sequence of int, default=(44, 3, 1485)
        Binary catalogue ids (spambase, kr-vs-kp, madelon: the binary datasets with at least
        2000 rows).
    share : "equal", float or its text, default="equal"
        The one-per-round rule's share (from :func:`choose_rule`).
    n_splits : int, default=3
        Stratified 80/20 splits per dataset (seeded by ``seed`` and the id).
    scaling : str, default="standard"
        The data map of :func:`dplasso.data.load_dataset`.
    lam, epsilons, everys, n_trials, delta, n_iter, seed, cache_dir, progress, n_jobs
        As in :func:`synthetic_experiment` (``delta`` None: ``1/n`` with ``n`` the training
        rows).

    Returns
    -------
    pandas.DataFrame
        As :func:`synthetic_experiment`, with ``data`` the dataset's name and ``seed`` the
        split; support against the non-private solution of the same problem on the
        training rows (its reference row has F1 1 by definition).
    """
    datasets = _check_distinct("datasets", datasets, _check_dataset)
    epsilons, everys, n_trials, n_iter, n_jobs = _check_common(epsilons, everys, n_trials,
                                                               delta, n_iter, n_jobs)
    n_splits = check_int("n_splits", n_splits, 1)
    share = _check_share(_share_value(share))
    configs = real_configs(everys, share)
    settings = dict(scaling=scaling, lam=lam, epsilons=epsilons, n_splits=n_splits,
                    configs=[repr(c) for c in configs], n_trials=n_trials, delta=delta,
                    n_iter=n_iter, seed=seed)

    def compute(data_id, split):
        problem = _real_problem(data_id, split, n_splits, scaling, lam, seed)
        _check_frequencies_fit(everys, lam, *problem.X.shape, epsilons, delta, n_iter)
        frame = _unit_frame(problem, configs, epsilons, delta, lam, n_iter, n_trials,
                            data_id, seed)
        return frame.assign(data_id=data_id)

    units = [(f"beyond-p2-{data_id}-split{split}", {"kind": "beyond-p2-real", **settings},
              (data_id, split)) for data_id in datasets for split in range(n_splits)]
    frames = cached_tasks(cache_dir, units, compute, n_jobs=n_jobs, desc="real",
                          progress=progress)
    return pd.concat(frames, ignore_index=True)


def _check_dataset(data_id):
    return check_openml_id(data_id, "binary")
