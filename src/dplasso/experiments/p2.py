r"""Experiments of paper P2 (differentially private screening rules): parameters in, tables out.

Three experiment functions, each returning a tidy :class:`pandas.DataFrame`:

- :func:`screening_experiment`: the four combinations of a private or non-private optimiser
  (Frank-Wolfe with report-noisy-min or exact selection) with private or non-private screening
  (:func:`dplasso.screening.make_screening_callback`), for each screening schedule and each
  reading of what screening does to a coefficient (:data:`SEMANTICS`); one row per
  screening round and trial (artifacts ``p2-nonprivate``, ``p2-fig1``, ``p2-expA``,
  ``p2-expB``);
- :func:`wolfe_gap_curves`: the Wolfe gap of every iterate, private against non-private
  optimisation, no screening (``p2-fig2``);
- :func:`noise_scale_vs_dimension`: the standard deviation of the private screening release
  against the size of the only negative term of the rule, on data generated at each
  dimension ``d`` (``p2-noise``), with :func:`rows_for_noise_below` extrapolating the number
  of rows at which the noise would fall to a given size.

**Seeds and trials.** Each seed ``s`` generates its own data set,
``raj_synthetic(n, p, n_pos, n_neg, task, random_state=s)`` (the two tasks of one seed share
``X`` and ``w_true``), so the spread over seeds covers both the data and the noise. Within a
seed, every run with a private part is repeated ``n_trials`` times with independent noise; a
run with nothing private is deterministic given the data and runs once (``trial = 0``).
All runs of one (task, seed, schedule) go through the Frank-Wolfe engine together, as the
columns of one batched weight matrix (one product with ``X`` per step for all of them):
a column-wise selector gives each column exact or private selection and a column-wise
callback gives each column its screening. The noise comes from a
``numpy.random.SeedSequence`` keyed by (seed, task, schedule), so results are reproducible
and do not depend on which other seeds or tasks were run.

**Checkpoints.** With ``cache_dir`` set, each (task, seed) unit is written there as a CSV
(atomically) as soon as it is done, under a name that carries a hash of every other setting;
a later call with the same settings reads the finished units instead of recomputing them, so
an interrupted run resumes where it stopped. The units are independent tasks, run in this
process, by joblib or on a Dask cluster (``n_jobs``, :mod:`dplasso.experiments.execution`).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dplasso.data.synthetic import raj_response_bound, raj_synthetic
from dplasso.experiments.checkpoint import cached_tasks
from dplasso.experiments.columns import ColumnCallback
from dplasso.experiments.execution import check_n_jobs
from dplasso.experiments.inputs import check_int
from dplasso.experiments.names import P2_SEMANTICS, SEMANTICS, TASKS
from dplasso.optim.column_selector import ColumnSelector
from dplasso.optim.frank_wolfe import exact_select, frank_wolfe
from dplasso.optim.reference import solve_reference
from dplasso.optim.losses import LogisticLoss, SquaredLoss
from dplasso.privacy.calibration import calibrate_report_noisy_min, fw_score_sensitivity
from dplasso.privacy.gaussian import gaussian_sigma_analytic
from dplasso.privacy.selection import ReportNoisyMinSelector
from dplasso.privacy.shares import even_share
from dplasso.screening import (
    RADIUS_KINDS,
    ScreeningSchedule,
    make_screening_callback,
    private_screen,
    private_screen_split,
    screen,
    screening_sensitivity,
)
from dplasso.screening.rule import column_norms

__all__ = [
    "RELEASES",
    "COMBINATIONS",
    "P2_SEMANTICS",
    "SEMANTICS",
    "TASKS",
    "exact_optimum_support",
    "final_counts",
    "margin_noise_sd",
    "noise_scale_vs_dimension",
    "rows_for_noise_below",
    "schedule_label",
    "screening_experiment",
    "screening_releases",
    "wolfe_gap_curves",
]

COMBINATIONS = (
    ("non-private", "non-private"),
    ("private", "private"),
    ("private", "non-private"),
    ("non-private", "private"),
)
"""(optimiser, screening) pairs: the non-private reference, Algorithm 1, experiments A and B."""

_PRIVACY = ("non-private", "private")


def schedule_label(every, n_iter):
    """Name of a screening schedule: ``every`` steps (``None``: after the last step only).

    Examples
    --------
    >>> schedule_label(1, 1000), schedule_label(50, 1000), schedule_label(None, 1000)
    ('every iteration', 'every 50th', 'last iteration')
    """
    if every is None:
        return "last iteration"
    if every == 1:
        return "every iteration"
    suffix = "th" if every % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(
        every % 10, "th")
    label = f"every {every}{suffix}"
    return f"{label} (= last iteration)" if every == n_iter else label


@dataclass(frozen=True)
class _Problem:
    """One seed's data set, its loss and the replace-one sensitivity of the vertex scores."""

    X: np.ndarray
    y: np.ndarray
    w_true: np.ndarray
    loss: object
    fw_sensitivity: float


