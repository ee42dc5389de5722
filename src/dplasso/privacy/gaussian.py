r"""The Gaussian mechanism: sampler, zCDP map, and ``(epsilon, delta)`` calibrations.

Adding :math:`\mathcal N(0, \sigma^2 I)` to a query with L2 sensitivity :math:`\Delta_2` is

- :math:`\rho`-zCDP with :math:`\rho = \Delta_2^2 / (2\sigma^2)` (Bun & Steinke 2016, Prop 1.6);
- :math:`(\varepsilon, \delta)`-DP exactly when, with :math:`a = \Delta_2/(2\sigma)` and
  :math:`c = \varepsilon\sigma/\Delta_2`,
  :math:`\delta \ge \Phi(a - c) - e^{\varepsilon}\,\Phi(-a - c)`
  (Balle & Wang 2018, Thm 8: the exact privacy profile, :func:`gaussian_delta`);
- in particular :math:`(\varepsilon, \delta)`-DP for :math:`\varepsilon \in (0, 1)` when
  :math:`\sigma \ge \Delta_2 \sqrt{2 \ln(1.25/\delta)} / \varepsilon` (Dwork & Roth 2014,
  Thm A.1, the classical calibration).

References
----------
.. [1] M. Bun and T. Steinke, "Concentrated Differential Privacy", TCC 2016.
.. [2] B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for Differential Privacy:
   Analytical Calibration and Optimal Denoising", ICML 2018.
.. [3] C. Dwork and A. Roth, "The Algorithmic Foundations of Differential Privacy", 2014.
"""
from __future__ import annotations

import functools
import math

from scipy.special import log_ndtr, ndtr

from dplasso.privacy._validation import check_delta, check_nonnegative, check_positive
from dplasso.privacy.accounting import PrivacyEvent

__all__ = [
    "gaussian_noise",
    "gaussian_rho",
    "gaussian_sigma_for_rho",
    "gaussian_delta",
    "gaussian_sigma_classical",
    "gaussian_sigma_analytic",
    "gaussian_event",
]

_MAX_BRACKET_STEPS = 2100
"""Doublings or halvings of sigma that reach any positive float from the sensitivity."""
_MAX_BISECTION_STEPS = 200
"""Bisection steps: each halves the bracket, so 1e-14 relative takes about 50 from an octave."""


def gaussian_noise(sigma, size, rng):
    r"""Draw i.i.d. :math:`\mathcal N(0, \sigma^2)` noise.

    Parameters
    ----------
    sigma : float
        Standard deviation ``> 0``.
    size : int or tuple of int
        Output shape.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    ndarray of float64

    Notes
    -----
    - Neighbouring relation: replace-one (the caller's sensitivity must be stated for it).
    - Data domain: any query; the mechanism only sees the query's value.
    - Sensitivity: L2 sensitivity :math:`\Delta_2` of the query.
    - Guarantee: :math:`\Delta_2^2/(2\sigma^2)`-zCDP (:func:`gaussian_rho`); the
      ``(epsilon, delta)`` profile of :func:`gaussian_delta`.
    - Numerics: idealised floats (numpy's float64 normal sampler).
    """
    sigma = check_positive("sigma", sigma)
    return rng.normal(0.0, sigma, size)


def gaussian_rho(l2_sensitivity, sigma) -> float:
    r"""zCDP map: :math:`\rho = \Delta_2^2 / (2\sigma^2)`.

    Parameters
    ----------
    l2_sensitivity : float
        :math:`\Delta_2 \ge 0` under replace-one.
    sigma : float
        Noise standard deviation ``> 0``.

    Returns
    -------
    float
    """
    l2_sensitivity = check_nonnegative("l2_sensitivity", l2_sensitivity)
    sigma = check_positive("sigma", sigma)
    return l2_sensitivity**2 / (2.0 * sigma**2)


def gaussian_sigma_for_rho(l2_sensitivity, rho) -> float:
    r"""Noise for a target zCDP level: :math:`\sigma = \Delta_2 / \sqrt{2\rho}`."""
    l2_sensitivity = check_positive("l2_sensitivity", l2_sensitivity)
    rho = check_positive("rho", rho)
    return l2_sensitivity / math.sqrt(2.0 * rho)


def gaussian_delta(l2_sensitivity, sigma, epsilon) -> float:
    r"""Smallest :math:`\delta` for which the Gaussian mechanism is :math:`(\varepsilon,\delta)`-DP.

    Balle & Wang (2018, Thm 8), with :math:`a = \Delta_2/(2\sigma)`, :math:`c =
    \varepsilon\sigma/\Delta_2`: :math:`\delta = \Phi(a - c) - e^{\varepsilon}\Phi(-a - c)`
    (the second term evaluated as :math:`\exp(\varepsilon + \log\Phi(-a-c))`).

    Parameters
    ----------
    l2_sensitivity : float
        :math:`\Delta_2 > 0`.
    sigma : float
        ``> 0``.
    epsilon : float
        ``>= 0``.

    Returns
    -------
    float
    """
    l2_sensitivity = check_positive("l2_sensitivity", l2_sensitivity)
    sigma = check_positive("sigma", sigma)
    epsilon = check_nonnegative("epsilon", epsilon)
    a = l2_sensitivity / (2.0 * sigma)
    c = epsilon * sigma / l2_sensitivity
    return max(float(ndtr(a - c) - math.exp(epsilon + log_ndtr(-a - c))), 0.0)


