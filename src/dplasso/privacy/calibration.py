r"""Noise calibration for private Frank-Wolfe: from a total budget to a per-step scale.

The Frank-Wolfe engine selects one vertex per step with a private selector; ``T`` steps are an
adaptive composition of ``T`` selections. Given a target total :math:`(\varepsilon, \delta)`,
``T`` and the per-step score sensitivity :math:`\Delta` (:func:`fw_score_sensitivity`):

- Laplace report-noisy-min with advanced composition
  (:func:`calibrate_report_noisy_min`): each step is :math:`\varepsilon_0 = 2\Delta/b`-DP
  (:mod:`dplasso.privacy.selection`); :math:`\varepsilon_0` solves
  :math:`\sqrt{2T\ln(1/\delta)}\,\varepsilon_0 + T\varepsilon_0(e^{\varepsilon_0}-1) =
  \varepsilon` (:func:`advanced_step_epsilon`), the slack :math:`\delta' = \delta`.
- the exponential mechanism with zCDP (:func:`calibrate_exponential_mechanism`): each step is
  :math:`\varepsilon_0^2/8`-zCDP, the total :math:`\rho = T\varepsilon_0^2/8`, and
  :math:`\rho + 2\sqrt{\rho\ln(1/\delta)} = \varepsilon` gives
  :math:`\sqrt\rho = \sqrt{\ln(1/\delta) + \varepsilon} - \sqrt{\ln(1/\delta)}`
  (:func:`zcdp_step_epsilon`).

The resulting ledger events (``report_noisy_min_event`` / ``exponential_mechanism_event``
with ``count=T``) compose back to :math:`(\varepsilon, \delta)` under the same rule
(``PrivacyLedger.total("advanced", delta)`` / ``total("zcdp", delta)``).
"""
from __future__ import annotations

import math
import numbers

from scipy.optimize import brentq

from dplasso.privacy._validation import check_count, check_delta, check_positive
from dplasso.privacy.accounting import (
    advanced_composition,
    advanced_composition_epsilon,
    zcdp_composition,
)
from dplasso.privacy.selection import (
    exponential_mechanism_event,
    exponential_mechanism_scale,
    report_noisy_min_event,
    report_noisy_min_scale,
)
from dplasso.privacy.ulps import nudge

__all__ = [
    "FW_LOSSES",
    "fw_score_sensitivity",
    "advanced_step_epsilon",
    "zcdp_step_epsilon",
    "calibrate_report_noisy_min",
    "calibrate_exponential_mechanism",
    "talwar_laplace_scale",
]

FW_LOSSES = ("logistic", "multinomial", "squared")
"""Losses :func:`fw_score_sensitivity` knows."""