def _problem(task, n, p, n_pos, n_neg, lam, seed):
    data = raj_synthetic(n=n, p=p, n_pos=n_pos, n_neg=n_neg, task=task, random_state=seed)
    if task == "linear":
        loss = SquaredLoss(y_bound=data.y_bound)
        sensitivity = fw_score_sensitivity("squared", lam, n, y_bound=data.y_bound)
    else:
        loss = LogisticLoss()
        sensitivity = fw_score_sensitivity("logistic", lam, n)
    return _Problem(X=data.X, y=data.y, w_true=data.w_true, loss=loss,
                    fw_sensitivity=sensitivity)


def _private_selector(problem, lam, n_iter, epsilon, delta):
    """Report-noisy-min calibrated to ``(epsilon, delta)`` over ``n_iter`` steps (advanced)."""
    scale = calibrate_report_noisy_min(epsilon, delta, n_iter, problem.fw_sensitivity)
    return ReportNoisyMinSelector(scale), scale


def _run_rng(seed, task, key):
    """Independent generators (optimiser, screening) of one batched run."""
    optimiser, screening = np.random.SeedSequence([seed, TASKS.index(task), *key]).spawn(2)
    return np.random.default_rng(optimiser), np.random.default_rng(screening)


# ---------------------------------------------------------------------------------------
# validation and checkpoints


def _check_tasks(tasks):
    tasks = (tasks,) if isinstance(tasks, str) else tuple(tasks)
    if not tasks:
        raise ValueError("tasks must name at least one task")
    unknown = [t for t in tasks if t not in TASKS]
    if unknown:
        raise ValueError(f"tasks must be among {TASKS}, got {unknown}")
    return tasks


def _check_seeds(seeds):
    seeds = [check_int("each seed", s, 0) for s in seeds]
    if not seeds:
        raise ValueError("seeds must hold at least one seed")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"seeds must be distinct, got {seeds}")
    return seeds


def _check_schedules(schedules, n_iter):
    schedules = list(schedules)
    if not schedules:
        raise ValueError("schedules must hold at least one schedule (an int every, or None)")
    for every in schedules:
        ScreeningSchedule(n_iter, every)  # raises on a bad value
    if len(set(schedules)) != len(schedules):
        raise ValueError(f"schedules must be distinct, got {schedules}")
    return schedules


def _run_units(kind, units, settings, compute, cache_dir, progress, n_jobs):
    """``compute(task, seed)`` for every unit, each an independent task
    (:func:`~dplasso.experiments.checkpoint.cached_tasks`), reusing checkpoints in
    ``cache_dir``."""
    unit_settings = {"kind": kind, **settings}
    frames = cached_tasks(cache_dir, [(f"{kind}-{task}-seed{seed}", unit_settings, (task, seed))
                                      for task, seed in units],
                          compute, n_jobs=n_jobs, desc=kind, progress=progress)
    return pd.concat(frames, ignore_index=True)


# ---------------------------------------------------------------------------------------
# the four combinations