def gaussian_sigma_classical(l2_sensitivity, epsilon, delta) -> float:
    r"""Classical calibration :math:`\sigma = \Delta_2\sqrt{2\ln(1.25/\delta)}/\varepsilon`.

    Valid for :math:`\varepsilon \in (0, 1)` (Dwork & Roth 2014, Thm A.1; the theorem asks
    for a strictly larger constant, and the privacy condition is closed in :math:`\sigma`, so
    the boundary value is also private).

    Parameters
    ----------
    l2_sensitivity : float
        :math:`\Delta_2 > 0` under replace-one.
    epsilon : float
        In ``(0, 1)``.
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``epsilon >= 1`` (use :func:`gaussian_sigma_analytic`).
    """
    l2_sensitivity = check_positive("l2_sensitivity", l2_sensitivity)
    epsilon = check_positive("epsilon", epsilon)
    delta = check_delta("delta", delta, allow_zero=False)
    if epsilon >= 1:
        raise ValueError(
            f"the classical Gaussian calibration needs epsilon < 1, got {epsilon!r}; "
            "use gaussian_sigma_analytic"
        )
    return l2_sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


def gaussian_sigma_analytic(l2_sensitivity, epsilon, delta) -> float:
    r"""Smallest :math:`\sigma` with :func:`gaussian_delta` :math:`\le \delta` (Balle & Wang 2018).

    Solved by bisection on the exact, decreasing profile :math:`\sigma \mapsto
    \delta(\sigma)`, keeping an upper end that satisfies the profile, until the bracket is
    narrower than ``1e-14`` relative; the upper end is returned, so
    ``gaussian_delta(l2_sensitivity, sigma, epsilon) <= delta`` holds for the result.

    Parameters
    ----------
    l2_sensitivity : float
        :math:`\Delta_2 > 0` under replace-one.
    epsilon : float
        ``> 0``.
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float
    """
    return _sigma_analytic(check_positive("l2_sensitivity", l2_sensitivity),
                           check_positive("epsilon", epsilon),
                           check_delta("delta", delta, allow_zero=False))


@functools.lru_cache(maxsize=256)
def _sigma_analytic(l2_sensitivity, epsilon, delta):
    """The bisection of :func:`gaussian_sigma_analytic` on checked floats; cached, since a
    screening run calibrates the same round budget once per round (about 0.5 ms each)."""

    def excess(sigma):
        return gaussian_delta(l2_sensitivity, sigma, epsilon) - delta

    high = l2_sensitivity
    for _ in range(_MAX_BRACKET_STEPS):
        if excess(high) <= 0:
            break
        high *= 2.0
    else:
        raise RuntimeError(
            f"no sigma up to {high:g} gives gaussian_delta <= delta={delta!r} at "
            f"epsilon={epsilon!r}, l2_sensitivity={l2_sensitivity!r} (the profile and the "
            "target disagree)")
    low = high / 2.0
    for _ in range(_MAX_BRACKET_STEPS):
        if excess(low) > 0:
            break
        low /= 2.0
    else:
        raise RuntimeError(
            f"every sigma down to {low:g} gives gaussian_delta <= delta={delta!r} at "
            f"epsilon={epsilon!r}, l2_sensitivity={l2_sensitivity!r} (the profile is not "
            "decreasing in sigma)")
    for _ in range(_MAX_BISECTION_STEPS):
        if high - low <= 1e-14 * high:
            return high
        middle = 0.5 * (low + high)
        if excess(middle) > 0:
            low = middle
        else:
            high = middle
    raise RuntimeError(f"the bisection for sigma did not narrow to 1e-14 relative within "
                       f"{_MAX_BISECTION_STEPS} steps (bracket [{low!r}, {high!r}])")


def gaussian_event(l2_sensitivity, sigma, count=1, note="") -> PrivacyEvent:
    """Ledger event for ``count`` uses of Gaussian noise: ``rho = sensitivity**2 / (2 sigma**2)``.

    Parameters
    ----------
    l2_sensitivity : float
    sigma : float
    count : int, default=1
    note : str, default=""

    Returns
    -------
    PrivacyEvent
        A zCDP-only event (``epsilon=None``): compose it with ``method="zcdp"``.
    """
    return PrivacyEvent(
        mechanism="gaussian",
        sensitivity=l2_sensitivity,
        rho=gaussian_rho(l2_sensitivity, sigma),
        count=count,
        note=note,
        numerics="idealised-float",
    )
