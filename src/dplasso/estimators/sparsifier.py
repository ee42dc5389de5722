r"""P1's Sparsifier: private Frank-Wolfe, then keep the :math:`\tilde c` largest coefficients.

Algorithm (Khanna, Lu, Raff & Testa; the count's solver and sensitivity are this project's
reconstruction, see :mod:`dplasso.estimators.count`), for a total budget
:math:`(\varepsilon, \delta)` and a share ``count_fraction`` :math:`= f`:

1. :math:`c` = number of nonzero coefficients of the non-private L1-constrained fit on the
   same data and radius (:func:`~dplasso.estimators.count.lasso_support_size`);
2. :math:`\tilde c = \mathrm{clip}(c + Z, 1, m)`, :math:`Z` double-geometric (or rounded
   Laplace) of scale :math:`\Delta_c/\varepsilon_1`, :math:`\varepsilon_1 = f\varepsilon`
   (:func:`~dplasso.estimators.count.noisy_count`); :math:`\Delta_c = m` by default, the only
   proven bound (P1's :math:`\Delta_c = 1` is not one; see :mod:`dplasso.estimators.count`);
3. private Frank-Wolfe from zero with budget :math:`(\varepsilon - \varepsilon_1, \delta)`
   (:func:`~dplasso.estimators.private_frank_wolfe.private_frank_wolfe_trials`);
4. keep the :math:`\tilde c` entries of largest magnitude, zero the rest
   (:func:`keep_largest_entries`; post-processing). The intercept is never removed and is not
   counted; for a weight matrix (``C > 2`` classes, P1 Appendix A) the count and the top
   :math:`\tilde c` run over its :math:`m = pC` entries.

:class:`SparsifierClassifier` is P1's method (:data:`P1_SETTINGS`); :func:`sparsify_trials`
and :func:`sparsify_runs` also take the experiments' options (the counts that are private by
proof, the selections, the released threshold, the weights' release). The library's
recommended private model, :class:`~dplasso.estimators.SparseDPLogisticRegression`
(:mod:`dplasso.estimators.recommended`), is this fit at other settings.
"""
from __future__ import annotations

import math
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from dplasso.estimators.base import FrankWolfeClassifierBase, holding_budget
from dplasso.estimators.composition import compose_parts, pure_part
from dplasso.estimators.count import (
    COUNT_NOISES,
    _check_nonnegative_int,
    _support_size,
    check_count_noise_scale,
    count_noise_event,
    noisy_count,
    resolve_count_sensitivity,
)
from dplasso.estimators.docs import shared_docs
from dplasso.estimators.private_count import (
    COUNTS,
    DEFAULT_COUNT_FRACTIONS,
    accuracy_count,
    accuracy_count_event,
    accuracy_count_sizes,
    block_count,
    block_median_count,
    block_median_event,
    block_support_sizes,
    entry_ranks,
    noise_floor_count,
)
from dplasso.estimators.joint_release import joint_share, release_size_and_threshold
from dplasso.estimators.params import (
    DEFAULT_COUNT_FRACTION,
    DEFAULT_LAM,
    check_accountant,
    check_choice,
    check_count_sensitivity,
    check_epsilon,
    check_fraction,
    check_n_iter_or_auto,
    resolve_delta,
)
from dplasso.estimators.private_frank_wolfe import (
    SELECTIONS,
    PrivateRun,
    TrialsResult,
    _PlainRun,
    _finish_plain_run,
    _resolve_plain_run,
    _run_batch,
    check_calibration,
    resolve_n_iter,
)
from dplasso.estimators.problem import classification_loss, prepare_design, split_intercept
from dplasso.estimators.threshold import (
    DEFAULT_THRESHOLD_FRACTION,
    release_threshold,
    split_threshold_budget,
)
from dplasso.estimators.weights import (
    objective_perturbation_weights,
    resolve_weights,
)
from dplasso.optim.validation import check_lam, check_n_trials
from dplasso.privacy.rng import as_generator
from dplasso.privacy.shares import remaining_share, split_share

__all__ = ["keep_largest_entries", "split_budget", "sparsifier_budget", "SparsifierRun",
           "sparsify_runs", "sparsify_trials", "P1_SETTINGS", "SparsifierClassifier"]


