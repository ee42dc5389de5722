r"""Objective perturbation for logistic regression (Chaudhuri et al. 2011; Kifer et al. 2012).

The mechanism releases the exact minimiser of a randomly tilted, strongly convex objective,

.. math::
    \hat w = \arg\min_w \; \frac1n \sum_{i=1}^n \ell(w; x_i, y_i)
    + \frac{\Lambda}{2n}\|w - c\|_2^2 + \frac{b^\top w}{n},

with :math:`\ell(w; x, y) = \log(1 + e^{x^\top w}) - y\,x^\top w` (labels ``{0, 1}``), a
public centre :math:`c` (0 for the two-stage method's second stage, the ADMM consensus point
for private ADMM), a quadratic weight :math:`\Lambda > 0` and a noise vector :math:`b`.
It is shared by :mod:`dplasso.baselines.two_stage` (stage 2),
:mod:`dplasso.baselines.admm` (every data-touching step), the L2 reference
(:mod:`dplasso.baselines.l2_objective_perturbation`) and the default Sparsifier's weights
where the design has few columns (:mod:`dplasso.estimators.weights`); :func:`l2_mechanism`
is the public rule of the last two.

Privacy (replace-one, rows with :math:`\|x\|_2 \le R`). Multiplying by ``n``, the
minimiser is the unique stationary point of
:math:`\sum_i \ell_i(w) + \frac{\Lambda}{2}\|w - c\|^2 + b^\top w`, so the map from
:math:`b` to :math:`\hat w` is a bijection with inverse

.. math::
    b_D(w) = -\sum_i \nabla\ell(w; x_i, y_i) - \Lambda (w - c)

(:func:`stationarity_noise`), and the output density is
:math:`p_D(w) = \nu(b_D(w))\,|\det(H_D(w) + \Lambda I)|` with
:math:`H_D = \sum_i \sigma'(x_i^\top w)\, x_i x_i^\top`. For neighbours ``D``, ``D'``
differing in row ``k``:

1. *Noise term.* :math:`b_D(w) - b_{D'}(w) = \nabla\ell(w; z'_k) - \nabla\ell(w; z_k)
   = r' x'_k - r x_k` with :math:`|r|, |r'| < 1` (:math:`r = \sigma(x^\top w) - y`), so its
   L2 norm is below :math:`2R` -- the *sensitivity* of this mechanism -- and it lies in the
   (at most two-dimensional) span of :math:`x_k, x'_k`.
2. *Jacobian term.* With :math:`A = \sum_{i \ne k} \sigma'_i x_i x_i^\top + \Lambda I
   \succeq \Lambda I` and :math:`0 < \sigma' \le 1/4`,
   :math:`\det(A + h x x^\top) = \det A\,(1 + h\,x^\top A^{-1} x) \in
   [\det A, \det A\,(1 + R^2/(4\Lambda))]`, so the Jacobian ratio is at most
   :math:`1 + R^2/(4\Lambda)`: :math:`\varepsilon_J = \log(1 + R^2/(4\Lambda))`
   (:func:`jacobian_epsilon`). This is Kifer et al.'s condition
   :math:`\Delta \ge 2\lambda/\varepsilon` with the smoothness :math:`\lambda = R^2/4` of
   the logistic loss, solved exactly instead of through :math:`\log(1+u) \le u`.

Noise distributions:

``"gamma"`` (pure DP)
    :math:`\nu(b) \propto \exp(-\|b\|_2/\theta)` with :math:`\theta = 2R/\varepsilon_b`: the
    density ratio is at most :math:`e^{\|b_D - b_{D'}\|/\theta} \le e^{\varepsilon_b}`, so
    the release is :math:`(\varepsilon_J + \varepsilon_b)`-DP. Sampled as a uniform
    direction times a :math:`\mathrm{Gamma}(d, \theta)` norm (the radial density is
    :math:`r^{d-1} e^{-r/\theta}`).
``"gaussian"`` (approximate DP; our derivation, Kifer et al. state a different constant)
    :math:`b \sim N(0, \sigma^2 I)`. With :math:`d = b_D - b_{D'}` and :math:`P` the
    projection onto :math:`\mathrm{span}(x_k, x'_k)`, the log density ratio is
    :math:`(\|b - d\|^2 - \|b\|^2)/(2\sigma^2) \le (4R^2 + 4R\|Pb\|)/(2\sigma^2)`. Since
    :math:`\|Pb\|^2/\sigma^2` is :math:`\chi^2` with at most 2 degrees of freedom,
    :math:`P(\|Pb\| > \sigma r) \le e^{-r^2/2} = \delta` for :math:`r = \sqrt{2\ln(1/\delta)}`;
    outside that event the privacy loss is at most
    :math:`\varepsilon_J + 2u^2 + 2ru` with :math:`u = R/\sigma`. Solving
    :math:`2u^2 + 2ru = \varepsilon_b` gives
    :math:`\sigma = 2R/(\sqrt{r^2 + 2\varepsilon_b} - r)`, and the release is
    :math:`(\varepsilon_J + \varepsilon_b, \delta)`-DP.

Numerics: idealised. The analysis assumes the exact minimiser :math:`\hat w` and real-valued
noise, and the samplers are numpy floating-point samplers. The solver stops once the sup norm
of the mean-scaled gradient is at most ``tol`` (:func:`solve_perturbed_logistic`, checked: a
solve that misses it within its iteration caps warns ``ConvergenceWarning`` naming only
``tol`` and the caps, and its point is released as it is, outside this bound). The
``n``-scaled objective is :math:`\Lambda`-strongly convex, so
:math:`\Lambda\|w - \hat w\|_2 \le \|\nabla(\text{objective})(w)\|_2 \le n\sqrt d\,\mathrm{tol}`:
the released point lies within :math:`n\sqrt d\,\mathrm{tol}/\Lambda` of :math:`\hat w`
in L2 (the book's ``lem-objective-perturbation``).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.optimize
import scipy.sparse.linalg
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning

from dplasso.estimators.params import check_choice, check_fraction
from dplasso.privacy._validation import check_delta, check_positive
from dplasso.privacy.accounting import PrivacyEvent
from dplasso.privacy.gaussian import gaussian_noise

__all__ = [
    "NOISE_KINDS",
    "L2_NOISES",
    "L2_JACOBIAN_SHARE",
    "choose_noise",
    "l2_mechanism",
    "perturbed_weights",
    "ObjectivePerturbation",
    "calibrate_objective_perturbation",
    "gamma_norm_noise",
    "gaussian_noise_std",
    "jacobian_epsilon",
    "quad_weight_for_jacobian",
    "solve_perturbed_logistic",
    "stationarity_noise",
]

_MAX_NEWTON_STEPS = 8
"""Newton polishing steps after L-BFGS (quadratic convergence: a few suffice)."""

NOISE_KINDS = ("gamma", "gaussian")
"""Noise distributions: pure-DP Gamma-norm density or approximate-DP Gaussian."""


def jacobian_epsilon(row_norm_bound, quad_weight):
    r"""Privacy loss of the Jacobian term: :math:`\log(1 + R^2 / (4\Lambda))`.

    Parameters
    ----------
    row_norm_bound : float
        Public bound :math:`R` on :math:`\|x_i\|_2`.
    quad_weight : float
        Quadratic weight :math:`\Lambda > 0` of the ``n``-scaled objective.

    Returns
    -------
    float
    """
    R = check_positive("row_norm_bound", row_norm_bound)
    quad_weight = check_positive("quad_weight", quad_weight)
    return math.log1p(R * R / (4.0 * quad_weight))


def quad_weight_for_jacobian(row_norm_bound, epsilon_jacobian):
    r"""Smallest :math:`\Lambda` with :math:`\log(1 + R^2/(4\Lambda)) \le \varepsilon_J`.

    :math:`\Lambda = R^2 / (4 (e^{\varepsilon_J} - 1))`, evaluated as
    :math:`R^2 e^{-\varepsilon_J} / (4 (1 - e^{-\varepsilon_J}))` (no overflow) and floored
    at the smallest normal float: any larger :math:`\Lambda` is also private.
    """
    R = check_positive("row_norm_bound", row_norm_bound)
    epsilon_jacobian = check_positive("epsilon_jacobian", epsilon_jacobian)
    value = R * R * math.exp(-epsilon_jacobian) / (-4.0 * math.expm1(-epsilon_jacobian))
    return max(value, np.finfo(np.float64).tiny)


def gaussian_noise_std(row_norm_bound, epsilon_noise, delta):
    r"""Gaussian noise std for the noise term (module docstring, ``"gaussian"``).

    :math:`\sigma = 2R / (\sqrt{r^2 + 2\varepsilon_b} - r)` with
    :math:`r = \sqrt{2\ln(1/\delta)}`.
    """
    R = check_positive("row_norm_bound", row_norm_bound)
    epsilon_noise = check_positive("epsilon_noise", epsilon_noise)
    delta = check_delta("delta", delta, allow_zero=False)
    r = math.sqrt(2.0 * math.log(1.0 / delta))
    # 2u^2 + 2ru = eps  <=>  u = (sqrt(r^2 + 2 eps) - r) / 2, written without cancellation.
    u = epsilon_noise / (math.sqrt(r * r + 2.0 * epsilon_noise) + r)
    return R / u


def gamma_norm_noise(dim, scale, rng, size=None):
    r"""Draw :math:`b \in \mathbb R^{d}` with density proportional to :math:`e^{-\|b\|_2/\theta}`.

    Parameters
    ----------
    dim : int
        Dimension :math:`d \ge 1`.
    scale : float
        :math:`\theta > 0`.
    rng : numpy.random.Generator
    size : int or None, default=None
        Number of independent draws (None: one).

    Returns
    -------
    ndarray of float64 of shape (dim,), or (size, dim)
        A uniform direction (normalised standard normal) times a
        :math:`\mathrm{Gamma}(d, \theta)` norm.
    """
    count = 1 if size is None else int(size)
    direction = rng.standard_normal((count, dim))
    norm = np.linalg.norm(direction, axis=1)
    while np.any(norm == 0.0):  # probability zero; keeps the direction well defined
        zero = norm == 0.0
        direction[zero] = rng.standard_normal((int(zero.sum()), dim))
        norm = np.linalg.norm(direction, axis=1)
    draws = direction * (rng.gamma(dim, scale, size=count) / norm)[:, np.newaxis]
    return draws[0] if size is None else draws


@dataclass(frozen=True)
class ObjectivePerturbation:
    r"""A calibrated objective-perturbation mechanism (see the module docstring).

    Attributes
    ----------
    row_norm_bound : float
        Public bound :math:`R` on :math:`\|x_i\|_2`.
    quad_weight : float
        :math:`\Lambda` in the ``n``-scaled objective.
    epsilon_jacobian : float
        :math:`\log(1 + R^2/(4\Lambda))`.
    epsilon_noise : float
        Privacy loss budget of the noise term, :math:`\varepsilon_b`.
    delta : float
        0 for ``"gamma"``, the failure probability for ``"gaussian"``.
    noise : {"gamma", "gaussian"}
    noise_scale : float
        :math:`\theta = 2R/\varepsilon_b` (gamma) or :math:`\sigma` (gaussian).

    Notes
    -----
    - Neighbouring relation: replace-one.
    - Data domain: rows with :math:`\|x\|_2 \le R` (``R = sqrt(d)`` for ``d`` columns in
      ``[-1, 1]``), labels ``{0, 1}``; a public centre and quadratic weight.
    - Sensitivity: the stationarity noise :math:`b_D(w)` moves by less than :math:`2R` in
      L2 (:attr:`sensitivity`); the Jacobian ratio is at most :math:`1 + R^2/(4\Lambda)`.
    - Guarantee: :math:`(\varepsilon_J + \varepsilon_b)`-DP (gamma) or
      :math:`(\varepsilon_J + \varepsilon_b, \delta)`-DP (gaussian) per release.
    - Numerics: idealised floats; the exact minimiser is assumed (the solver's point lies
      within :math:`n\sqrt d\,\mathrm{tol}/\Lambda` of it, module docstring).
    """

    row_norm_bound: float
    quad_weight: float
    epsilon_jacobian: float
    epsilon_noise: float
    delta: float
    noise: str
    noise_scale: float

    @property
    def epsilon(self):
        """Total :math:`\\varepsilon = \\varepsilon_J + \\varepsilon_b` of one release."""
        return self.epsilon_jacobian + self.epsilon_noise

    @property
    def sensitivity(self):
        """L2 sensitivity of :func:`stationarity_noise` under replace-one: :math:`2R`."""
        return 2.0 * self.row_norm_bound

    def sample(self, dim, rng, size=None):
        """Draw one noise vector :math:`b` of length ``dim`` (``size`` of them: ``(size,
        dim)``)."""
        if self.noise == "gamma":
            return gamma_norm_noise(dim, self.noise_scale, rng, size)
        return gaussian_noise(self.noise_scale, dim if size is None else (int(size), dim), rng)

    def event(self, count=1, note=""):
        """Ledger event for ``count`` (adaptively composed) releases."""
        return PrivacyEvent(
            mechanism=f"objective-perturbation-{self.noise}",
            sensitivity=self.sensitivity,
            epsilon=self.epsilon,
            delta=self.delta,
            count=count,
            note=note,
            numerics="idealised-float",
        )


def calibrate_objective_perturbation(row_norm_bound, epsilon, delta=0.0, *, noise="gamma",
                                     quad_weight=None, jacobian_share=0.5):
    r"""Calibrate objective perturbation to a per-release budget.

    Parameters
    ----------
    row_norm_bound : float
        Public bound :math:`R` on the rows' Euclidean norm (``sqrt(d)`` for ``d`` columns
        with entries in ``[-1, 1]``).
    epsilon : float
        Total :math:`\varepsilon` of the release, ``> 0``.
    delta : float, default=0.0
        Must be ``> 0`` for ``"gaussian"``; ignored (recorded as 0) for ``"gamma"``.
    noise : {"gamma", "gaussian"}, default="gamma"
    quad_weight : float or None, default=None
        :math:`\Lambda`. ``None``: the smallest value giving
        :math:`\varepsilon_J = \text{jacobian\_share} \cdot \varepsilon` (Kifer et al. split
        the budget in halves). Given: :math:`\varepsilon_J` follows from it and the noise
        gets the rest.
    jacobian_share : float, default=0.5
        Share of ``epsilon`` for the Jacobian term when ``quad_weight`` is None.

    Returns
    -------
    ObjectivePerturbation

    Raises
    ------
    ValueError
        On a bad argument, or when a given ``quad_weight`` leaves no budget for the noise
        (:math:`\varepsilon_J \ge \varepsilon`).
    """
    R = check_positive("row_norm_bound", row_norm_bound)
    epsilon = check_positive("epsilon", epsilon)
    if noise not in NOISE_KINDS:
        raise ValueError(f"noise must be one of {NOISE_KINDS}, got {noise!r}")
    if noise == "gaussian":
        delta = check_delta("delta", delta, allow_zero=False)
    else:
        check_delta("delta", delta, allow_zero=True)
        delta = 0.0
    if quad_weight is None:
        if not 0 < jacobian_share < 1:
            raise ValueError(f"jacobian_share must lie in (0, 1), got {jacobian_share!r}")
        epsilon_jacobian = jacobian_share * epsilon
        quad_weight = quad_weight_for_jacobian(R, epsilon_jacobian)
    else:
        epsilon_jacobian = jacobian_epsilon(R, quad_weight)
    epsilon_noise = epsilon - epsilon_jacobian
    if not epsilon_noise > 0:
        raise ValueError(
            f"quad_weight={quad_weight!r} costs epsilon_jacobian={epsilon_jacobian!r} >= "
            f"epsilon={epsilon!r}: no budget is left for the noise; the quadratic weight must "
            f"exceed {quad_weight_for_jacobian(R, epsilon):.6g}"
        )
    if noise == "gamma":
        scale = 2.0 * R / epsilon_noise
    else:
        scale = gaussian_noise_std(R, epsilon_noise, delta)
    return ObjectivePerturbation(
        row_norm_bound=R, quad_weight=float(quad_weight), epsilon_jacobian=epsilon_jacobian,
        epsilon_noise=epsilon_noise, delta=delta, noise=noise, noise_scale=scale,
    )


def stationarity_noise(X, y, w, *, quad_weight, center=None):
    r"""The noise vector for which ``w`` is the perturbed minimiser: :math:`b_D(w)`.

    :math:`b_D(w) = -\sum_i (\sigma(x_i^\top w) - y_i)\, x_i - \Lambda (w - c)`. Its change
    between replace-one neighbours is the quantity the noise must hide (L2 norm below
    :math:`2R`); exposed for the sensitivity tests.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, d)
    y : ndarray of shape (n,), labels in ``{0, 1}``
    w : ndarray of shape (d,)
    quad_weight : float
    center : ndarray of shape (d,) or None (zero)

    Returns
    -------
    ndarray of shape (d,)
    """
    w = np.asarray(w, dtype=np.float64)
    residual = expit(np.asarray(X @ w).ravel()) - y
    b = -np.asarray(X.T @ residual).ravel()
    b -= quad_weight * (w if center is None else w - center)
    return b


def solve_perturbed_logistic(X, y, *, quad_weight, linear_term, center=None, w0=None,
                             tol=1e-9, max_iter=10_000):
    r"""Minimise :math:`\frac1n[\sum_i \ell_i(w) + \frac{\Lambda}{2}\|w - c\|^2 + b^\top w]`.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, d)
        Never densified.
    y : ndarray of shape (n,)
        Labels in ``{0, 1}`` (float).
    quad_weight : float
        :math:`\Lambda > 0` (``n``-scaled; the mean-scaled weight is :math:`\Lambda/n`).
    linear_term : ndarray of shape (d,)
        The noise :math:`b`.
    center : ndarray of shape (d,) or None, default=None
        :math:`c` (zero when None).
    w0 : ndarray of shape (d,) or None, default=None
        Starting point (the centre when None).
    tol : float, default=1e-9
        Sup norm of the (mean-scaled) gradient at which the solve stops: L-BFGS, then up to 8
        Newton steps (conjugate gradients on Hessian-vector products) while the gradient
        shrinks. The objective is :math:`\Lambda/n`-strongly convex, so the returned ``w``
        lies within :math:`n\sqrt d\,\mathrm{tol}/\Lambda` of the exact minimiser in L2.
    max_iter : int, default=10000
        L-BFGS iteration cap.

    Returns
    -------
    w : ndarray of shape (d,)
    grad_norm : float
        Sup norm of the mean-scaled gradient at ``w`` (data-dependent: for tests and
        diagnostics, never part of a release).

    Warns
    -----
    ConvergenceWarning
        When ``grad_norm`` is above ``tol`` after both caps (the message names ``tol`` and
        the caps only, public; the bound above then does not hold).
    """
    n_samples, dim = X.shape
    b = np.asarray(linear_term, dtype=np.float64)
    c = np.zeros(dim) if center is None else np.asarray(center, dtype=np.float64)
    sign = 1.0 - 2.0 * y
    inv_n = 1.0 / n_samples
    ridge = quad_weight * inv_n

    def value_and_grad(w):
        z = np.asarray(X @ w).ravel()
        diff = w - c
        value = (np.logaddexp(0.0, sign * z).sum() + b @ w) * inv_n + 0.5 * ridge * (diff @ diff)
        grad = (np.asarray(X.T @ (expit(z) - y)).ravel() + b) * inv_n + ridge * diff
        return value, grad

    start = c.copy() if w0 is None else np.asarray(w0, dtype=np.float64).copy()
    result = scipy.optimize.minimize(
        value_and_grad, start, jac=True, method="L-BFGS-B",
        options={"gtol": tol, "ftol": 0.0, "maxiter": max_iter, "maxcor": 20},
    )
    w = result.x
    grad = value_and_grad(w)[1]
    grad_norm = float(np.abs(grad).max())
    # L-BFGS stalls near 1e-9 (its line search needs objective decreases float64 cannot
    # resolve); Newton steps, solved by conjugate gradients on Hessian-vector products, need
    # no line search this close to the minimiser of a strongly convex objective.
    for _ in range(_MAX_NEWTON_STEPS):
        if grad_norm <= tol:
            break
        curvature = expit(np.asarray(X @ w).ravel())
        curvature *= 1.0 - curvature

        def hessian_times(v, curvature=curvature):
            product = np.asarray(X.T @ (curvature * np.asarray(X @ v).ravel())).ravel()
            return product * inv_n + ridge * v

        hessian = scipy.sparse.linalg.LinearOperator((dim, dim), matvec=hessian_times)
        # With saturated margins and a tiny ridge the Hessian is numerically singular and CG
        # can overflow; such a step is rejected below rather than warned about.
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            step, _ = scipy.sparse.linalg.cg(hessian, -grad, rtol=1e-12, atol=0.0,
                                             maxiter=10 * dim)
        if not np.all(np.isfinite(step)):
            break
        candidate = w + step
        candidate_grad = value_and_grad(candidate)[1]
        candidate_norm = float(np.abs(candidate_grad).max())
        if not candidate_norm < grad_norm:
            break
        w, grad, grad_norm = candidate, candidate_grad, candidate_norm
    if not grad_norm <= tol:
        warnings.warn(
            f"objective perturbation's solve stopped above its gradient tolerance tol={tol:g} "
            f"(after at most {max_iter} L-BFGS iterations and {_MAX_NEWTON_STEPS} Newton steps); "
            "the released weights are its last point, whose distance from the exact minimiser "
            "the guarantee's bound n sqrt(d) tol / Lambda does not cover",
            ConvergenceWarning, stacklevel=2)
    return w, grad_norm


L2_NOISES = ("auto",) + NOISE_KINDS
"""``"auto"`` (:func:`choose_noise`), ``"gamma"`` (pure DP) or ``"gaussian"``."""

L2_JACOBIAN_SHARE = 0.01
r"""Default share :math:`s` of the weights' budget paid for the Jacobian term.

