r"""Scikit-learn classifiers around the baseline fit functions, with public hyperparameter rules.

- :class:`TwoStageClassifier` wraps :func:`~dplasso.baselines.two_stage.fit_two_stage`;
- :class:`PrivateADMMClassifier` wraps :func:`~dplasso.baselines.admm.fit_private_admm`;
- :class:`DPIGHTClassifier` wraps :func:`~dplasso.baselines.dp_ight.fit_dp_ight`;
- :class:`NonPrivateLassoClassifier` wraps
  :func:`~dplasso.baselines.nonprivate.fit_nonprivate_lasso`.

They share the contract of :mod:`dplasso.estimators` through its base class: labels of any
kind (two classes; ``classes_[1]`` is the positive one), ``coef_`` of shape ``(1, p)`` and
``intercept_`` of shape ``(1,)``, rows :math:`\|x_i\|_\infty \le 1` (an error naming the row,
or clipping on request with ``bounds="clip"``), the intercept a constant feature inside the
model, ``privacy_ledger_`` / ``privacy_guarantee_`` for the private ones, and a budget
accountant that refuses a fit before any work on the data (check, fit, spend).

**Hyperparameters.** Every private hyperparameter is a public rule: a function of ``n``,
``p``, the budget and the other hyperparameters only, never of the private data, so tuning
costs no privacy. The rules and the evidence behind their constants are in the docstrings of
:func:`admm_rho`, :func:`admm_alpha`, :data:`ADMM_N_ITER`, :func:`dp_ight_step_size` and
:data:`DP_IGHT_N_ITER`. The one hyperparameter no public rule can set well is the sparsity
level ``s`` of the two-stage method and DP-IGHT (their papers take it as known). By default
(``n_nonzero="count"``) it is released exactly as the Sparsifier releases its support size:
a share ``count_fraction`` of ``epsilon`` buys the double-geometric count of the nonzeros of the
non-private L1-constrained fit (radius ``count_lam``), and the method runs on the rest
(:func:`fit_with_private_count`). The Sparsifier and these two baselines then get the same
treatment: by default the count is noised at its proven sensitivity :math:`p`
(``count_sensitivity="max"``), and P1's :math:`\Delta_c = 1` is a declared, unproven choice
(:mod:`dplasso.estimators.count`).
"""
from __future__ import annotations

import math
import warnings
from typing import NamedTuple

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from dplasso.baselines._inputs import check_positive_int, check_positive_real
from dplasso.baselines.admm import best_composition, fit_private_admm, per_iteration_epsilon
from dplasso.baselines.dp_ight import fit_dp_ight
from dplasso.baselines.nonprivate import fit_nonprivate_lasso
from dplasso.baselines.objective_perturbation import NOISE_KINDS, jacobian_epsilon
from dplasso.baselines.result import BaselineFit
from dplasso.baselines.two_stage import fit_two_stage
from dplasso.estimators.base import FrankWolfeClassifierBase, spend_budget
from dplasso.estimators.count import (
    COUNT_NOISES,
    compose_with_count,
    count_noise_event,
    lasso_support_size,
    noisy_count,
    resolve_count_sensitivity,
)
from dplasso.estimators.params import (
    DEFAULT_COUNT_FRACTION,
    DEFAULT_LAM,
    check_accountant,
    check_choice,
    check_count_sensitivity,
    check_epsilon,
    check_fraction,
    resolve_delta,
)
from dplasso.estimators.composition import compose_parts, pure_part
from dplasso.estimators.problem import apply_bounds, with_intercept_column
from dplasso.estimators.threshold import (
    DEFAULT_THRESHOLD_FRACTION,
    release_threshold,
    split_threshold_budget,
)
from dplasso.optim.validation import check_lam, check_n_iter
from dplasso.privacy.accounting import PrivacyGuarantee, PrivacyLedger
from dplasso.privacy.rng import as_generator
from dplasso.privacy.shares import split_share

__all__ = [
    "ADMM_JACOBIAN_SHARE",
    "ADMM_N_ITER",
    "DP_IGHT_N_ITER",
    "AccountedFit",
    "DPIGHTClassifier",
    "NonPrivateLassoClassifier",
    "PrivateADMMClassifier",
    "TwoStageClassifier",
    "account_fit",
    "with_private_threshold",
    "admm_alpha",
    "admm_hyperparameters",
    "admm_rho",
    "dp_ight_step_size",
    "fit_dp_ight_public_step",
    "fit_with_private_count",
]


def _check_binary(classes, estimator):
    if classes.size != 2:
        raise ValueError(
            f"Only binary classification is supported: {estimator} needs y with exactly two "
            f"classes, got {classes.size}"
        )


def _check_n_nonzero(n_nonzero):
    if isinstance(n_nonzero, str):
        return check_choice(n_nonzero, "n_nonzero", ("count",))
    return check_positive_int(n_nonzero, "n_nonzero")


def _check_auto_or_positive(value, name):
    if isinstance(value, str):
        return check_choice(value, name, ("auto",))
    return check_positive_real(value, name)


ADMM_N_ITER = 3
r"""Default number ``K`` of private ADMM iterations (Wang and Zhang leave ``K`` open).

Every iteration is a release, so the budget is split ``K`` ways and the noise of each
``w``-update grows with ``K``; ADMM's first iterations do most of its progress. Evidence, public
synthetic data only (``sparse_logistic_synthetic(n=25000, p=100, k=5, random_state=11)`` and
``(n=6000, p=50, k=5, random_state=12)``, stratified 80/20 split, :func:`admm_rho` and
:func:`admm_alpha`, two noise seeds; test accuracy for ``K = 2 / 3 / 5``): at
:math:`\varepsilon = 5`, 0.77 / 0.76 / 0.74 and 0.77 / 0.76 / 0.68; at :math:`\varepsilon = 1`,
0.59 / 0.55 / 0.54 and 0.55 / 0.56 / 0.50 (non-private 0.78 and 0.80). Two and three are
within the seed-to-seed spread; three keeps more of ADMM's own progress.
"""

