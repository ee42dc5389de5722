r"""The private screening rule (P2's Algorithm 1, reconstructed) [ours].

At public weights ``W`` (earlier private releases, or a diagnostic non-private iterate), one
screening round releases, per trial, the vector

.. math::

    q(D) = \big(u_1, \dots, u_p,\; T\big) \in \mathbb R^{p+1}, \qquad
    u_i = |g_i| + r\,\|x_{(i)}\|_2, \qquad T = \max_j \big(|g_j| - r\,\|x_{(j)}\|_2\big),

exactly the numbers of the non-private rule (:mod:`dplasso.screening.rule`, floor included,
dual or primal radius), through the Gaussian mechanism: :math:`\tilde q = q +
\mathcal N(0, \sigma^2 I_{p+1})` with :math:`\sigma` calibrated to the L2 sensitivity of
``q`` (:func:`screening_sensitivity`, lemma ``lem-screening-sensitivity``). The mask
:math:`\tilde u_i < \tilde T` is post-processing.

Why Gaussian: every coordinate of ``q`` moves when one row is replaced (one row touches
every column norm and every gradient coordinate), by at most :math:`\Delta_u`, so the L2
sensitivity is :math:`\sqrt{p+1}\,\Delta_u`, the :math:`O(\sqrt d)` of the paper
[seed]; Laplace would need the L1 sensitivity :math:`(p+1)\Delta_u`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dplasso.optim.validation import check_lam, check_X_bounded
from dplasso.privacy.accounting import PrivacyEvent
from dplasso.privacy.gaussian import gaussian_noise, gaussian_rho, gaussian_sigma_analytic
from dplasso.privacy.neighbours import REPLACE_ONE
from dplasso.privacy.rng import as_generator
from dplasso.screening.constants import check_screening_loss, curvature, loss_range
from dplasso.screening.rule import (
    RADIUS_KINDS,
    column_norms,
    evaluate_rule,
    feasible_weights,
)

__all__ = [
    "PrivateScreeningInfo",
    "ScreeningSensitivity",
    "SplitScreeningInfo",
    "SplitScreeningSensitivity",
    "private_screen",
    "private_screen_split",
    "release_screening_statistic",
    "screening_sensitivity",
    "split_rule",
    "split_screening_sensitivity",
    "sqrt_product_sensitivity",
]


@dataclass(frozen=True)
class ScreeningSensitivity:
    r"""Replace-one sensitivity of the released screening vector and its components.

    Attributes
    ----------
    n_samples, n_features : int
        ``n`` (public, equal for neighbours) and ``p``.
    lam : float
        L1-ball radius.
    radius_kind : str
        ``"dual"`` or ``"primal"``.
    gradient : float
        :math:`\Delta_g = 2c/n`: largest change of one :math:`g_i` (``c`` bounds the residual).
    gap : float
        :math:`\Delta_G`: largest change of :math:`G_{\mathrm{used}}` (gap plus floor).
    gap_max : float
        :math:`G_{\max}`: upper bound of :math:`G_{\mathrm{used}}`.
    radius_scale : float
        :math:`\kappa` with :math:`r = \kappa\sqrt{G_{\mathrm{used}}}`.
    scaled_norm : float
        :math:`\kappa H`: largest change of one :math:`r\|x_{(i)}\|_2`.
    coordinate : float
        :math:`\Delta_u = \Delta_g + \kappa H`: largest change of one coordinate of the
        released vector (each :math:`u_i` and :math:`T`).
    l2 : float
        :math:`\Delta_2 = \sqrt{p+1}\,\Delta_u`: the L2 sensitivity the noise is calibrated to.
    relation : str
        The neighbouring relation, :data:`dplasso.privacy.REPLACE_ONE`.
    """

    n_samples: int
    n_features: int
    lam: float
    radius_kind: str
    gradient: float
    gap: float
    gap_max: float
    radius_scale: float
    scaled_norm: float
    coordinate: float
    l2: float
    relation: str = REPLACE_ONE


def sqrt_product_sensitivity(d_gap, gap_max, n):
    r"""Largest change of :math:`\sqrt{G N}` when :math:`G \in [0, G_{\max}]` moves by at
    most :math:`\Delta_G` and :math:`N \in [0, n]` by at most 1 (lemma ``lem-sqrt-product``).

    .. math:: H = \max\Big(\sqrt{n\min(\Delta_G, G_{\max})},\; \sqrt{G_{\max}},\;
              \sqrt{n G_{\max}} - \sqrt{(n-1)(G_{\max} - \Delta_G)^+}\Big)

    Parameters
    ----------
    d_gap : float
        :math:`\Delta_G \ge 0`, the largest change of ``G``.
    gap_max : float
        :math:`G_{\max} \ge 0`.
    n : int
        Upper end of ``N`` (the number of rows: ``N`` is a squared column norm).

    Returns
    -------
    float
        ``H``; attained at one of the three corners of the proof.
    """
    return max(math.sqrt(n * min(d_gap, gap_max)), math.sqrt(gap_max),
               math.sqrt(n * gap_max) - math.sqrt((n - 1) * max(gap_max - d_gap, 0.0)))


def screening_sensitivity(n_samples, n_features, lam, loss, *, radius_kind="dual"):
    r"""Declared replace-one sensitivity of one screening release (lemma ``lem-screening-sensitivity``).

    Parameters
    ----------
    n_samples : int
        Number of rows ``n`` (public; unchanged by replace-one).
    n_features : int
        Number of features ``p``.
    lam : float
        L1-ball radius, ``> 0``.
    loss : LogisticLoss or SquaredLoss
        The loss; a squared loss needs its public response bound ``y_bound``.
    radius_kind : {"dual", "primal"}, default="dual"
        The radius used by the released statistic.

    Returns
    -------
    ScreeningSensitivity

    Notes
    -----
    Neighbouring relation: replace-one. Data domain: rows :math:`\|x_k\|_\infty \le 1`,
    labels :math:`\{0,1\}` (logistic) or :math:`|y_k| \le y_{\max}` (squared); weights in
    the ball. With :math:`c`, :math:`\ell_{\max}` and :math:`[h_{\min}, h_{\max}]` the
    residual, value and :math:`\ell'(z)z` ranges of
    :func:`dplasso.screening.constants.loss_range`, :math:`\varphi = (n+p)\varepsilon_{mach}`
    the floor factor, and :math:`\kappa = \sqrt{2L}` (dual) or :math:`L\sqrt{2/\mu}`
    (primal):

    .. math::

        \Delta_g = \frac{2c}{n},\qquad
        \Delta_G = \frac{h_{\max} - h_{\min}}{n} + \lambda\Delta_g
                   + \varphi\Big(\frac{\ell_{\max}}{n} + \lambda\Delta_g\Big),\qquad
        G_{\max} = h_{\max} + \lambda c + \varphi(\ell_{\max} + \lambda c),

        \Delta_u = \Delta_g + \kappa H(\Delta_G, G_{\max}, n),\qquad
        \Delta_2 = \sqrt{p+1}\;\Delta_u,

    with :math:`H` the largest change of :math:`\sqrt{G\,\|x_{(i)}\|_2^2}`
    (:func:`sqrt_product_sensitivity`).

    Everything here is public (``n``, ``p``, ``lam``, the loss, the domain); the values are
    computed in real arithmetic (idealised: the floating-point evaluation of the statistic
    is assumed exact).
    """
    if radius_kind not in RADIUS_KINDS:
        raise ValueError(f"radius_kind must be one of {RADIUS_KINDS}, got {radius_kind!r}")
    for name, value in (("n_samples", n_samples), ("n_features", n_features)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    n, p = int(n_samples), int(n_features)
    lam = check_lam(lam)
    bounds = loss_range(loss, lam)
    curv = curvature(loss, lam)
    L = curv.smoothness(n)
    if radius_kind == "dual":
        kappa = math.sqrt(2.0 * L)
    else:
        kappa = L * math.sqrt(2.0 / curv.strong_convexity(n))
    phi = (n + p) * float(np.finfo(np.float64).eps)
    d_gradient = 2.0 * bounds.residual / n
    d_gap = ((bounds.product_max - bounds.product_min) / n + lam * d_gradient
             + phi * (bounds.value / n + lam * d_gradient))
    gap_max = bounds.product_max + lam * bounds.residual + phi * (bounds.value
                                                                  + lam * bounds.residual)
    scaled_norm = kappa * sqrt_product_sensitivity(d_gap, gap_max, n)
    coordinate = d_gradient + scaled_norm
    return ScreeningSensitivity(
        n_samples=n, n_features=p, lam=lam, radius_kind=radius_kind, gradient=d_gradient,
        gap=d_gap, gap_max=gap_max, radius_scale=kappa, scaled_norm=scaled_norm,
        coordinate=coordinate, l2=math.sqrt(p + 1) * coordinate,
    )


@dataclass(frozen=True)
class PrivateScreeningInfo:
    r"""What one private screening round released, and how.

    Attributes
    ----------
    noisy_statistic : ndarray of shape (p, K)
        :math:`\tilde u_i = u_i + N_i`.
    noisy_threshold : ndarray of shape (K,)
        :math:`\tilde T = T + N_0`.
    sigma : float
        Gaussian noise standard deviation.
    sensitivity : ScreeningSensitivity
        The declared sensitivity the noise is calibrated to.
    epsilon, delta : float
        The per-trial guarantee of this release.
    event : PrivacyEvent
        The ledger event of this release (per trial).
    """

    noisy_statistic: np.ndarray
    noisy_threshold: np.ndarray
    sigma: float
    sensitivity: ScreeningSensitivity
    epsilon: float
    delta: float
    event: PrivacyEvent


def release_screening_statistic(X, y, W, lam, loss, col_norms, sensitivity, epsilon, delta,
                                rng, *, gradient=None, objective=None):
    """One Gaussian release of the screening vector on inputs already validated.

    Used by :func:`private_screen` and the screening callback; arguments as there, with
    ``col_norms`` the column norms of ``X``, ``sensitivity`` from
    :func:`screening_sensitivity` for this ``X``, ``lam``, loss and radius kind, and
    ``gradient`` and ``objective`` the loss gradient and values at ``W`` when the caller has
    them (the engine does; :func:`~dplasso.screening.rule.evaluate_rule`).

    Returns
    -------
    mask : ndarray of bool of shape (p, K)
    info : PrivateScreeningInfo
    """
    exact = evaluate_rule(X, y, W, lam, loss, col_norms, radius_kind=sensitivity.radius_kind,
                          gradient=gradient, objective=objective)
    sigma = gaussian_sigma_analytic(sensitivity.l2, epsilon, delta)
    n_features, n_trials = W.shape
    noise = gaussian_noise(sigma, (n_features + 1, n_trials), rng)
    noisy_statistic = exact.statistic + noise[:n_features]
    noisy_threshold = exact.threshold + noise[n_features]
    event = PrivacyEvent(
        mechanism="gaussian",
        sensitivity=sensitivity.l2,
        epsilon=epsilon,
        delta=delta,
        rho=gaussian_rho(sensitivity.l2, sigma),
        note=(f"private screening ({sensitivity.radius_kind} radius): noisy per-feature "
              "statistics and threshold, p+1 values per trial; lem-screening-sensitivity"),
        numerics="idealised-float",
    )
    info = PrivateScreeningInfo(
        noisy_statistic=noisy_statistic, noisy_threshold=noisy_threshold, sigma=sigma,
        sensitivity=sensitivity, epsilon=event.epsilon, delta=event.delta, event=event,
    )
    return noisy_statistic < noisy_threshold, info


def private_screen(X, y, W, lam, loss, epsilon, delta, rng, *, radius_kind="dual",
                   ledger=None):
    r"""One private screening round at public weights ``W`` (``K`` independent trials).

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, p)
        Design matrix, rows ``||x_i||_inf <= 1`` (checked); never densified.
    y : array-like of shape (n,)
        Labels ``{0, 1}`` (logistic) or responses with ``|y_i| <= loss.y_bound`` (squared).
    W : array-like of shape (p, K)
        Public weights inside the L1 ball (they are conditioned on, not protected).
    lam : float
        L1-ball radius, ``> 0``.
    loss : LogisticLoss or SquaredLoss
        The loss; a squared loss must carry ``y_bound``.
    epsilon : float
        ``> 0``: this round's epsilon (per trial).
    delta : float
        In ``(0, 1)``: this round's delta (per trial).
    rng : numpy.random.Generator, int or None
        Source of the noise (converted by :func:`dplasso.privacy.rng.as_generator`).
    radius_kind : {"dual", "primal"}, default="dual"
        Radius of the released statistic.
    ledger : PrivacyLedger, optional
        If given, the release is recorded in it (one event, per trial).

    Returns
    -------
    mask : ndarray of bool of shape (p, K)
        :math:`\tilde u_i < \tilde T`: the features screened in each trial.
    info : PrivateScreeningInfo
        Noisy statistics and threshold, noise scale, declared sensitivity, the event.

    Notes
    -----
    - Neighbouring relation: replace-one (same ``n``, one row ``(x_k, y_k)`` replaced).
    - Data domain: :math:`\|x_k\|_\infty \le 1`; labels :math:`\{0,1\}` or
      :math:`|y_k| \le y_{\max}`; ``W`` public and feasible.
    - Sensitivity: the vector :math:`(u_1, \dots, u_p, T)` has L2 sensitivity
      :math:`\Delta_2 = \sqrt{p+1}\,\Delta_u` (:func:`screening_sensitivity`, lemma
      ``lem-screening-sensitivity``).
    - Guarantee (theorem ``thm-private-screening``): Gaussian noise with the analytic
      calibration of Balle & Wang (2018),
      :math:`(\varepsilon, \delta)`-DP per trial per round; the event also states
      :math:`\rho = \Delta_2^2/(2\sigma^2)` for zCDP accounting. The mask is
      post-processing. "Safe" no longer holds: noise screens true nonzeros.
    - Numerics: idealised floats (float64 normal sampler; the statistic is evaluated in
      floating point while the sensitivity assumes real arithmetic).
    - Cost: as :func:`dplasso.screening.rule.screen` plus ``(p+1) K`` normal draws.
    """
    X = check_X_bounded(X)
    lam = check_lam(lam)
    check_screening_loss(loss)
    y = loss.check_target(y, X.shape[0])
    W = feasible_weights(W, lam, X.shape[1])
    sensitivity = screening_sensitivity(X.shape[0], X.shape[1], lam, loss,
                                        radius_kind=radius_kind)
    mask, info = release_screening_statistic(
        X, y, W, lam, loss, column_norms(X), sensitivity, epsilon, delta, as_generator(rng))
    if ledger is not None:
        ledger.record(info.event)
    return mask, info


# ---------------------------------------------------------------------------------------
# Another release (P2's open question 2): the gradient and the gap, each at its own
# sensitivity, with the public column-norm bound sqrt(n)


@dataclass(frozen=True)
class SplitScreeningSensitivity:
    r"""Replace-one sensitivities of the split release (lemma ``lem-split-screening-sensitivity``).

    Attributes
    ----------
    n_samples, n_features : int
        ``n`` and ``p``.
    lam : float
        L1-ball radius.
    radius_kind : str
        ``"dual"`` or ``"primal"``.
    gradient : float
        :math:`\Delta_g = 2c/n`, one gradient coordinate's (as in :class:`ScreeningSensitivity`).
    gradient_l2 : float
        :math:`\sqrt p\,\Delta_g`: the L2 sensitivity of the gradient vector.
    gap : float
        :math:`\Delta_G`: the gap's (gap plus floor).
    radius_scale : float
        :math:`\kappa`, with :math:`r = \kappa\sqrt G`.
    l2 : float
        :math:`\sqrt2`: the L2 sensitivity of the rescaled pair
        :math:`(g / (\sqrt p\,\Delta_g),\; G_{\mathrm{used}} / \Delta_G)`.
    relation : str
        :data:`dplasso.privacy.REPLACE_ONE`.
    """

    n_samples: int
    n_features: int
    lam: float
    radius_kind: str
    gradient: float
    gradient_l2: float
    gap: float
    radius_scale: float
    l2: float
    relation: str = REPLACE_ONE


def split_screening_sensitivity(n_samples, n_features, lam, loss, *, radius_kind="dual"):
    r"""Sensitivities of the split release (lemma ``lem-split-screening-sensitivity``).

    Parameters and domain as :func:`screening_sensitivity`, which supplies
    :math:`\Delta_g`, :math:`\Delta_G` and :math:`\kappa`.

    Returns
    -------
    SplitScreeningSensitivity
    """
    base = screening_sensitivity(n_samples, n_features, lam, loss, radius_kind=radius_kind)
    return SplitScreeningSensitivity(
        n_samples=base.n_samples, n_features=base.n_features, lam=base.lam,
        radius_kind=radius_kind, gradient=base.gradient,
        gradient_l2=math.sqrt(base.n_features) * base.gradient, gap=base.gap,
        radius_scale=base.radius_scale, l2=math.sqrt(2.0),
    )


@dataclass(frozen=True)
class SplitScreeningInfo:
    r"""What one split release published, and how.

    Attributes
    ----------
    noisy_gradient : ndarray of shape (p, K)
        :math:`|g_i| + N_i`, :math:`N_i \sim \mathcal N(0, \sigma_g^2)`.
    noisy_gap : ndarray of shape (K,)
        :math:`G_{\mathrm{used}} + N_0`, :math:`N_0 \sim \mathcal N(0, \sigma_G^2)`.
    sigma_gradient, sigma_gap : float
        :math:`\sigma_g = \sigma\sqrt p\,\Delta_g` and :math:`\sigma_G = \sigma\Delta_G`,
        with :math:`\sigma` the analytic Gaussian scale for L2 sensitivity :math:`\sqrt2`.
    z : float
        The post-processing margin (in noise sds) the mask used.
    sensitivity : SplitScreeningSensitivity
    epsilon, delta : float
        The per-trial guarantee of this release.
    event : PrivacyEvent
    """

    noisy_gradient: np.ndarray
    noisy_gap: np.ndarray
    sigma_gradient: float
    sigma_gap: float
    z: float
    sensitivity: SplitScreeningSensitivity
    epsilon: float
    delta: float
    event: PrivacyEvent


def split_rule(noisy_gradient, noisy_gap, n_samples, sensitivity, sigma_gradient, sigma_gap,
               z=0.0):
    r"""The mask computed from a split release (post-processing; public inputs only).

    .. math::

        \hat G = \big(\tilde G + z\sigma_G\big)^+, \quad
        s = \kappa\sqrt{\hat G}\,\sqrt n + z\sigma_g, \qquad
        \text{screen } i \iff |\tilde g_i| + s < \max_j |\tilde g_j| - s .

    With the exact values and ``z = 0`` this is the safe rule of lemma ``lem-rule-safe``
    with every column norm replaced by its public bound :math:`\sqrt n`
    (:math:`\|x_{(i)}\|_2 \le \sqrt n` on the domain), hence still safe; ``z > 0`` widens
    the statistic by ``z`` noise sds on both sides.
    """
    radius = sensitivity.radius_scale * np.sqrt(np.maximum(noisy_gap + z * sigma_gap, 0.0))
    slack = radius * math.sqrt(n_samples) + z * sigma_gradient
    magnitude = np.abs(noisy_gradient)
    return magnitude + slack < magnitude.max(axis=0) - slack


def private_screen_split(X, y, W, lam, loss, epsilon, delta, rng, *, radius_kind="dual", z=0.0,
                         ledger=None):
    r"""One private screening round that releases the gradient and the gap separately.

    Parameters
    ----------
    X, y, W, lam, loss, epsilon, delta, rng, radius_kind, ledger
        As in :func:`private_screen`.
    z : float, default=0.0
        ``>= 0``: margin of :func:`split_rule`, in noise standard deviations.

    Returns
    -------
    mask : ndarray of bool of shape (p, K)
    info : SplitScreeningInfo

    Notes
    -----
    - Neighbouring relation: replace-one. Data domain and public ``W`` as
      :func:`private_screen`.
    - Released: :math:`(|g_1|, \dots, |g_p|, G_{\mathrm{used}})` with independent Gaussian
      noise of sds :math:`\sigma\sqrt p\,\Delta_g` (each gradient coordinate) and
      :math:`\sigma\Delta_G` (the gap): the Gaussian mechanism applied to the rescaled pair
      of L2 sensitivity :math:`\sqrt2` (:func:`split_screening_sensitivity`, lemma
      ``lem-split-screening-sensitivity``), with :math:`\sigma` the analytic calibration
      for :math:`(\varepsilon, \delta)` at sensitivity :math:`\sqrt2`
      (theorem ``thm-split-screening``). No column norm is released: the rule uses the
      public bound :math:`\sqrt n`. The mask is post-processing (:func:`split_rule`).
    - Numerics: idealised floats, as :func:`private_screen`.
    - Cost: as :func:`private_screen`.
    """
    X = check_X_bounded(X)
    lam = check_lam(lam)
    check_screening_loss(loss)
    y = loss.check_target(y, X.shape[0])
    W = feasible_weights(W, lam, X.shape[1])
    if not (isinstance(z, (int, float, np.floating)) and math.isfinite(z) and z >= 0):
        raise ValueError(f"z must be a finite number >= 0, got {z!r}")
    sensitivity = split_screening_sensitivity(X.shape[0], X.shape[1], lam, loss,
                                              radius_kind=radius_kind)
    norms = column_norms(X)
    exact = evaluate_rule(X, y, W, lam, loss, norms, radius_kind=radius_kind)
    magnitude = exact.statistic - norms[:, np.newaxis] * exact.radius[np.newaxis, :]
    sigma = gaussian_sigma_analytic(sensitivity.l2, epsilon, delta)
    sigma_gradient, sigma_gap = sigma * sensitivity.gradient_l2, sigma * sensitivity.gap
    rng = as_generator(rng)
    n_features, n_trials = W.shape
    noise = gaussian_noise(1.0, (n_features + 1, n_trials), rng)
    noisy_gradient = magnitude + sigma_gradient * noise[:n_features]
    noisy_gap = exact.gap_used + sigma_gap * noise[n_features]
    event = PrivacyEvent(
        mechanism="gaussian", sensitivity=sensitivity.l2, epsilon=epsilon, delta=delta,
        rho=gaussian_rho(sensitivity.l2, sigma),
        note=(f"private screening, split release ({radius_kind} radius): |gradient| at L2 "
              "sensitivity sqrt(p) Delta_g and the gap at Delta_G, rescaled to one Gaussian "
              "mechanism of L2 sensitivity sqrt(2); lem-split-screening-sensitivity"),
        numerics="idealised-float",
    )
    info = SplitScreeningInfo(
        noisy_gradient=noisy_gradient, noisy_gap=noisy_gap, sigma_gradient=sigma_gradient,
        sigma_gap=sigma_gap, z=float(z), sensitivity=sensitivity, epsilon=event.epsilon,
        delta=event.delta, event=event,
    )
    if ledger is not None:
        ledger.record(event)
    mask = split_rule(noisy_gradient, noisy_gap, X.shape[0], sensitivity, sigma_gradient,
                      sigma_gap, z)
    return mask, info
