r"""The two-stage method of Kifer, Smith and Thakurta (COLT 2012) for sparse logistic regression.

Stage 1 (support selection, sample-and-aggregate)
    Split the row indices at random (independently of the data) into ``m`` disjoint
    blocks. On each block fit a non-private L1-penalised logistic regression
    (scikit-learn, liblinear, penalty weight ``1/block_C``) and let the block *vote* for
    the (at most) ``s`` features with the largest nonzero ``|coef|``. The vote count
    :math:`v_j` is the number of blocks voting for feature ``j``
    (:func:`block_vote_counts`). Select ``s`` features privately with ``s`` rounds of the
    exponential mechanism without replacement, utility :math:`v_j`
    (:func:`select_top_k_private`).
Stage 2 (estimation on the support)
    Objective perturbation (:mod:`dplasso.estimators.objective_perturbation`) of the
    logistic loss restricted to the selected columns (plus the constant column when
    ``fit_intercept=True``), centre 0; the output is zero off the support.

Budget: stage 1 spends :math:`\varepsilon_1 = \text{selection\_share}\cdot\varepsilon`
(default one half, as Kifer et al. split it), stage 2 the rest
:math:`\varepsilon_2 = \varepsilon - \varepsilon_1` (and all of ``delta`` for Gaussian
noise); the total is their basic composition.
"""
from __future__ import annotations

import math
import warnings
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from dplasso.baselines._inputs import (
    check_binary_problem,
    check_delta,
    check_epsilon,
    check_fraction,
    check_positive_int,
    check_positive_real,
    with_intercept_column,
)
from dplasso.baselines.budget import calibrate_within_budget
from dplasso.baselines.nonprivate import sklearn_l1_coef
from dplasso.estimators.objective_perturbation import (
    NOISE_KINDS,
    calibrate_objective_perturbation,
    quad_weight_for_jacobian,
    solve_perturbed_logistic,
)
from dplasso.baselines.result import BaselineFit
from dplasso.privacy.accounting import PrivacyLedger
from dplasso.privacy.rng import as_generator
from dplasso.privacy.selection import (
    exponential_mechanism_event,
    exponential_mechanism_min,
    exponential_mechanism_scale,
)

__all__ = [
    "MIN_MEAN_QUAD_WEIGHT",
    "VOTE_COUNT_SENSITIVITY",
    "BlockFits",
    "block_vote_counts",
    "default_n_blocks",
    "fit_blocks",
    "fit_two_stage",
    "select_top_k_private",
    "vote_counts",
]

VOTE_COUNT_SENSITIVITY = 1.0
r"""Replace-one sensitivity of every vote count :math:`v_j` (and so of every score of the
selection): one row lies in one block, that block's vote vector is in :math:`\{0,1\}^p`, so
each count moves by at most 1 (the vector moves in at most ``2s`` entries, L1 norm
:math:`\le 2s`)."""


MIN_MEAN_QUAD_WEIGHT = 1e-6
r"""Floor :math:`c` on stage 2's mean-scaled quadratic weight: :math:`\Lambda \ge c\,n`.

The privacy calibration alone gives :math:`\Lambda = R^2/(4(e^{\varepsilon_J}-1))`, which
vanishes as :math:`\varepsilon` grows (at :math:`\varepsilon = 10^6` it is the smallest
float), leaving an unregularised, possibly separable logistic fit with coefficients of
:math:`10^{13}` and more. A larger :math:`\Lambda` only lowers :math:`\varepsilon_J`
(the noise gets the rest of the budget), so the floor keeps the guarantee; it is a public
constant times the public ``n``. Since the logistic loss is :math:`\ge 0` and
:math:`\log 2` at 0, the minimiser obeys :math:`\frac{\Lambda}{2}\|w\|^2 - \|b\|\|w\|
\le n\log 2`, so :math:`\|w\|_2 \le (\|b\| + \sqrt{\|b\|^2 + 2\Lambda n\log 2})/\Lambda`,
about :math:`\sqrt{2\log 2/c} \approx 1177` when the noise is small. The floor binds only
when :math:`\varepsilon_J = \varepsilon_2/2` exceeds :math:`\log(1 + R^2/(4cn))`: with
:math:`R \ge 1` and :math:`n \le 20000` training rows that is above
:math:`\log(1 + 12.5) = 2.6`, while the book's largest budget :math:`\varepsilon = 5` has
:math:`\varepsilon_J = 1.25`, so its experiments are unaffected."""


