r"""Checks and data-independent defaults for the estimators' hyperparameters.

Every check raises ``ValueError`` (``TypeError`` for a wrong kind of object) with a message
naming the parameter and the problem; the estimators call them in ``fit`` (their ``__init__``
only stores). The defaults below are the "three hyperparameters set heuristically" of P1 —
the L1 radius ``lam``, the number of Frank-Wolfe steps ``T`` and the budget split — chosen
without looking at the data (``n`` is public under the replace-one relation). The module is
light to import (no numpy at import): the command line checks parameters with it.
"""
from __future__ import annotations

import math
import numbers
import warnings

from dplasso.optim.validation import check_n_iter
from dplasso.privacy.accounting import BudgetAccountant

__all__ = [
    "DEFAULT_LAM",
    "DEFAULT_SELECTION",
    "DEFAULT_COUNT_FRACTION",
    "MAX_AUTO_N_ITER",
    "EPSILON_RANGE",
    "MIN_DELTA",
    "default_delta",
    "check_choice",
    "check_epsilon",
    "check_total_epsilon",
    "check_delta",
    "check_fraction",
    "check_count_sensitivity",
    "check_accountant",
    "check_bool",
    "check_n_iter_or_auto",
    "resolve_delta",
    "LargeDeltaWarning",
]

DEFAULT_LAM = 10.0
r"""Default L1-ball radius (a constraint radius, not a penalty weight).

With rows :math:`\|x_i\|_\infty \le 1` every logit obeys :math:`|x_i^\top w| \le \lambda`, so
:math:`\lambda = 10` lets the model predict probabilities down to :math:`e^{-10} \approx 4.5
\cdot 10^{-5}` — confident enough for any classification use — while Talwar et al.'s excess-risk
bound at the balanced ``T``, :math:`\Gamma^{1/3}(L_1\lambda)^{2/3}/(n\varepsilon)^{2/3}` up to
logarithms with curvature :math:`\Gamma \le \lambda^2` and :math:`L_1 = 1`, grows like
:math:`\lambda^{4/3}`, which argues against a larger ball. The value is fixed in advance; it is
never tuned on the private data. (On P1's synthetic family,
:func:`dplasso.data.synthetic.sparse_logistic_synthetic` with its defaults and
``random_state=0``, the non-private solution at this radius has exactly the 10 true
nonzeros.)
"""

DEFAULT_SELECTION = "exponential"
r"""Private vertex selection of the recommended model
(:class:`~dplasso.estimators.SparseDPLogisticRegression`).

The exponential mechanism at scale :math:`b` is :math:`\varepsilon_0 = 2\Delta/b`-DP and, being
bounded-range, also :math:`\varepsilon_0^2/8`-zCDP (Cesar & Rogers 2021), so ``T`` steps compose
by zCDP to about :math:`\varepsilon_0\sqrt{T\ln(1/\delta)/2}`; report-noisy-min with Laplace noise
(P1's and Talwar et al.'s choice) composes by advanced composition to about
:math:`\varepsilon_0\sqrt{2T\ln(1/\delta)}`. At the same total budget the exponential mechanism's
scale is therefore about half of Laplace's (for example ``n = 1000``, ``T = 50``,
:math:`\varepsilon = 0.8`, :math:`\delta = n^{-2}`: 0.94 against 1.91). Chosen by
:func:`!dplasso.experiments.design.choose_selection` on the synthetic family's record
``design-selection.csv``; P1's method (:class:`~dplasso.estimators.SparsifierClassifier`)
and P1's experiments keep Laplace, as published.
"""

MAX_AUTO_N_ITER = 1000
r"""Largest ``T`` the automatic choice considers
(:func:`dplasso.estimators.private_frank_wolfe.auto_n_iter`), for run time: one step costs a
product :math:`X^\top R`. At the cap the optimisation term :math:`2\Gamma/(T+2)` of the bound is
below :math:`0.2\%` of the curvature bound :math:`\Gamma`.
"""

DEFAULT_COUNT_FRACTION = 0.25
r"""Default share :math:`f` of the Sparsifier's budget spent on the noisy support size.

Talwar et al.'s excess-risk bound scales as :math:`\varepsilon_{\mathrm{FW}}^{-2/3}`, so giving
a share :math:`f` to the count costs the Frank-Wolfe part a factor :math:`(1 - f)^{-2/3}`
(1.07 at :math:`f = 0.1`, 1.21 at :math:`f = 1/4`, 1.59 at :math:`f = 1/2`), while the count's
double-geometric noise has standard deviation :math:`\sqrt{2a}/(1-a)`, :math:`a =
e^{-f\varepsilon/\Delta_c}` (14.1, 5.6 and 2.8 at :math:`\varepsilon = 1`, :math:`\Delta_c =
1`). A quarter keeps the Frank-Wolfe bound within about 20% of its full-budget value and the
count within a few units of :math:`c` at :math:`\varepsilon \ge 1`; at smaller
:math:`\varepsilon` the count spreads widely whatever the split (P1's stated limitation).

Evidence, one seeded synthetic problem (``sparse_logistic_synthetic(n=25000, p=100, k=5,
random_state=0)``, 20000 training rows, ``lam=10``, automatic ``T``, 8 trials; test
accuracy for :math:`f = 0.1 / 0.25 / 0.5`): 0.57 / 0.54 / 0.53 at :math:`\varepsilon = 1`,
0.69 / 0.68 / 0.64 at 2, 0.75 / 0.77 / 0.77 at 5 (non-private 0.79, 5 true nonzeros). The
smaller share is more accurate at small :math:`\varepsilon` but releases targets far from the
true support (1 to 25 at :math:`\varepsilon = 1`), the larger loses accuracy; a quarter is the
compromise. Not tuned on any private data.
"""