ADMM_JACOBIAN_SHARE = 0.1
r"""Share of each ADMM iteration's budget :math:`\varepsilon_0` spent on the Jacobian term.

The objective-perturbation step pays :math:`\varepsilon_J = \log(1 + d/(4n\rho))` for the
Jacobian and the rest :math:`\varepsilon_b = \varepsilon_0 - \varepsilon_J` for the noise;
:func:`admm_rho` solves for the :math:`\rho` giving :math:`\varepsilon_J = 0.1\,\varepsilon_0`.
Kifer et al. split their (single) release in halves; here :math:`\rho` is also the ADMM penalty,
which pulls each ``w``-update toward the consensus point and so damps the noise as well, and
a larger :math:`\rho` both costs less and damps more. On the synthetic problems of
:data:`ADMM_N_ITER` a share of 0.1 beat 0.5 at every ``K`` and :math:`\varepsilon` tried (e.g.
0.76 against 0.69 test accuracy at ``K = 3``, :math:`\varepsilon = 5`).
"""

DP_IGHT_N_ITER = 30
r"""Default number ``T`` of DP-IGHT steps (Wang and Gu set ``T`` from constants we do not have).

The Gaussian noise of every step grows like :math:`\sqrt T` at a fixed budget, while the
hard-thresholded gradient steps need a few tens of iterations at the step size of
:func:`dp_ight_step_size`. Evidence on the public synthetic problems of :data:`ADMM_N_ITER`
(``s = 5`` and ``15``, three seeds; test accuracy for ``T = 10 / 30 / 100``): at
:math:`\varepsilon = 1`, 0.63 / 0.63 / 0.60 and 0.59 / 0.63 / 0.57 (``s = 5``); at
:math:`\varepsilon = 5` all within 0.74-0.80. Thirty is never worse than the others by more
than the seed spread.
"""


def admm_rho(n_samples, n_columns, epsilon_iteration, jacobian_share=ADMM_JACOBIAN_SHARE):
    r"""ADMM penalty :math:`\rho` whose Jacobian term costs ``jacobian_share`` of the budget.

    .. math:: \rho = \frac{d}{4 n\,(e^{f\min(\varepsilon_0,\, 2)} - 1)}
        \quad\Longleftrightarrow\quad \log\Bigl(1 + \frac{d}{4n\rho}\Bigr)
        = f\min(\varepsilon_0, 2),

    with ``d`` the number of model columns (``p``, plus one for the intercept) and
    :math:`\varepsilon_0` the per-iteration budget. Public: ``n``, ``d`` and the budget only.
    Up to :math:`\varepsilon_0 = 2` (every setting of the experiments) the Jacobian term costs
    exactly the share :math:`f`; beyond, it costs less, and the cap keeps :math:`\rho` from
    shrinking like :math:`e^{-f\varepsilon_0}`, which would blow the soft threshold
    :math:`\alpha/\rho` up (with :func:`admm_alpha`, :math:`\alpha/\rho =
    8(e^{f\min(\varepsilon_0, 2)} - 1)/\varepsilon_b`: about :math:`8f/(1-f) \approx 0.9`
    for small budgets, falling to 0 as the noise vanishes).

    Parameters
    ----------
    n_samples : int
        ``n``.
    n_columns : int
        ``d``.
    epsilon_iteration : float
        :math:`\varepsilon_0 > 0`.
    jacobian_share : float, default=0.1
        :math:`f \in (0, 1)`, see :data:`ADMM_JACOBIAN_SHARE`.

    Returns
    -------
    float
    """
    n_samples = check_positive_int(n_samples, "n_samples")
    n_columns = check_positive_int(n_columns, "n_columns")
    epsilon_iteration = check_epsilon(epsilon_iteration, "epsilon_iteration")
    jacobian_share = check_fraction(jacobian_share, "jacobian_share")
    exponent = jacobian_share * min(epsilon_iteration, _ADMM_RHO_BUDGET_CAP)
    return n_columns / (4.0 * n_samples * math.expm1(exponent))


_ADMM_RHO_BUDGET_CAP = 2.0
"""Largest per-iteration budget :func:`admm_rho` scales with (see there)."""


def admm_alpha(n_samples, n_columns, epsilon_noise):
    r"""L1 penalty weight :math:`\alpha`: one standard deviation of a coordinate of the noise.

    .. math:: \alpha = \frac{2d}{n\,\varepsilon_b}.

    The ``w``-update minimises the loss plus :math:`b^\top w/n`, with :math:`b` of Gamma-norm
    density: norm :math:`\mathrm{Gamma}(d, \theta)`, :math:`\theta = 2\sqrt d/\varepsilon_b`,
    uniform direction. A coordinate of :math:`b/n` then has standard deviation
    :math:`\sqrt{\mathbb E\|b\|^2/d}/n = \theta\sqrt{d+1}/n \approx 2d/(n\varepsilon_b)`.
    When :math:`\rho` dominates the loss curvature an ADMM iteration is close to a proximal
    gradient step of length :math:`1/\rho`, whose perturbation :math:`b_j/(n\rho)` meets the
    soft threshold :math:`\alpha/\rho`: this :math:`\alpha` zeroes a coordinate that only noise
    moved with probability about :math:`P(|N(0,1)| < 1) = 0.68`. On the synthetic problems of
    :data:`ADMM_N_ITER`, half and twice this value were worse (at :math:`\varepsilon = 5`,
    ``K = 3``: 0.74 / 0.76 / 0.76 test accuracy with 45 / 14 / 6 nonzeros, and at
    :math:`\varepsilon = 1` twice the value zeroes the true support).

    Parameters
    ----------
    n_samples : int
        ``n``.
    n_columns : int
        ``d`` (features plus intercept column).
    epsilon_noise : float
        :math:`\varepsilon_b > 0`, the noise term's share of the per-iteration budget.

    Returns
    -------
    float
    """
    n_samples = check_positive_int(n_samples, "n_samples")
    n_columns = check_positive_int(n_columns, "n_columns")
    epsilon_noise = check_epsilon(epsilon_noise, "epsilon_noise")
    return 2.0 * n_columns / (n_samples * epsilon_noise)