The share fixes :math:`\Lambda`: a larger share buys a smaller quadratic weight (less bias
toward 0) and leaves less for the noise. Set on the synthetic family only
(:func:`!dplasso.experiments.design.l2_design`, record ``book/paper-results/design-l2.csv``):
of the shares 0.01, 0.05, 0.2 and 0.5 (Kifer et al.'s half), 0.01 has the highest mean test
accuracy over the family (108 configurations) and the budgets 0.5 to 5 (0.633, against
0.631, 0.628 and 0.619).
A small share makes :math:`\Lambda` large, so the release is close to a noisy gradient step
from 0; the threshold, released after it, does not depend on the weights' scale.
"""

def choose_noise(n_columns, epsilon_noise, delta):
    r"""The noise of smaller expected norm at the same :math:`\varepsilon_b`: ``"gamma"`` or
    ``"gaussian"`` (``"gamma"`` when ``delta`` is 0).

    Gamma-norm noise has :math:`\mathbb E\|b\| = d\theta`, :math:`\theta = 2R/\varepsilon_b`;
    Gaussian noise :math:`\sigma\,\mathbb E\chi_d \le \sigma\sqrt d` (the bound is used).
    Public: ``d``, :math:`\varepsilon_b`, :math:`\delta`.
    """
    if delta == 0:
        return "gamma"
    R = math.sqrt(n_columns)
    gamma_norm = n_columns * 2.0 * R / epsilon_noise
    gaussian_norm = math.sqrt(n_columns) * gaussian_noise_std(R, epsilon_noise, delta)
    return "gaussian" if gaussian_norm < gamma_norm else "gamma"


def l2_mechanism(n_columns, epsilon, delta, *, noise="auto", jacobian_share=L2_JACOBIAN_SHARE,
                 quad_weight=None):
    r"""The calibrated mechanism of one fit on ``d`` columns (the L2 reference's rule, and
    the default Sparsifier's where it takes objective perturbation).

    Parameters
    ----------
    n_columns : int
        ``d``, the design's columns (the constant column included): :math:`R = \sqrt d`.
    epsilon : float
        :math:`\varepsilon'`, the weights' budget.
    delta : float
        The ``delta`` a Gaussian noise may spend (ignored by Gamma noise).
    noise : {"auto", "gamma", "gaussian"}, default="auto"
    jacobian_share : float, default=L2_JACOBIAN_SHARE
        :math:`s \in (0, 1)` (used when ``quad_weight`` is None).
    quad_weight : float or None, default=None
        A given public :math:`\Lambda` (the noise then gets what its Jacobian term leaves).

    Returns
    -------
    ObjectivePerturbation
    """
    noise = check_choice(noise, "noise", L2_NOISES)
    jacobian_share = check_fraction(jacobian_share, "jacobian_share")
    if quad_weight is not None:
        quad_weight = check_positive("quad_weight", quad_weight)
    if noise == "auto":
        noise = choose_noise(n_columns, (1.0 - jacobian_share) * epsilon, delta)
    return calibrate_objective_perturbation(
        math.sqrt(n_columns), epsilon, delta if noise == "gaussian" else 0.0, noise=noise,
        quad_weight=quad_weight, jacobian_share=jacobian_share)


def perturbed_weights(design, y, mechanism, *, n_trials, rng, tol):
    r"""``K`` releases of ``mechanism`` (:func:`l2_mechanism`) on a prepared ``design`` and
    labels ``{0, 1}``: the ``K`` noise vectors drawn at once, then each trial's perturbed
    objective minimised to a gradient sup norm of ``tol`` (:func:`solve_perturbed_logistic`,
    which warns when a solve misses it); ``(d, K)``, each column within
    :math:`n\sqrt d\,\mathrm{tol}/\Lambda` of its exact minimiser."""
    n_columns = design.shape[1]
    noise = mechanism.sample(n_columns, rng, size=n_trials)
    labels = np.asarray(y, dtype=np.float64)
    W_full = np.empty((n_columns, n_trials))
    for k in range(n_trials):
        W_full[:, k], _ = solve_perturbed_logistic(
            design, labels, quad_weight=mechanism.quad_weight, linear_term=noise[k], tol=tol)
    return W_full
