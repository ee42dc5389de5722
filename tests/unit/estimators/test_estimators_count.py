"""The Sparsifier's count pieces: lasso_support_size, noisy_count and its ledger event.

(The law of the released count and its privacy map are tested in
``tests/proofs/test_sparsifier_count_noise.py``.)"""
from fractions import Fraction
from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from estimator_problems import binary_problem, three_class_problem
from dplasso.estimators import (
    COUNT_NOISES,
    DEFAULT_COUNT_FRACTION,
    DEFAULT_LAM,
    SparsifierClassifier,
    count_noise_event,
    count_noise_scale,
    lasso_support_size,
    noisy_count,
    resolve_count_sensitivity,
    sparsify_trials,
)
from dplasso.estimators import sparsifier as sparsifier_module
from dplasso.estimators.count import lasso_support_sizes
from dplasso.optim import LogisticLoss, MultinomialLoss, solve_reference
from dplasso.privacy.laplace import laplace_epsilon


def test_support_size_is_the_reference_solutions_nonzeros_without_the_intercept():
    X, y, w_true = binary_problem()
    keep = (y == 1) | (np.arange(len(y)) % 4 == 0)  # imbalanced classes: a real intercept
    X, y = X[keep], y[keep]
    design = np.hstack([X, np.ones((len(y), 1))])
    reference = solve_reference(LogisticLoss(), design, y, 5.0).w
    assert reference[-1] != 0  # an intercept that must not be counted
    count = lasso_support_size(X, y, lam=5.0)
    assert count == np.count_nonzero(reference[:-1]) == np.count_nonzero(w_true) == 3
    assert lasso_support_size(sp.csr_matrix(X), y, lam=5.0) == count
    assert lasso_support_size(X, y, lam=5.0, fit_intercept=False) == np.count_nonzero(
        solve_reference(LogisticLoss(), X, y, 5.0).w)


def test_multinomial_support_size_counts_matrix_entries():
    X, y = three_class_problem()
    design = np.hstack([X, np.ones((len(y), 1))])
    reference = solve_reference(MultinomialLoss(3), design, y, 10.0).w
    count = lasso_support_size(X, y, lam=10.0, n_classes=3)
    assert count == np.count_nonzero(reference[:-1, :])
    assert count >= 3  # one driving feature per class


def test_support_size_warns_when_the_solver_stops_early():
    X, y, _ = binary_problem()
    with pytest.warns(ConvergenceWarning, match="did not reach its Wolfe-gap target"):
        lasso_support_size(X, y, lam=5.0, max_iter=2)
    with pytest.warns(ConvergenceWarning, match="did not reach its Wolfe-gap target"):
        lasso_support_sizes([(X, y)], lam=5.0, max_iter=2)