def dp_ight_step_size(n_nonzero, fit_intercept=True):
    r"""DP-IGHT step :math:`\eta = 1/L_m`, the worst-case restricted smoothness on the domain.

    For ``v`` with at most ``m`` nonzeros and rows :math:`\|x_i\|_\infty \le 1`,
    :math:`v^\top \nabla^2 L\, v = \frac1n\sum_i \sigma'(x_i^\top w)(x_i^\top v)^2 \le
    \frac14\|v\|_1^2 \le \frac m4\|v\|_2^2`. Consecutive iterates have at most ``s`` feature
    coordinates each (plus the intercept), so their difference has :math:`m = 2s + 1` nonzeros
    (:math:`2s` without intercept) and :math:`\eta = 4/m`, the step of iterative hard
    thresholding's analysis (Jain, Tewari and Kar 2014), safe for every dataset in the domain.
    A constant :math:`\eta = 1` did slightly better on the isotropic synthetic problems of
    :data:`ADMM_N_ITER` (by at most 0.05 test accuracy) but exceeds :math:`2/L` on data with
    large correlated entries (one-hot blocks), where gradient descent diverges.

    Parameters
    ----------
    n_nonzero : int
        ``s >= 1``.
    fit_intercept : bool, default=True

    Returns
    -------
    float
    """
    n_nonzero = check_positive_int(n_nonzero, "n_nonzero")
    return 4.0 / (2 * n_nonzero + int(bool(fit_intercept)))


def fit_dp_ight_public_step(X, y, *, epsilon, delta, n_nonzero, n_iter=DP_IGHT_N_ITER,
                            step_size="auto", fit_intercept=True, random_state=None):
    """:func:`~dplasso.baselines.dp_ight.fit_dp_ight` with ``step_size="auto"`` allowed.

    ``"auto"`` is :func:`dp_ight_step_size` of ``n_nonzero`` (public), resolved here because
    the sparsity level may itself be a private release (:func:`fit_with_private_count`).
    Other arguments as in ``fit_dp_ight``.

    Returns
    -------
    BaselineFit
    """
    if isinstance(step_size, str):
        check_choice(step_size, "step_size", ("auto",))
        step_size = dp_ight_step_size(n_nonzero, fit_intercept)
    return fit_dp_ight(X, y, epsilon=epsilon, delta=delta, n_nonzero=n_nonzero,
                       n_iter=n_iter, step_size=step_size, fit_intercept=fit_intercept,
                       random_state=random_state)


def admm_hyperparameters(n_samples, n_columns, epsilon, delta, n_iter, *, alpha="auto",
                         rho="auto"):
    r"""``(alpha, rho)`` of private ADMM, each given or set by its public rule.

    :math:`\varepsilon_0` is the per-iteration budget of the composition the fit will use
    (:func:`~dplasso.baselines.admm.best_composition`); ``rho="auto"`` is :func:`admm_rho`
    of it, ``alpha="auto"`` is :func:`admm_alpha` of the noise share
    :math:`\varepsilon_b = \varepsilon_0 - \log(1 + d/(4n\rho))`.

    Parameters
    ----------
    n_samples : int
        ``n``.
    n_columns : int
        ``d`` (features plus the intercept column).
    epsilon : float
        Total budget ``> 0``.
    delta : float
        Total ``delta`` in ``[0, 1)``.
    n_iter : int
        ``K >= 1``.
    alpha, rho : float or "auto", default="auto"

    Returns
    -------
    alpha, rho : float

    Raises
    ------
    ValueError
        When a given ``rho`` leaves no budget for the noise term (the message gives the
        smallest admissible ``rho``).
    """
    n_samples = check_positive_int(n_samples, "n_samples")
    n_columns = check_positive_int(n_columns, "n_columns")
    n_iter = check_positive_int(n_iter, "n_iter")
    epsilon_0 = per_iteration_epsilon(epsilon, delta, n_iter,
                                      best_composition(epsilon, delta, n_iter))
    rho = (admm_rho(n_samples, n_columns, epsilon_0)
           if _check_auto_or_positive(rho, "rho") == "auto" else float(rho))
    epsilon_noise = epsilon_0 - jacobian_epsilon(math.sqrt(n_columns), n_samples * rho)
    if not epsilon_noise > 0:
        rho_min = n_columns / (4.0 * n_samples * math.expm1(epsilon_0))
        raise ValueError(
            f"rho={rho!r} is too small for the per-iteration budget epsilon_0={epsilon_0:.6g}:"
            f" the Jacobian term alone costs it all; use rho > {rho_min:.6g} (or rho='auto')")
    if _check_auto_or_positive(alpha, "alpha") == "auto":
        alpha = admm_alpha(n_samples, n_columns, epsilon_noise)
    return float(alpha), rho


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


class _BinaryBaselineClassifier(FrankWolfeClassifierBase):
    """Shared pieces: binary labels only, the data domain, the fitted linear model."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _training_data(self, X, y):
        """``(X, y01, classes)``: checked, two classes, rows in the domain (or clipped)."""
        X, y_encoded, classes = self._validate_training_data(X, y, stacklevel=4)
        _check_binary(classes, type(self).__name__)
        return apply_bounds(X, self.bounds), y_encoded, classes

    def _set_fit(self, fit, classes):
        intercept = 0.0 if fit.intercept is None else fit.intercept
        self._set_model(fit.coef[:, np.newaxis], np.array([intercept]), classes)


class _PrivateBaselineClassifier(_BinaryBaselineClassifier):
    """The check-fit-spend flow of a private baseline; subclasses supply the method."""

    _private_fit = True

    def _check_method_params(self):
        """Validate the method's own parameters (before any data is looked at)."""
        raise NotImplementedError

    def _deltas(self, epsilon, n_samples):
        """``(delta_for_the_method, delta_spent)`` for ``n`` rows (public)."""
        raise NotImplementedError

    def _fit_private(self, X, y, epsilon, delta, rng):
        """Run the method on checked data; return an :class:`AccountedFit`."""
        raise NotImplementedError

    def fit(self, X, y):
        """Fit the model privately (check the budget, fit, spend).

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n, p)
            Training data with rows :math:`\\|x_i\\|_\\infty \\le 1` (see ``bounds``).
        y : array-like of shape (n,)
            Labels, exactly two classes.

        Returns
        -------
        self

        Raises
        ------
        BudgetExceededError
            If ``accountant`` cannot afford the fit; raised before any computation on the
            data.
        """
        epsilon = check_epsilon(self.epsilon)
        epsilon_threshold, epsilon_method = split_threshold_budget(
            epsilon, self.threshold, self.threshold_fraction)
        self._check_method_params()
        accountant = check_accountant(self.accountant)
        X, y_encoded, classes = self._training_data(X, y)
        delta, delta_spent = self._deltas(epsilon_method, X.shape[0])
        if accountant is not None:
            accountant.check(epsilon, delta_spent)
        rng = as_generator(self.random_state)
        result = self._fit_private(X, y_encoded, epsilon_method, delta, rng)
        if self.threshold == "private":
            result = with_private_threshold(result, X, y_encoded, epsilon=epsilon_threshold,
                                            rng=rng)
        if accountant is not None:
            spend_budget(accountant, result.accounting)
        self._set_fit(result.fit, classes)
        self.privacy_ledger_ = result.ledger
        self.privacy_guarantee_ = result.guarantee
        return self


