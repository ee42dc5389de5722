"""Non-private references: the certified L1-constrained fit and the scikit-learn wrapper."""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression

from baselines_problems import small_problem, synthetic_problem
from dplasso.baselines.nonprivate import fit_nonprivate_lasso, fit_sklearn_l1_logistic


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_constrained_fit_is_feasible_and_certified(fit_intercept):
    X, y, w_true = synthetic_problem()
    fit = fit_nonprivate_lasso(X, y, lam=20.0, fit_intercept=fit_intercept)
    intercept = 0.0 if fit.intercept is None else fit.intercept
    assert (fit.intercept is None) == (not fit_intercept)
    assert fit.coef.shape == (50,)
    assert np.abs(fit.coef).sum() + abs(intercept) <= 20.0 * (1 + 1e-12)
    assert fit.info["converged"] and fit.info["gap"] <= 1e-10 * np.log(2)
    assert fit.ledger is None
    # the ball is active (the unconstrained optimum lies outside it), so the fit is not trivial
    assert np.abs(fit.coef).sum() + abs(intercept) >= 20.0 * (1 - 1e-6)


def test_constrained_fit_on_sparse_input_matches_dense():
    X, y = small_problem(n=80, p=10, seed=2, density=0.5)
    sparse = fit_nonprivate_lasso(X, y, lam=1.5)
    dense = fit_nonprivate_lasso(X.toarray(), y, lam=1.5)
    np.testing.assert_allclose(sparse.coef, dense.coef, atol=1e-7)
    assert np.abs(dense.coef).sum() > 1e-3


def test_sklearn_wrapper_is_sklearns_l1_fit():
    X, y = small_problem(n=100, p=7, seed=6)
    fit = fit_sklearn_l1_logistic(X, y, C=0.3)
    model = LogisticRegression(C=0.3, l1_ratio=1.0, solver="liblinear", tol=1e-8).fit(X, y)
    np.testing.assert_array_equal(fit.coef, model.coef_[0])
    assert fit.intercept == model.intercept_[0]
    assert np.count_nonzero(fit.coef) < 7  # the L1 penalty zeroes some coefficients


def test_sklearn_wrapper_accepts_sparse_input():
    X, y = small_problem(n=100, p=7, seed=6, density=0.6)
    assert sp.issparse(X)
    np.testing.assert_allclose(fit_sklearn_l1_logistic(X, y, C=0.5).coef,
                               fit_sklearn_l1_logistic(X.toarray(), y, C=0.5).coef, atol=1e-6)
