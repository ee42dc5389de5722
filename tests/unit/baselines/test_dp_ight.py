"""DP-IGHT (Wang and Gu 2019): gradient sensitivity, zCDP calibration, thresholding, utility."""
import math

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import expit

from baselines_problems import (
    EPSILON_LARGE,
    accuracy,
    small_problem,
    support_recall,
    synthetic_problem,
)
from dplasso.audit.sensitivity import sensitivity_search
from dplasso.baselines.dp_ight import fit_dp_ight, hard_threshold, mean_gradient_sensitivity
from dplasso.baselines.nonprivate import fit_nonprivate_lasso
from dplasso.privacy import REPLACE_ONE
from dplasso.privacy.accounting import zcdp_to_epsilon


class MeanGradient:
    """The mean logistic gradient at a fixed ``w`` (the quantity DP-IGHT noises)."""

    label_values = (0.0, 1.0)

    def __init__(self, w):
        self.w = w

    def __call__(self, X, y):
        return X.T @ (expit(X @ self.w) - y) / X.shape[0]

    def search_directions(self, X, y):
        return self.w


@pytest.mark.parametrize("seed", range(3))
def test_mean_gradient_sensitivity_on_random_pairs(seed):
    X, y = small_problem(n=25, p=6, seed=seed)
    declared = mean_gradient_sensitivity(25, 6)
    rng = np.random.default_rng(seed)
    for w in (rng.normal(0, 0.5, 6), rng.normal(0, 20, 6)):
        result = sensitivity_search(MeanGradient(w), X, y, declared, norm="2", n_rows=8,
                                    n_random=16, rng=seed)
        assert not result.exceeded, result.found


def test_mean_gradient_sensitivity_adversarial_pair_approaches_the_bound():
    """Corners differing in coordinate 0, labels 0 / 1, w = M e_0: change 2 sqrt(d-1)/n."""
    n, d = 12, 8
    X = np.vstack([np.ones(d), np.random.default_rng(3).uniform(-1, 1, (n - 1, d))])
    y = np.array([0.0] + [0.0, 1.0] * 5 + [1.0])
    w = np.zeros(d)
    w[0] = 60.0
    target = np.ones(d)
    target[0] = -1.0
    result = sensitivity_search(MeanGradient(w), X, y, mean_gradient_sensitivity(n, d),
                                norm="2", directions=target, n_rows=None, rng=0)
    assert not result.exceeded
    assert result.found >= 0.999 * 2 * math.sqrt(d - 1) / n


def test_hard_threshold_keeps_the_largest_and_the_kept_coordinate():
    v = np.array([0.1, -5.0, 3.0, -0.2, 0.05])
    np.testing.assert_array_equal(hard_threshold(v, 2), [0, -5.0, 3.0, 0, 0])
    keep = np.array([False, False, False, False, True])
    np.testing.assert_array_equal(hard_threshold(v, 1, keep), [0, -5.0, 0, 0, 0.05])
    np.testing.assert_array_equal(hard_threshold(v, 4, keep), v)


def test_noise_is_calibrated_to_the_zcdp_budget():
    X, y, _ = synthetic_problem()
    fit = fit_dp_ight(X, y, epsilon=2.0, delta=1e-6, n_nonzero=5, n_iter=30, random_state=0)
    (event,) = fit.ledger.events
    sensitivity = 2 * math.sqrt(51) / 2000
    assert event.mechanism == "gaussian" and event.relation == REPLACE_ONE
    assert event.count == 30 and event.sensitivity == pytest.approx(sensitivity, rel=1e-15)
    assert event.rho == pytest.approx(sensitivity**2 / (2 * fit.info["sigma"] ** 2), rel=1e-14)
    total = fit.ledger.total("zcdp", 1e-6)
    assert total.epsilon <= 2.0 and total.epsilon == pytest.approx(2.0, rel=1e-12)
    assert zcdp_to_epsilon(fit.ledger.rho(), 1e-6) == total.epsilon


def test_large_epsilon_recovers_the_support_and_the_nonprivate_accuracy():
    """epsilon = 1000 (sigma about 3e-5 against gradient entries of order 0.1): the true
    support (recall 1, exactly s nonzeros) and accuracy within 0.01 of the reference."""
    X, y, w_true = synthetic_problem()
    ref = fit_nonprivate_lasso(X, y, lam=float(np.abs(w_true).sum()))
    fit = fit_dp_ight(X, y, epsilon=EPSILON_LARGE, delta=1e-5, n_nonzero=5, random_state=0)
    assert support_recall(fit.coef, w_true) == 1.0
    assert np.count_nonzero(fit.coef) == 5
    assert accuracy(fit.coef, fit.intercept, X, y) >= accuracy(ref.coef, ref.intercept, X, y) - 0.01


def test_small_epsilon_spreads_the_output_across_seeds():
    X, y, _ = synthetic_problem()

    def spread(epsilon):
        fits = [fit_dp_ight(X, y, epsilon=epsilon, delta=1e-5, n_nonzero=5, random_state=s)
                for s in range(5)]
        return np.std([f.coef for f in fits], axis=0).sum()

    assert spread(0.5) > 10 * spread(500.0)


def test_fixed_random_state_is_deterministic_and_sparse_matches_dense():
    X, y, _ = synthetic_problem()
    kwargs = dict(epsilon=3.0, delta=1e-5, n_nonzero=5, random_state=8)
    a = fit_dp_ight(X, y, **kwargs)
    b = fit_dp_ight(X, y, **kwargs)
    c = fit_dp_ight(sp.csr_matrix(X), y, **kwargs)
    np.testing.assert_array_equal(a.coef, b.coef)
    np.testing.assert_allclose(c.coef, a.coef, atol=1e-10)
    assert np.count_nonzero(a.coef) <= 5


def test_without_intercept():
    X, y, _ = synthetic_problem()
    fit = fit_dp_ight(X, y, epsilon=3.0, delta=1e-5, n_nonzero=5, fit_intercept=False,
                      random_state=0)
    assert fit.intercept is None
    assert fit.info["sensitivity"] == pytest.approx(2 * math.sqrt(50) / 2000, rel=1e-15)


@pytest.mark.parametrize("kwargs, match", [
    ({"delta": 0.0}, "delta must lie in"),
    ({"n_nonzero": 0}, "n_nonzero must be >= 1"),
    ({"n_iter": 0}, "n_iter must be >= 1"),
    ({"step_size": 0.0}, "step_size must be"),
])
def test_bad_hyperparameters_are_refused(kwargs, match):
    X, y, _ = synthetic_problem()
    arguments = dict(epsilon=1.0, delta=1e-5, n_nonzero=5)
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=match):
        fit_dp_ight(X, y, **arguments)