def test_support_sizes_of_many_datasets_are_each_ones_count():
    """Solved together, the counts of datasets of different rows, labels and sparsity (and
    a sparse one) are those of one solve each."""
    X, y, _ = binary_problem()
    rng = np.random.default_rng(7)
    datasets = [(X, y), (X[: len(y) // 2], y[: len(y) // 2]), (X, 1 - y),
                (np.where(rng.random(X.shape) < 0.5, 0.0, X), y), (sp.csr_matrix(X), y)]
    seen = set()
    for lam in (0.5, 5.0):
        counts = lasso_support_sizes(datasets, lam=lam)
        assert counts == [lasso_support_size(A, b, lam=lam) for A, b in datasets]
        seen.update(counts)
    assert len(seen) > 1
    assert lasso_support_sizes(datasets[:2], lam=5.0, fit_intercept=False) == [
        lasso_support_size(A, b, lam=5.0, fit_intercept=False) for A, b in datasets[:2]]


def test_noisy_count_range_shape_and_type():
    rng = np.random.default_rng(0)
    single = noisy_count(5, 1.0, 1, "geometric", rng, n_max=10)
    assert isinstance(single, int) and 1 <= single <= 10
    for noise in ("geometric", "laplace"):
        values = noisy_count(5, 0.05, 1, noise, rng, n_max=10, size=(4, 500))
        assert values.shape == (4, 500) and values.dtype == np.int64
        assert values.min() == 1 and values.max() == 10  # scale 20: both clips are hit
        exact = noisy_count(7, 1000.0, 1, noise, rng, n_max=10, size=100)
        np.testing.assert_array_equal(exact, 7)  # P(noise != 0) < 2 exp(-500)
    np.testing.assert_array_equal(noisy_count(0, 1000.0, 1, "geometric", rng, n_max=3,
                                              size=5), 1)


@pytest.mark.parametrize(("args", "kwargs", "error", "message"), [
    ((11, 1.0, 1, "geometric"), {"n_max": 10}, ValueError, "c must be <= n_max=10"),
    ((-1, 1.0, 1, "geometric"), {"n_max": 10}, ValueError, "c must be >= 0"),
    ((1.5, 1.0, 1, "geometric"), {"n_max": 10}, TypeError, "c must be an integer"),
    ((0, 1.0, 1, "geometric"), {"n_max": 0}, ValueError, "n_max must be >= 1"),
    ((3, 0.0, 1, "geometric"), {"n_max": 10}, ValueError, "epsilon_count must be"),
    ((3, 1.0, 0, "laplace"), {"n_max": 10}, ValueError, "count_sensitivity must be >= 1"),
    ((3, 1.0, 1, "gaussian"), {"n_max": 10}, ValueError, "count_noise must be one of"),
    ((3, 1.0, "p", "geometric"), {"n_max": 10}, ValueError, 'must be "max" or an integer'),
])
def test_noisy_count_errors(args, kwargs, error, message):
    with pytest.raises(error, match=message):
        noisy_count(*args, np.random.default_rng(0), **kwargs)


def test_scales_and_events_state_the_budget_exactly():
    assert count_noise_scale(0.1, 2, "geometric") == Fraction(2) / Fraction(0.1)
    assert count_noise_scale(Fraction(1, 10), 1, "geometric") == 10
    event = count_noise_event(0.1, 2, "geometric", n_countable=5)
    assert (event.mechanism, event.numerics) == ("discrete-laplace", "exact")
    assert event.epsilon == 0.1 and event.sensitivity == 2 and event.delta == 0
    for epsilon in (0.1, 0.3, 1 / 3, 0.7, 2.9):
        scale = count_noise_scale(epsilon, 3, "laplace")
        assert laplace_epsilon(3, scale) <= epsilon
        assert scale == pytest.approx(3 / epsilon, rel=1e-15)
        laplace = count_noise_event(epsilon, 3, "laplace", n_countable=5)
        assert laplace.mechanism == "laplace" and laplace.numerics == "idealised-float"
        assert laplace.epsilon <= epsilon and laplace.epsilon == pytest.approx(epsilon)


def test_max_sensitivity_is_the_number_of_countable_coefficients():
    assert resolve_count_sensitivity("max", 12) == 12
    assert resolve_count_sensitivity(3, 12) == 3
    with pytest.raises(ValueError, match="n_countable must be >= 1"):
        resolve_count_sensitivity("max", 0)
    with pytest.raises(ValueError, match="resolve it with resolve_count_sensitivity"):
        count_noise_scale(1.0, "max", "geometric")
    for noise in COUNT_NOISES:
        by_name = noisy_count(4, 1.0, "max", noise, np.random.default_rng(3), n_max=12, size=50)
        by_value = noisy_count(4, 1.0, 12, noise, np.random.default_rng(3), n_max=12, size=50)
        np.testing.assert_array_equal(by_name, by_value)


def test_event_note_says_whether_the_sensitivity_is_proven():
    assert "proven sensitivity 12" in count_noise_event(1.0, 12, "geometric", n_countable=12).note
    assert "declared (unproven) sensitivity 1" in count_noise_event(
        1.0, 1, "laplace", n_countable=12).note


def test_large_count_scales_are_drawn_and_too_large_ones_refused_before_the_solve():
    """Scales above 2**20 (once refused after the solve) work; above 2**40 fail first."""
    X, y, _ = binary_problem()
    m, f = X.shape[1], DEFAULT_COUNT_FRACTION
    epsilon = 1e-5
    assert count_noise_scale(f * epsilon, m, "geometric") > 2**20
    p1 = dict(n_iter=5, classes=[0, 1], random_state=0)
    model = SparsifierClassifier(epsilon=epsilon, **p1).fit(X, y)
    assert 1 <= model.n_nonzero_target_ <= m
    tiny = dict(epsilon=1e-6, count_fraction=1e-6)  # the smallest budget, a count share of 1e-12
    assert count_noise_scale(1e-12, m, "geometric") > 2**40
    with mock.patch.object(sparsifier_module, "_support_size") as count_fit, \
            pytest.raises(ValueError, match=f"epsilon_count .*n_countable = {m} "):
        SparsifierClassifier(**tiny, **p1).fit(X, y)
    count_fit.assert_not_called()
    sparsify_trials(X, y, lam=DEFAULT_LAM, n_iter=5, **tiny, count_noise="laplace",
                    random_state=0)