class _CountedSparsityMixin:
    """``n_nonzero`` given, or released from the Sparsifier's count (``"count"``)."""

    def _check_count_params(self):
        _check_n_nonzero(self.n_nonzero)
        check_fraction(self.count_fraction, "count_fraction")
        check_count_sensitivity(self.count_sensitivity)
        check_choice(self.count_noise, "count_noise", COUNT_NOISES)
        check_lam(self.count_lam, name="count_lam")

    def _fit_sparse(self, fit_function, X, y, epsilon, delta, rng, **fit_params):
        if self.n_nonzero == "count":
            count = lasso_support_size(X, y, lam=self.count_lam,
                                       fit_intercept=self.fit_intercept)
            result = fit_with_private_count(
                fit_function, X, y, count=count, epsilon=epsilon, delta=delta,
                count_fraction=self.count_fraction, count_sensitivity=self.count_sensitivity,
                count_noise=self.count_noise, random_state=rng,
                fit_intercept=self.fit_intercept, **fit_params)
        else:
            fit = fit_function(X, y, epsilon=epsilon, delta=delta, n_nonzero=self.n_nonzero,
                               fit_intercept=self.fit_intercept, random_state=rng,
                               **fit_params)
            result = account_fit(fit, delta, int(self.n_nonzero))
        self.n_nonzero_target_ = int(result.n_nonzero_target)
        return result


