"""The non-private reference: L1-constrained logistic regression to a certified Wolfe gap."""
from __future__ import annotations

import warnings

from sklearn.exceptions import ConvergenceWarning

from dplasso.baselines._inputs import check_positive_int, check_positive_real
from dplasso.baselines.estimators.base import BinaryBaselineClassifier
from dplasso.baselines.nonprivate import fit_nonprivate_lasso
from dplasso.estimators.docs import shared_docs
from dplasso.estimators.params import DEFAULT_LAM
from dplasso.optim.validation import check_lam

__all__ = ["NonPrivateLassoClassifier"]


@shared_docs
class NonPrivateLassoClassifier(BinaryBaselineClassifier):
    r"""Non-private L1-constrained logistic regression, solved to a certified Wolfe gap.

    :math:`\min_{\|w\|_1 \le \lambda} \frac1n\sum_i \ell(w; x_i, y_i)` with the intercept a
    coordinate inside the ball, by the working-set certified solver (FISTA with exact
    L1-ball projection on a growing set of columns;
    :func:`dplasso.baselines.nonprivate.fit_nonprivate_lasso`). The reference the private
    methods are compared with, and the fit whose nonzeros the Sparsifier counts.

    {{prediction}}

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
        {{public_classes}}

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
        {{training_rows}}
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