def screening_experiment(tasks=TASKS, *, seeds=(0,), n=3000, p=600, n_pos=35, n_neg=35,
                         lam=5.0, n_iter=1000, schedules=(1, 50, None), epsilon1=2.5,
                         delta1=1 / 6000, epsilon2=2.5, delta2=1 / 6000, n_trials=1,
                         combinations=COMBINATIONS, semantics=SEMANTICS, radius_kind="dual",
                         cache_dir=None, progress=False, n_jobs=1):
    r"""Screening inside Frank-Wolfe: every (optimiser, screening) combination and schedule.

    Parameters
    ----------
    tasks : str or sequence of {"linear", "logistic"}, default=both
        Squared loss :math:`\frac{1}{2n}\sum_i (y_i - x_i w)^2` on ``y = X w*`` (public
        response bound :func:`dplasso.data.synthetic.raj_response_bound`, from the
        generator) and logistic loss on ``y = 1[X w* > 0]``.
    seeds : sequence of int, default=(0,)
        One data set per seed (see the module docstring).
    n, p, n_pos, n_neg : int, default=3000, 600, 35, 35
        Size of :func:`dplasso.data.synthetic.raj_synthetic` data.
    lam : float, default=5.0
        L1-ball radius (a constraint radius).
    n_iter : int, default=1000
        Frank-Wolfe steps ``T``.
    schedules : sequence of int or None, default=(1, 50, None)
        Screen every ``k`` steps, or (``None``) once, at the last step
        (:class:`dplasso.screening.ScreeningSchedule`: a round before step ``t`` sees the
        iterate after ``t - 1`` steps, so the last-step round screens the iterate after
        ``T - 1`` steps and the final step cannot pick a screened coordinate).
    epsilon1, delta1 : float, default=2.5, 1/6000
        Private optimiser's total budget: report-noisy-min, Laplace scale from
        :func:`dplasso.privacy.calibration.calibrate_report_noisy_min` (advanced composition
        over ``T`` steps, replace-one score sensitivity ``fw_score_sensitivity``).
    epsilon2, delta2 : float, default=2.5, 1/6000
        Private screening's total budget, split evenly over the schedule's rounds.
    n_trials : int, default=1
        Independent noise draws of each run with a private part, batched (``K``).
    combinations : sequence of (str, str), default=COMBINATIONS
        (optimiser, screening) pairs, each ``"private"`` or ``"non-private"``.
    semantics : sequence of str, default=SEMANTICS
        What a screened coefficient becomes (:data:`SEMANTICS`); every combination runs
        under each (same data, same schedule, independent noise).
    radius_kind : {"dual", "primal"}, default="dual"
        Safe radius of the rule and of the released statistic.
    cache_dir : path-like, optional
        Folder for per-(task, seed) checkpoints (see the module docstring).
    progress : bool, default=False
        Show a progress bar over (task, seed) units.
    n_jobs : int, default=1
        Where the (task, seed) units run (:func:`dplasso.experiments.execution.run_tasks`:
        this process, joblib workers, or the Dask cluster named by ``DPLASSO_SCHEDULER``).

    Returns
    -------
    pandas.DataFrame
        One row per screening round and trial: ``task, seed, trial, optimiser, screening,
        semantics, schedule, every`` (``NaN`` for last-only), ``t`` (the round happens
        before step ``t``, on the iterate after ``t - 1`` steps), ``gap`` (Wolfe gap there),
        ``n_screened_round``, ``n_screened`` (union so far: screened at least once),
        ``n_screened_true_zero``, ``n_screened_true_nonzero``, ``nnz`` and ``nnz_kept``
        (nonzero weights of the iterate before and after the round's mask),
        ``nnz_kept_true_nonzero``, ``radius`` (non-private rounds) or ``sigma`` (private
        rounds, the Gaussian noise standard deviation); per run: ``final_nnz_true_nonzero``
        and ``final_nnz_true_zero`` (nonzero weights of the output on and off the support
        of ``w*``), ``n_true_nonzero``, ``n_true_zero``, ``fw_scale`` (Laplace scale of the
        private optimiser, ``NaN`` otherwise).

    Notes
    -----
    Privacy: the private-private combination is P2's Algorithm 1, ``(epsilon1 + epsilon2,
    delta1 + delta2)``-DP (:func:`dplasso.screening.make_screening_callback`); the mixed
    combinations are diagnostics (A: the masks are exact, not private; B: the iterates are
    not private). Cost per (task, seed, schedule): one engine run of ``T`` steps for all
    runs at once (one gradient product per step), plus, per screening round, one ``X W`` and
    one ``X^T R`` product for the non-private and for the private screening columns.
    """
    n_jobs = check_n_jobs(n_jobs)
    tasks = _check_tasks(tasks)
    seeds = _check_seeds(seeds)
    n_iter = check_int("n_iter", n_iter, 1)
    n_trials = check_int("n_trials", n_trials, 1)
    schedules = _check_schedules(schedules, n_iter)
    combinations = [tuple(c) for c in combinations]
    bad = [c for c in combinations if len(c) != 2 or not set(c) <= set(_PRIVACY)]
    if not combinations or bad:
        raise ValueError(
            f"combinations must be (optimiser, screening) pairs of {_PRIVACY}, got {bad or '[]'}")
    if len(set(combinations)) != len(combinations):
        raise ValueError(f"combinations must be distinct, got {combinations}")
    semantics = [semantics] if isinstance(semantics, str) else list(semantics)
    if (not semantics or len(set(semantics)) != len(semantics)
            or not set(semantics) <= set(SEMANTICS)):
        raise ValueError(f"semantics must be distinct values of {SEMANTICS}, got {semantics}")
    if radius_kind not in RADIUS_KINDS:
        raise ValueError(f"radius_kind must be one of {RADIUS_KINDS}, got {radius_kind!r}")
    settings = dict(n=n, p=p, n_pos=n_pos, n_neg=n_neg, lam=lam, n_iter=n_iter,
                    schedules=schedules, epsilon1=epsilon1, delta1=delta1, epsilon2=epsilon2,
                    delta2=delta2, n_trials=n_trials, combinations=combinations,
                    semantics=semantics, radius_kind=radius_kind)

    def compute(task, seed):
        problem = _problem(task, n, p, n_pos, n_neg, lam, seed)
        return pd.concat([_screening_run(problem, task, seed, every, settings)
                          for every in schedules], ignore_index=True)

    units = [(task, seed) for task in tasks for seed in seeds]
    return _run_units("p2-screening", units, settings, compute, cache_dir, progress, n_jobs)