def keep_largest_entries(W, k):
    """Keep each trial's ``k`` largest-magnitude entries and zero the rest.

    Parameters
    ----------
    W : ndarray of shape (p, K) or (p, C, K)
        Weights, one trial per trailing index (the entries of a weight matrix compete
        together).
    k : array-like of int of shape (K,)
        Number of entries to keep per trial, ``>= 0``.

    Returns
    -------
    ndarray, shape of ``W``
        A copy with at most ``k[t]`` nonzeros in trial ``t``: exactly ``k[t]`` when ``W``
        has at least that many nonzeros there.

    Notes
    -----
    Ties in magnitude are broken toward the lower flattened index (a stable sort), so the
    result is a deterministic function of ``W`` and ``k``: post-processing of a private
    ``W`` and a private ``k``. Cost :math:`O(mK\\log m)`.
    """
    W = np.asarray(W, dtype=np.float64)
    n_trials = W.shape[-1]
    k = np.asarray(k)
    if k.shape != (n_trials,) or k.dtype.kind not in "iu" or np.any(k < 0):
        raise ValueError(f"k must hold {n_trials} non-negative integers, got {k!r}")
    ranks = entry_ranks(W)
    return np.where(ranks < k, W.reshape(ranks.shape), 0.0).reshape(W.shape)


def check_joint_threshold(count, threshold):
    """``count="joint"`` releases the threshold itself: ``threshold`` must be ``"private"``."""
    if count == "joint" and threshold != "private":
        raise ValueError(f"count='joint' releases the threshold with the size, so threshold "
                         f"must be 'private', got {threshold!r}")


def split_budget(epsilon, count_fraction):
    r"""``(epsilon_count, epsilon_fw)`` = :math:`(f\varepsilon, \varepsilon - f\varepsilon)`,
    adding up to at most ``epsilon`` exactly (:func:`dplasso.privacy.shares.split_share`)."""
    epsilon = check_epsilon(epsilon)
    return split_share(epsilon, check_fraction(count_fraction, "count_fraction"))


def sparsifier_budget(epsilon, n_samples, *, count="joint", count_fraction=None,
                      threshold="private", threshold_fraction=DEFAULT_THRESHOLD_FRACTION):
    r"""``(epsilon_threshold, epsilon_count, epsilon_weights)`` of one Sparsifier fit of
    ``n_samples`` training rows at total ``epsilon`` (defaults: the estimator's).

    The threshold takes :math:`f_b\varepsilon` (:func:`split_threshold_budget`); the count
    takes ``count_fraction`` of the rest (None: :func:`joint_share` for ``"joint"``, else
    :data:`DEFAULT_COUNT_FRACTIONS`; nothing for ``"noise-floor"``); the weights the
    remainder. The three add up to at most ``epsilon`` exactly. ``"joint"`` spends the
    threshold's and the count's shares in one draw: ``epsilon - epsilon_weights``.
    """
    epsilon_threshold, epsilon_weights = split_threshold_budget(epsilon, threshold,
                                                                threshold_fraction)
    if count == "noise-floor":
        return epsilon_threshold, 0.0, epsilon_weights
    if count_fraction is None:
        count_fraction = (joint_share(n_samples, epsilon) if count == "joint"
                          else DEFAULT_COUNT_FRACTIONS[count])
    return (epsilon_threshold, *split_budget(epsilon_weights, count_fraction))


class SparsifierRun(NamedTuple):
    """One run of :func:`sparsify_runs`: ``K`` Sparsifier fits with the settings of one
    call of :func:`sparsify_trials` on the same data (:func:`sparsify_trials` documents
    each field).

    ``weights`` may also be a :class:`~dplasso.estimators.private_frank_wolfe.TrialsResult`
    of private Frank-Wolfe on the same rows, with ``K`` trials (``count="lasso-support"``
    only): the weights released once and cut by this run's count. Then ``epsilon`` is the
    budget of the count and the threshold only (the threshold's share first, the count the
    rest; ``count_fraction`` must be None), and the weights' own accounting parts join the
    run's.
    """

    epsilon: float
    n_trials: int = 1
    random_state: object = None
    n_iter: object = "auto"
    delta: float | None = None
    count: str = "lasso-support"
    count_fraction: float | None = None
    count_sensitivity: object = "max"
    count_noise: str = "geometric"
    threshold: str = "none"
    threshold_fraction: float = DEFAULT_THRESHOLD_FRACTION
    weights: object = "frank-wolfe"


class _SparsifierPlan(NamedTuple):
    """A :class:`SparsifierRun` checked, its budget split and its steps resolved."""

    count: str
    count_sensitivity: object
    count_noise: str
    threshold: str
    epsilon_threshold: float
    epsilon_count: float
    epsilon_weights: float | None
    delta: float | None
    weights: object
    n_iter: int
    n_trials: int
    rng: np.random.Generator


