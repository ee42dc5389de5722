r"""Experiment of P1's rate: the excess empirical logistic risk of private Frank-Wolfe
against the number of rows ``n`` (artifact ``p1-rate``), summarised by
:func:`fit_rate_slope`.

Seeds and checkpoints as in :mod:`dplasso.experiments.p1`: one synthetic data set per
``(n, seed)``, its noise keyed by ``(seed, n, epsilon)``.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from tqdm import tqdm

from dplasso.data import sparse_logistic_synthetic
from dplasso.estimators import DEFAULT_LAM, private_frank_wolfe_trials
from dplasso.estimators.problem import classification_loss, prepare_design
from dplasso.experiments.checkpoint import cached
from dplasso.experiments.inputs import check_epsilons, check_int, noise_rng
from dplasso.optim.working_set import solve_working_set

__all__ = ["rate_experiment", "fit_rate_slope"]


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
    ns = [check_int("each n", n, 2) for n in ns]
    if not ns:
        raise ValueError("ns must hold at least one number of rows")
    epsilons = check_epsilons(epsilons)
    seeds = [check_int("each seed", s, 0) for s in seeds]
    if not seeds or len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be distinct and at least one, got {seeds}")
    n_trials = check_int("n_trials", n_trials, 1)
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
                                         random_state=noise_rng(seed, n, epsilon, 0, 0))
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
    n_boot = check_int("n_boot", n_boot, 2)
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