def _screening_run(problem, task, seed, every, s):
    """All combinations under one schedule: one engine call, one column per (run, trial)."""
    combination_of, semantics_of, trial_of = [], [], []
    for combination in s["combinations"]:
        repeats = 1 if combination == ("non-private", "non-private") else s["n_trials"]
        for semantics in s["semantics"]:
            combination_of += [combination] * repeats
            semantics_of += [semantics] * repeats
            trial_of += list(range(repeats))
    columns = np.arange(len(trial_of))
    private_optimiser = np.array([c[0] == "private" for c in combination_of])
    private_screening = np.array([c[1] == "private" for c in combination_of])
    fw_rng, screen_rng = _run_rng(seed, task, (0 if every is None else every,))
    private_select, fw_scale = _private_selector(problem, s["lam"], s["n_iter"],
                                                 s["epsilon1"], s["delta1"])
    select = ColumnSelector([(columns[~private_optimiser], exact_select),
                              (columns[private_optimiser], private_select)])
    schedule = ScreeningSchedule(s["n_iter"], every)
    common = dict(w_true=problem.w_true, radius_kind=s["radius_kind"])
    X, y, lam, loss = problem.X, problem.y, s["lam"], problem.loss
    callback = ColumnCallback([
        (columns[~private_screening],
         make_screening_callback(X, y, lam, loss, schedule, **common)),
        (columns[private_screening],
         make_screening_callback(X, y, lam, loss, schedule, private=True,
                                 epsilon=s["epsilon2"], delta=s["delta2"], rng=screen_rng,
                                 record_gap=True, **common)),  # a diagnostic table
    ])
    result = frank_wolfe(loss, X, y, lam, s["n_iter"], select, n_trials=columns.size,
                         rng=fw_rng, callback=callback, mask_semantics=semantics_of)
    support = problem.w_true[:, np.newaxis] != 0
    nonzero = result.W != 0
    on_support = (nonzero & support).sum(axis=0)
    off_support = (nonzero & ~support).sum(axis=0)
    frames = []
    for cols, group in callback.groups:
        frame = pd.DataFrame(group.records)
        column = cols[frame["trial"].to_numpy()]
        frames.append(frame.assign(
            trial=[trial_of[c] for c in column],
            optimiser=[combination_of[c][0] for c in column],
            screening=[combination_of[c][1] for c in column],
            semantics=[semantics_of[c] for c in column],
            final_nnz_true_nonzero=on_support[column],
            final_nnz_true_zero=off_support[column],
            fw_scale=np.where(private_optimiser[column], fw_scale, math.nan),
        ))
    frame = pd.concat(frames, ignore_index=True)
    for name in ("radius", "sigma"):
        if name not in frame:
            frame[name] = math.nan
    frame = frame.assign(
        task=task, seed=seed, schedule=schedule_label(every, s["n_iter"]),
        every=math.nan if every is None else float(every),
        n_true_nonzero=int(support.sum()), n_true_zero=int((~support).sum()),
    )
    order = [COMBINATIONS.index(c) if c in COMBINATIONS else len(COMBINATIONS)
             for c in zip(frame["optimiser"], frame["screening"])]
    frame = frame.assign(_order=order, _semantics=frame["semantics"].map(SEMANTICS.index))
    frame = frame.sort_values(["_order", "_semantics", "trial", "t"], kind="stable")
    return frame[_SCREENING_COLUMNS].reset_index(drop=True)


_SCREENING_COLUMNS = [
    "task", "seed", "trial", "optimiser", "screening", "semantics", "schedule", "every", "t",
    "gap", "n_screened_round", "n_screened", "n_screened_true_zero", "n_screened_true_nonzero",
    "nnz", "nnz_kept", "nnz_kept_true_nonzero", "radius", "sigma", "final_nnz_true_nonzero",
    "final_nnz_true_zero", "n_true_nonzero", "n_true_zero", "fw_scale",
]


def final_counts(rounds):
    """One row per run of :func:`screening_experiment`: its last round and final weights.

    Parameters
    ----------
    rounds : pandas.DataFrame
        Output of :func:`screening_experiment` (any subset of its runs).

    Returns
    -------
    pandas.DataFrame
        Per ``(task, seed, trial, optimiser, screening, semantics, schedule)``: the last
        round's ``t``,
        ``gap``, ``n_screened``, ``n_screened_true_zero``, ``n_screened_true_nonzero``
        (unions over the run's rounds), the final nonzero counts, the totals, and the
        fractions ``frac_screened_true_zero``, ``frac_screened_true_nonzero`` and
        ``frac_true_nonzero_kept`` (true nonzeros still nonzero in the output).
    """
    keys = ["task", "seed", "trial", "optimiser", "screening", "semantics", "schedule"]
    last = rounds.sort_values("t").groupby(keys, sort=False).tail(1)
    out = last[keys + ["every", "t", "gap", "n_screened", "n_screened_true_zero",
                       "n_screened_true_nonzero", "final_nnz_true_nonzero",
                       "final_nnz_true_zero", "n_true_nonzero", "n_true_zero"]]
    out = out.sort_values(keys).reset_index(drop=True)
    return out.assign(
        frac_screened_true_zero=out["n_screened_true_zero"] / out["n_true_zero"],
        frac_screened_true_nonzero=out["n_screened_true_nonzero"] / out["n_true_nonzero"],
        frac_true_nonzero_kept=out["final_nnz_true_nonzero"] / out["n_true_nonzero"],
    )


# ---------------------------------------------------------------------------------------
# Figure 2: the Wolfe gap