def _plan_sparsifier_run(run, *, design, n_classes, lam, selection, n_coordinates,
                         n_countable):
    """The checks of one :class:`SparsifierRun` at the entry (nothing drawn, nothing solved)."""
    count = check_choice(run.count, "count", COUNTS)
    check_joint_threshold(count, run.threshold)
    given = isinstance(run.weights, TrialsResult)
    if given and count != "lasso-support":
        raise ValueError(f"weights given as a release need count='lasso-support', "
                         f"got count={count!r}")
    if run.count_fraction is not None:
        if given:
            raise ValueError("count_fraction must be None when the weights are given: the "
                             "count takes the budget the threshold leaves")
        check_fraction(run.count_fraction, "count_fraction")
    count_sensitivity = check_count_sensitivity(run.count_sensitivity)
    count_noise = check_choice(run.count_noise, "count_noise", COUNT_NOISES)
    n_trials = check_n_trials(run.n_trials)
    n_samples = design.shape[0]
    if given:
        weights, delta, epsilon_weights = run.weights, None, None
        epsilon_threshold, epsilon_count = split_threshold_budget(
            run.epsilon, run.threshold, run.threshold_fraction)
        shape = np.shape(weights.W)
        if shape[-1] != n_trials or math.prod(shape[:-1]) != n_countable:
            raise ValueError(f"weights must hold n_trials={n_trials} trials of the design's "
                             f"{n_countable} countable weights, got W of shape {shape}")
        n_iter = weights.n_iter
    else:
        epsilon_threshold, epsilon_count, epsilon_weights = sparsifier_budget(
            run.epsilon, n_samples, count=count, count_fraction=run.count_fraction,
            threshold=run.threshold, threshold_fraction=run.threshold_fraction)
        delta = resolve_delta(run.delta, n_samples)
        weights = resolve_weights(run.weights, n_samples=n_samples, n_columns=design.shape[1],
                                  epsilon=run.epsilon, n_classes=n_classes, count=count)
        n_iter = (0 if weights == "objective-perturbation" else
                  resolve_n_iter(run.n_iter, lam, n_samples, epsilon_weights, delta,
                                 n_coordinates, selection))
    if count == "lasso-support":
        count_sensitivity = resolve_count_sensitivity(count_sensitivity, n_countable)
        check_count_noise_scale(epsilon_count, count_sensitivity, count_noise,
                                n_countable=n_countable)
    return _SparsifierPlan(count, count_sensitivity, count_noise, run.threshold,
                           epsilon_threshold, epsilon_count, epsilon_weights, delta, weights,
                           n_iter, n_trials, as_generator(run.random_state))


def _count_before_weights(plan, *, design, y, loss, lam, fit_intercept, n_countable,
                          support_size):
    """``(targets, parts)`` of the counts released before the weights (P1's count, the block
    median); ``(None, [])`` for the others. ``support_size()`` gives :math:`c`."""
    if plan.count == "lasso-support":
        targets = noisy_count(support_size(), plan.epsilon_count, plan.count_sensitivity,
                              plan.count_noise, plan.rng, n_max=n_countable,
                              size=plan.n_trials)
        return targets, [pure_part(count_noise_event(
            plan.epsilon_count, plan.count_sensitivity, plan.count_noise,
            n_countable=n_countable))]
    if plan.count == "block-median":
        n_blocks = block_count(design.shape[0], n_countable, plan.epsilon_count)
        sizes = block_support_sizes(loss, design, y, lam, n_blocks, fit_intercept=fit_intercept)
        targets = block_median_count(sizes, n_countable=n_countable, epsilon=plan.epsilon_count,
                                     rng=plan.rng, n_trials=plan.n_trials)
        return targets, [pure_part(block_median_event(plan.epsilon_count, n_blocks))]
    return None, []


def _finish_sparsifier(plan, *, design, y, W, intercept, parts, targets, n_classes, lam,
                       n_coordinates, n_countable, epsilon):
    """The releases after the weights (the joint release, the noise floor, the accuracy
    count, the cut, the threshold) and the run's :class:`TrialsResult`."""
    weights_nnz = np.count_nonzero(W.reshape(-1, plan.n_trials), axis=0)
    if plan.count == "joint":
        epsilon_joint = remaining_share(epsilon, plan.epsilon_weights)
        W, intercept, targets, event = release_size_and_threshold(
            design, y, W, intercept, n_classes=n_classes, epsilon=epsilon_joint, rng=plan.rng)
        parts.append(pure_part(event))
    else:
        if plan.count == "noise-floor":
            targets = noise_floor_count(W, n_iter=plan.n_iter, n_coordinates=n_coordinates,
                                        lam=lam)
        elif plan.count == "accuracy":
            targets = accuracy_count(design, y, W, intercept, n_classes=n_classes,
                                     epsilon=plan.epsilon_count, rng=plan.rng)
            parts.append(pure_part(accuracy_count_event(
                plan.epsilon_count, accuracy_count_sizes(n_countable).size)))
        W = keep_largest_entries(W, targets)
        if plan.threshold == "private":
            intercept, event = release_threshold(design, y, W, intercept, n_classes=n_classes,
                                                 epsilon=plan.epsilon_threshold, rng=plan.rng)
            parts.append(pure_part(event))
    ledger, guarantee = parts[0] if len(parts) == 1 else compose_parts(parts)
    return TrialsResult(W, intercept, ledger, guarantee, tuple(parts), plan.n_iter, targets,
                        weights_nnz)


