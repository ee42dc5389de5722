r"""DP-IGHT: differentially private iterative gradient hard thresholding (Wang and Gu, IJCAI 2019).

L0-constrained logistic regression, :math:`\min_{\|w_F\|_0 \le s} \frac1n\sum_i \ell(w; x_i, y_i)`
(:math:`F` the feature coordinates; the intercept coordinate, when present, is never
thresholded). From :math:`w^0 = 0`, for :math:`t = 0, \dots, T-1`:

.. math::
    g^t = \nabla L(w^t) + \xi^t,\quad \xi^t \sim N(0, \sigma^2 I_d), \qquad
    w^{t+1} = H_s\!\left(w^t - \eta\, g^t\right),

where :math:`H_s` keeps the ``s`` largest-magnitude feature coordinates and zeroes the rest.
The output :math:`w^T` has at most ``s`` nonzero feature coefficients.

Sensitivity (replace-one). The per-example gradient is :math:`(\sigma(x^\top w) - y)\,x` with
:math:`|\sigma - y| < 1` and :math:`\|x\|_2 \le \sqrt d` (``d`` columns with entries in
``[-1, 1]``), so replacing one row moves the mean gradient by less than
:math:`\Delta_2 = 2\sqrt d / n` in L2 (:func:`mean_gradient_sensitivity`). The supremum is
approached, not attained: take two corners of the cube differing in coordinate ``j``, labels
0 and 1, and :math:`w = M e_j`; the change is :math:`2\sqrt{d-1}/n` as :math:`M \to \infty`
(and corners ever closer give :math:`2\sqrt d/n` in the limit).
The :math:`\sqrt d` is the honest price of the :math:`\|x\|_\infty \le 1` domain: in high
dimension this noise swamps the signal (Wang and Gu's analysis assumes an L2-Lipschitz loss;
P1 points out that this is much worse than L1-Lipschitzness).

Accounting: each step is the Gaussian mechanism, :math:`\rho_1 = \Delta_2^2/(2\sigma^2)`-zCDP;
``T`` adaptive steps are :math:`T\rho_1`-zCDP (the thresholding and the update are
post-processing), which is :math:`(\rho + 2\sqrt{\rho\ln(1/\delta)}, \delta)`-DP.
:func:`dplasso.baselines.budget.zcdp_budget` inverts that conversion, and :math:`\sigma` is
calibrated so the total meets ``(epsilon, delta)`` (to the ulp, never above).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import expit

from dplasso.baselines._inputs import (
    check_binary_problem,
    check_delta,
    check_epsilon,
    check_positive_int,
    check_positive_real,
    with_intercept_column,
)
from dplasso.baselines.budget import calibrate_within_budget, zcdp_budget
from dplasso.baselines.result import BaselineFit
from dplasso.optim.validation import check_n_iter
from dplasso.privacy.accounting import PrivacyLedger
from dplasso.privacy.gaussian import gaussian_event, gaussian_noise, gaussian_sigma_for_rho
from dplasso.privacy.rng import as_generator

__all__ = ["fit_dp_ight", "hard_threshold", "mean_gradient_sensitivity"]


def mean_gradient_sensitivity(n_samples, n_columns):
    r"""Replace-one L2 sensitivity of the mean logistic gradient: :math:`2\sqrt d / n`."""
    return 2.0 * math.sqrt(n_columns) / n_samples


def hard_threshold(v, n_nonzero, keep=None):
    """Keep the ``n_nonzero`` largest-magnitude entries of ``v`` (and the ``keep`` mask).

    Entries where ``keep`` is true are never zeroed and do not count towards
    ``n_nonzero``. Ties at the cut are broken by ``numpy.argpartition`` (deterministic).
    """
    magnitude = np.abs(v)
    if keep is not None:
        magnitude = np.where(keep, -1.0, magnitude)
    candidates = magnitude.size - (0 if keep is None else int(np.count_nonzero(keep)))
    out = np.zeros_like(v)
    if n_nonzero >= candidates:
        top = np.flatnonzero(magnitude >= 0)
    else:
        top = np.argpartition(-magnitude, n_nonzero - 1)[:n_nonzero]
    out[top] = v[top]
    if keep is not None:
        out[keep] = v[keep]
    return out


def fit_dp_ight(X, y, *, epsilon, delta, n_nonzero, n_iter=20, step_size=1.0,
                fit_intercept=True, random_state=None):
    r"""Private sparse logistic regression by DP-IGHT (Wang and Gu 2019).

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, p)
        Rows with ``||x_i||_inf <= 1`` (checked); sparse input is never densified.
    y : array-like of shape (n,)
        Labels in ``{0, 1}``, both present.
    epsilon : float
        Total privacy budget, ``> 0``.
    delta : float
        In ``(0, 1)``: the zCDP-to-DP conversion needs ``delta > 0``.
    n_nonzero : int
        ``s``, the L0 budget on the feature coefficients, ``1 <= s <= p``.
    n_iter : int, default=20
        Number of noisy gradient steps ``T``.
    step_size : float, default=1.0
        :math:`\eta`, a public constant (not fitted to the data).
    fit_intercept : bool, default=True
        Add the constant feature (never thresholded).
    random_state : None, int or numpy.random.Generator, default=None

    Returns
    -------
    BaselineFit
        ``coef`` with at most ``s`` nonzeros; a ledger with one Gaussian event of count
        ``T`` (zCDP total ``(epsilon, delta)``); ``info`` with ``sigma``, ``rho``, the
        sensitivity and the hyperparameters.

    Notes
    -----
    - Neighbouring relation: replace-one.
    - Data domain: rows with :math:`\|x\|_\infty \le 1`, labels ``{0, 1}``.
    - Sensitivity: mean gradient, L2, :math:`2\sqrt d/n` (``d`` columns incl. intercept).
    - Guarantee: :math:`T\Delta_2^2/(2\sigma^2)`-zCDP, converted to
      :math:`(\varepsilon, \delta)`.
    - Numerics: idealised floats (numpy's Gaussian sampler).
    - Post-processing: the gradient step and the hard thresholding.
    - Cost: one ``X w`` and one ``X^T r`` per step.

    References
    ----------
    .. [1] L. Wang, Q. Gu, "Differentially Private Iterative Gradient Hard Thresholding for
       Sparse Learning", IJCAI 2019.
    """
    X, y = check_binary_problem(X, y)
    n_samples, n_features = X.shape
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    n_nonzero = check_positive_int(n_nonzero, "n_nonzero", maximum=n_features)
    n_iter = check_n_iter(n_iter)
    step_size = check_positive_real(step_size, "step_size")
    rng = as_generator(random_state)

    design = with_intercept_column(X) if fit_intercept else X
    dim = design.shape[1]
    sensitivity = mean_gradient_sensitivity(n_samples, dim)

    def calibrate(budget):
        sigma = gaussian_sigma_for_rho(sensitivity, zcdp_budget(budget, delta) / n_iter)
        event = gaussian_event(
            sensitivity, sigma, count=n_iter, note="DP-IGHT: noisy mean gradient, one per step")
        return [event], sigma

    events, sigma = calibrate_within_budget(calibrate, epsilon, method="zcdp", delta=delta)
    keep = None
    if fit_intercept:
        keep = np.zeros(dim, dtype=bool)
        keep[-1] = True

    w = np.zeros(dim)
    for _ in range(n_iter):
        residual = expit(np.asarray(design @ w).ravel()) - y
        gradient = np.asarray(design.T @ residual).ravel() / n_samples
        gradient += gaussian_noise(sigma, dim, rng)
        w = hard_threshold(w - step_size * gradient, n_nonzero, keep)

    ledger = PrivacyLedger()
    ledger.record(events[0])
    info = {
        "method": "dp-ight", "n_nonzero": n_nonzero, "n_iter": n_iter,
        "step_size": step_size, "sigma": sigma, "rho": ledger.rho(), "sensitivity": sensitivity,
    }
    coef = w[:n_features].copy()
    intercept = float(w[-1]) if fit_intercept else None
    return BaselineFit(coef, intercept, ledger, info)