def wolfe_gap_curves(tasks=TASKS, *, seeds=(0,), n=3000, p=600, n_pos=35, n_neg=35, lam=5.0,
                     n_iter=1000, epsilon=2.5, delta=1 / 6000, n_trials=1, cache_dir=None,
                     progress=False, n_jobs=1):
    r"""Wolfe gap of every Frank-Wolfe iterate, private against non-private (no screening).

    Parameters
    ----------
    tasks, seeds, n, p, n_pos, n_neg, lam, n_iter, n_trials, cache_dir, progress, n_jobs
        As in :func:`screening_experiment`.
    epsilon, delta : float, default=2.5, 1/6000
        The private optimiser's budget (report-noisy-min, advanced composition).

    Returns
    -------
    pandas.DataFrame
        One row per iterate and trial: ``task, seed, trial, optimiser, t`` (steps taken,
        ``0..n_iter``), ``gap`` (:math:`\langle w, g\rangle + \lambda\|g\|_\infty`),
        ``objective``, ``nnz``, ``fw_scale`` (``NaN`` for the non-private run).
    """
    n_jobs = check_n_jobs(n_jobs)
    tasks = _check_tasks(tasks)
    seeds = _check_seeds(seeds)
    n_iter = check_int("n_iter", n_iter, 1)
    n_trials = check_int("n_trials", n_trials, 1)
    settings = dict(n=n, p=p, n_pos=n_pos, n_neg=n_neg, lam=lam, n_iter=n_iter,
                    epsilon=epsilon, delta=delta, n_trials=n_trials)

    def compute(task, seed):
        problem = _problem(task, n, p, n_pos, n_neg, lam, seed)
        private_select, scale = _private_selector(problem, lam, n_iter, epsilon, delta)
        k = 1 + n_trials  # column 0: non-private; columns 1..n_trials: private
        select = ColumnSelector([([0], exact_select), (np.arange(1, k), private_select)])
        fw_rng, _ = _run_rng(seed, task, ())
        h = frank_wolfe(problem.loss, problem.X, problem.y, lam, n_iter, select, n_trials=k,
                        rng=fw_rng, history=True).history
        private = np.tile(np.arange(k) > 0, n_iter + 1)
        return pd.DataFrame({
            "task": task, "seed": seed,
            "trial": np.tile(np.r_[0, np.arange(n_trials)], n_iter + 1),
            "optimiser": np.where(private, "private", "non-private"),
            "t": np.repeat(np.arange(n_iter + 1), k), "gap": h.gap.ravel(),
            "objective": h.objective.ravel(), "nnz": h.nnz.ravel(),
            "fw_scale": np.where(private, scale, math.nan),
        }).sort_values(["optimiser", "trial", "t"], kind="stable", ignore_index=True)

    units = [(task, seed) for task in tasks for seed in seeds]
    return _run_units("p2-fig2", units, settings, compute, cache_dir, progress, n_jobs)


# ---------------------------------------------------------------------------------------
# p2-noise: the noise scale against the negative term


def noise_scale_vs_dimension(tasks=TASKS, *, dims=(100, 200, 400, 800, 1600, 3200), seeds=(0,),
                             n=3000, n_pos=35, n_neg=35, lam=5.0, n_iter=1000, epsilon=2.5,
                             delta=1 / 6000, rounds=1, n_trials=20, radius_kind="dual",
                             cache_dir=None, progress=False, n_jobs=1):
    r"""Noise of the private screening release against the rule's negative term, per ``d``.

    At each dimension ``d`` (data generated at that ``d``), the non-private Frank-Wolfe
    iterate after ``n_iter`` steps is screened. The rule screens feature ``i`` when

    .. math::

        \underbrace{r\,(\|x_{(i)}\|_2 + \|x_{(j)}\|_2)}_{\text{gap term} \,\ge 0}
        + \underbrace{(|g_i| - |g_j|)}_{\text{negative term}} < 0,
        \qquad j = \arg\max_j (|g_j| - r\|x_{(j)}\|_2),

    so the margin :math:`T - u_i` is the negative term's size minus the gap term. The private
    release adds :math:`\mathcal N(0, \sigma^2)` to each :math:`u_i` and to :math:`T`: the
    released margin carries noise of standard deviation :math:`\sigma\sqrt2`.

    Parameters
    ----------
    tasks, seeds, n, n_pos, n_neg, lam, n_iter, radius_kind, cache_dir, progress, n_jobs
        As in :func:`screening_experiment`.
    dims : sequence of int, default=(100, 200, 400, 800, 1600, 3200)
        Dimensions ``d = p`` (each ``>= n_pos + n_neg``).
    epsilon, delta : float, default=2.5, 1/6000
        Screening budget, split evenly over ``rounds``.
    rounds : int, default=1
        Number of rounds the budget is split over (1: screening after the last step only,
        the least noisy schedule).
    n_trials : int, default=20
        Private releases drawn at each ``d`` to estimate what private screening screens.

    Returns
    -------
    pandas.DataFrame
        One row per (task, seed, d): ``sensitivity_l2`` (:math:`\Delta_2`),
        ``sensitivity_coordinate`` (:math:`\Delta_u`, one coordinate's) and its gradient
        part ``sensitivity_gradient`` (:math:`\Delta_g`), ``sigma``,
        ``noise_sd_margin`` (:math:`\sigma\sqrt2`); over the true zeros, the median
        ``negative_term`` (:math:`|g_j| - |g_i|`), ``gap_term`` and ``margin``
        (:math:`T - u_i`), with ``negative_term_q25``/``q75``, and
        ``frac_margin_above_noise_sd`` (share of margins above :math:`\sigma\sqrt2`);
        ``negative_term_max`` (over all features); ``radius``; what the exact rule screens
        (``frac_screened_true_zero``, ``frac_screened_true_nonzero``) and the mean over
        ``n_trials`` private releases (``private_frac_screened_true_zero``,
        ``private_frac_screened_true_nonzero``).
    """
    n_jobs = check_n_jobs(n_jobs)
    tasks = _check_tasks(tasks)
    seeds = _check_seeds(seeds)
    dims = [check_int("each dimension", d, n_pos + n_neg) for d in dims]
    if not dims:
        raise ValueError("dims must hold at least one dimension")
    n_iter = check_int("n_iter", n_iter, 1)
    rounds = check_int("rounds", rounds, 1)
    n_trials = check_int("n_trials", n_trials, 1)
    if radius_kind not in RADIUS_KINDS:
        raise ValueError(f"radius_kind must be one of {RADIUS_KINDS}, got {radius_kind!r}")
    settings = dict(dims=dims, n=n, n_pos=n_pos, n_neg=n_neg, lam=lam, n_iter=n_iter,
                    epsilon=epsilon, delta=delta, rounds=rounds, n_trials=n_trials,
                    radius_kind=radius_kind)
    round_epsilon, round_delta = even_share(epsilon, rounds), even_share(delta, rounds)

    def compute(task, seed):
        rows = []
        for d in dims:
            problem = _problem(task, n, d, n_pos, n_neg, lam, seed)
            W = frank_wolfe(problem.loss, problem.X, problem.y, lam, n_iter, exact_select).W
            rows.append({"task": task, "seed": seed, "d": d, **_noise_against_signal(
                problem, W, lam, round_epsilon, round_delta, n_trials, radius_kind,
                _run_rng(seed, task, (d,))[1])})
        return pd.DataFrame(rows)

    units = [(task, seed) for task in tasks for seed in seeds]
    return _run_units("p2-noise", units, settings, compute, cache_dir, progress, n_jobs)