def sparsify_runs(X, y, runs, *, lam, n_classes=2, selection="laplace", fit_intercept=True,
                  bounds="error", support_size=None, calibration="proven"):
    r"""Sparsifier runs on one dataset, their Frank-Wolfe steps in one engine call: the one
    function that builds every Sparsifier fit (:func:`sparsify_trials`,
    :class:`SparsifierClassifier`, the experiments).

    Each :class:`SparsifierRun` is ``K`` fits with its own budget, count, threshold, steps
    and generator; plain private Frank-Wolfe runs
    (:class:`~dplasso.estimators.private_frank_wolfe.PrivateRun`) may join them. Every run
    with Frank-Wolfe weights is a group of columns of one batched engine call
    (:func:`~dplasso.estimators.private_frank_wolfe.private_frank_wolfe_runs`), so each step
    costs one product :math:`X^\top R` for all of them; each run's generator draws what its
    own :func:`sparsify_trials` call draws (its count before the weights, the Frank-Wolfe
    selections, then the counts that read the weights and the threshold), so the output
    equals that call's but for the rounding of the batched product.

    Parameters
    ----------
    X, y, lam, n_classes, selection, fit_intercept, bounds
        As in :func:`sparsify_trials`, shared by every run.
    runs : sequence of SparsifierRun or PrivateRun
        Give each run its own generator (one shared by several runs is drawn from in
        another order than in separate calls).
    support_size : int or None, default=None
        The non-private count :math:`c` of P1's count (``"lasso-support"``) when already
        known; None solves it here, once for every run that needs it.
    calibration : {"proven", "talwar"}, default="proven"
        The Frank-Wolfe noise of every run
        (:data:`~dplasso.estimators.private_frank_wolfe.CALIBRATIONS`): ``"talwar"`` is the
        authors' closed-form scale, an experiment option whose ledger shows what it spends
        under replace-one; the steps ``"auto"`` still follow the proven calibration.

    Returns
    -------
    list of TrialsResult
        One per run, in order, as :func:`sparsify_trials` (a
        :class:`~dplasso.estimators.private_frank_wolfe.PrivateRun`: as
        :func:`~dplasso.estimators.private_frank_wolfe.private_frank_wolfe_trials`).

    Notes
    -----
    Privacy: each run is what its own call would be (same mechanisms, calibrations and
    ledger; :func:`sparsify_trials`); batching changes only where the arithmetic happens.
    """
    lam = check_lam(lam)
    selection = check_choice(selection, "selection", SELECTIONS)
    runs = list(runs)
    if not runs:
        raise ValueError("runs must hold at least one SparsifierRun or PrivateRun")
    loss, _ = classification_loss(n_classes)
    design = prepare_design(X, fit_intercept=fit_intercept, bounds=bounds)
    n_coordinates = design.shape[1] * loss.n_classes
    n_countable = (design.shape[1] - int(fit_intercept)) * loss.n_classes
    if support_size is not None:
        support_size = _check_nonnegative_int(support_size, "support_size")
        if support_size > n_countable:
            raise ValueError(f"support_size must be <= {n_countable} (the countable "
                             f"weights), got {support_size}")
    plans = []
    for run in runs:
        if isinstance(run, PrivateRun):
            plans.append(_resolve_plain_run(run, lam=lam, n_samples=design.shape[0],
                                            n_coordinates=n_coordinates, selection=selection))
        elif isinstance(run, SparsifierRun):
            plans.append(_plan_sparsifier_run(
                run, design=design, n_classes=n_classes, lam=lam, selection=selection,
                n_coordinates=n_coordinates, n_countable=n_countable))
        else:
            raise TypeError(f"runs must hold SparsifierRun or PrivateRun, got "
                            f"{type(run).__name__}")

    engine = [plan for plan in plans if isinstance(plan, _PlainRun)
              or isinstance(plan.weights, str) and plan.weights == "frank-wolfe"]
    calibration = check_calibration(calibration, selection, [
        plan.engine[1] if isinstance(plan, _PlainRun) else plan.delta for plan in engine])

    def solved_support_size():
        nonlocal support_size
        if support_size is None:
            support_size = _support_size(loss, design, y, lam, fit_intercept=fit_intercept)
        return support_size

    counts = [_count_before_weights(plan, design=design, y=y, loss=loss, lam=lam,
                                    fit_intercept=fit_intercept, n_countable=n_countable,
                                    support_size=solved_support_size)
              if isinstance(plan, _SparsifierPlan) else None for plan in plans]
    if engine:
        fits = iter(_run_batch(
            design, y, [plan.engine if isinstance(plan, _PlainRun) else
                        (plan.epsilon_weights, plan.delta, plan.n_iter, "zero", plan.n_trials,
                         plan.rng) for plan in engine],
            n_classes=n_classes, lam=lam, selection=selection, calibration=calibration))
    results = []
    for run, plan, count in zip(runs, plans, counts):
        if isinstance(plan, _PlainRun):
            results.append(_finish_plain_run(plan, design, y, *next(fits), n_classes=n_classes,
                                             fit_intercept=fit_intercept))
            continue
        targets, parts = count
        if isinstance(plan.weights, TrialsResult):
            W, intercept = plan.weights.W, plan.weights.intercept
            parts += plan.weights.accounting
        else:
            if plan.weights == "objective-perturbation":
                W_full, weights_part = objective_perturbation_weights(
                    design, y, epsilon=plan.epsilon_weights, delta=plan.delta,
                    n_trials=plan.n_trials, rng=plan.rng)
            else:
                W_full, *weights_part = next(fits)
            parts.append(tuple(weights_part))
            W, intercept = split_intercept(W_full, fit_intercept)
        results.append(_finish_sparsifier(plan, design=design, y=y, W=W, intercept=intercept,
                                          parts=parts, targets=targets, n_classes=n_classes,
                                          lam=lam, n_coordinates=n_coordinates,
                                          n_countable=n_countable, epsilon=run.epsilon))
    return results