EPSILON_RANGE = (1e-6, 1e12)
r"""The total budgets a private fit accepts: where every estimator's noise calibration is defined
(each private estimator fits at both ends, ``tests/unit/estimators/test_budget_range.py``).
Outside it the calibrations break down: below, the exact integer sampler of the counts reaches
its largest scale :math:`2^{40}` (at :math:`10^{-6}` and the default budget shares only for
count sensitivities above about :math:`2.5 \cdot 10^{5}`; at :math:`10^{-12}` already for 200
coefficients) and the step
calibration's root finder loses its bracket (near :math:`10^{-30}`); above, they overflow from
about :math:`10^{150}` (:math:`\varepsilon^2`), and the upper end stays far below that. Neither
end is a useful budget: at :math:`10^{-6}` the release is noise, and from a few hundred on the
guarantee :math:`e^{\varepsilon}` promises nothing (it is not even a float beyond 709), but
large budgets are how the tests check that a private fit approaches the non-private one.
"""

MIN_DELTA = 1e-300
r"""The smallest nonzero ``delta`` a private fit accepts: the calibrations take
:math:`\ln(1/\delta)`, and :math:`1/\delta` overflows for subnormal ``delta`` (below
:math:`2.2 \cdot 10^{-308}`)."""


def default_delta(n_samples):
    r""":math:`\delta = 1/n^2`, the experiments' default (``n`` is public under replace-one)."""
    return 1.0 / float(n_samples) ** 2


def check_choice(value, name, options):
    """``value`` if it is one of ``options`` (strings), else a ``ValueError`` listing them."""
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {options}, got {value!r}")
    return value


def _real(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    return float(value)


def check_epsilon(epsilon, name="epsilon"):
    """A privacy budget: a finite number ``> 0``."""
    epsilon = _real(epsilon, name)
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {epsilon!r}")
    return epsilon


def check_total_epsilon(epsilon, name="epsilon"):
    """A fit's total privacy budget: a finite number in :data:`EPSILON_RANGE`."""
    epsilon = check_epsilon(epsilon, name)
    low, high = EPSILON_RANGE
    if not low <= epsilon <= high:
        raise ValueError(
            f"{name} must lie in [{low:g}, {high:g}], the budgets where the noise calibration "
            f"is defined (dplasso.estimators.params.EPSILON_RANGE), got {epsilon!r}")
    return epsilon


def check_delta(delta, name="delta"):
    """A failure probability in ``[0, 1)``."""
    delta = _real(delta, name)
    if not (math.isfinite(delta) and 0 <= delta < 1):
        raise ValueError(f"{name} must lie in [0, 1), got {delta!r}")
    return delta


def check_fraction(value, name):
    """A share strictly between 0 and 1."""
    value = _real(value, name)
    if not 0 < value < 1:
        raise ValueError(f"{name} must lie in (0, 1), got {value!r}")
    return value


def check_count_sensitivity(value, name="count_sensitivity"):
    """A count's sensitivity: ``"max"`` (the proven bound, resolved later to the number of
    countable coefficients) or a declared integer ``>= 1``."""
    if isinstance(value, str):
        if value != "max":
            raise ValueError(f'{name} must be "max" or an integer >= 1, got {value!r}')
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f'{name} must be "max" or an integer, got {type(value).__name__}')
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    return int(value)


def check_accountant(accountant):
    """``None`` or a :class:`~dplasso.privacy.accounting.BudgetAccountant`."""
    if accountant is not None and not isinstance(accountant, BudgetAccountant):
        raise TypeError(
            f"accountant must be None or a BudgetAccountant, got {type(accountant).__name__}"
        )
    return accountant


def check_bool(value, name):
    """A boolean flag (``bool`` or ``numpy.bool_``)."""
    import numpy as np

    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
    return bool(value)


def check_n_iter_or_auto(n_iter):
    """``"auto"``, or a number of steps: an integer ``>= 1``."""
    if isinstance(n_iter, str):
        return check_choice(n_iter, "n_iter", ("auto",))
    return check_n_iter(n_iter)


class LargeDeltaWarning(UserWarning):
    """``delta >= 1/n``: the guarantee then allows releasing a whole row outright."""


def resolve_delta(delta, n_samples):
    r"""``delta`` checked (0, or in ``[MIN_DELTA, 1)``), or :func:`default_delta` when it is
    ``None``.

    Warns :class:`LargeDeltaWarning` when the result is :math:`\ge 1/n` (given or by
    default): a mechanism that publishes one row chosen at random is :math:`(0, 1/n)`-DP,
    so such a ``delta`` promises nothing about any individual row. (The default
    :math:`1/n^2` is below :math:`1/n` for every ``n >= 2``; with one row it is 1, and
    ``delta=None`` is refused.)
    """
    if delta is None and n_samples < 2:
        raise ValueError(
            "delta must be given for a fit on one row: the default delta 1/n**2 is 1 at n=1, "
            "which promises nothing; pass delta or fit on more rows")
    delta = default_delta(n_samples) if delta is None else check_delta(delta)
    if 0 < delta < MIN_DELTA:
        raise ValueError(
            f"delta must be 0 or at least {MIN_DELTA:g} (dplasso.estimators.params.MIN_DELTA: "
            f"the calibrations take log(1/delta)), got {delta!r}")
    if delta > 0 and delta * n_samples >= 1:
        warnings.warn(
            f"delta={delta!r} is >= 1/n = {1 / n_samples!r} (n={n_samples} rows): a "
            "mechanism that publishes a random row outright meets this guarantee; choose "
            "delta well below 1/n (the default is 1/n**2)",
            LargeDeltaWarning, stacklevel=3)
    return delta
