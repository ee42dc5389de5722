"""Wang and Zhang's private ADMM as a classifier, with its public hyperparameter rules."""
from __future__ import annotations

from dplasso.baselines._inputs import check_positive_real
from dplasso.baselines.admm import best_composition, fit_private_admm
from dplasso.baselines.estimators.accounting import account_fit
from dplasso.baselines.estimators.base import PrivateBaselineClassifier
from dplasso.baselines.estimators.rules import (
    ADMM_N_ITER,
    admm_hyperparameters,
    check_auto_or_positive,
)
from dplasso.estimators.docs import shared_docs
from dplasso.estimators.params import resolve_delta
from dplasso.estimators.threshold import DEFAULT_THRESHOLD_FRACTION
from dplasso.optim.validation import check_n_iter

__all__ = ["PrivateADMMClassifier"]


@shared_docs
class PrivateADMMClassifier(PrivateBaselineClassifier):
    r"""Wang and Zhang's private ADMM for L1-penalised logistic regression.

    ``K`` ADMM iterations whose data-touching ``w``-update is released by objective
    perturbation; the output :math:`z^K` is sparse through the soft threshold
    :math:`\alpha/\rho` (:func:`dplasso.baselines.admm.fit_private_admm`).

    {{prediction}}

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
        {{threshold}}
    threshold_fraction : float, default=0.1
        {{threshold_fraction}}
    fit_intercept : bool, default=True
        A constant feature, not penalised.
    bounds : {"error", "clip"}, default="error"
    accountant : BudgetAccountant or None, default=None
    random_state : None, int or numpy.random.Generator, default=None
    classes : array-like of shape (2,) or None, default=None
        {{private_classes}}

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
        check_auto_or_positive(self.alpha, "alpha")
        check_auto_or_positive(self.rho, "rho")
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

