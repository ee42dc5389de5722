"""Synthetic generators: shapes, domain, support, labels, determinism, label distribution."""
import numpy as np
import pytest
from scipy.special import expit
from scipy.stats import binom, norm

from statistical import ALPHA
from dplasso.data.synthetic import raj_response_bound, raj_synthetic, sparse_logistic_synthetic


@pytest.mark.parametrize("task", ["linear", "logistic"])
def test_raj_shapes_domain_support_and_labels(task):
    d = raj_synthetic(task=task, random_state=0)
    assert d.X.shape == (3000, 600) and d.y.shape == (3000,) and d.w_true.shape == (600,)
    assert np.abs(d.X).max() == 1.0  # one global scale: the largest entry is exactly ±1
    assert np.all(np.abs(d.X).max(axis=1) <= 1.0)
    assert np.sum(d.w_true == 1.0) == 35 and np.sum(d.w_true == -1.0) == 35
    assert np.count_nonzero(d.w_true) == 70
    if task == "linear":
        np.testing.assert_allclose(d.y, d.X @ d.w_true, rtol=1e-12, atol=1e-12)
        assert d.y_bound == raj_response_bound(3000, 600, 70) and np.all(np.abs(d.y) <= d.y_bound)
        worst = raj_synthetic(task=task, random_state=0, response_bound="worst-case")
        assert worst.y_bound == 70.0
        np.testing.assert_array_equal(worst.y, d.y)
    else:
        np.testing.assert_array_equal(d.y, (d.X @ d.w_true > 0).astype(np.int64))
        assert d.y.dtype == np.int64 and set(np.unique(d.y)) == {0, 1}
        assert d.y_bound is None


def test_raj_scaling_is_one_constant_for_the_whole_matrix():
    """X is Z / max|Z|: the ratio to a fresh N(0,1) draw with the same seed is one constant."""
    d = raj_synthetic(n=40, p=7, n_pos=2, n_neg=1, random_state=5)
    Z = np.random.default_rng(5).standard_normal((40, 7))
    np.testing.assert_allclose(d.X * np.abs(Z).max(), Z, rtol=1e-15)


def test_raj_is_deterministic_and_shares_design_between_tasks():
    a = raj_synthetic(n=200, p=50, n_pos=3, n_neg=4, task="linear", random_state=11)
    b = raj_synthetic(n=200, p=50, n_pos=3, n_neg=4, task="linear", random_state=11)
    c = raj_synthetic(n=200, p=50, n_pos=3, n_neg=4, task="logistic", random_state=11)
    other = raj_synthetic(n=200, p=50, n_pos=3, n_neg=4, task="linear", random_state=12)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    np.testing.assert_array_equal(a.X, c.X)
    np.testing.assert_array_equal(a.w_true, c.w_true)
    assert not np.array_equal(a.X, other.X)
    gen = raj_synthetic(n=200, p=50, n_pos=3, n_neg=4, random_state=np.random.default_rng(11))
    np.testing.assert_array_equal(gen.X, a.X)


@pytest.mark.parametrize("kwargs, match", [
    ({"n_pos": 400, "n_neg": 300}, "n_pos \\+ n_neg"),
    ({"n_pos": 0, "n_neg": 0}, "n_pos \\+ n_neg"),
    ({"task": "poisson"}, "task"),
    ({"n": 0}, "n must be"),
    ({"p": 2.5}, "p must be"),
    ({"n_neg": -1}, "n_neg must be"),
    ({"response_bound": "data"}, "response_bound"),
])
def test_raj_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        raj_synthetic(**kwargs)


def test_sparse_logistic_shapes_domain_and_support():
    d = sparse_logistic_synthetic(random_state=0)
    assert d.X.shape == (5000, 500) and d.y.shape == (5000,)
    assert np.abs(d.X).max() == 1.0
    support = np.flatnonzero(d.w_true)
    assert support.size == 10
    np.testing.assert_array_equal(np.abs(d.w_true[support]), 5.0)
    assert set(np.unique(d.y)) == {0, 1} and d.y.dtype == np.int64
    assert d.task == "logistic" and d.y_bound is None


def test_sparse_logistic_is_deterministic():
    a = sparse_logistic_synthetic(n=300, p=40, k=4, random_state=9)
    b = sparse_logistic_synthetic(n=300, p=40, k=4, random_state=9)
    c = sparse_logistic_synthetic(n=300, p=40, k=4, random_state=10)
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    np.testing.assert_array_equal(a.w_true, b.w_true)
    assert not np.array_equal(a.y, c.y)


