r"""Private ADMM for L1-regularised logistic regression (after Wang and Zhang, arXiv 1908.00780).

Problem (penalised form; ``alpha`` is a penalty weight, not the L1-ball radius ``lam``):

.. math::
    \min_{w} \; \frac1n\sum_{i=1}^n \ell(w; x_i, y_i) + \alpha \|w_F\|_1,

with :math:`F` the feature coordinates (the intercept coordinate, when present, is not
penalised). Scaled-form ADMM on the split :math:`w = z`, run for ``K = n_iter`` outer
iterations from :math:`z^0 = u^0 = 0`:

.. math::
    w^{k+1} &= \arg\min_w \frac1n\sum_i \ell(w; x_i, y_i)
               + \frac{\rho}{2}\|w - (z^k - u^k)\|^2 + \frac{b_k^\top w}{n}
               \quad\text{(objective perturbation)} \\
    z^{k+1}_F &= S_{\alpha/\rho}(w^{k+1}_F + u^k_F), \qquad
    z^{k+1}_{\text{int}} = w^{k+1}_{\text{int}} + u^k_{\text{int}} \\
    u^{k+1} &= u^k + w^{k+1} - z^{k+1}

(:math:`S_t` is soft thresholding). The output is :math:`z^K`, sparse because of the
soft threshold. Only the :math:`w`-update touches the data: it is the objective
perturbation mechanism of :mod:`dplasso.estimators.objective_perturbation` with quadratic
weight :math:`\Lambda = n\rho` (``n``-scaled) around the public centre
:math:`z^k - u^k`, a function of earlier releases. Wang and Zhang add "exponential"
(Gamma-norm, pure-DP) noise; so do we.

The six hyperparameters (P1 counts six; which six is not in our text, this is our reading):
``alpha`` (L1 penalty weight), ``rho`` (ADMM penalty, also the strong convexity the
mechanism needs), ``n_iter`` (``K``), the budget split over iterations (uniform), the split
inside an iteration between the Jacobian and the noise term (fixed by ``rho``:
:math:`\varepsilon_J = \log(1 + d/(4n\rho))`), and the output iterate (:math:`z^K`).
"""
from __future__ import annotations

import math

import numpy as np

from dplasso.baselines._inputs import (
    check_binary_problem,
    check_delta,
    check_epsilon,
    check_positive_real,
    with_intercept_column,
)
from dplasso.baselines.budget import calibrate_within_budget, zcdp_budget
from dplasso.estimators.objective_perturbation import (
    calibrate_objective_perturbation,
    jacobian_epsilon,
    solve_perturbed_logistic,
)
from dplasso.baselines.result import BaselineFit
from dplasso.optim.validation import check_n_iter
from dplasso.privacy.accounting import PrivacyLedger
from dplasso.privacy.rng import as_generator

__all__ = [
    "COMPOSITIONS",
    "best_composition",
    "fit_private_admm",
    "per_iteration_epsilon",
    "soft_threshold",
]


def soft_threshold(v, threshold):
    r"""Elementwise :math:`S_t(v) = \mathrm{sign}(v)\max(|v| - t, 0)`."""
    return np.sign(v) * np.maximum(np.abs(v) - threshold, 0.0)


COMPOSITIONS = ("basic", "zcdp")
"""Rules for composing the ``K`` per-iteration releases (:func:`per_iteration_epsilon`)."""