def default_n_blocks(n_samples):
    r"""Default number of blocks: :math:`\lfloor\sqrt n\rfloor` (at least 1).

    A public function of ``n`` only. It balances the two needs of stage 1: more blocks make
    the selection noise (scale :math:`2s/\varepsilon_1` on counts out of ``m``) relatively
    smaller, larger blocks make each block's support estimate better. Kifer et al. give
    ``m`` only up to constants; this choice is ours.
    """
    return max(1, math.isqrt(int(n_samples)))


class BlockFits(NamedTuple):
    """Stage 1's non-private part for one partition: the blocks and their L1 fits.

    Attributes
    ----------
    blocks : list of ndarray of int
        Disjoint row blocks, drawn independently of the data.
    coef : ndarray of shape (m, p)
        Coefficients of each block's L1-penalised fit (zeros for a block with one class).
    """

    blocks: list
    coef: np.ndarray


def fit_blocks(X, y, blocks, *, block_C=1.0):
    """Each block's L1-penalised logistic fit (liblinear, ``C = block_C``): :class:`BlockFits`.

    The vote counts of any ``s`` follow from them (:func:`vote_counts`), so budgets that
    share a partition share these fits. A block with a single class (no fit possible) gets
    zero coefficients and votes for nothing.
    """
    if sp.issparse(X) and X.format != "csr":
        X = X.tocsr()  # row blocks
    coef = np.zeros((len(blocks), X.shape[1]))
    for b, rows in enumerate(blocks):
        y_block = y[rows]
        if y_block.size == 0 or np.all(y_block == y_block[0]):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            coef[b], _ = sklearn_l1_coef(X[rows], y_block, C=block_C)
    return BlockFits(list(blocks), coef)


def vote_counts(coef, n_nonzero):
    """Votes per feature: each block (row of ``coef``) votes for its (at most) ``n_nonzero``
    largest nonzero ``|coef|`` (ties broken by the lower index); int64 array ``(p,)``."""
    votes = np.zeros(coef.shape[1], dtype=np.int64)
    for row in coef:
        magnitude = np.abs(row)
        top = np.argsort(-magnitude, kind="stable")[:n_nonzero]
        votes[top[magnitude[top] > 0]] += 1
    return votes


def block_vote_counts(X, y, blocks, n_nonzero, *, block_C=1.0):
    """Non-private vote counts: for each feature, the number of blocks voting for it.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, p)
    y : ndarray of shape (n,)
        Labels in ``{0, 1}``.
    blocks : sequence of integer index arrays
        Disjoint row blocks.
    n_nonzero : int
        ``s``: each block votes for at most ``s`` features, its ``s`` largest nonzero
        ``|coef|`` (ties broken by the lower index).
    block_C : float, default=1.0
        Inverse L1 penalty weight of each block's fit (scikit-learn's ``C``).

    Returns
    -------
    ndarray of int64 of shape (p,)
        Vote counts; a block with a single class (no fit possible) votes for nothing.
        Replace-one sensitivity :data:`VOTE_COUNT_SENSITIVITY` per count.
    """
    return vote_counts(fit_blocks(X, y, blocks, block_C=block_C).coef, n_nonzero)


def select_top_k_private(scores, k, epsilon_per_round, rng, *,
                         sensitivity=VOTE_COUNT_SENSITIVITY):
    r"""``k`` rounds of the exponential mechanism, each among the indices not yet picked.

    Round ``t`` picks ``j`` among the remaining indices with probability proportional to
    :math:`\exp(\varepsilon_0 u_j / (2\Delta))`, by
    :func:`dplasso.privacy.selection.exponential_mechanism_min` on the negated scores with
    temperature :math:`2\Delta/\varepsilon_0`.

    Parameters
    ----------
    scores : ndarray of shape (m,)
        Utility of each index (larger is better); replace-one sensitivity ``sensitivity``
        per entry.
    k : int
        Number of picks, ``1 <= k <= m``.
    epsilon_per_round : float
        :math:`\varepsilon_0` of each round.
    rng : numpy.random.Generator
    sensitivity : float, default=1.0
        :math:`\Delta`, the largest change of any one score between neighbours.

    Returns
    -------
    ndarray of intp of shape (k,)
        The picks in the order drawn.

    Notes
    -----
    - Neighbouring relation: replace-one (the scores' sensitivity is stated for it).
    - Sensitivity: :math:`\Delta` = largest change of any single score; restricting to the
      remaining indices (a function of earlier outputs) keeps it.
    - Guarantee: each round is :math:`\varepsilon_0`-DP and :math:`\varepsilon_0^2/8`-zCDP
      (exponential mechanism, bounded range); ``k`` adaptive rounds compose to
      :math:`k\varepsilon_0` (basic) or :math:`k\varepsilon_0^2/8` (zCDP).
    - Numerics: idealised floats (the selection module's Gumbel-max sampler).
    - Cost: ``k`` passes over at most ``m`` scores.
    """
    scores = np.asarray(scores, dtype=np.float64)
    scale = exponential_mechanism_scale(sensitivity, epsilon_per_round)
    remaining = np.arange(scores.size)
    picks = np.empty(k, dtype=np.intp)
    for t in range(k):
        chosen = exponential_mechanism_min(-scores[remaining, np.newaxis], scale, rng)[0]
        picks[t] = remaining[chosen]
        remaining = np.delete(remaining, chosen)
    return picks