def _calibration_statistic(y, X, w):
    """T = sum_i (y_i - sigmoid(z_i)) z_i with z = X w, and its Bernstein threshold at ALPHA.

    Given X, under y_i ~ Bernoulli(p_i), p_i = sigmoid(z_i), the terms are independent with
    mean 0, variance p_i (1 - p_i) z_i^2 (sum V) and |term_i| <= M = max_i |z_i|. Bernstein:
    P(|T| >= t) <= 2 exp(-(t^2 / 2) / (V + M t / 3)); with L = ln(2 / ALPHA) the threshold
    t = L M / 3 + sqrt((L M / 3)^2 + 2 L V) solves 2 exp(...) = ALPHA, so the false-failure
    probability is at most ALPHA (an exact bound, no normal approximation).
    """
    z = X @ w
    p = expit(z)
    statistic = np.sum((y - p) * z)
    L, V, M = np.log(2 / ALPHA), np.sum(p * (1 - p) * z**2), np.abs(z).max()
    threshold = L * M / 3 + np.sqrt((L * M / 3) ** 2 + 2 * L * V)
    return statistic, threshold


@pytest.mark.statistical
def test_sparse_logistic_labels_are_bernoulli_of_the_sigmoid():
    """Labels follow Bernoulli(sigmoid(X w)): |T| below its Bernstein threshold.

    False-failure probability <= ALPHA = 1e-6 (see ``_calibration_statistic``). Fixed seed
    2024. The companion test shows the same check rejects labels from three wrong models.
    """
    d = sparse_logistic_synthetic(random_state=2024)
    statistic, threshold = _calibration_statistic(d.y, d.X, d.w_true)
    assert abs(statistic) < threshold


@pytest.mark.statistical
def test_calibration_check_rejects_wrong_label_models():
    """Power: thresholded labels, sign-flipped probabilities and coin flips are all caught.

    Same statistic and threshold as above (false-failure <= ALPHA = 1e-6); seed 2024 for
    the design, 7 for the broken labels.
    """
    d = sparse_logistic_synthetic(random_state=2024)
    z = d.X @ d.w_true
    rng = np.random.default_rng(7)
    broken = {
        "threshold": (z > 0).astype(np.int64),
        "flipped sign": (rng.random(z.size) < expit(-z)).astype(np.int64),
        "coin flips": (rng.random(z.size) < 0.5).astype(np.int64),
    }
    for name, y in broken.items():
        statistic, threshold = _calibration_statistic(y, d.X, d.w_true)
        assert abs(statistic) > threshold, name


def test_sparse_logistic_with_zero_coefficients_has_labels_independent_of_x():
    data = sparse_logistic_synthetic(n=4000, p=8, k=4, coef_value=0.0, intercept=1.0,
                                     random_state=0)
    assert not data.w_true.any()
    # y ~ Bernoulli(sigmoid(1)) = 0.731 whatever X: within 4 sd (sd 0.007) of its mean
    assert abs(data.y.mean() - 0.7311) < 0.03


@pytest.mark.parametrize("kwargs, match", [
    ({"k": 600}, "k must be <= p"),
    ({"k": 0}, "k must be"),
    ({"coef_value": -1.0}, "coef_value"),
    ({"coef_value": np.inf}, "coef_value"),
])
def test_sparse_logistic_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        sparse_logistic_synthetic(**kwargs)


@pytest.mark.statistical
def test_raj_response_bound_holds_with_its_failure_probability():
    """The generator bound is exceeded with probability at most its ``failure_probability``.

    At ``failure_probability = 0.2`` (n = 30, p = 10, k = 4), 3000 independent draws; the
    test fails when the number of draws above the bound is improbable under rate 0.2 (binomial
    upper tail below ALPHA): false-failure probability at most ALPHA when the bound holds. A
    broken bound that forgets the union over the rows (one row's quantile) is rejected by the
    same threshold, so the test can fail.
    """
    n, p, k, failure, draws = 30, 10, 4, 0.2, 3000
    bound = raj_response_bound(n, p, k, failure)
    one_row = np.sqrt(k) * norm.isf(failure / 4) / norm.isf(
        -np.expm1(np.log(failure / 2) / (n * p)) / 2)  # broken: no union over the n rows
    assert one_row < bound
    rng = np.random.default_rng(2)
    largest = np.empty(draws)
    for i in range(draws):
        Z = rng.standard_normal((n, p))
        largest[i] = np.abs(Z[:, :k].sum(axis=1)).max() / np.abs(Z).max()
    threshold = binom.isf(ALPHA, draws, failure)  # P(count > threshold) <= ALPHA
    assert (largest > bound).sum() <= threshold
    assert (largest > one_row).sum() > threshold
    with pytest.raises(ValueError, match="failure_probability"):
        raj_response_bound(n, p, k, 1.0)


def test_logistic_intercept_shifts_the_labels_only():
    from dplasso.data import sparse_logistic_synthetic
    plain = sparse_logistic_synthetic(n=2000, p=5, k=2, random_state=3)
    shifted = sparse_logistic_synthetic(n=2000, p=5, k=2, random_state=3, intercept=1.5)
    np.testing.assert_array_equal(plain.X, shifted.X)
    np.testing.assert_array_equal(plain.w_true, shifted.w_true)
    assert shifted.y.mean() > plain.y.mean() + 0.15
    with pytest.raises(ValueError, match="intercept"):
        sparse_logistic_synthetic(n=10, p=2, k=1, intercept=float("nan"))

