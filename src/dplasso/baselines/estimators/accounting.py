r"""A private baseline fit with its accounting: the composed guarantee of each part, the
Sparsifier's count release in front of a sparse method, the private threshold behind it."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from dplasso.baselines.result import BaselineFit
from dplasso.estimators.composition import compose_parts, pure_part
from dplasso.estimators.count import (
    compose_with_count,
    count_noise_event,
    noisy_count,
    resolve_count_sensitivity,
)
from dplasso.estimators.params import check_epsilon, check_fraction
from dplasso.estimators.problem import with_intercept_column
from dplasso.estimators.threshold import release_threshold
from dplasso.privacy.accounting import PrivacyGuarantee, PrivacyLedger
from dplasso.privacy.rng import as_generator
from dplasso.privacy.shares import split_share

__all__ = ["AccountedFit", "account_fit", "fit_with_private_count", "with_private_threshold"]


class AccountedFit(NamedTuple):
    """A baseline fit with the guarantee of each separately composed part of its ledger.

    Attributes
    ----------
    fit : BaselineFit
        The method's own output (its ``ledger`` holds the method's releases only).
    ledger : PrivacyLedger
        Every release of the fit (the count, when there is one, then the method's).
    guarantee : PrivacyGuarantee
        Basic composition of the guarantees in ``accounting``.
    accounting : tuple of (PrivacyLedger, PrivacyGuarantee)
        One part per separately composed ledger, for
        :func:`dplasso.estimators.base.spend_budget`.
    n_nonzero_target : int or None
        The sparsity level ``s`` the method ran with (released or given); None for a method
        without one.
    """

    fit: BaselineFit
    ledger: PrivacyLedger
    guarantee: PrivacyGuarantee
    accounting: tuple
    n_nonzero_target: int | None


_COMPOSITION = {
    "two-stage": lambda info: "basic",
    "private-admm": lambda info: info["composition"],
    "dp-ight": lambda info: "zcdp",
}
"""The composition rule each baseline's ledger was calibrated under."""


def account_fit(fit, delta, n_nonzero_target=None):
    """Wrap a private baseline fit with its composed guarantee.

    Parameters
    ----------
    fit : BaselineFit
        From :func:`fit_two_stage`, :func:`fit_private_admm` or :func:`fit_dp_ight`.
    delta : float
        The ``delta`` the fit was calibrated for (the zCDP conversion target).
    n_nonzero_target : int or None, default=None

    Returns
    -------
    AccountedFit
        One accounting part, composed by the rule the method was calibrated under
        (basic for two-stage, ``fit.info["composition"]`` for ADMM, zCDP for DP-IGHT).
    """
    method = _COMPOSITION[fit.info["method"]](fit.info)
    guarantee = fit.ledger.total(method, None if method == "basic" else delta)
    return AccountedFit(fit, fit.ledger, guarantee, ((fit.ledger, guarantee),),
                        n_nonzero_target)


def fit_with_private_count(fit_function, X, y, *, count, epsilon, delta, count_fraction,
                           count_sensitivity, count_noise, random_state, **fit_params):
    r"""Release the sparsity level from a count, then fit a sparse baseline with the rest.

    :math:`\tilde s = \mathrm{clip}(c + Z, 1, p)` with the double-geometric (or rounded
    Laplace) noise of :func:`dplasso.estimators.count.noisy_count` at
    :math:`\varepsilon_1 = f\varepsilon`, then ``fit_function(X, y, epsilon=(1 - f) epsilon,
    delta=delta, n_nonzero=s, ...)``. The Sparsifier's count release, unchanged.

    Parameters
    ----------
    fit_function : callable
        :func:`~dplasso.baselines.two_stage.fit_two_stage` or
        :func:`~dplasso.baselines.dp_ight.fit_dp_ight`.
    X : ndarray or scipy.sparse matrix of shape (n, p)
        Rows in the data domain.
    y : ndarray of shape (n,)
        Labels ``{0, 1}``.
    count : int
        The non-private count ``c`` (:func:`dplasso.estimators.count.lasso_support_size` of
        the same data); ``0 <= c <= p``. Passing it lets several fits of one dataset share
        one accurate solve.
    epsilon : float
        Total budget ``> 0``.
    delta : float
        The method's ``delta`` (the count is pure).
    count_fraction : float
        :math:`f \in (0, 1)`.
    count_sensitivity : "max" or int
        Replace-one sensitivity of ``c``: ``"max"`` is the proven bound ``p``; an integer is
        declared (:func:`dplasso.estimators.count.resolve_count_sensitivity`).
    count_noise : {"geometric", "laplace"}
    random_state : None, int or numpy.random.Generator
        The count noise is drawn first, then the method's noise, from one stream.
    **fit_params
        Further keyword arguments of ``fit_function``.

    Returns
    -------
    AccountedFit
        Two accounting parts: the count (basic, pure :math:`\varepsilon_1`) and the method
        (its own composition, :math:`(\varepsilon - \varepsilon_1, \delta)`).

    Notes
    -----
    - Neighbouring relation: replace-one.
    - Data domain: rows :math:`\|x_i\|_\infty \le 1`, labels ``{0, 1}``.
    - Sensitivity: the count, :math:`p` (proven) or a declared ``count_sensitivity``; the
      method's own.
    - Guarantee: basic composition of the :math:`f\varepsilon`-DP count (for a declared
      sensitivity below :math:`p`, conditional on it) and the
      :math:`((1 - f)\varepsilon, \delta)`-DP method.
    - Numerics: the count exact (``"geometric"``) or idealised floats (``"laplace"``).
    """
    epsilon = check_epsilon(epsilon)
    count_fraction = check_fraction(count_fraction, "count_fraction")
    epsilon_count, epsilon_method = split_share(epsilon, count_fraction)
    rng = as_generator(random_state)
    count_sensitivity = resolve_count_sensitivity(count_sensitivity, X.shape[1])
    s = noisy_count(count, epsilon_count, count_sensitivity, count_noise, rng,
                    n_max=X.shape[1])
    fit = fit_function(X, y, epsilon=epsilon_method, delta=delta, n_nonzero=s,
                       random_state=rng, **fit_params)
    method = account_fit(fit, delta)
    ledger, guarantee, count_part = compose_with_count(
        count_noise_event(epsilon_count, count_sensitivity, count_noise,
                          n_countable=X.shape[1]), fit.ledger, method.guarantee)
    return AccountedFit(fit, ledger, guarantee, (count_part,) + method.accounting, s)


def with_private_threshold(result, X, y, *, epsilon, rng):
    r"""``result`` with its intercept moved by a released offset (the private threshold).

    The offset is :func:`dplasso.estimators.threshold.release_threshold` on the fit's
    weights (the intercept coordinate included) and the design with its constant column; the
    threshold's :math:`\varepsilon_b`-DP part is appended to the accounting (basic
    composition with the method's parts).

    Parameters
    ----------
    result : AccountedFit
        A fit; without an intercept (``fit.intercept`` None) the offset becomes its
        intercept.
    X : ndarray or scipy.sparse matrix of shape (n, p)
        The rows the method was fitted on.
    y : ndarray of shape (n,)
        Labels ``{0, 1}``.
    epsilon : float
        :math:`\varepsilon_b`.
    rng : numpy.random.Generator

    Returns
    -------
    AccountedFit
    """
    fit = result.fit
    if fit.intercept is None:
        design, intercept = X, 0.0
    else:
        design, intercept = with_intercept_column(X), fit.intercept
    intercept, event = release_threshold(design, y, fit.coef[:, np.newaxis],
                                         np.array([intercept]), n_classes=2, epsilon=epsilon,
                                         rng=rng)
    parts = result.accounting + (pure_part(event),)
    ledger, guarantee = compose_parts(parts)
    moved = fit._replace(intercept=float(intercept[0]))
    return AccountedFit(moved, ledger, guarantee, parts, result.n_nonzero_target)