def sparsify_trials(X, y, *, lam, n_iter, epsilon, delta=None, n_trials=1, n_classes=2,
                    count="lasso-support", count_fraction=None,
                    count_sensitivity="max", count_noise="geometric", selection="laplace",
                    fit_intercept=True, bounds="error", threshold="none",
                    threshold_fraction=DEFAULT_THRESHOLD_FRACTION, weights="frank-wolfe",
                    support_size=None, random_state=None):
    r"""``K`` independent Sparsifier fits of one dataset (one count solve, one engine call):
    :func:`sparsify_runs` with one run.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, p)
        Features (data domain checked or clipped, see ``bounds``); sparse stays sparse.
    y : array-like of shape (n,)
        Encoded labels: ``{0, 1}`` for ``n_classes=2``, else ``0..n_classes-1``.
    lam : float
        L1-ball radius ``> 0``, shared by the count fit and the private fit.
    n_iter : int or "auto"
        Frank-Wolfe steps; ``"auto"`` is
        :func:`~dplasso.estimators.private_frank_wolfe.auto_n_iter` for the Frank-Wolfe share
        of the budget.
    epsilon : float
        Total budget of one trial.
    delta : float or None, default=None
        Total ``delta`` (all of it goes to Frank-Wolfe; the count is pure); None means
        ``1/n**2``.
    n_trials : int, default=1
        Number ``K`` of independent trials (independent count noise and selection noise).
    n_classes : int, default=2
    count : {"lasso-support", "joint", "accuracy", "noise-floor", "block-median"}
        Default ``"lasso-support"``. How :math:`\tilde c` is released: P1's noisy support
        size of the non-private fit (:func:`~dplasso.estimators.count.noisy_count`), the
        joint release of the size and the threshold
        (:mod:`dplasso.estimators.joint_release`, ``threshold="private"``), the size whose
        cut model is most accurate on the training rows (exponential mechanism), the noise
        floor of the private weights (post-processing, no budget) or the private median of
        block support sizes (:mod:`dplasso.estimators.private_count`). The defaults of this
        function are P1's (:data:`P1_SETTINGS`).
    count_fraction : float or None, default=None
        Share :math:`f` spent on the count (all but ``"noise-floor"``), of the budget left
        after the threshold (all of ``epsilon`` without one); None is the count's default:
        for ``"joint"`` the public rule
        :func:`dplasso.estimators.joint_release.joint_share` of ``n`` and ``epsilon``,
        otherwise :data:`dplasso.estimators.private_count.DEFAULT_COUNT_FRACTIONS` (0.1 for
        ``"accuracy"``, 0.25 for the others).
    count_sensitivity : "max" or int, default="max"
        ``"lasso-support"`` only: replace-one sensitivity :math:`\Delta_c` of the count:
        ``"max"`` is the proven bound :math:`m`; an integer is declared (``1`` is P1's
        unproven choice; see :mod:`dplasso.estimators.count`).
    count_noise : {"geometric", "laplace"}, default="geometric"
        ``"lasso-support"`` only.
    selection : {"laplace", "exponential"}, default="laplace"
    fit_intercept : bool, default=True
    bounds : {"error", "clip"}, default="error"
    threshold : {"none", "private"}, default="none"
        ``"private"``: release each trial's offset after the top-:math:`\tilde c` step
        (:func:`dplasso.estimators.threshold.release_threshold`).
    threshold_fraction : float, default=0.1
    weights : {"frank-wolfe", "objective-perturbation", "auto"}, default="frank-wolfe"
        The weights' release before the count (:mod:`dplasso.estimators.weights`): P1's
        private Frank-Wolfe, L2 objective perturbation (two classes, ``count="joint"``) or
        the public rule between them; or a private Frank-Wolfe release already made on the
        same rows (:class:`SparsifierRun`).
    support_size : int or None, default=None
        ``"lasso-support"`` only: the non-private count :math:`c` when it is already known
        (the support size of the non-private fit of the same rows and ``lam``,
        :func:`~dplasso.estimators.count.lasso_support_size`); None solves it here.
    random_state : None, int or numpy.random.Generator, default=None

    Returns
    -------
    TrialsResult
        ``n_nonzero_target`` holds each trial's :math:`\tilde c`; ``n_iter`` is 0 with
        objective-perturbation weights (no Frank-Wolfe step); ``accounting`` the parts
        in the order they ran: the count (P1's and the block median), the Frank-Wolfe
        steps, the count (the accuracy count, which reads their weights), the threshold
        (when released).

    Notes
    -----
    - Neighbouring relation: replace-one.
    - Data domain: rows :math:`\|x_i\|_\infty \le 1` (intercept column included).
    - Sensitivity: count :math:`\Delta_c` = ``count_sensitivity`` (proven for ``"max"`` or
      values :math:`\ge m`, declared otherwise); vertex scores :math:`2\lambda/n` (proven).
    - Guarantee: threshold :math:`\varepsilon_b = f_b\varepsilon`-DP; of the rest
      :math:`\varepsilon' = \varepsilon - \varepsilon_b`, the count
      :math:`\varepsilon_1 = f\varepsilon'`-DP (pure, given :math:`\Delta_c`; nothing for
      the noise floor) and Frank-Wolfe (or objective perturbation)
      :math:`(\varepsilon' - \varepsilon_1, \delta)`-DP; basic composition gives
      :math:`(\varepsilon, \delta)` per trial.
    - Numerics: P1's count exact (``"geometric"``) or idealised floats (``"laplace"``);
      selection and the other counts idealised floats.
    - Post-processing: clipping :math:`\tilde c` to :math:`[1, m]` and the top-:math:`\tilde c`
      step.
    - Cost: P1's count, one accurate non-private solve (working-set FISTA) shared by the
      ``K`` trials (the block median, one per block; the accuracy count, one product per
      candidate size); then private Frank-Wolfe for all trials at once, then a sort of
      each trial's :math:`m` entries.
    """
    (result,) = sparsify_runs(
        X, y, [SparsifierRun(epsilon, n_trials, random_state, n_iter, delta, count,
                             count_fraction, count_sensitivity, count_noise, threshold,
                             threshold_fraction, weights)],
        lam=lam, n_classes=n_classes, selection=selection, fit_intercept=fit_intercept,
        bounds=bounds, support_size=support_size)
    return result


