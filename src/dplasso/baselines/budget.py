"""Budget helpers shared by the baselines: zCDP inversion and ulp-exact calibration."""
from __future__ import annotations

import math

from dplasso.baselines._inputs import check_delta, check_epsilon
from dplasso.privacy.accounting import compose
from dplasso.privacy.ulps import nudge

__all__ = ["calibrate_within_budget", "zcdp_budget"]


def calibrate_within_budget(build, epsilon, *, method="basic", delta=None):
    """Largest ``e <= epsilon`` (in ulps) whose calibration composes to at most ``epsilon``.

    Parameters
    ----------
    build : callable
        ``build(e) -> (events, payload)``: calibrate every mechanism of a fit for a
        budget ``e`` and return its ledger events and whatever the fit needs.
    epsilon : float
        Target total.
    method, delta
        Composition rule and its ``delta`` (as in :func:`dplasso.privacy.accounting.compose`).

    Returns
    -------
    events, payload
        From the first ``e`` (starting at ``epsilon`` and stepping down one ulp at a time)
        whose composed ``epsilon`` is at most the target.
    """
    built = None

    def composed(e):
        nonlocal built
        built = build(e)
        return compose(built[0], method, delta).epsilon

    nudge(epsilon, lambda e: composed(e) <= epsilon, up=False,
          what="the calibration's budget",
          why=lambda e: (f"still does not compose within budget: its events compose to "
                         f"epsilon={compose(built[0], method, delta).epsilon!r} > the target "
                         f"epsilon={epsilon!r}"))
    return built


def zcdp_budget(epsilon, delta):
    r"""The :math:`\rho` whose zCDP-to-DP conversion gives exactly :math:`(\varepsilon, \delta)`.

    Inverts :math:`\varepsilon = \rho + 2\sqrt{\rho\ln(1/\delta)}` (Bun & Steinke 2016,
    Prop 1.3): :math:`\sqrt\rho = \sqrt{\ln(1/\delta) + \varepsilon} - \sqrt{\ln(1/\delta)}`,
    evaluated as :math:`\varepsilon / (\sqrt{\ln(1/\delta) + \varepsilon} +
    \sqrt{\ln(1/\delta)})` (no cancellation).

    Parameters
    ----------
    epsilon : float
        ``> 0``.
    delta : float
        In ``(0, 1)``.

    Returns
    -------
    float
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, allow_zero=False)
    log_term = math.log(1.0 / delta)
    root = epsilon / (math.sqrt(log_term + epsilon) + math.sqrt(log_term))
    return root * root