def _noise_against_signal(problem, W, lam, epsilon, delta, n_trials, radius_kind, rng):
    X, y, loss = problem.X, problem.y, problem.loss
    support = problem.w_true != 0
    zeros = ~support
    exact = screen(X, y, W, lam, loss, radius_kind=radius_kind)
    slack = exact.radius[0] * column_norms(X)
    magnitude = exact.statistic[:, 0] - slack  # |g_i|
    j = int(np.argmax(magnitude - slack))
    negative = magnitude[j] - magnitude
    margin = exact.threshold[0] - exact.statistic[:, 0]  # T - u_i = negative - gap term
    gap_term = negative - margin
    mask, info = private_screen(X, y, np.repeat(W, n_trials, axis=1), lam, loss, epsilon,
                                delta, rng, radius_kind=radius_kind)
    return {
        "sensitivity_l2": info.sensitivity.l2,
        "sensitivity_coordinate": info.sensitivity.coordinate,
        "sensitivity_gradient": info.sensitivity.gradient,
        "sigma": info.sigma,
        "noise_sd_margin": info.sigma * math.sqrt(2.0),
        "radius": float(exact.radius[0]),
        "negative_term": float(np.median(negative[zeros])),
        "negative_term_q25": float(np.quantile(negative[zeros], 0.25)),
        "negative_term_q75": float(np.quantile(negative[zeros], 0.75)),
        "negative_term_max": float(negative.max()),
        "gap_term": float(np.median(gap_term[zeros])),
        "margin": float(np.median(margin[zeros])),
        "frac_margin_above_noise_sd": float((margin[zeros] > info.sigma * math.sqrt(2.0)).mean()),
        "frac_screened_true_zero": float(exact.mask[zeros, 0].mean()),
        "frac_screened_true_nonzero": float(exact.mask[support, 0].mean()),
        "private_frac_screened_true_zero": float(mask[zeros].mean()),
        "private_frac_screened_true_nonzero": float(mask[support].mean()),
    }


def margin_noise_sd(task, n, d, *, n_pos=35, n_neg=35, lam=5.0, epsilon=2.5, delta=1 / 6000,
                    rounds=1, radius_kind="dual", response_bound="generator"):
    r"""Noise sd :math:`\sigma\sqrt2` of a released margin :math:`\tilde T - \tilde u_i`.

    Public quantities only (:func:`dplasso.screening.screening_sensitivity` and the analytic
    Gaussian calibration at ``(epsilon / rounds, delta / rounds)``): no data are needed.

    Parameters
    ----------
    task : {"linear", "logistic"}
        The loss (linear: the ½-squared loss with the public response bound
        ``response_bound`` of :func:`dplasso.data.synthetic.raj_synthetic`).
    n, d : int
        Rows and features.
    n_pos, n_neg, lam, epsilon, delta, rounds, radius_kind
        As in :func:`noise_scale_vs_dimension`.
    response_bound : {"generator", "worst-case"}, default="generator"
        Linear task only: :func:`dplasso.data.synthetic.raj_response_bound` or
        ``n_pos + n_neg``.

    Returns
    -------
    float
    """
    (task,) = _check_tasks(task)
    n, d = check_int("n", n, 1), check_int("d", d, 1)
    rounds = check_int("rounds", rounds, 1)
    if task == "logistic":
        loss = LogisticLoss()
    elif response_bound == "worst-case":
        loss = SquaredLoss(y_bound=float(n_pos + n_neg))
    elif response_bound == "generator":
        loss = SquaredLoss(y_bound=raj_response_bound(n, d, n_pos + n_neg))
    else:
        raise ValueError(
            f"response_bound must be 'generator' or 'worst-case', got {response_bound!r}")
    sensitivity = screening_sensitivity(n, d, lam, loss, radius_kind=radius_kind)
    return math.sqrt(2.0) * gaussian_sigma_analytic(
        sensitivity.l2, even_share(epsilon, rounds), even_share(delta, rounds))


