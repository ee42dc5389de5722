"""Empirical audits: Clopper-Pearson bounds, the epsilon bound, event choosers, the driver."""
import itertools
import math

import numpy as np
import pytest
from scipy import stats

from statistical import ALPHA
from dplasso.audit.empirical import (
    AuditResult,
    SetEvent,
    ThresholdEvent,
    audit_mechanism,
    choose_set_event,
    choose_threshold_event,
    clopper_pearson_upper,
    epsilon_lower_bound,
)


def test_clopper_pearson_upper_solves_the_binomial_tail_equation():
    """u(k) satisfies P(Bin(n, u) <= k) = alpha; u(0) = 1 - alpha**(1/n); u(n) = 1."""
    n, alpha = 40, 0.01
    k = np.arange(n)
    upper = clopper_pearson_upper(k, n, alpha)
    assert np.allclose(stats.binom.cdf(k, n, upper), alpha, rtol=1e-8)
    assert upper[0] == pytest.approx(1.0 - alpha ** (1.0 / n))
    assert clopper_pearson_upper(n, n, alpha) == 1.0


def test_clopper_pearson_upper_matches_scipy_exact_interval():
    """The one-sided level-alpha bound is the upper end of scipy's two-sided 1 - 2 alpha."""
    for k, n in [(0, 10), (3, 10), (17, 200), (199, 200)]:
        high = stats.binomtest(k, n).proportion_ci(confidence_level=0.9, method="exact").high
        assert clopper_pearson_upper(k, n, 0.05) == pytest.approx(high, rel=1e-10)


def test_clopper_pearson_upper_has_coverage_at_least_one_minus_alpha():
    """Exact coverage over a grid of true proportions: P(u(K) < p) <= alpha."""
    n, alpha = 60, 0.05
    upper = clopper_pearson_upper(np.arange(n + 1), n, alpha)
    for p in np.linspace(0.005, 0.995, 199):
        miss = stats.binom.pmf(np.arange(n + 1), n, p)[upper < p].sum()
        assert miss <= alpha + 1e-12


def test_epsilon_lower_bound_formula():
    assert epsilon_lower_bound(0.1, 0.2) == pytest.approx(math.log(0.8 / 0.1))
    assert epsilon_lower_bound(0.2, 0.1) == pytest.approx(math.log(0.8 / 0.1))
    assert epsilon_lower_bound(0.1, 0.2, delta=0.05) == pytest.approx(math.log(0.75 / 0.1))
    assert epsilon_lower_bound(0.6, 0.6) == 0.0
    assert epsilon_lower_bound(1.0, 1.0, delta=0.5) == 0.0
    assert np.allclose(epsilon_lower_bound([0.1, 0.6], [0.2, 0.6]), [math.log(8.0), 0.0])


def test_threshold_chooser_finds_the_separating_threshold_in_both_orientations():
    a = np.zeros(500)
    b = np.ones(500)
    event, criterion = choose_threshold_event(a, b, 0.05)
    assert event == ThresholdEvent(0.0, True) and criterion > 3.0
    event, _ = choose_threshold_event(b, a, 0.05)
    assert event == ThresholdEvent(0.0, False)
    assert np.array_equal(event(np.array([-1.0, 0.0, 1.0])), [True, True, False])
    assert str(event) == "output <= 0"


def test_threshold_chooser_uses_a_tail_grid_for_many_values():
    rng = np.random.default_rng(0)
    event, _ = choose_threshold_event(rng.normal(0, 1, 20_000), rng.normal(2, 1, 20_000),
                                      0.05, max_candidates=200)
    assert event.above and 0.0 < event.threshold < 4.0


def test_set_chooser_picks_the_outcomes_likelier_under_d_prime():
    """Ratios D'/D: z 3.8, y 1, x 0.07. The chosen set holds z, not x, and attains the best
    bound over all 8 subsets (both orientations), found by brute force."""
    a = np.array(["x"] * 300 + ["y"] * 100 + ["z"] * 100)
    b = np.array(["x"] * 20 + ["y"] * 100 + ["z"] * 380)
    event, criterion = choose_set_event(a, b, 0.05)
    assert event(np.array(["z"]))[0] and not event(np.array(["x"]))[0]
    best = 0.0
    for members in itertools.chain.from_iterable(
            itertools.combinations("xyz", k) for k in range(4)):
        fp, fn = np.isin(a, members).sum(), (~np.isin(b, members)).sum()
        bound = epsilon_lower_bound(clopper_pearson_upper(fp, 500, 0.025),
                                    clopper_pearson_upper(fn, 500, 0.025))
        best = max(best, float(bound))
    assert criterion == pytest.approx(best)
    event, _ = choose_set_event(b, a, 0.05)
    assert event(np.array(["x"]))[0] and not event(np.array(["z"]))[0]
    complement = SetEvent((1, 2), True)
    assert np.array_equal(complement(np.array([1, 3, 7])), [False, True, True])
    assert "not in" in str(complement)


def test_audit_of_a_deterministic_mechanism_gives_the_largest_bound_the_trials_allow():
    """No false positive or negative: FPR_hi = FNR_hi = 1 - (alpha/2)**(1/N_est)."""
    n_trials, alpha = 1000, 1e-3
    result = audit_mechanism(lambda d, size, rng: np.full(size, d), 0.0, 1.0, n_trials, alpha,
                             rng=0, eps_claimed=1.0)
    u = 1.0 - (alpha / 2.0) ** (1.0 / (n_trials - result.n_selection))
    assert result.fpr == result.fnr == 0.0
    assert result.eps_lower == pytest.approx(math.log((1.0 - u) / u))
    assert result.violated and result.verdict == "violation"
    assert isinstance(result, AuditResult) and result.n_trials == n_trials


@pytest.mark.statistical
def test_audit_of_identical_datasets_bounds_epsilon_by_zero():
    """M(D) and M(D') have the same law, so eps = 0 and the bound is 0 except with
    probability at most ALPHA = 1e-6 (the bound's guarantee); fixed seed."""
    result = audit_mechanism(lambda d, size, rng: d + rng.laplace(0, 1, size), 0.0, 0.0,
                             100_000, ALPHA, rng=1, eps_claimed=0.5)
    assert result.eps_lower == 0.0 and result.verdict == "consistent"


def test_vector_outputs_need_a_projection():
    def mechanism(d, size, rng):
        return rng.normal(d, 1.0, (size, 3))

    with pytest.raises(ValueError, match="projection"):
        audit_mechanism(mechanism, 0.0, 1.0, 100, 0.1, rng=0)
    result = audit_mechanism(mechanism, 0.0, 1.0, 100, 0.1, rng=0,
                             projection=lambda batch: batch.sum(axis=1))
    assert result.n_trials == 100


def test_batches_are_concatenated():
    sizes = []

    def mechanism(d, size, rng):
        sizes.append(size)
        return np.full(size, d)

    audit_mechanism(mechanism, 0, 1, 250, 0.1, rng=0, batch_size=100)
    assert sizes == [100, 100, 50] * 2


@pytest.mark.parametrize("kwargs, message", [
    ({"n_trials": 3}, "n_trials"),
    ({"alpha": 0.0}, "alpha"),
    ({"delta": 1.0}, "delta"),
    ({"selection_fraction": 1.0}, "selection_fraction"),
    ({"event": "interval"}, "event"),
    ({"batch_size": 0}, "batch_size"),
])
def test_validation(kwargs, message):
    arguments = {"n_trials": 100, "alpha": 0.1, **kwargs}
    with pytest.raises(ValueError, match=message):
        audit_mechanism(lambda d, size, rng: np.zeros(size), 0, 1, **arguments)