class TwoStageClassifier(_CountedSparsityMixin, _PrivateBaselineClassifier):
    r"""Kifer, Smith and Thakurta's two-stage private sparse logistic regression.

    Stage 1 selects ``s`` features privately from block votes (sample and aggregate), stage 2
    fits the logistic loss on them by objective perturbation
    (:func:`dplasso.baselines.two_stage.fit_two_stage`).

    Parameters
    ----------
    n_nonzero : int or "count", default="count"
        Sparsity level ``s``. ``"count"``: released from the noisy support size of the
        non-private L1-constrained fit, as the Sparsifier does (module docstring), with a
        share ``count_fraction`` of ``epsilon``; an int: used as given (public).
    epsilon : float, default=1.0
        Total privacy budget, ``> 0``.
    delta : float or None, default=None
        Used only by ``noise="gaussian"`` (None means ``1/n**2``); the default Gamma-norm
        noise is pure and spends ``delta = 0``.
    noise : {"gamma", "gaussian"}, default="gamma"
        Stage-2 noise.
    n_blocks : int or None, default=None
        Stage-1 blocks ``m``; None: :math:`\lfloor\sqrt n\rfloor`.
    block_C : float, default=1.0
        scikit-learn's ``C`` of each block's L1-penalised fit.
    selection_share : float, default=0.5
        Share of the method's budget spent on stage 1.
    count_fraction : float, default=0.25
        With ``n_nonzero="count"``: share :math:`f` of ``epsilon`` spent on the count (the
        Sparsifier's default, :data:`dplasso.estimators.params.DEFAULT_COUNT_FRACTION`).
    count_sensitivity : "max" or int, default="max"
        Replace-one sensitivity of the count, as in the Sparsifier: ``"max"`` is the proven
        bound ``p``; ``1`` is P1's declared, unproven choice (:mod:`dplasso.estimators.count`).
    count_noise : {"geometric", "laplace"}, default="geometric"
        Exact double-geometric noise, or Laplace noise rounded to an integer.
    count_lam : float, default=10.0
        L1-ball radius of the non-private fit whose nonzeros are counted (the Sparsifier's
        default :data:`dplasso.estimators.params.DEFAULT_LAM`).
    tol : float, default=1e-9
        Stage-2 solver tolerance (sup norm of the gradient).
    threshold : {"private", "none"}, default="private"
        ``"private"``: after the weights are released, spend a share ``threshold_fraction``
        of ``epsilon`` on releasing the decision threshold (an offset added to
        ``intercept_``) by the exponential mechanism over a public grid scored by training
        accuracy (:mod:`dplasso.estimators.threshold`; proven sensitivity 1, the book's
        ``lemma-threshold``); the rest goes to the fit. ``"none"``: the fit's own intercept
        coordinate (the behaviour before the threshold; private fits then often predict one
        class). With ``fit_intercept=False`` the released offset is the only intercept.
    threshold_fraction : float, default=0.1
        Share :math:`f_b \in (0, 1)` of ``epsilon`` spent on the threshold
        (:data:`dplasso.estimators.threshold.DEFAULT_THRESHOLD_FRACTION`).
    fit_intercept : bool, default=True
        A constant feature in the stage-2 model (never selected away, not counted in ``s``).
    bounds : {"error", "clip"}, default="error"
        Rows must satisfy :math:`\|x_i\|_\infty \le 1`; ``"clip"`` clips entries to
        ``[-1, 1]`` (a per-row map; the guarantee holds), in ``fit`` and prediction.
        Entries at most 4 ulps above 1 in absolute value (rounding, e.g. in
        ``MinMaxScaler(feature_range=(-1, 1))``) are clipped to ``±1`` in either mode. A
        scaler fitted on the private data releases its minima and maxima outside any
        guarantee: scale with bounds known in advance, or clip.
    accountant : BudgetAccountant or None, default=None
        Refuses the fit before any computation if it cannot afford it; spends after.
    random_state : None, int or numpy.random.Generator, default=None
        Source of all noise (the count first); None draws OS entropy.
    classes : array-like of shape (2,) or None, default=None
        The label set, public (chosen without looking at ``y``): ``classes_`` is it, sorted,
        whichever labels occur in ``y`` (an absent class is fitted like any other). None
        reads the labels from ``y``, which is not private: the fit then warns
        :class:`~dplasso.estimators.base.PrivacyLeakWarning`.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (1, p)
        At most ``n_nonzero_target_`` nonzeros.
    intercept_ : ndarray of shape (1,)
    n_nonzero_target_ : int
        The sparsity level used (released, or as given).
    privacy_ledger_ : PrivacyLedger
        The count event (with ``"count"``), the ``s`` selections and the stage-2 release.
    privacy_guarantee_ : PrivacyGuarantee
        Basic composition: ``(epsilon, delta)`` (``delta = 0`` for gamma noise).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    See Also
    --------
    dplasso.estimators.SparsifierClassifier : P1's method, the same count release.

    Notes
    -----
    - Neighbouring relation: replace-one. The block partition is drawn independently of the
      data, so one replaced row changes one block.
    - Data domain: rows :math:`\|x_i\|_\infty \le 1`, two classes from the public
      label set ``classes`` (without it, read from ``y``: not covered by the guarantee).
    - Sensitivity: the count, ``count_sensitivity`` (:math:`p` by default, proven); each
      block vote count, 1; stage 2 on ``d = s + 1`` columns, stationarity noise :math:`2\sqrt d` in L2 and
      Jacobian ratio :math:`1 + d/(4\Lambda)`.
    - Guarantee: :math:`(\varepsilon, \delta)`-DP by basic composition of the count
      (:math:`f\varepsilon`), the ``s`` exponential-mechanism selections and objective
      perturbation (their split of :math:`(1 - f)\varepsilon` is ``selection_share``).
    - Numerics: idealised floats (selection and stage-2 samplers; stage 2 assumes the exact
      minimiser), the count exact with ``"geometric"``.
    - Post-processing: zero padding off the selected support.
    - Constants Kifer et al. leave open, and ours: ``s`` (known in their theory; released
      from the count here, for the same treatment as the Sparsifier); ``m =
      floor(sqrt(n))`` blocks (balances vote noise against block size,
      :func:`dplasso.baselines.two_stage.default_n_blocks`); each block's support from
      liblinear's L1 fit at ``C = 1`` (scikit-learn's default, penalty
      :math:`\|w\|_1 + \sum_i \ell_i` on the block's :math:`\sqrt n` rows), voting for its
      ``s`` largest coefficients; the budget halved between the stages, and stage 2's
      Jacobian term given half of its share (Kifer et al.'s split); Gamma-norm noise
      (pure DP, as Chaudhuri et al.).
    - Cost: one accurate non-private solve (``"count"``), :math:`\sqrt n` liblinear fits on
      :math:`\sqrt n` rows, ``s`` exponential mechanisms, one L-BFGS solve on ``n x (s+1)``.

    References
    ----------
    .. [1] D. Kifer, A. Smith and A. Thakurta, "Private Convex Empirical Risk Minimization
       and High-dimensional Regression", COLT 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from dplasso.baselines.estimators import TwoStageClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(400, 10))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> model = TwoStageClassifier(epsilon=5.0, classes=[0, 1],
    ...     random_state=0).fit(X, y)
    >>> int(np.count_nonzero(model.coef_)) <= model.n_nonzero_target_
    True
    """

    def __init__(self, n_nonzero="count", epsilon=1.0, delta=None, noise="gamma",
                 n_blocks=None, block_C=1.0, selection_share=0.5,
                 count_fraction=DEFAULT_COUNT_FRACTION, count_sensitivity="max",
                 count_noise="geometric", count_lam=DEFAULT_LAM, tol=1e-9, threshold="private",
                 threshold_fraction=DEFAULT_THRESHOLD_FRACTION, fit_intercept=True,
                 bounds="error", accountant=None, random_state=None,
                 classes=None):
        self.n_nonzero = n_nonzero
        self.epsilon = epsilon
        self.delta = delta
        self.noise = noise
        self.n_blocks = n_blocks
        self.block_C = block_C
        self.selection_share = selection_share
        self.count_fraction = count_fraction
        self.count_sensitivity = count_sensitivity
        self.count_noise = count_noise
        self.count_lam = count_lam
        self.tol = tol
        self.threshold = threshold
        self.threshold_fraction = threshold_fraction
        self.fit_intercept = fit_intercept
        self.bounds = bounds
        self.accountant = accountant
        self.random_state = random_state
        self.classes = classes

    def _check_method_params(self):
        self._check_count_params()
        check_choice(self.noise, "noise", NOISE_KINDS)
        if self.n_blocks is not None:
            check_positive_int(self.n_blocks, "n_blocks")
        check_positive_real(self.block_C, "block_C")
        check_fraction(self.selection_share, "selection_share")
        check_positive_real(self.tol, "tol")

    def _deltas(self, epsilon, n_samples):
        delta = resolve_delta(self.delta, n_samples)
        if self.noise == "gamma":
            return 0.0, 0.0
        if delta == 0:
            raise ValueError("noise='gaussian' needs delta > 0, got delta=0.0")
        return delta, delta

    def _fit_private(self, X, y, epsilon, delta, rng):
        return self._fit_sparse(
            fit_two_stage, X, y, epsilon, delta, rng, n_blocks=self.n_blocks,
            block_C=self.block_C, selection_share=self.selection_share, noise=self.noise,
            tol=self.tol)