def per_iteration_epsilon(epsilon, delta, n_iter, composition):
    r"""Per-iteration :math:`\varepsilon_0` whose ``K``-fold composition is ``(epsilon, delta)``.

    ``"basic"``
        :math:`\varepsilon_0 = \varepsilon / K` (total :math:`(\varepsilon, 0)`).
    ``"zcdp"`` (``delta > 0``)
        each :math:`\varepsilon_0`-DP release is :math:`\varepsilon_0^2/2`-zCDP (Bun &
        Steinke 2016, Prop 1.4), ``K`` of them :math:`K\varepsilon_0^2/2`-zCDP, which is
        :math:`(\rho + 2\sqrt{\rho\ln(1/\delta)}, \delta)`-DP; with :math:`\rho` from
        :func:`dplasso.baselines.budget.zcdp_budget`, :math:`\varepsilon_0 = \sqrt{2\rho/K}`.

    Parameters
    ----------
    epsilon : float
        Total budget ``> 0``.
    delta : float
        Total ``delta`` (``> 0`` for ``"zcdp"``).
    n_iter : int
        ``K >= 1``.
    composition : {"basic", "zcdp"}

    Returns
    -------
    float
    """
    if composition == "basic":
        return epsilon / n_iter
    return math.sqrt(2.0 * zcdp_budget(epsilon, delta) / n_iter)


def best_composition(epsilon, delta, n_iter):
    """The rule of :data:`COMPOSITIONS` giving the larger per-iteration budget.

    zCDP is only available for ``delta > 0``; ties go to ``"basic"``.
    """
    if delta > 0 and (per_iteration_epsilon(epsilon, delta, n_iter, "zcdp")
                      > per_iteration_epsilon(epsilon, delta, n_iter, "basic")):
        return "zcdp"
    return "basic"