def fw_score_sensitivity(loss_name, lam, n, y_bound=None) -> float:
    r"""Replace-one sensitivity of the Frank-Wolfe vertex scores :math:`\pm\lambda g_j`.

    :math:`g = \nabla L(w) = \frac1n\sum_i \nabla\ell(w; x_i, y_i)`. If every per-example
    gradient coordinate lies in :math:`[-G, G]`, replacing one row moves each :math:`g_j` by at
    most :math:`2G/n`, so each score moves by at most :math:`\Delta = 2\lambda G/n`.

    Parameters
    ----------
    loss_name : {"logistic", "multinomial", "squared"}
        ``"logistic"``: :math:`\partial_j\ell = (\sigma(x^\top w) - y)x_j`, :math:`|\cdot| < 1`
        for :math:`y \in \{0,1\}`, :math:`\|x\|_\infty \le 1`, so :math:`G = 1` and
        :math:`\Delta = 2\lambda/n` (the true change is strictly smaller).
        ``"multinomial"``: :math:`\partial_{jc}\ell = (p_c - 1[y=c])x_j`, :math:`|\cdot| \le 1`,
        :math:`G = 1`. ``"squared"`` (:math:`\ell = \frac12(x^\top w - y)^2`):
        :math:`|(x^\top w - y)x_j| \le \lambda + B` on the ball :math:`\|w\|_1 \le \lambda` with
        :math:`|y| \le B`, so :math:`\Delta = 2\lambda(\lambda + B)/n`.
    lam : float
        L1-ball radius :math:`\lambda > 0` (a constraint radius, not a penalty weight).
    n : int
        Number of rows (public; the same for neighbours under replace-one).
    y_bound : float or None, default=None
        Public bound :math:`B` on :math:`|y_i|`; required for ``"squared"`` and only there.

    Returns
    -------
    float

    Notes
    -----
    Neighbouring relation replace-one; data domain :math:`\|x_i\|_\infty \le 1` (an intercept
    column of ones included), labels :math:`\{0, 1\}` / :math:`0..C-1`, :math:`|y_i| \le B`.
    """
    if loss_name not in FW_LOSSES:
        raise ValueError(f"loss_name must be one of {FW_LOSSES}, got {loss_name!r}")
    lam = check_positive("lam", lam)
    n = check_count("n", n)
    if loss_name == "squared":
        if y_bound is None:
            raise ValueError("the squared loss needs y_bound (a public bound on |y_i|)")
        if isinstance(y_bound, bool) or not isinstance(y_bound, numbers.Real) or not (
            math.isfinite(y_bound) and y_bound >= 0
        ):
            raise ValueError(f"y_bound must be a finite number >= 0, got {y_bound!r}")
        gradient_bound = lam + float(y_bound)
    else:
        if y_bound is not None:
            raise ValueError(f"y_bound applies to the squared loss only, not {loss_name!r}")
        gradient_bound = 1.0
    return 2.0 * lam * gradient_bound / n


def _smallest_safe_scale(scale, composed_epsilon, epsilon):
    """Raise ``scale`` by ulps until the ledger arithmetic composes to at most ``epsilon``.

    Raises
    ------
    RuntimeError
        After :data:`~dplasso.privacy.ulps.MAX_ULP_STEPS` ulps without agreement, naming the
        scale, the epsilon the ledger composes at it and the target (a scale/privacy-map
        mismatch).
    """
    return nudge(scale, lambda b: composed_epsilon(b) <= epsilon, up=True,
                 what="scale/privacy-map mismatch: the calibrated scale",
                 why=lambda b: (f"still composes to epsilon={composed_epsilon(b)!r} > the "
                                f"target epsilon={epsilon!r}"))


def advanced_step_epsilon(epsilon, delta, steps) -> float:
    r"""Per-step :math:`\varepsilon_0` whose ``steps``-fold advanced composition is ``epsilon``.

    Solves :math:`\sqrt{2T\ln(1/\delta)}\,\varepsilon_0 + T\varepsilon_0(e^{\varepsilon_0}-1)
    = \varepsilon` (strictly increasing in :math:`\varepsilon_0`) by Brent's method on
    :math:`[0, \min(\varepsilon/\sqrt{2T\ln(1/\delta)}, \max(1, \ln(1+\varepsilon/T)))]` to
    machine precision, with the
    arithmetic of :func:`~dplasso.privacy.accounting.advanced_composition_epsilon`.

    Parameters
    ----------
    epsilon : float
        Target total ``> 0``.
    delta : float
        Slack :math:`\delta'` in ``(0, 1)`` (the total delta of pure steps).
    steps : int
        Number of compositions ``T >= 1``.

    Returns
    -------
    float
    """
    epsilon = check_positive("epsilon", epsilon)
    delta = check_delta("delta", delta, allow_zero=False)
    steps = check_count("steps", steps)

    def excess(step_epsilon):
        return advanced_composition_epsilon([step_epsilon], [steps], delta) - epsilon

    # Either term alone reaches epsilon at its bound; the second bound, max(1, log1p(eps/T)),
    # keeps exp() finite for huge epsilon (T h (e^h - 1) >= T * 1 * eps/T there).
    high = min(epsilon / math.sqrt(2.0 * steps * math.log(1.0 / delta)),
               max(1.0, math.log1p(epsilon / steps)))
    return brentq(excess, 0.0, high, xtol=1e-300, rtol=4 * 2.0**-52)


