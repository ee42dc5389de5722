"""Private ADMM (after Wang and Zhang 2019): utility, composition, bookkeeping, input checks."""
import math

import numpy as np
import pytest
import scipy.sparse as sp

from baselines_problems import accuracy, small_problem, support_recall, synthetic_problem
from dplasso.baselines.admm import (
    best_composition,
    fit_private_admm,
    per_iteration_epsilon,
    soft_threshold,
)
from dplasso.baselines.nonprivate import fit_nonprivate_lasso
from dplasso.estimators.objective_perturbation import jacobian_epsilon
from dplasso.privacy import REPLACE_ONE
from dplasso.privacy.accounting import PrivacyEvent, compose


def test_large_epsilon_is_sparse_with_the_right_support_and_accurate():
    """epsilon = 1e4, defaults (alpha = 0.01, rho = 1, K = 10): the soft threshold leaves the
    5 true features (recall 1, at most 2 false positives) and the accuracy is within 0.015
    of the non-private L1-constrained reference."""
    X, y, w_true = synthetic_problem()
    ref = fit_nonprivate_lasso(X, y, lam=float(np.abs(w_true).sum()))
    for seed in range(2):
        fit = fit_private_admm(X, y, epsilon=1e4, random_state=seed)
        assert support_recall(fit.coef, w_true) == 1.0
        assert np.count_nonzero(fit.coef) <= 7
        assert accuracy(fit.coef, fit.intercept, X, y) >= (
            accuracy(ref.coef, ref.intercept, X, y) - 0.015)
        assert fit.info["grad_norm"] <= 1e-9


def test_small_epsilon_spreads_the_output_across_seeds():
    X, y, _ = synthetic_problem()

    def spread(epsilon):
        fits = [fit_private_admm(X, y, epsilon=epsilon, random_state=s) for s in range(4)]
        return np.std([f.coef for f in fits], axis=0).sum()

    assert spread(2.0) > 10 * spread(2000.0)


def test_huge_penalty_leaves_only_the_unpenalised_intercept():
    X, y, _ = synthetic_problem()
    fit = fit_private_admm(X, y, epsilon=1e4, alpha=10.0, random_state=0)
    assert np.count_nonzero(fit.coef) == 0
    assert fit.intercept != 0.0


def test_fixed_random_state_is_deterministic_and_sparse_matches_dense():
    X, y, _ = synthetic_problem()
    a = fit_private_admm(X, y, epsilon=5.0, random_state=4)
    b = fit_private_admm(X, y, epsilon=5.0, random_state=4)
    c = fit_private_admm(sp.csc_matrix(X), y, epsilon=5.0, random_state=4)
    np.testing.assert_array_equal(a.coef, b.coef)
    np.testing.assert_allclose(c.coef, a.coef, atol=1e-7)
    assert not np.array_equal(a.coef, fit_private_admm(X, y, epsilon=5.0, random_state=5).coef)


@pytest.mark.parametrize("epsilon, delta, n_iter, expected", [
    (1.0, 0.0, 100, "basic"),
    (1.0, 1e-5, 10, "basic"),
    (1.0, 1e-5, 100, "zcdp"),
])
def test_ledger_total_is_the_budget_under_the_chosen_composition(epsilon, delta, n_iter, expected):
    X, y = small_problem(n=200, p=10, seed=1)
    fit = fit_private_admm(X, y, epsilon=epsilon, delta=delta, n_iter=n_iter, rho=5.0,
                           random_state=0)
    assert fit.info["composition"] == expected == best_composition(epsilon, delta, n_iter)
    (event,) = fit.ledger.events
    assert event.count == n_iter and event.relation == REPLACE_ONE
    assert event.sensitivity == 2 * math.sqrt(X.shape[1] + 1)
    assert event.delta == 0.0
    assert event.epsilon - jacobian_epsilon(math.sqrt(11), 200 * 5.0) == pytest.approx(
        fit.info["epsilon_noise"], rel=1e-12)
    total = fit.ledger.total(expected, delta if expected == "zcdp" else None)
    assert total.epsilon <= epsilon and total.epsilon == pytest.approx(epsilon, rel=1e-12)


@pytest.mark.parametrize("epsilon, delta, n_iter", [(1.0, 1e-5, 30), (8.0, 1e-6, 7)])
def test_per_iteration_epsilon_composes_back_to_the_budget(epsilon, delta, n_iter):
    for rule in ("basic", "zcdp"):
        eps0 = per_iteration_epsilon(epsilon, delta, n_iter, rule)
        event = PrivacyEvent(mechanism="op", sensitivity=1.0, epsilon=eps0, count=n_iter,
                             numerics="idealised-float")
        total = compose([event], rule, delta if rule == "zcdp" else None)
        assert total.epsilon == pytest.approx(epsilon, rel=1e-12)


def test_too_small_rho_is_refused_with_the_smallest_admissible_value():
    X, y, _ = synthetic_problem()
    with pytest.raises(ValueError, match=r"rho=0\.001 is too small .* use rho > "):
        fit_private_admm(X, y, epsilon=0.5, rho=1e-3)


def test_soft_threshold():
    np.testing.assert_array_equal(soft_threshold(np.array([-3.0, -0.5, 0.0, 0.2, 2.0]), 1.0),
                                  [-2.0, 0.0, 0.0, 0.0, 1.0])


@pytest.mark.parametrize("kwargs, match", [
    ({"alpha": 0.0}, "alpha must be"),
    ({"rho": -1.0}, "rho must be"),
    ({"n_iter": 0}, "n_iter must be >= 1"),
])
def test_bad_hyperparameters_are_refused(kwargs, match):
    X, y, _ = synthetic_problem()
    with pytest.raises(ValueError, match=match):
        fit_private_admm(X, y, epsilon=1.0, **kwargs)
