"""The reference solver against scikit-learn, dense and sparse.

The L1-ball problem ``min L(w) s.t. ||w||_1 <= lam`` and the penalised problem
``min L(w) + alpha ||w||_1`` share their solution when ``alpha`` is the constraint's
Lagrange multiplier, ``alpha = ||grad L(w*)||_inf`` (KKT: ``-grad L(w*)`` lies in
``alpha * d||w*||_1``). scikit-learn solves the penalised problem with its own code:
``Lasso(alpha)`` minimises ``||y - Xw||^2 / (2n) + alpha ||w||_1``, and
``LogisticRegression(C, l1_ratio=1)`` minimises ``C * sum_i loss_i + ||w||_1``, i.e. ours
with ``C = 1 / (n alpha)``. As in skglm/celer: identical support, coefficients within 1e-6,
and a non-trivial solution.
"""
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Lasso, LogisticRegression

from dplasso.optim import solve_reference

from reference_problems import LAM, make_problem


def _multiplier(loss, X, y, w):
    return np.abs(loss.gradient(X, y, w[..., np.newaxis])).max()


def _fit_converged(estimator, X, y):
    """Fit, turning a scikit-learn ConvergenceWarning into a failure."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        return estimator.fit(X, y)


def _check_agreement(ours, theirs):
    assert np.linalg.norm(ours) > 1e-3
    np.testing.assert_array_equal(ours != 0, theirs != 0)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-6)


@pytest.mark.parametrize("fmt", ["dense", "csr", "csc"])
def test_squared_loss_matches_sklearn_lasso(fmt):
    loss, X, y = make_problem("squared", fmt)
    ref = solve_reference(loss, X, y, LAM, tol=1e-12)
    assert ref.converged
    assert np.isclose(np.abs(ref.w).sum(), LAM)  # the constraint is active
    alpha = _multiplier(loss, X, y, ref.w)
    lasso = _fit_converged(Lasso(alpha=alpha, fit_intercept=False, tol=1e-14,
                                 max_iter=100_000), X, y)
    _check_agreement(ref.w, lasso.coef_)


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_logistic_loss_matches_sklearn_liblinear(fmt):
    loss, X, y = make_problem("logistic", fmt)
    ref = solve_reference(loss, X, y, LAM, tol=1e-12)
    assert ref.converged
    assert np.isclose(np.abs(ref.w).sum(), LAM)
    C = 1.0 / (X.shape[0] * _multiplier(loss, X, y, ref.w))
    clf = _fit_converged(LogisticRegression(C=C, l1_ratio=1.0, solver="liblinear",
                                            fit_intercept=False, tol=1e-12, max_iter=100_000,
                                            random_state=0), X, y)
    _check_agreement(ref.w, clf.coef_[0])


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_multinomial_loss_matches_sklearn_saga(fmt):
    loss, X, y = make_problem("multinomial", fmt)
    ref = solve_reference(loss, X, y, LAM, tol=1e-12)
    assert ref.converged
    assert np.isclose(np.abs(ref.w).sum(), LAM)
    C = 1.0 / (X.shape[0] * _multiplier(loss, X, y, ref.w))
    clf = _fit_converged(LogisticRegression(C=C, l1_ratio=1.0, solver="saga",
                                            fit_intercept=False, tol=1e-10, max_iter=100_000,
                                            random_state=0), X, y)
    _check_agreement(ref.w, clf.coef_.T)  # sklearn stores (C, p), ours is (p, C)