def fit_two_stage(X, y, *, epsilon, n_nonzero, delta=0.0, n_blocks=None, block_C=1.0,
                  selection_share=0.5, noise="gamma", fit_intercept=True, tol=1e-9,
                  block_fits=None, random_state=None):
    r"""Private sparse logistic regression by the two-stage method (Kifer, Smith, Thakurta 2012).

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, p)
        Rows with ``||x_i||_inf <= 1`` (checked); sparse input is never densified.
    y : array-like of shape (n,)
        Labels in ``{0, 1}``, both present.
    epsilon : float
        Total privacy budget, ``> 0``.
    n_nonzero : int
        ``s``, the number of features selected (the output has at most ``s`` nonzero
        feature coefficients), ``1 <= s <= p``.
    delta : float, default=0.0
        Used (and required ``> 0``) only with ``noise="gaussian"``; in ``[0, 1)``.
    n_blocks : int or None, default=None
        Number of blocks ``m`` of stage 1 (``1 <= m <= n``); None: :func:`default_n_blocks`.
    block_C : float, default=1.0
        scikit-learn's ``C`` for each block's L1-penalised fit.
    selection_share : float, default=0.5
        Share of ``epsilon`` spent by stage 1.
    noise : {"gamma", "gaussian"}, default="gamma"
        Stage-2 noise: pure-DP Gamma-norm density, or Gaussian (needs ``delta > 0``).
    fit_intercept : bool, default=True
        Add the constant feature to the stage-2 model (always in the support, never
        counted among the ``s``).
    tol : float, default=1e-9
        Stage-2 solver tolerance (sup norm of the gradient).
    block_fits : BlockFits or None, default=None
        Stage 1's partition and block fits (:func:`fit_blocks` with ``block_C``) when the
        caller has them: several budgets on one dataset may share one partition, drawn
        independently of the data, and its fits. Each budget's output then has the law it
        has with a partition of its own; the partition is not drawn from ``random_state``.
        ``n_blocks`` must be None or its number of blocks.
    random_state : None, int or numpy.random.Generator, default=None

    Returns
    -------
    BaselineFit
        ``coef`` (p,) nonzero only on the selected support; ``intercept``; a
        :class:`~dplasso.privacy.accounting.PrivacyLedger` with a selection event and an
        objective-perturbation event (basic total ``(epsilon, delta)``); ``info`` with the
        support, ``n_blocks``, the budget split, the stage-2 calibration and the solver's
        final gradient norm.

    Notes
    -----
    - Neighbouring relation: replace-one. The block partition is drawn independently of the
      data, so replacing row ``i`` changes only the block holding ``i``.
    - Data domain: rows with :math:`\|x\|_\infty \le 1`, labels ``{0, 1}``.
    - Sensitivity: stage 1, every vote count moves by at most 1
      (:data:`VOTE_COUNT_SENSITIVITY`); stage 2, on ``d = s`` (+1 with intercept) columns
      :math:`\|x\|_2 \le R = \sqrt d`, so the stationarity noise moves by at most
      :math:`2R` in L2 and the Jacobian ratio is at most :math:`1 + R^2/(4\Lambda)`
      (logistic smoothness :math:`\sigma' \le 1/4`).
    - Guarantee: stage 1 :math:`\varepsilon_1 = s\,\varepsilon_0`-DP (``s`` exponential
      mechanisms); stage 2 :math:`\varepsilon_2`-DP (gamma) or
      :math:`(\varepsilon_2, \delta)`-DP (Gaussian), with :math:`\Lambda` chosen so that
      the Jacobian term costs :math:`\varepsilon_2/2`; basic composition gives
      :math:`(\varepsilon, \delta)`.
    - Numerics: idealised floats; stage 2 assumes the exact minimiser (the final gradient
      sup norm is in ``info["grad_norm"]``).
    - Post-processing: padding the stage-2 solution with zeros off the support.
    - Cost: ``m`` liblinear fits on ``n/m`` rows, then one L-BFGS solve on ``n x d``.

    References
    ----------
    .. [1] D. Kifer, A. Smith, A. Thakurta, "Private Convex Empirical Risk Minimization and
       High-dimensional Regression", COLT 2012.
    .. [2] K. Chaudhuri, C. Monteleoni, A. D. Sarwate, "Differentially Private Empirical
       Risk Minimization", JMLR 2011.
    """
    X, y = check_binary_problem(X, y)
    n_samples, n_features = X.shape
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    n_nonzero = check_positive_int(n_nonzero, "n_nonzero", maximum=n_features)
    if block_fits is not None:
        if n_blocks not in (None, len(block_fits.blocks)) or block_fits.coef.shape != (
                len(block_fits.blocks), n_features):
            raise ValueError(f"block_fits must hold one fit of the {n_features} features per "
                             f"block (and n_blocks, if given, their number), got "
                             f"{block_fits.coef.shape} for n_blocks={n_blocks}")
        n_blocks = len(block_fits.blocks)
    n_blocks = (default_n_blocks(n_samples) if n_blocks is None
                else check_positive_int(n_blocks, "n_blocks", maximum=n_samples))
    block_C = check_positive_real(block_C, "block_C")
    selection_share = check_fraction(selection_share, "selection_share")
    if noise not in NOISE_KINDS:
        raise ValueError(f"noise must be one of {NOISE_KINDS}, got {noise!r}")
    if noise == "gaussian" and delta == 0:
        raise ValueError("noise='gaussian' needs delta > 0, got delta=0.0")
    rng = as_generator(random_state)

    dim = n_nonzero + int(fit_intercept)

    def calibrate(budget):
        epsilon_round = selection_share * budget / n_nonzero
        scale = exponential_mechanism_scale(VOTE_COUNT_SENSITIVITY, epsilon_round)
        epsilon_stage2 = budget - n_nonzero * epsilon_round
        floor = MIN_MEAN_QUAD_WEIGHT * n_samples
        binds = quad_weight_for_jacobian(math.sqrt(dim), 0.5 * epsilon_stage2) < floor
        mechanism = calibrate_objective_perturbation(
            math.sqrt(dim), epsilon_stage2, delta, noise=noise,
            quad_weight=floor if binds else None)
        events = [
            exponential_mechanism_event(
                VOTE_COUNT_SENSITIVITY, scale, count=n_nonzero,
                note="two-stage stage 1: support selection from block vote counts"),
            mechanism.event(
                note="two-stage stage 2: objective perturbation on the selected support"),
        ]
        return events, (epsilon_round, mechanism)

    events, (epsilon_round, mechanism) = calibrate_within_budget(calibrate, epsilon)

    # Stage 1: private support selection from block votes.
    if block_fits is None:
        block_fits = fit_blocks(X, y, np.array_split(rng.permutation(n_samples), n_blocks),
                                block_C=block_C)
    blocks = block_fits.blocks
    votes = vote_counts(block_fits.coef, n_nonzero)
    support = np.sort(select_top_k_private(votes, n_nonzero, epsilon_round, rng))

    # Stage 2: objective perturbation on the selected columns.
    design = X[:, support]
    if fit_intercept:
        design = with_intercept_column(design)
    b = mechanism.sample(dim, rng)
    w, grad_norm = solve_perturbed_logistic(
        design, y, quad_weight=mechanism.quad_weight, linear_term=b, tol=tol)

    ledger = PrivacyLedger()
    for event in events:
        ledger.record(event)

    coef = np.zeros(n_features)
    coef[support] = w[:n_nonzero]
    intercept = float(w[-1]) if fit_intercept else None
    info = {
        "method": "two-stage", "support": support, "n_blocks": n_blocks,
        "block_sizes": (min(map(len, blocks)), max(map(len, blocks))),
        "epsilon_selection": n_nonzero * epsilon_round, "epsilon_per_round": epsilon_round,
        "epsilon_estimation": mechanism.epsilon, "quad_weight": mechanism.quad_weight,
        "epsilon_jacobian": mechanism.epsilon_jacobian, "noise": noise,
        "noise_scale": mechanism.noise_scale, "row_norm_bound": mechanism.row_norm_bound,
        "noise_norm": float(np.linalg.norm(b)), "grad_norm": grad_norm,
    }
    return BaselineFit(coef, intercept, ledger, info)