def fit_private_admm(X, y, *, epsilon, delta=0.0, alpha=0.01, rho=1.0, n_iter=10,
                     fit_intercept=True, tol=1e-9, random_state=None):
    r"""Private sparse logistic regression by ADMM with objective perturbation.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, p)
        Rows with ``||x_i||_inf <= 1`` (checked); sparse input is never densified.
    y : array-like of shape (n,)
        Labels in ``{0, 1}``, both present.
    epsilon : float
        Total privacy budget, ``> 0``.
    alpha : float, default=0.01
        L1 penalty weight ``> 0`` (of the mean loss); the soft threshold is ``alpha/rho``.
    delta : float, default=0.0
        Allowed ``delta`` in ``[0, 1)``; with ``delta > 0`` zCDP composition is used when it
        allows more per-iteration budget (:func:`best_composition`).
    rho : float, default=1.0
        ADMM penalty ``> 0``. It must make the Jacobian term affordable:
        :math:`\log(1 + d/(4n\rho)) < \varepsilon_0` (``d`` columns incl. intercept).
    n_iter : int, default=10
        Number of outer iterations ``K`` (= number of private releases).
    fit_intercept : bool, default=True
        Add the constant feature (unpenalised).
    tol : float, default=1e-9
        Tolerance of each ``w``-update solve (sup norm of its gradient).
    random_state : None, int or numpy.random.Generator, default=None

    Returns
    -------
    BaselineFit
        ``coef`` and ``intercept`` from :math:`z^K`; a ledger with one
        objective-perturbation event of count ``K``; ``info`` with the per-iteration
        calibration, the composition rule and the largest final solver gradient norm.

    Raises
    ------
    ValueError
        On bad input, or when ``rho`` is too small for the per-iteration budget (the message
        gives the smallest admissible ``rho``).

    Notes
    -----
    - Neighbouring relation: replace-one.
    - Data domain: rows with :math:`\|x\|_\infty \le 1`, labels ``{0, 1}``.
    - Sensitivity: per iteration, with ``d`` columns, :math:`\|x\|_2 \le R = \sqrt d`; the
      stationarity noise of the ``w``-update moves by at most :math:`2R` in L2 and its
      Jacobian ratio is at most :math:`1 + R^2/(4n\rho)` (logistic smoothness 1/4).
    - Guarantee: each ``w``-update is :math:`\varepsilon_0`-DP with
      :math:`\varepsilon_0 = \varepsilon_J + \varepsilon_b`, :math:`\varepsilon_J =
      \log(1 + d/(4n\rho))` and Gamma-norm noise of scale :math:`2R/\varepsilon_b`; its
      centre is a function of earlier releases, so ``K`` adaptive releases compose (basic or
      zCDP, :func:`best_composition`) to :math:`(\varepsilon, \delta)`.
    - Numerics: idealised floats; exact minimisers assumed (``info["grad_norm"]``).
    - Post-processing: the ``z`` and ``u`` updates and the output :math:`z^K`.
    - Cost: ``K`` L-BFGS solves on ``n x d``, warm-started.
    - Noise grows like :math:`d^{3/2}/(n\varepsilon_0)` per release (Gamma norm of mean
      :math:`d\theta`), so the method degrades quickly with ``p`` and ``K``.

    References
    ----------
    .. [1] P. Wang, H. Zhang, "Differential Privacy for Sparse Classification Learning",
       arXiv:1908.00780, 2019 (Neurocomputing 2020).
    .. [2] S. Boyd et al., "Distributed Optimization and Statistical Learning via the
       Alternating Direction Method of Multipliers", 2011.
    """
    X, y = check_binary_problem(X, y)
    n_samples, n_features = X.shape
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    alpha = check_positive_real(alpha, "alpha")
    rho = check_positive_real(rho, "rho")
    n_iter = check_n_iter(n_iter)
    rng = as_generator(random_state)

    design = with_intercept_column(X) if fit_intercept else X
    dim = design.shape[1]
    row_norm_bound = math.sqrt(dim)
    quad_weight = n_samples * rho
    composition = best_composition(epsilon, delta, n_iter)

    def calibrate(budget):
        epsilon_0 = per_iteration_epsilon(budget, delta, n_iter, composition)
        epsilon_jacobian = jacobian_epsilon(row_norm_bound, quad_weight)
        if epsilon_jacobian >= epsilon_0:
            rho_min = dim / (4.0 * n_samples * math.expm1(epsilon_0))
            raise ValueError(
                f"rho={rho!r} is too small for the per-iteration budget "
                f"epsilon_0={epsilon_0:.6g}: the Jacobian term alone costs "
                f"{epsilon_jacobian:.6g}; use rho > {rho_min:.6g} (or fewer iterations)"
            )
        mechanism = calibrate_objective_perturbation(
            row_norm_bound, epsilon_0, noise="gamma", quad_weight=quad_weight)
        event = mechanism.event(
            count=n_iter, note="private ADMM: objective-perturbed w-update, one per iteration")
        return [event], mechanism

    events, mechanism = calibrate_within_budget(
        calibrate, epsilon, method=composition,
        delta=delta if composition == "zcdp" else None)

    penalised = np.ones(dim, dtype=bool)
    if fit_intercept:
        penalised[-1] = False
    threshold = np.where(penalised, alpha / rho, 0.0)
    w = np.zeros(dim)
    z = np.zeros(dim)
    u = np.zeros(dim)
    grad_norm = 0.0
    for _ in range(n_iter):
        b = mechanism.sample(dim, rng)
        w, gn = solve_perturbed_logistic(
            design, y, quad_weight=quad_weight, linear_term=b, center=z - u, w0=w, tol=tol)
        grad_norm = max(grad_norm, gn)
        z = soft_threshold(w + u, threshold)
        u = u + w - z

    ledger = PrivacyLedger()
    ledger.record(events[0])
    info = {
        "method": "private-admm", "alpha": alpha, "rho": rho, "n_iter": n_iter,
        "composition": composition, "epsilon_per_iteration": mechanism.epsilon,
        "epsilon_jacobian": mechanism.epsilon_jacobian,
        "epsilon_noise": mechanism.epsilon_noise, "noise_scale": mechanism.noise_scale,
        "row_norm_bound": row_norm_bound, "grad_norm": grad_norm,
    }
    coef = z[:n_features].copy()
    intercept = float(z[-1]) if fit_intercept else None
    return BaselineFit(coef, intercept, ledger, info)