class DPIGHTClassifier(_CountedSparsityMixin, _PrivateBaselineClassifier):
    r"""Wang and Gu's DP-IGHT: noisy gradient steps with hard thresholding to ``s`` features.

    :math:`w^{t+1} = H_s(w^t - \eta(\nabla L(w^t) + \xi^t))`, Gaussian :math:`\xi^t`,
    ``T`` steps from zero, zCDP accounting
    (:func:`dplasso.baselines.dp_ight.fit_dp_ight`).

    Parameters
    ----------
    n_nonzero : int or "count", default="count"
        The L0 budget ``s``. ``"count"``: released from the noisy support size of the
        non-private L1-constrained fit, as the Sparsifier does (module docstring); an int:
        used as given.
    n_iter : int, default=30
        Steps ``T`` (:data:`DP_IGHT_N_ITER`).
    step_size : float or "auto", default="auto"
        :math:`\eta`; ``"auto"``: :func:`dp_ight_step_size` of ``s`` (public).
    epsilon : float, default=1.0
        Total privacy budget, ``> 0``.
    delta : float or None, default=None
        Total ``delta`` in ``(0, 1)`` (the zCDP conversion needs ``delta > 0``); None means
        ``1/n**2``.
    count_fraction : float, default=0.25
        With ``n_nonzero="count"``: share :math:`f` of ``epsilon`` spent on the count (the
        Sparsifier's default, :data:`dplasso.estimators.params.DEFAULT_COUNT_FRACTION`).
    count_sensitivity : "max" or int, default="max"
        Replace-one sensitivity of the count, as in the Sparsifier: ``"max"`` is the proven
        bound ``p``; ``1`` is P1's declared, unproven choice (:mod:`dplasso.estimators.count`).
    count_noise : {"geometric", "laplace"}, default="geometric"
        Exact double-geometric noise, or Laplace noise rounded to an integer.
    count_lam : float, default=10.0
        L1-ball radius of the non-private fit whose nonzeros are counted (the Sparsifier's
        default :data:`dplasso.estimators.params.DEFAULT_LAM`).
    threshold : {"private", "none"}, default="private"
        ``"private"``: after the weights are released, spend a share ``threshold_fraction``
        of ``epsilon`` on releasing the decision threshold (an offset added to
        ``intercept_``) by the exponential mechanism over a public grid scored by training
        accuracy (:mod:`dplasso.estimators.threshold`; proven sensitivity 1, the book's
        ``lemma-threshold``); the rest goes to the fit. ``"none"``: the fit's own intercept
        coordinate (the behaviour before the threshold; private fits then often predict one
        class). With ``fit_intercept=False`` the released offset is the only intercept.
    threshold_fraction : float, default=0.1
        Share :math:`f_b \in (0, 1)` of ``epsilon`` spent on the threshold
        (:data:`dplasso.estimators.threshold.DEFAULT_THRESHOLD_FRACTION`).
    fit_intercept : bool, default=True
        A constant feature, never thresholded and not counted in ``s``.
    bounds : {"error", "clip"}, default="error"
    accountant : BudgetAccountant or None, default=None
    random_state : None, int or numpy.random.Generator, default=None
    classes : array-like of shape (2,) or None, default=None
        The label set, public (chosen without looking at ``y``): ``classes_`` is it, sorted,
        whichever labels occur in ``y`` (an absent class is fitted like any other). None
        reads the labels from ``y``, which is not private: the fit then warns
        :class:`~dplasso.estimators.base.PrivacyLeakWarning`.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (1, p)
        At most ``n_nonzero_target_`` nonzeros.
    intercept_ : ndarray of shape (1,)
    n_nonzero_target_ : int
    n_iter_ : int
    step_size_ : float
        The step used.
    privacy_ledger_ : PrivacyLedger
        The count event (with ``"count"``) and the ``T`` Gaussian releases.
    privacy_guarantee_ : PrivacyGuarantee
        Basic composition of the count and the zCDP-converted steps:
        :math:`(\varepsilon, \delta)`.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    See Also
    --------
    dplasso.estimators.SparsifierClassifier : P1's method, the same count release.

    Notes
    -----
    - Neighbouring relation: replace-one.
    - Data domain: rows :math:`\|x_i\|_\infty \le 1`, two classes from the public
      label set ``classes`` (without it, read from ``y``: not covered by the guarantee).
    - Sensitivity: the count, ``count_sensitivity`` (:math:`p` by default, proven); the mean
      gradient, :math:`2\sqrt d/n` in L2 (``d`` columns incl. the intercept).
    - Guarantee: :math:`(\varepsilon, \delta)`-DP: the count :math:`f\varepsilon`-DP, the
      ``T`` Gaussian steps :math:`T\Delta_2^2/(2\sigma^2)`-zCDP converted to
      :math:`((1 - f)\varepsilon, \delta)`, composed by basic composition.
    - Numerics: idealised floats (numpy's Gaussian sampler); the count exact with
      ``"geometric"``.
    - Post-processing: the gradient step and the hard thresholding.
    - Constants Wang and Gu leave open (their theory fixes them up to unknown constants of
      the design), and ours: ``s`` (released from the count, the Sparsifier's treatment);
      :math:`\eta = 4/(2s+1)` (:func:`dp_ight_step_size`: safe on every dataset of the
      domain); ``T = 30`` (:data:`DP_IGHT_N_ITER`); full-batch gradients (their stochastic
      gradients only add sampling noise at this budget accounting); start at zero.
    - Cost: one accurate non-private solve (``"count"``), then per step one ``X w`` and one
      ``X^T r``.

    References
    ----------
    .. [1] L. Wang and Q. Gu, "Differentially Private Iterative Gradient Hard Thresholding
       for Sparse Learning", IJCAI 2019.
    .. [2] P. Jain, A. Tewari and P. Kar, "On Iterative Hard Thresholding Methods for
       High-dimensional M-Estimation", NeurIPS 2014.

    Examples
    --------
    >>> import numpy as np
    >>> from dplasso.baselines.estimators import DPIGHTClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(400, 10))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> model = DPIGHTClassifier(n_nonzero=2, epsilon=5.0, classes=[0, 1],
    ...     random_state=0).fit(X, y)
    >>> int(np.count_nonzero(model.coef_)) <= 2
    True
    """

    def __init__(self, n_nonzero="count", n_iter=DP_IGHT_N_ITER, step_size="auto",
                 epsilon=1.0, delta=None, count_fraction=DEFAULT_COUNT_FRACTION,
                 count_sensitivity="max", count_noise="geometric", count_lam=DEFAULT_LAM,
                 threshold="private", threshold_fraction=DEFAULT_THRESHOLD_FRACTION,
                 fit_intercept=True, bounds="error", accountant=None, random_state=None,
                 classes=None):
        self.n_nonzero = n_nonzero
        self.n_iter = n_iter
        self.step_size = step_size
        self.epsilon = epsilon
        self.delta = delta
        self.count_fraction = count_fraction
        self.count_sensitivity = count_sensitivity
        self.count_noise = count_noise
        self.count_lam = count_lam
        self.threshold = threshold
        self.threshold_fraction = threshold_fraction
        self.fit_intercept = fit_intercept
        self.bounds = bounds
        self.accountant = accountant
        self.random_state = random_state
        self.classes = classes

    def _check_method_params(self):
        self._check_count_params()
        check_n_iter(self.n_iter)
        _check_auto_or_positive(self.step_size, "step_size")

    def _deltas(self, epsilon, n_samples):
        delta = resolve_delta(self.delta, n_samples)
        if delta == 0:
            raise ValueError("DP-IGHT needs delta > 0 (zCDP conversion), got delta=0.0")
        return delta, delta

    def _fit_private(self, X, y, epsilon, delta, rng):
        result = self._fit_sparse(fit_dp_ight_public_step, X, y, epsilon, delta, rng,
                                  n_iter=self.n_iter, step_size=self.step_size)
        self.n_iter_ = int(result.fit.info["n_iter"])
        self.step_size_ = float(result.fit.info["step_size"])
        return result


