r"""Non-private L1 logistic regression: the reference the private methods are compared with.

Two fits are offered, for two different uses:

:func:`fit_nonprivate_lasso`
    The *same* problem the private Frank-Wolfe methods solve,
    :math:`\min_{\|w\|_1 \le \lambda} \frac1n\sum_i \ell(w; x_i, y_i)`, solved to a certified
    Wolfe gap by the working-set solver :func:`dplasso.optim.solve_working_set` (FISTA with
    exact L1-ball projection on a growing set of columns, certified on all of them). With
    ``fit_intercept=True`` the constant feature is a coordinate inside the same ball (the
    project's intercept rule). This is the reference used for accuracy comparisons.
:func:`fit_sklearn_l1_logistic`
    scikit-learn's *penalised* problem
    :math:`\min_{w, b} \|w\|_1 + C \sum_i \ell(w, b; x_i, y_i)` (liblinear; its intercept
    is penalised too, liblinear's convention). P1 calls this "non-private LASSO logistic
    regression (scikit-learn)"; the two-stage method's per-block support estimates use it.
"""
from __future__ import annotations

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.multiclass import OneVsRestClassifier

from dplasso.baselines._inputs import (
    check_binary_problem,
    check_positive_real,
    with_intercept_column,
)
from dplasso.baselines.result import BaselineFit
from dplasso.optim.losses import LogisticLoss
from dplasso.optim.working_set import solve_working_set
from dplasso.optim.validation import check_lam

__all__ = ["fit_nonprivate_lasso", "fit_sklearn_l1_logistic", "sklearn_l1_coef",
           "sklearn_l1_accuracy"]


def fit_nonprivate_lasso(X, y, *, lam, fit_intercept=True, tol=1e-10, max_iter=100_000):
    r"""Non-private L1-constrained logistic regression, solved to a certified gap.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, p)
        Rows with ``||x_i||_inf <= 1`` (checked); sparse stays sparse.
    y : array-like of shape (n,)
        Labels in ``{0, 1}``, both present.
    lam : float
        Radius of the L1 ball (a constraint radius, not a penalty weight).
    fit_intercept : bool, default=True
        Append the constant feature inside the ball; its coefficient is the intercept.
    tol : float, default=1e-10
        Wolfe-gap target relative to ``L(0) = log 2`` (see ``solve_working_set``).
    max_iter : int, default=100000

    Returns
    -------
    BaselineFit
        ``ledger`` is None; ``info`` holds ``objective``, ``gap``, ``n_iter``, ``converged``.
    """
    X, y = check_binary_problem(X, y)
    lam = check_lam(lam)
    design = with_intercept_column(X) if fit_intercept else X
    solution = solve_working_set(LogisticLoss(), design, y, lam, tol=tol, max_iter=max_iter)
    w = solution.w
    info = {
        "method": "nonprivate-l1-constrained", "lam": lam, "objective": solution.objective,
        "gap": solution.gap, "n_iter": solution.n_iter, "converged": solution.converged,
    }
    if fit_intercept:
        return BaselineFit(w[:-1].copy(), float(w[-1]), None, info)
    return BaselineFit(w.copy(), None, None, info)


def _sklearn_l1(C, fit_intercept=True, tol=1e-4):
    """scikit-learn's L1-penalised logistic regression (liblinear). liblinear shuffles with
    its ``random_state``, so it is fixed (0): the fit is a deterministic function of the
    data and a rerun reproduces it."""
    return LogisticRegression(C=C, l1_ratio=1.0, solver="liblinear",
                              fit_intercept=fit_intercept, tol=tol, random_state=0)


def sklearn_l1_coef(X, y, *, C, fit_intercept=True, tol=1e-4):
    """Coefficients ``(coef (p,), intercept)`` of scikit-learn's L1-penalised fit (liblinear).

    No input checks (callers validate); used per block by the two-stage method, with
    liblinear's default stopping tolerance ``tol=1e-4``.
    """
    model = _sklearn_l1(C, fit_intercept, tol)
    model.fit(X, y)
    intercept = float(model.intercept_[0]) if fit_intercept else None
    return model.coef_[0].astype(np.float64), intercept


def fit_sklearn_l1_logistic(X, y, *, C=1.0, fit_intercept=True, tol=1e-8):
    r"""scikit-learn's L1-penalised logistic regression (liblinear), non-private.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, p)
        Rows with ``||x_i||_inf <= 1`` (checked, for a like-for-like comparison).
    y : array-like of shape (n,)
        Labels in ``{0, 1}``, both present.
    C : float, default=1.0
        Inverse penalty weight: the objective is :math:`\|w\|_1 + C\sum_i \ell_i`.
    fit_intercept : bool, default=True
    tol : float, default=1e-8
        liblinear's stopping tolerance (tighter than its default 1e-4: this is a reference).

    Returns
    -------
    BaselineFit
        ``ledger`` is None.
    """
    X, y = check_binary_problem(X, y, both_classes=True)
    C = check_positive_real(C, "C")
    tol = check_positive_real(tol, "tol")
    coef, intercept = sklearn_l1_coef(X, y, C=C, fit_intercept=fit_intercept, tol=tol)
    return BaselineFit(coef, intercept, None,
                       {"method": "sklearn-l1-penalised", "C": C, "tol": tol})


def sklearn_l1_accuracy(X_train, y_train, X_test, y_test, *, C=1.0):
    """Test accuracy of scikit-learn's L1-penalised logistic regression (liblinear, ``C``).

    The standard non-private reference the book shows beside every accuracy: binary labels
    fit one model, more classes one model per class (one-vs-rest, liblinear's multiclass
    rule). No input checks (callers validate); not private.
    """
    model = _sklearn_l1(C)
    if np.unique(y_train).size > 2:
        model = OneVsRestClassifier(model)
    return float(np.mean(model.fit(X_train, y_train).predict(X_test) == np.asarray(y_test)))