def zcdp_step_epsilon(epsilon, delta, steps) -> float:
    r"""Per-step :math:`\varepsilon_0` of bounded-range selections for a total ``(epsilon, delta)``.

    Each selection (exponential mechanism) is :math:`\varepsilon_0^2/8`-zCDP, the total is
    :math:`\rho = T\varepsilon_0^2/8`, and
    :math:`\rho = \varepsilon^2 / (\sqrt{\ln(1/\delta)+\varepsilon} + \sqrt{\ln(1/\delta)})^2`
    (the root of :math:`\rho + 2\sqrt{\rho\ln(1/\delta)} = \varepsilon`, written without
    cancellation) and :math:`\varepsilon_0 = \sqrt{8\rho/T}`.

    Parameters
    ----------
    epsilon : float
        Target total ``> 0``.
    delta : float
        Target ``delta`` in ``(0, 1)`` of the zCDP conversion.
    steps : int
        Number of selections ``T >= 1``.

    Returns
    -------
    float
    """
    epsilon = check_positive("epsilon", epsilon)
    delta = check_delta("delta", delta, allow_zero=False)
    log_inverse_delta = math.log(1.0 / delta)
    steps = check_count("steps", steps)
    rho = epsilon**2 / (math.sqrt(log_inverse_delta + epsilon) + math.sqrt(log_inverse_delta)) ** 2
    return math.sqrt(8.0 * rho / steps)


def calibrate_report_noisy_min(epsilon, delta, steps, sensitivity) -> float:
    r"""Laplace scale of ``steps`` report-noisy-min selections totalling ``(epsilon, delta)``.

    Advanced composition: :math:`b = 2\Delta/\varepsilon_0` with :math:`\varepsilon_0` from
    :func:`advanced_step_epsilon`, then raised by a few ulps if needed so that the ledger's own
    arithmetic (``advanced_composition`` of ``report_noisy_min_event(sensitivity, b, steps)``)
    gives at most ``epsilon``.

    Parameters
    ----------
    epsilon : float
        Target total ``> 0``.
    delta : float
        Target total ``delta`` in ``(0, 1)``.
    steps : int
        Number of Frank-Wolfe steps ``T``.
    sensitivity : float
        Per-step score sensitivity :math:`\Delta` (:func:`fw_score_sensitivity`).

    Returns
    -------
    float
        The Laplace scale ``b``.

    Notes
    -----
    Neighbouring relation replace-one; guarantee :math:`(\varepsilon, \delta)`-DP of the whole
    run by advanced composition of :math:`2\Delta/b`-DP steps. Compare
    :func:`talwar_laplace_scale`.
    """
    scale = report_noisy_min_scale(sensitivity, advanced_step_epsilon(epsilon, delta, steps))
    def composed(b):
        return advanced_composition([report_noisy_min_event(sensitivity, b, steps)], delta).epsilon

    return _smallest_safe_scale(scale, composed, epsilon)