class PrivateADMMClassifier(_PrivateBaselineClassifier):
    r"""Wang and Zhang's private ADMM for L1-penalised logistic regression.

    ``K`` ADMM iterations whose data-touching ``w``-update is released by objective
    perturbation; the output :math:`z^K` is sparse through the soft threshold
    :math:`\alpha/\rho` (:func:`dplasso.baselines.admm.fit_private_admm`).

    Parameters
    ----------
    alpha : float or "auto", default="auto"
        L1 penalty weight of the mean loss; ``"auto"``: :func:`admm_alpha` (one standard
        deviation of a noise coordinate).
    rho : float or "auto", default="auto"
        ADMM penalty; ``"auto"``: :func:`admm_rho` (Jacobian term at
        :data:`ADMM_JACOBIAN_SHARE` of each iteration's budget). A given ``rho`` must exceed
        :math:`d/(4n(e^{\varepsilon_0} - 1))`.
    n_iter : int, default=3
        Outer iterations ``K`` (:data:`ADMM_N_ITER`), each a private release.
    epsilon : float, default=1.0
        Total privacy budget, ``> 0``.
    delta : float or None, default=None
        Allowed ``delta`` in ``[0, 1)``; None means ``1/n**2``. zCDP composition is used
        when it gives each iteration more budget than basic composition; otherwise the fit
        is pure and spends ``delta = 0``.
    tol : float, default=1e-9
        Tolerance of each ``w``-update solve.
    threshold : {"private", "none"}, default="private"
        ``"private"``: after the weights are released, spend a share ``threshold_fraction``
        of ``epsilon`` on releasing the decision threshold (an offset added to
        ``intercept_``) by the exponential mechanism over a public grid scored by training
        accuracy (:mod:`dplasso.estimators.threshold`; proven sensitivity 1, the book's
        ``lemma-threshold``); the rest goes to the fit. ``"none"``: the fit's own intercept
        coordinate (the behaviour before the threshold; private fits then often predict one
        class). With ``fit_intercept=False`` the released offset is the only intercept.
    threshold_fraction : float, default=0.1
        Share :math:`f_b \in (0, 1)` of ``epsilon`` spent on the threshold
        (:data:`dplasso.estimators.threshold.DEFAULT_THRESHOLD_FRACTION`).
    fit_intercept : bool, default=True
        A constant feature, not penalised.
    bounds : {"error", "clip"}, default="error"
    accountant : BudgetAccountant or None, default=None
    random_state : None, int or numpy.random.Generator, default=None
    classes : array-like of shape (2,) or None, default=None
        The label set, public (chosen without looking at ``y``): ``classes_`` is it, sorted,
        whichever labels occur in ``y`` (an absent class is fitted like any other). None
        reads the labels from ``y``, which is not private: the fit then warns
        :class:`~dplasso.estimators.base.PrivacyLeakWarning`.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (1, p)
    intercept_ : ndarray of shape (1,)
    n_iter_ : int
    alpha_ : float
        The penalty weight used.
    rho_ : float
        The ADMM penalty used.
    privacy_ledger_ : PrivacyLedger
        One objective-perturbation event of count ``K``.
    privacy_guarantee_ : PrivacyGuarantee
        Its composition (basic or zCDP): :math:`(\varepsilon, \delta)`.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Notes
    -----
    - Neighbouring relation: replace-one.
    - Data domain: rows :math:`\|x_i\|_\infty \le 1`, two classes from the public
      label set ``classes`` (without it, read from ``y``: not covered by the guarantee).
    - Sensitivity: per iteration, on ``d`` columns, stationarity noise :math:`2\sqrt d` in
      L2 and Jacobian ratio :math:`1 + d/(4n\rho)`.
    - Guarantee: each ``w``-update :math:`\varepsilon_0`-DP (Gamma-norm noise, pure); the
      ``K`` adaptive releases compose by basic composition or zCDP to
      :math:`(\varepsilon, \delta)`.
    - Numerics: idealised floats; exact minimisers assumed.
    - Post-processing: the ``z`` and ``u`` updates and the output :math:`z^K`.
    - Constants Wang and Zhang leave open (P1 counts six hyperparameters), and ours:
      :math:`\alpha = 2d/(n\varepsilon_b)` (:func:`admm_alpha`); :math:`\rho` with
      :math:`\varepsilon_J = 0.1\varepsilon_0` (:func:`admm_rho`); ``K = 3``
      (:data:`ADMM_N_ITER`); the budget split evenly over iterations; Gamma-norm noise; the
      output :math:`z^K`. Their constants were chosen on public synthetic data only.
    - Cost: ``K`` L-BFGS solves on ``n x d``, warm-started.

    References
    ----------
    .. [1] P. Wang and H. Zhang, "Differential Privacy for Sparse Classification Learning",
       arXiv:1908.00780, 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from dplasso.baselines.estimators import PrivateADMMClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(400, 10))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> model = PrivateADMMClassifier(epsilon=5.0, classes=[0, 1],
    ...     random_state=0).fit(X, y)
    >>> model.privacy_guarantee_.epsilon <= 5.0
    True
    """

    def __init__(self, alpha="auto", rho="auto", n_iter=ADMM_N_ITER, epsilon=1.0,
                 delta=None, tol=1e-9, threshold="private",
                 threshold_fraction=DEFAULT_THRESHOLD_FRACTION, fit_intercept=True,
                 bounds="error", accountant=None, random_state=None,
                 classes=None):
        self.alpha = alpha
        self.rho = rho
        self.n_iter = n_iter
        self.epsilon = epsilon
        self.delta = delta
        self.tol = tol
        self.threshold = threshold
        self.threshold_fraction = threshold_fraction
        self.fit_intercept = fit_intercept
        self.bounds = bounds
        self.accountant = accountant
        self.random_state = random_state
        self.classes = classes

    def _check_method_params(self):
        _check_auto_or_positive(self.alpha, "alpha")
        _check_auto_or_positive(self.rho, "rho")
        check_n_iter(self.n_iter)
        check_positive_real(self.tol, "tol")

    def _deltas(self, epsilon, n_samples):
        delta = resolve_delta(self.delta, n_samples)
        zcdp = best_composition(epsilon, delta, self.n_iter) == "zcdp"
        return delta, (delta if zcdp else 0.0)

    def _fit_private(self, X, y, epsilon, delta, rng):
        alpha, rho = admm_hyperparameters(
            X.shape[0], X.shape[1] + int(self.fit_intercept), epsilon, delta, self.n_iter,
            alpha=self.alpha, rho=self.rho)
        fit = fit_private_admm(X, y, epsilon=epsilon, delta=delta, alpha=alpha, rho=rho,
                               n_iter=self.n_iter, fit_intercept=self.fit_intercept,
                               tol=self.tol, random_state=rng)
        self.n_iter_ = int(self.n_iter)
        self.alpha_ = float(alpha)
        self.rho_ = float(rho)
        return account_fit(fit, delta)


