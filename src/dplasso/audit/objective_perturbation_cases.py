r"""Sensitivity searches and a privacy audit of objective perturbation (the L2 reference).

The release of :func:`dplasso.baselines.l2_objective_perturbation.objective_perturbation_trials`
rests on two bounds of the book's ``lem-objective-perturbation``, each searched here over
replace-one neighbours (:func:`objective_perturbation_sensitivity_cases`):

- the stationarity noise :math:`b_D(w) = -\sum_i \nabla\ell(w; x_i, y_i) - \Lambda w`
  (:class:`StationarityNoise`) moves by less than :math:`2R` in L2 at every fixed :math:`w`;
- the log-Jacobian :math:`\log\det(H_D(w) + \Lambda I)` (:class:`LogJacobian`) moves by at
  most :math:`\varepsilon_J = \log(1 + R^2/(4\Lambda))`.

The audit (:func:`objective_perturbation_cases`) runs the whole release on one column.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from scipy.special import expit

from dplasso.audit.broken import with_argument
from dplasso.audit.cases import AuditCase, SensitivityCase
from dplasso.estimators.objective_perturbation import (
    ObjectivePerturbation,
    l2_mechanism,
    stationarity_noise,
)
from dplasso.privacy.neighbours import REPLACE_ONE
from dplasso.privacy.rng import as_generator

__all__ = [
    "StationarityNoise",
    "LogJacobian",
    "solve_one_column",
    "objective_perturbation_sensitivity_cases",
    "objective_perturbation_cases",
]

_BISECTION_STEPS = 64


class StationarityNoise:
    r"""The stationarity noise :math:`b_D(w)` at a fixed point ``w`` (quadratic weight
    :math:`\Lambda`), the quantity the noise of objective perturbation hides.

    :func:`dplasso.estimators.objective_perturbation.stationarity_noise`; replace-one
    sensitivity in L2 below :math:`2R` for rows :math:`\|x\|_2 \le R` (theorem).
    """

    def __init__(self, w, quad_weight):
        self.w = np.asarray(w, dtype=np.float64)
        self.quad_weight = float(quad_weight)

    def __call__(self, X, y):
        return stationarity_noise(X, np.asarray(y, dtype=np.float64), self.w,
                                  quad_weight=self.quad_weight)

    def search_directions(self, X, y):
        """``w`` itself and its opposite: rows along them have the largest margins."""
        return np.column_stack([self.w, -self.w])


class LogJacobian:
    r""":math:`\log\det(\sum_i \sigma'(x_i^\top w) x_i x_i^\top + \Lambda I)` at a fixed
    ``w``: the Jacobian term of the output density (replace-one sensitivity at most
    :math:`\log(1 + R^2/(4\Lambda))`, theorem)."""

    def __init__(self, w, quad_weight):
        self.w = np.asarray(w, dtype=np.float64)
        self.quad_weight = float(quad_weight)

    def __call__(self, X, y):
        X = np.asarray(X, dtype=np.float64)
        curvature = expit(X @ self.w)
        curvature *= 1.0 - curvature
        hessian = X.T @ (curvature[:, np.newaxis] * X)
        hessian[np.diag_indices_from(hessian)] += self.quad_weight
        return np.array([np.linalg.slogdet(hessian)[1]])


def objective_perturbation_sensitivity_cases(random_state=0, n=30, p=3):
    r"""Both bounds of ``lem-objective-perturbation`` on Rademacher rows (theorem).

    Rows of :math:`\pm 1` entries sit on the bound :math:`\|x\|_2 = R = \sqrt p`. The
    stationarity noise is taken at a ``w`` of norm 4 (margins of a few units, residuals near
    :math:`\pm 1`): the L2 bound :math:`2R` is approached only as :math:`\|w\| \to \infty`
    (two rows at a small angle with opposite residuals), so the case is not tight. The
    log-Jacobian is taken at ``w = 0`` (every :math:`\sigma' = 1/4`) on one Rademacher row
    among rows scaled to a twentieth: replacing it by the zero row moves it by nearly
    :math:`\log(1 + R^2/(4\Lambda))`, which it would attain were the other rows zero
    (tight; attained only up to rounding, so they are not).

    Returns
    -------
    list of SensitivityCase
    """
    rng = as_generator(random_state)
    X = rng.choice(np.array([-1.0, 1.0]), size=(n, p))
    y = rng.integers(0, 2, n).astype(np.float64)
    R = math.sqrt(p)
    quad_weight = 2.0
    w = rng.standard_normal(p)
    w *= 4.0 / np.linalg.norm(w)
    lone = X / 20.0
    lone[0] = X[0]
    return [
        SensitivityCase("objective perturbation: stationarity noise b_D(w), L2",
                        StationarityNoise(w, quad_weight), X, y, 2.0 * R, "2", theorem=True,
                        tight=False, proven=2.0 * math.sqrt(p)),
        SensitivityCase("objective perturbation: log-Jacobian log det(H_D + Lambda I)",
                        LogJacobian(np.zeros(p), quad_weight), lone, y,
                        math.log1p(R * R / (4.0 * quad_weight)), "inf", theorem=True,
                        tight=True, proven=math.log1p(p / (4.0 * quad_weight))),
    ]


def solve_one_column(x, y, quad_weight, b):
    r"""Exact minimisers of ``K`` one-column perturbed problems (no intercept), batched.

    The minimiser of :math:`\sum_i \ell(w; x_i, y_i) + \frac{\Lambda}{2}w^2 + b_k w` is the
    root of the increasing function :math:`\sum_i x_i(\sigma(x_i w) - y_i) + \Lambda w + b_k`,
    bracketed by :math:`(-b_k \mp \sum_i|x_i|)/\Lambda`, found by 64 bisection halvings
    (the bracket shrinks by :math:`2^{-64}`, below float resolution for the audit's sizes). The same minimiser as
    :func:`~dplasso.estimators.objective_perturbation.solve_perturbed_logistic`.

    Parameters
    ----------
    x, y : ndarray of shape (n,)
    quad_weight : float
    b : ndarray of shape (K,)

    Returns
    -------
    ndarray of shape (K,)
    """
    x = np.asarray(x, dtype=np.float64)[:, np.newaxis]
    y = np.asarray(y, dtype=np.float64)[:, np.newaxis]
    b = np.asarray(b, dtype=np.float64)
    spread = np.abs(x).sum()
    low, high = (-b - spread) / quad_weight, (-b + spread) / quad_weight
    for _ in range(_BISECTION_STEPS):
        middle = 0.5 * (low + high)
        value = (x * (expit(x * middle) - y)).sum(axis=0) + quad_weight * middle + b
        below = value < 0
        low, high = np.where(below, middle, low), np.where(below, high, middle)
    return 0.5 * (low + high)


def objective_perturbation_cases(epsilon=2.0, jacobian_share=0.5, n_zero=3, noise="gamma",
                                 delta=1e-5):
    r"""The L2 reference's release on one column, correct and with its Jacobian ignored.

    Mechanism: the calibration of the estimator (:func:`~dplasso.estimators.
    objective_perturbation.l2_mechanism` with ``d = 1``: Gamma-norm noise, pure
    :math:`\varepsilon = \varepsilon_J + \varepsilon_b`, or Gaussian noise,
    :math:`(\varepsilon, \delta)` with ``delta``), its noise sampler, and the exact
    minimiser (:func:`solve_one_column`). Output: the released weight :math:`w`, projected
    to :math:`|w - w^\star|`, its distance from the point of largest privacy loss.

    Worst-case pair. :math:`D` holds the row :math:`(x, y) = (1, 1)` and ``n_zero`` rows
    :math:`x = 0`; :math:`D'` replaces that row by :math:`x = 0`. The zero rows add nothing,
    so :math:`D'` releases :math:`w = -b/\Lambda` and :math:`D` the root of
    :math:`\sigma(w) - 1 + \Lambda w + b = 0`; with :math:`\theta = 2/\varepsilon_b` the
    privacy loss at :math:`w \ge w^\star` (the root of :math:`\Lambda w = 1 - \sigma(w)`) is
    :math:`(1 - \sigma(w))/\theta + \log(1 + \sigma'(w)/\Lambda)`, largest at :math:`w^\star`:
    the Jacobian term is attained (:math:`\sigma' \approx 1/4`) and the noise term at about a
    quarter of :math:`\varepsilon_b` (in one dimension a replaced row moves :math:`b_D` by at
    most :math:`R`, half the bound :math:`2R`, and here by :math:`1 - \sigma(w^\star)`). The
    correct release therefore audits well below its claim.

    With Gaussian noise of standard deviation :math:`s` the noise term's loss at :math:`w \ge 0`
    is :math:`(2\Lambda w(1 - \sigma(w)) - (1 - \sigma(w))^2)/(2s^2)`, bounded on this pair
    (the lemma's :math:`2R` and its tail of :math:`\|Pb\|` are not approached in one
    dimension either), so the Gaussian release too audits well below its claim, and its
    noise-scale mutants (half the standard deviation, the tail radius at :math:`\sqrt\delta`)
    are left to the law test through ``fit``
    (``tests/proofs/test_audit_objective_perturbation.py``).

    Variant ``jacobian-ignored``: the quadratic weight cut to 1/16 of the calibrated one while
    the claim stays :math:`\varepsilon` (the Jacobian term then costs
    :math:`\log(1 + 4(e^{\varepsilon_J} - 1))` instead of :math:`\varepsilon_J`).
    """
    mechanism = l2_mechanism(1, epsilon, delta, noise=noise, jacobian_share=jacobian_share)
    quad = mechanism.quad_weight
    x = np.zeros(n_zero + 1)
    x[0] = 1.0
    y = np.zeros(n_zero + 1)
    y[0] = 1.0
    D = (x, y)
    D_prime = (np.zeros_like(x), y.copy())
    peak = float(solve_one_column(x[:1], y[:1], quad, np.zeros(1))[0])  # Lambda w = 1 - sigma(w)

    def release(data, size, rng, quad_weight=quad):
        features, labels = data
        b = mechanism.sample(1, rng, size=size)[:, 0]
        return solve_one_column(features, labels, quad_weight, b)

    broken = with_argument(release, "quad_weight", lambda q: q * Fraction(1, 16),
                           "jacobian-ignored")
    if noise == "gamma":
        name = (f"L2 objective perturbation, one column (eps={epsilon:g}, eps_J="
                f"{mechanism.epsilon_jacobian:g}, gamma noise)")
    else:
        name = (f"Gaussian objective perturbation (the L2 reference's), one column "
                f"(eps={epsilon:g}, eps_J={mechanism.epsilon_jacobian:g}, "
                f"delta={mechanism.delta:g})")
    pair = (f"{REPLACE_ONE}: crafted, the row (1, 1) replaced by a zero row among "
            f"{n_zero} zero rows; largest loss at w* = {peak:.3g}")
    return [AuditCase(name, getattr(m, "broken_variant", "correct"), m, D, D_prime, epsilon,
                      mechanism.delta, "threshold",
                      lambda outputs: np.abs(np.asarray(outputs) - peak),
                      pair, release=ObjectivePerturbation.sample)
            for m in (release, broken)]