def rows_for_noise_below(target, task, d, *, n_pos=35, n_neg=35, lam=5.0, epsilon=2.5,
                         delta=1 / 6000, rounds=1, radius_kind="dual",
                         response_bound="generator"):
    r"""Smallest ``n`` whose released-margin noise sd :math:`\sigma\sqrt2` is ``<= target``.

    The noise depends only on public quantities (:func:`margin_noise_sd`), so it can be
    computed for any ``n`` without data: :math:`\Delta_u` falls like :math:`n^{-1/2}` (the
    radius constant :math:`\kappa = \sqrt{2L} \propto n^{-1/2}` times a bounded :math:`H`),
    and :math:`\sigma\sqrt2` with it (the generator's response bound grows slowly with
    ``n``, like :math:`\sqrt{\log n}`). Doubling finds a bracket, integer bisection the
    boundary.

    Parameters
    ----------
    target : float
        ``> 0``, e.g. the measured size of the rule's negative term.
    task : {"linear", "logistic"}
        The loss.
    d : int
        Number of features.
    n_pos, n_neg, lam, epsilon, delta, rounds, radius_kind, response_bound
        As in :func:`margin_noise_sd`.

    Returns
    -------
    int
        ``n`` with :math:`\sigma\sqrt2 \le` ``target`` at ``n`` and above it at ``n - 1``
        (for ``n > 1``).
    """
    if not (isinstance(target, numbers.Real) and math.isfinite(target) and target > 0):
        raise ValueError(f"target must be a finite number > 0, got {target!r}")

    def noise(rows):
        return margin_noise_sd(task, rows, d, n_pos=n_pos, n_neg=n_neg, lam=lam,
                               epsilon=epsilon, delta=delta, rounds=rounds,
                               radius_kind=radius_kind, response_bound=response_bound)

    high = 1
    while noise(high) > target:
        high *= 2
        if high > 2**62:
            raise ValueError(f"no n up to 2**62 brings the noise below target={target!r}")
    low = high // 2  # noise(low) > target unless high == 1
    while high - low > 1:
        middle = (low + high) // 2
        if noise(middle) > target:
            low = middle
        else:
            high = middle
    return high


# ---------------------------------------------------------------------------------------
# p2-nonprivate: the exact optimum


def exact_optimum_support(tasks=TASKS, *, seeds=(0,), n=3000, p=600, n_pos=35, n_neg=35,
                          lam=5.0, tol=1e-12):
    r"""Support of the exact L1-ball optimum of each data set, certified by the safe rule.

    Each (task, seed) problem is solved by the reference solver
    (:func:`dplasso.optim.reference.solve_reference`, Wolfe gap at most ``tol`` times the
    loss at zero); the safe rule (:func:`dplasso.screening.screen`, dual radius) is then
    evaluated at the solution: every feature it screens is zero at the optimum (lemma
    ``lem-rule-safe``). When the screened features and the solution's nonzeros make up all
    ``p`` features, the solution's support *is* the optimum's (``certified``).

    Parameters
    ----------
    tasks, seeds, n, p, n_pos, n_neg, lam
        As in :func:`screening_experiment`.
    tol : float, default=1e-12
        Relative gap target of the reference solve.

    Returns
    -------
    pandas.DataFrame
        One row per (task, seed): ``nnz_true_nonzero``, ``nnz_true_zero`` (the solution's
        nonzeros on and off the support of ``w*``), ``n_true_nonzero``,
        ``frac_true_nonzero`` (share of true nonzeros nonzero at the optimum), ``gap``,
        ``n_certified_zero`` (screened at the solution), ``certified``.
    """
    tasks = _check_tasks(tasks)
    seeds = _check_seeds(seeds)
    rows = []
    for task in tasks:
        for seed in seeds:
            problem = _problem(task, n, p, n_pos, n_neg, lam, seed)
            solution = solve_reference(problem.loss, problem.X, problem.y, lam, tol=tol)
            nonzero = solution.w != 0
            support = problem.w_true != 0
            certified_zero = screen(problem.X, problem.y, solution.w[:, np.newaxis], lam,
                                    problem.loss).mask[:, 0]
            rows.append({
                "task": task, "seed": seed,
                "nnz_true_nonzero": int((nonzero & support).sum()),
                "nnz_true_zero": int((nonzero & ~support).sum()),
                "n_true_nonzero": int(support.sum()),
                "frac_true_nonzero": float((nonzero & support).sum() / support.sum()),
                "gap": solution.gap,
                "n_certified_zero": int(certified_zero.sum()),
                "certified": bool(solution.converged and not (certified_zero & nonzero).any()
                                  and certified_zero.sum() + nonzero.sum() == p),
            })
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------
# P2's open question 2: other releases of the screening statistic