class NonPrivateLassoClassifier(_BinaryBaselineClassifier):
    r"""Non-private L1-constrained logistic regression, solved to a certified Wolfe gap.

    :math:`\min_{\|w\|_1 \le \lambda} \frac1n\sum_i \ell(w; x_i, y_i)` with the intercept a
    coordinate inside the ball, by the working-set certified solver (FISTA with exact
    L1-ball projection on a growing set of columns;
    :func:`dplasso.baselines.nonprivate.fit_nonprivate_lasso`). The reference the private
    methods are compared with, and the fit whose nonzeros the Sparsifier counts.

    Parameters
    ----------
    lam : float, default=10.0
        L1-ball radius (a constraint radius, not a penalty weight); the private methods'
        default :data:`dplasso.estimators.params.DEFAULT_LAM`, chosen without the data.
    tol : float, default=1e-10
        Wolfe-gap target relative to :math:`L(0) = \log 2`.
    max_iter : int, default=100000
        Iteration cap (a ``ConvergenceWarning`` when reached before ``tol``).
    fit_intercept : bool, default=True
    bounds : {"error", "clip"}, default="error"
    classes : array-like of shape (2,) or None, default=None
        The label set (sorted into ``classes_``; a class absent from ``y`` is allowed).
        None reads the labels from ``y`` (this fit is not private, so nothing warns).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (1, p)
        Exact zeros off the support (the projection sets them).
    intercept_ : ndarray of shape (1,)
    n_iter_ : int
        FISTA iterations run (summed over the working-set rounds).
    wolfe_gap_ : float
        Certificate: the objective exceeds the constrained optimum by at most this much.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    See Also
    --------
    dplasso.estimators.FrankWolfeLassoClassifier : The same problem by exact Frank-Wolfe.

    Notes
    -----
    - Neighbouring relation, sensitivity, guarantee: none; the fit is not private (it is
      the reference, and a release of it would need its own mechanism).
    - Data domain: rows :math:`\|x_i\|_\infty \le 1` (the same domain as the private
      methods, for a like-for-like comparison), two classes.
    - Numerics: deterministic floats; the count of nonzeros is exact because the projection
      writes exact zeros.
    - Constant: ``lam = 10``, the private methods' radius (the same problem they solve).
    - Cost: per working-set round, one restricted FISTA solve and one full gradient.

    Examples
    --------
    >>> import numpy as np
    >>> from dplasso.baselines.estimators import NonPrivateLassoClassifier
    >>> X = np.array([[-1.0, 0.5], [-0.5, -0.5], [0.5, 0.5], [1.0, -0.5]])
    >>> NonPrivateLassoClassifier(lam=5.0).fit(X, [0, 0, 1, 1]).predict(X)
    array([0, 0, 1, 1])
    """

    def __init__(self, lam=DEFAULT_LAM, tol=1e-10, max_iter=100_000, fit_intercept=True,
                 bounds="error", classes=None):
        self.lam = lam
        self.tol = tol
        self.max_iter = max_iter
        self.fit_intercept = fit_intercept
        self.bounds = bounds
        self.classes = classes

    def fit(self, X, y):
        """Fit the model (not private).

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n, p)
            Training data with rows :math:`\\|x_i\\|_\\infty \\le 1` (see ``bounds``).
        y : array-like of shape (n,)
            Labels, exactly two classes.

        Returns
        -------
        self
        """
        lam = check_lam(self.lam)
        tol = check_positive_real(self.tol, "tol")
        max_iter = check_positive_int(self.max_iter, "max_iter")
        X, y_encoded, classes = self._training_data(X, y)
        fit = fit_nonprivate_lasso(X, y_encoded, lam=lam, fit_intercept=self.fit_intercept,
                                   tol=tol, max_iter=max_iter)
        if not fit.info["converged"]:
            warnings.warn(
                f"the fit stopped at Wolfe gap {fit.info['gap']:.3g} after "
                f"{fit.info['n_iter']} iterations (target tol={tol:g} x log 2)",
                ConvergenceWarning, stacklevel=2)
        self._set_fit(fit, classes)
        self.n_iter_ = int(fit.info["n_iter"])
        self.wolfe_gap_ = float(fit.info["gap"])
        return self