def calibrate_exponential_mechanism(epsilon, delta, steps, sensitivity) -> float:
    r"""Temperature of ``steps`` exponential-mechanism selections totalling ``(epsilon, delta)``.

    zCDP: :math:`\text{scale} = 2\Delta/\varepsilon_0` with :math:`\varepsilon_0` from
    :func:`zcdp_step_epsilon`, then raised by a few ulps if needed so that the ledger's own
    arithmetic (``zcdp_composition`` of ``exponential_mechanism_event(sensitivity, scale,
    steps)``) gives at most ``epsilon``.

    Parameters
    ----------
    epsilon : float
        Target total ``> 0``.
    delta : float
        Target ``delta`` in ``(0, 1)``.
    steps : int
        Number of Frank-Wolfe steps ``T``.
    sensitivity : float
        Per-step score sensitivity :math:`\Delta` (:func:`fw_score_sensitivity`).

    Returns
    -------
    float
        The temperature ``scale`` of :func:`~dplasso.privacy.selection.exponential_mechanism_min`.

    Notes
    -----
    Neighbouring relation replace-one; guarantee :math:`T\varepsilon_0^2/8`-zCDP, converted to
    :math:`(\varepsilon, \delta)`-DP.
    """
    scale = exponential_mechanism_scale(sensitivity, zcdp_step_epsilon(epsilon, delta, steps))
    def composed(b):
        return zcdp_composition([exponential_mechanism_event(sensitivity, b, steps)], delta).epsilon

    return _smallest_safe_scale(scale, composed, epsilon)


def talwar_laplace_scale(epsilon, delta, steps, lam, n, lipschitz=1.0) -> float:
    r"""Talwar, Thakurta & Zhang's (2015) closed-form Laplace scale for private Frank-Wolfe.

    .. math::
        b_{\mathrm{TTZ}} = \frac{L_1\,\lambda\,\sqrt{8T\ln(1/\delta)}}{n\,\varepsilon},

    with :math:`L_1` the sup-norm bound of a per-example gradient (1 for the logistic loss on
    :math:`\|x\|_\infty \le 1`). Two public implementations use this constant.

    Parameters
    ----------
    epsilon : float
        ``> 0``.
    delta : float
        In ``(0, 1)``.
    steps : int
        ``T >= 1``.
    lam : float
        L1-ball radius ``> 0``.
    n : int
        Number of rows.
    lipschitz : float, default=1.0
        :math:`L_1 > 0`.

    Returns
    -------
    float

    Notes
    -----
    Relation to :func:`calibrate_report_noisy_min`. The constant matches per-step
    :math:`\varepsilon_0 = \Delta_{\mathrm{TTZ}}/b` with :math:`\Delta_{\mathrm{TTZ}} =
    L_1\lambda/n`, i.e. :math:`\varepsilon_0 = \varepsilon/\sqrt{8T\ln(1/\delta)}`, whose
    advanced composition is :math:`\varepsilon/2 + T\varepsilon_0(e^{\varepsilon_0}-1)
    \approx \varepsilon/2 + \varepsilon^2/(8\ln(1/\delta))`, at most :math:`\varepsilon`
    when :math:`\varepsilon \lesssim 4\ln(1/\delta)`. That bookkeeping uses a score
    sensitivity of :math:`L_1\lambda/n` and the monotone map :math:`\Delta/b`. Under our
    replace-one relation the scores move by up to :math:`\Delta = 2L_1\lambda/n` and
    report-noisy-min costs :math:`2\Delta/b`, so the same :math:`b` gives
    :math:`\varepsilon_0 = 4L_1\lambda/(nb) = \sqrt{2}\,\varepsilon/\sqrt{T\ln(1/\delta)}` and
    an advanced-composition total of
    :math:`2\varepsilon + T\varepsilon_0(e^{\varepsilon_0}-1)` with :math:`\delta' = \delta`:
    about twice the nominal :math:`\varepsilon`. To first order,
    :func:`calibrate_report_noisy_min` returns twice :math:`b_{\mathrm{TTZ}}`.
    """
    epsilon = check_positive("epsilon", epsilon)
    log_inverse_delta = math.log(1.0 / check_delta("delta", delta, allow_zero=False))
    steps = check_count("steps", steps)
    lam = check_positive("lam", lam)
    n = check_count("n", n)
    lipschitz = check_positive("lipschitz", lipschitz)
    return lipschitz * lam * math.sqrt(8.0 * steps * log_inverse_delta) / (n * epsilon)
