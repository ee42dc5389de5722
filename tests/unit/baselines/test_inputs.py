"""Bad input gets a clear ValueError from every baseline fit function."""
import numpy as np
import pytest

from baselines_problems import small_problem
from dplasso.baselines import (
    fit_dp_ight,
    fit_nonprivate_lasso,
    fit_private_admm,
    fit_sklearn_l1_logistic,
    fit_two_stage,
)
from dplasso.baselines._inputs import with_intercept_column

PRIVATE = {
    "two-stage": lambda X, y, **kw: fit_two_stage(X, y, n_nonzero=2, **kw),
    "admm": lambda X, y, **kw: fit_private_admm(X, y, rho=50.0, **kw),
    "dp-ight": lambda X, y, **kw: fit_dp_ight(X, y, n_nonzero=2, **kw),
}
ALL = dict(PRIVATE, **{
    "nonprivate": lambda X, y, epsilon=None, delta=None: fit_nonprivate_lasso(X, y, lam=1.0),
    "sklearn": lambda X, y, epsilon=None, delta=None: fit_sklearn_l1_logistic(X, y),
})


def _data():
    X, y = small_problem(n=40, p=6, seed=0)
    return X.copy(), y.copy()


@pytest.mark.parametrize("method", sorted(ALL))
@pytest.mark.parametrize("corrupt, match", [
    ("nan", "X contains NaN or infinity"),
    ("unbounded", r"violates the data domain \|\|x_i\|\|_inf <= 1: row 3"),
    ("labels", r"y must be encoded in \{0, 1\}"),
    ("length", "y has 39 entries but X has 40 rows"),
])
def test_bad_data_is_refused(method, corrupt, match):
    X, y = _data()
    if corrupt == "nan":
        X[5, 2] = np.nan
    elif corrupt == "unbounded":
        X[3, 1] = 1.5
    elif corrupt == "labels":
        y = y + 1
    else:
        y = y[:-1]
    with pytest.raises(ValueError, match=match):
        ALL[method](X, y, epsilon=1.0, delta=1e-5)


@pytest.mark.parametrize("method", sorted(ALL))
def test_one_class_is_fitted_except_by_scikit_learn(method):
    """A private fit of a dataset with one class only runs (refusing it would tell it from a
    neighbour with both); only scikit-learn's reference fit needs both classes."""
    X, y = _data()
    y[:] = 1.0
    if method == "sklearn":
        with pytest.raises(ValueError, match="single class"):
            ALL[method](X, y)
    else:
        fit = ALL[method](X, y, epsilon=1.0, delta=1e-5)
        assert np.isfinite(fit.coef).all()


@pytest.mark.parametrize("method", sorted(PRIVATE))
@pytest.mark.parametrize("epsilon, delta, match", [
    (0.0, 1e-5, "epsilon must be a finite number > 0"),
    (-1.0, 1e-5, "epsilon must be a finite number > 0"),
    (float("inf"), 1e-5, "epsilon must be a finite number > 0"),
    (1.0, 1.0, r"delta must lie in"),
    (1.0, -0.1, r"delta must lie in"),
])
def test_bad_budget_is_refused(method, epsilon, delta, match):
    X, y = _data()
    with pytest.raises(ValueError, match=match):
        PRIVATE[method](X, y, epsilon=epsilon, delta=delta)


def test_intercept_column_is_appended_last_and_keeps_sparsity():
    import scipy.sparse as sp

    X, _ = small_problem(n=5, p=3, seed=0, density=0.5)
    stacked = with_intercept_column(X)
    assert sp.issparse(stacked) and stacked.format == "csr" and stacked.shape == (5, 4)
    np.testing.assert_array_equal(stacked.toarray()[:, -1], 1.0)
    np.testing.assert_array_equal(with_intercept_column(X.toarray())[:, :3], X.toarray())