def _fit_sparsifier(model, X, y, *, lam, n_iter, count, count_fraction, count_sensitivity,
                    count_noise, selection, threshold, threshold_fraction, weights):
    """Fit ``model`` privately at the given settings (check the budget, fit, spend).

    The one fit of :class:`SparsifierClassifier` (at :data:`P1_SETTINGS`) and
    :class:`~dplasso.estimators.recommended.SparseDPLogisticRegression` (at
    :data:`~dplasso.estimators.recommended.RECOMMENDED_SETTINGS`): the parameters a user
    sets (``lam``, ``n_iter``, ``count_fraction``, ``count_sensitivity`` and ``model``'s
    ``epsilon``, ``accountant``) are checked first, then the training data; one
    :func:`sparsify_trials` fit under the accountant's hold; the fitted attributes set on
    ``model``, which is returned. The fixed settings are the library's constants.
    """
    lam = check_lam(lam)
    epsilon = check_epsilon(model.epsilon)
    _, epsilon_fit = split_threshold_budget(epsilon, threshold, threshold_fraction)
    if count_fraction is not None:
        split_budget(epsilon_fit, count_fraction)
    check_count_sensitivity(count_sensitivity)
    accountant = check_accountant(model.accountant)
    # stacklevel 4: the warning points at the caller of model.fit, two frames up.
    X, y_encoded, classes = model._validate_training_data(X, y, stacklevel=4)
    check_n_iter_or_auto(n_iter)
    delta = resolve_delta(model.delta, X.shape[0])
    with holding_budget(accountant, epsilon, delta) as spend:
        result = sparsify_trials(
            X, y_encoded, lam=lam, n_iter=n_iter, epsilon=epsilon, delta=delta,
            n_classes=classes.size, count=count, count_fraction=count_fraction,
            count_sensitivity=count_sensitivity, count_noise=count_noise,
            selection=selection, fit_intercept=model.fit_intercept, bounds=model.bounds,
            threshold=threshold, threshold_fraction=threshold_fraction, weights=weights,
            random_state=model.random_state)
        spend(result.accounting)
    model._set_model(result.W, result.intercept, classes)
    model.n_nonzero_target_ = int(result.n_nonzero_target[0])
    model.n_iter_ = result.n_iter
    model.privacy_ledger_ = result.ledger
    model.privacy_guarantee_ = result.guarantee
    return model


