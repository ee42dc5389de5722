r"""Experiments of P1's count release: its noise and how much of the count survives it.

- :func:`count_noise_experiment`: the distribution of the Sparsifier's final number of
  nonzeros as the count's budget :math:`\varepsilon_1` shrinks, double-geometric against
  rounded Laplace count noise (artifact ``p1-count-noise``), with the exact noise spread
  :func:`count_noise_sd`;
- :func:`count_release_error`: the released count's error at P1's declared sensitivity and at
  the proven one (``p1-count-sensitivity``).

Datasets, seeds and checkpoints as in :mod:`dplasso.experiments.p1`; these experiments have
no split: the map reads every row (the subject is the count release, not test accuracy).
"""
from __future__ import annotations

import math
import numbers

import numpy as np
import pandas as pd
from tqdm import tqdm

from dplasso.estimators import (
    COUNT_NOISES,
    DEFAULT_LAM,
    SparsifierRun,
    noisy_count,
    private_frank_wolfe_trials,
    resolve_count_sensitivity,
    sparsify_runs,
)
from dplasso.experiments.checkpoint import cached
from dplasso.experiments.inputs import (
    SYNTHETIC,
    check_datasets,
    check_epsilons,
    check_int,
    check_synthetic,
    noise_rng,
)
from dplasso.experiments.p1 import P1_COUNT_SENSITIVITY, load_p1_data, nonprivate_optimum

__all__ = ["count_noise_sd", "count_noise_experiment", "count_release_error"]


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
    sensitivity = check_int("sensitivity", sensitivity, 1)
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
    counts are cheap, so they get many more draws): the library's Sparsifier
    (:func:`dplasso.estimators.sparsify_runs`) given those weights and the count.

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
    epsilons_count = check_epsilons(epsilons_count, name="epsilons_count")
    (epsilon_fw,) = check_epsilons([epsilon_fw], name="epsilon_fw")
    noises = list(noises)
    if not noises or any(noise not in COUNT_NOISES for noise in noises):
        raise ValueError(f"noises must be among {COUNT_NOISES}, got {noises}")
    n_fw_trials = check_int("n_fw_trials", n_fw_trials, 1)
    n_draws = check_int("n_draws", n_draws, 1)
    synthetic = check_synthetic(synthetic)
    seed = check_int("seed", seed, 0)
    (dataset,) = check_datasets([dataset])
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
            random_state=noise_rng(seed, data.code, epsilon_fw, 0, 0))
        fw_trial = np.arange(n_draws) % n_fw_trials
        weights = fit._replace(W=fit.W[..., fw_trial], intercept=fit.intercept[..., fw_trial])
        n_coef = fit.W[..., 0].size
        frames = []
        cases = [(noise, e) for noise in noises for e in epsilons_count]
        for noise, epsilon_count in tqdm(cases, desc="count noise", disable=not progress):
            rng = noise_rng(seed, data.code, epsilon_count, 0, 1 + COUNT_NOISES.index(noise))
            (cut,) = sparsify_runs(
                data.X, data.y, [SparsifierRun(epsilon_count, n_draws, rng,
                                               count_sensitivity=count_sensitivity,
                                               count_noise=noise, weights=weights)],
                lam=lam, n_classes=data.n_classes, selection=selection, support_size=count)
            frames.append(pd.DataFrame({
                "dataset": data.name, "noise": noise, "epsilon_count": epsilon_count,
                "epsilon_fw": epsilon_fw, "n_iter": fit.n_iter, "draw": np.arange(n_draws),
                "fw_trial": fw_trial, "count": count, "target": cut.n_nonzero_target,
                "fw_nnz": cut.weights_nnz,
                "nnz": np.count_nonzero(cut.W.reshape(n_coef, n_draws), axis=0),
                "n_coef": n_coef,
                "noise_sd": count_noise_sd(
                    epsilon_count, resolve_count_sensitivity(count_sensitivity, n_coef),
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
    n_draws = check_int("n_draws", n_draws, 1)
    seed = check_int("seed", seed, 0)
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