RELEASES = ("Algorithm 1 (u, T)", "split, z = 0", "split, z = 1")
"""The releases :func:`screening_releases` compares: Algorithm 1's vector ``(u_1..u_p, T)``
(:func:`dplasso.screening.private_screen`) and the split release of the gradient and the gap
(:func:`dplasso.screening.private_screen_split`) with margin ``z`` = 0 and 1."""


def screening_releases(tasks=TASKS, *, seeds=(0,), n=3000, p=600, n_pos=35, n_neg=35, lam=5.0,
                       n_iter=1000, epsilon=2.5, delta=1 / 6000, n_trials=20,
                       radius_kind="dual", cache_dir=None, progress=False, n_jobs=1):
    r"""What each release screens at the exact Frank-Wolfe iterate (experiment B's setting).

    For each (task, seed), the non-private Frank-Wolfe iterate after ``n_iter`` steps is
    screened ``n_trials`` times by each release of :data:`RELEASES` at the whole budget
    ``(epsilon, delta)`` (one round), and once by the exact safe rule.

    Parameters
    ----------
    tasks, seeds, n, p, n_pos, n_neg, lam, n_iter, radius_kind, cache_dir, progress, n_jobs
        As in :func:`noise_scale_vs_dimension` (``p`` is the one dimension).
    epsilon, delta : float, default=2.5, 1/6000
        The round's budget.
    n_trials : int, default=20
        Independent releases per (task, seed) and release.

    Returns
    -------
    pandas.DataFrame
        One row per (task, seed, release): ``release``, ``frac_screened_true_zero``,
        ``frac_screened_true_nonzero`` (means over the releases), ``frac_all_or_nothing``
        (share of releases screening more than 90% or fewer than 10% of all features),
        ``noise_sd_gradient``
        (noise sd on each released gradient magnitude; Algorithm 1: on each ``u_i``),
        ``noise_sd_gap`` (split: on the released gap; ``NaN`` otherwise), and the exact
        rule's ``exact_frac_screened_true_zero`` / ``exact_frac_screened_true_nonzero``.
    """
    n_jobs = check_n_jobs(n_jobs)
    tasks = _check_tasks(tasks)
    seeds = _check_seeds(seeds)
    n_iter = check_int("n_iter", n_iter, 1)
    n_trials = check_int("n_trials", n_trials, 1)
    if radius_kind not in RADIUS_KINDS:
        raise ValueError(f"radius_kind must be one of {RADIUS_KINDS}, got {radius_kind!r}")
    settings = dict(n=n, p=p, n_pos=n_pos, n_neg=n_neg, lam=lam, n_iter=n_iter,
                    epsilon=epsilon, delta=delta, n_trials=n_trials, radius_kind=radius_kind)

    def compute(task, seed):
        problem = _problem(task, n, p, n_pos, n_neg, lam, seed)
        X, y, loss = problem.X, problem.y, problem.loss
        w = frank_wolfe(loss, X, y, lam, n_iter, exact_select).W
        W = np.repeat(w, n_trials, axis=1)
        support = problem.w_true != 0
        exact = screen(X, y, w, lam, loss, radius_kind=radius_kind).mask[:, 0]
        rng = _run_rng(seed, task, (p, 2))[1]
        mask, info = private_screen(X, y, W, lam, loss, epsilon, delta, rng,
                                    radius_kind=radius_kind)
        runs = [(RELEASES[0], mask, info.sigma, math.nan)]
        for release, z in zip(RELEASES[1:], (0.0, 1.0)):
            mask, info = private_screen_split(X, y, W, lam, loss, epsilon, delta, rng,
                                              radius_kind=radius_kind, z=z)
            runs.append((release, mask, info.sigma_gradient, info.sigma_gap))
        return pd.DataFrame([{
            "task": task, "seed": seed, "release": release,
            "frac_screened_true_zero": float(mask[~support].mean()),
            "frac_screened_true_nonzero": float(mask[support].mean()),
            "frac_all_or_nothing": float(np.mean(
                (mask.mean(axis=0) > 0.9) | (mask.mean(axis=0) < 0.1))),
            "noise_sd_gradient": sd_gradient, "noise_sd_gap": sd_gap,
            "exact_frac_screened_true_zero": float(exact[~support].mean()),
            "exact_frac_screened_true_nonzero": float(exact[support].mean()),
        } for release, mask, sd_gradient, sd_gap in runs])

    units = [(task, seed) for task in tasks for seed in seeds]
    return _run_units("p2-releases", units, settings, compute, cache_dir, progress, n_jobs)