P1_SETTINGS = MappingProxyType({
    "count": "lasso-support",
    "count_noise": "geometric",
    "selection": "laplace",
    "threshold": "none",
    "threshold_fraction": DEFAULT_THRESHOLD_FRACTION,
    "weights": "frank-wolfe",
})
"""The settings of :func:`sparsify_trials` that are P1's method and that
:class:`SparsifierClassifier` fixes (read-only): P1's count (the noisy support size of the
non-private fit, ``"lasso-support"``) with double-geometric noise, Laplace report-noisy-min
selection, Frank-Wolfe weights and no released threshold (``threshold_fraction`` is then
unused). The other counts, selections, thresholds and weights are experiment options of
:func:`sparsify_trials` and :class:`SparsifierRun`, not estimator parameters."""


@shared_docs
class SparsifierClassifier(FrankWolfeClassifierBase):
    r"""P1's Sparsifier: private Frank-Wolfe LASSO logistic regression, cut to a noisy size.

    P1's method as the paper states it (:data:`P1_SETTINGS`): the support size :math:`c` of
    the non-private L1-constrained fit on the same rows is released with double-geometric
    noise on a share ``count_fraction`` of the budget; private Frank-Wolfe from zero, with
    Laplace report-noisy-min selection, spends the rest; the fit keeps its :math:`\tilde c`
    largest-magnitude coefficients and zeros the others. The one departure from the paper
    is the count's sensitivity: by default the proven bound :math:`m` (P1 assumes 1, which
    is not a bound; ``count_sensitivity=1`` reproduces it). Two classes use the logistic
    loss; more use the multinomial loss, and the count and the cut run over the :math:`pC`
    entries of the weight matrix (P1 Appendix A). This is the method the P1 chapters
    reproduce; the library's recommended private model is
    :class:`~dplasso.estimators.SparseDPLogisticRegression`.

    {{prediction}}

    Parameters
    ----------
    lam : float, default=10.0
        Radius of the L1 ball (a constraint radius, not a penalty weight), for both the count
        fit and the private fit (:data:`dplasso.estimators.params.DEFAULT_LAM`, P1's radius).
    n_iter : int or "auto", default="auto"
        Frank-Wolfe steps. ``"auto"``: the ``T <= 1000`` minimising Talwar et al.'s error
        bound for the Frank-Wolfe share of the budget
        (:func:`dplasso.estimators.private_frank_wolfe.auto_n_iter`; public quantities only).
    epsilon : float, default=1.0
        Total privacy budget, ``> 0``.
    delta : float or None, default=None
        Total ``delta`` in ``[0, 1)``, spent by Frank-Wolfe; None means ``1/n**2``.
    count_fraction : float, default=0.25
        Share :math:`f \in (0, 1)` of ``epsilon`` spent on the count,
        :math:`\varepsilon_1 = f\varepsilon`
        (:data:`dplasso.estimators.params.DEFAULT_COUNT_FRACTION`).
    count_sensitivity : "max" or int, default="max"
        Replace-one sensitivity of the count. ``"max"`` is the number :math:`m` of countable
        coefficients (``p``, or ``pC``): the only proven bound, since one example can move
        the support size from 1 to :math:`p` (the book's ``prop-count-sensitivity``). It
        makes the noise as wide as the count's range, so :math:`\tilde c` carries little
        information unless :math:`\varepsilon_1 \gg 1`. An integer is a declared value;
        ``1`` reproduces P1, whose count is then not :math:`\varepsilon_1`-DP (a count that
        moves by :math:`k` costs :math:`k\varepsilon_1`). The ledger's count event says which.
    fit_intercept : bool, default=True
        Append a constant feature 1 inside the ball; its coefficient is ``intercept_``, never
        removed by the top-:math:`\tilde c` step and not counted.
    bounds : {"error", "clip"}, default="error"
        Rows must satisfy :math:`\|x_i\|_\infty \le 1`; ``"clip"`` clips entries to
        ``[-1, 1]`` (a per-row map; the guarantee holds), in ``fit``.
        {{rounding}}
    accountant : BudgetAccountant or None, default=None
        Holds ``(epsilon, delta)`` before any computation (refused if it does not fit);
        spends each part against the hold after, in the order they ran: the count (basic),
        then the Frank-Wolfe steps (their composition); frees what the fit did not spend
        (all of it if the fit raises).
    random_state : None, int or numpy.random.Generator, default=None
        Source of all noise (the count first, then the selections); None draws OS entropy.
    classes : array-like of shape (C,) or None, default=None
        {{private_classes}}

    Attributes
    ----------
    classes_ : ndarray of shape (C,)
    coef_ : ndarray of shape (1, p) or (C, p)
        At most ``n_nonzero_target_`` nonzeros (exactly that many when the private
        Frank-Wolfe output had at least that many).
    intercept_ : ndarray of shape (1,) or (C,)
    n_nonzero_target_ : int
        The released support size :math:`\tilde c` (no non-private count is exposed).
    n_iter_ : int
        Frank-Wolfe steps.
    privacy_ledger_ : PrivacyLedger
        The count event, then the ``T`` selections.
    privacy_guarantee_ : PrivacyGuarantee
        Basic composition of the count's :math:`\varepsilon_1` and the Frank-Wolfe
        :math:`(\varepsilon - \varepsilon_1, \delta)` (itself the better of basic and
        advanced composition).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    See Also
    --------
    SparseDPLogisticRegression : The recommended private model.
    PrivateFrankWolfeLassoClassifier : The private fit before sparsification.
    sparsify_trials : The same fit batched over trials, with the experiments' other counts,
        selections, thresholds and weights.

    Notes
    -----
    - Neighbouring relation: replace-one (same ``n``, one row ``(x_i, y_i)`` replaced).
    - Data domain: rows :math:`\|x_i\|_\infty \le 1` (the intercept column included);
      labels from the public label set ``classes`` (without it, read from ``y``: not
      covered by the guarantee).
    - Sensitivity: the count, :math:`m` (proven) or a declared ``count_sensitivity``; the
      vertex scores, :math:`2\lambda/n` (proven,
      :func:`dplasso.privacy.calibration.fw_score_sensitivity`).
    - Guarantee: :math:`(\varepsilon, \delta)`-DP by basic composition of the
      :math:`\varepsilon_1`-DP count (for a declared sensitivity below :math:`m`,
      conditional on it) and the Frank-Wolfe fit with what remains.
    - Numerics: the count exact (integer sampler); the selections idealised floats.
    - Post-processing: clipping :math:`\tilde c` to :math:`[1, m]`, keeping the top
      :math:`\tilde c` magnitudes (ties toward the lower index).
    - Cost: one accurate non-private working-set solve (the count), ``T`` private
      Frank-Wolfe steps (one product :math:`X^\top R` each), one sort of the :math:`m`
      coefficients.

    References
    ----------
    .. [1] A. Khanna, F. Lu, E. Raff and B. Testa, "Sparse Private LASSO Logistic
       Regression", arXiv:2304.12429, 2023.
    .. [2] K. Talwar, A. Thakurta and L. Zhang, "Nearly-Optimal Private LASSO", NeurIPS 2015.

    Examples
    --------
    >>> import numpy as np
    >>> from dplasso.estimators import SparsifierClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(500, 20))
    >>> y = (X[:, 0] - X[:, 1] > 0).astype(int)
    >>> model = SparsifierClassifier(epsilon=5.0, classes=[0, 1],
    ...     random_state=0).fit(X, y)
    >>> int(np.count_nonzero(model.coef_)) <= model.n_nonzero_target_
    True
    """

    _private_fit = True

    def __init__(self, lam=DEFAULT_LAM, n_iter="auto", epsilon=1.0, delta=None,
                 count_fraction=DEFAULT_COUNT_FRACTION, count_sensitivity="max",
                 fit_intercept=True, bounds="error", accountant=None, random_state=None,
                 classes=None):
        self.lam = lam
        self.n_iter = n_iter
        self.epsilon = epsilon
        self.delta = delta
        self.count_fraction = count_fraction
        self.count_sensitivity = count_sensitivity
        self.fit_intercept = fit_intercept
        self.bounds = bounds
        self.accountant = accountant
        self.random_state = random_state
        self.classes = classes

    def fit(self, X, y):
        """Fit the model privately (check the budget, fit, spend).

        Parameters
        ----------
        {{training_rows}}
        y : array-like of shape (n,)
            Class labels (at least two classes).

        Returns
        -------
        self

        Raises
        ------
        {{budget_refused}}
        """
        return _fit_sparsifier(
            self, X, y, lam=self.lam, n_iter=self.n_iter, count_fraction=self.count_fraction,
            count_sensitivity=self.count_sensitivity, **P1_SETTINGS)
