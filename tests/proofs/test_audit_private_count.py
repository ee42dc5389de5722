"""The Sparsifier's private counts: block median (``lemma-block-median``), accuracy count
(``lemma-accuracy-count``) and noise floor (``lemma-noise-floor``).

- Block median: :func:`dplasso.estimators.private_count.block_median_count` draws ``k`` with
  probability proportional to ``exp(eps1 u(k) / 2)``, ``u`` the rank utility of
  :class:`dplasso.audit.statistics.BlockMedianUtility` (written from the lemma); chi-square
  over 20000 draws, threshold ``chi2.isf(ALPHA, m - 1)``, false-failure rate ``ALPHA = 1e-6``
  (``tests/statistical.py``); a release at twice the budget is rejected. Its audit on the
  worst pair of :func:`dplasso.audit.cases.block_median_cases` accepts the correct release
  (false-failure rate ALPHA) and flags the count noised with the whole budget (4x).
- Accuracy count: its public sizes; its audit on the worst pair of
  :func:`dplasso.audit.cases.accuracy_count_cases` (the utility moves by +1 on size 1 and -1
  on the six others) accepts the correct release (false-failure rate ALPHA) and flags the
  release at twice its budget. (Its law through the public ``fit``:
  ``test_estimator_laws.py``.)
- Noise floor: post-processing. The Sparsifier's count is the noise floor of its own
  released weights (a deterministic check under a shared seed); with the weights' release
  coupled, the audit of the count's extra epsilon (claim 0) accepts the count (false-failure
  rate ALPHA) and flags the variant that reads the data. Fixed seeds.
"""
import numpy as np
import pytest
from scipy import stats

from statistical import ALPHA
from dplasso.audit.cases import accuracy_count_cases, block_median_cases, noise_floor_cases
from dplasso.audit.statistics import AccuracyCountUtility, BlockMedianUtility
from dplasso.data.synthetic import sparse_logistic_synthetic
from dplasso.estimators.private_count import (
    accuracy_count,
    accuracy_count_sizes,
    block_median_count,
    block_support_sizes,
    noise_floor_count,
)
from dplasso.estimators.private_frank_wolfe import private_frank_wolfe_trials
from dplasso.estimators.problem import prepare_design
from dplasso.estimators.sparsifier import sparsify_trials
from dplasso.optim.losses import LogisticLoss

N_LAW = 20_000
N_AUDIT = 100_000


def test_block_utility_sizes_are_the_mechanism_sizes():
    data = sparse_logistic_synthetic(n=60, p=8, k=3, random_state=4)
    statistic = BlockMedianUtility(10.0, 4)
    design = prepare_design(data.X, fit_intercept=True, bounds="error")
    sizes = block_support_sizes(LogisticLoss(), design, data.y, 10.0, 4, fit_intercept=True)
    assert np.array_equal(statistic.sizes(data.X, data.y), sizes)
    assert np.array_equal(statistic.sizes(data.X, data.y), sizes)  # from the cache


@pytest.mark.statistical
@pytest.mark.release.with_args(block_median_count)
def test_block_median_follows_the_lemma_law():
    """Sizes (2, 3, 3, 5, 6, 8): u(k) = min(#{c_b <= k}, #{c_b >= k}) for k = 1..8, by hand."""
    sizes = np.array([2, 3, 3, 5, 6, 8])
    utility = np.array([0, 1, 3, 3, 3, 2, 1, 1])
    statistic = BlockMedianUtility(10.0, sizes.size)
    statistic.sizes = lambda X, y: sizes  # the adapter's utility of these block sizes
    assert np.array_equal(statistic(np.zeros((6, 8)), np.zeros(6)), utility)
    threshold = stats.chi2.isf(ALPHA, utility.size - 1)
    for epsilon, rejected in ((1.0, False), (2.0, True)):
        draws = block_median_count(sizes, n_countable=8, epsilon=epsilon,
                                   rng=np.random.default_rng(5), n_trials=N_LAW)
        observed = np.bincount(draws - 1, minlength=8)
        probabilities = np.exp(0.5 * utility)
        expected = N_LAW * probabilities / probabilities.sum()
        chi2 = float(np.sum((observed - expected) ** 2 / expected))
        assert (chi2 > threshold) == rejected, (epsilon, chi2, threshold)


@pytest.mark.statistical
@pytest.mark.release.with_args(block_median_count, accuracy_count)
@pytest.mark.parametrize(("cases", "seed"), [(block_median_cases, 31),
                                             (accuracy_count_cases, 41)])
def test_count_audit_correct_and_wrong_epsilon(cases, seed):
    correct, broken = cases()
    assert broken.variant == "count-wrong-epsilon"
    accepted = correct.run(N_AUDIT, ALPHA, rng=seed)
    assert accepted.eps_lower <= accepted.eps_claimed, (
        f"audited {accepted.eps_lower:.3f} > claimed {accepted.eps_claimed}; "
        f"false-failure rate <= {ALPHA}")
    assert accepted.eps_lower > 0.5 * accepted.eps_claimed, "the pair lost its power"
    flagged = broken.run(N_AUDIT, ALPHA, rng=seed + 2)
    assert flagged.violated, f"{flagged.eps_lower:.3f} <= {flagged.eps_claimed}"


def test_block_median_pair_moves_one_block_from_1_to_p():
    correct, _ = block_median_cases()
    loss = LogisticLoss()
    sizes = [block_support_sizes(loss, prepare_design(X, fit_intercept=True, bounds="error"),
                                 y, 10.0, 2, fit_intercept=True)
             for X, y in (correct.D, correct.D_prime)]
    assert np.array_equal(sizes[0], [1, 1]) and np.array_equal(sizes[1], [32, 1])
    assert np.count_nonzero(np.any(correct.D[0] != correct.D_prime[0], axis=1)
                            | (correct.D[1] != correct.D_prime[1])) == 1


def test_sparsifier_noise_floor_count_reads_only_the_released_weights():
    """Coupling: under one seed the Sparsifier's count equals the noise floor of the private
    Frank-Wolfe weights released with that seed (the count draws nothing, so the engine
    sees the same stream), on a dataset and on a neighbour alike."""
    data = sparse_logistic_synthetic(n=200, p=10, k=3, random_state=6)
    X_prime, y_prime = data.X.copy(), data.y.copy()
    X_prime[0], y_prime[0] = 1.0, 1 - y_prime[0]
    for X, y in ((data.X, data.y), (X_prime, y_prime)):
        fit = sparsify_trials(X, y, lam=10.0, n_iter=30, epsilon=2.0, n_trials=8,
                              count="noise-floor", random_state=7)
        weights = private_frank_wolfe_trials(X, y, lam=10.0, n_iter=30, epsilon=2.0,
                                             n_trials=8, random_state=7)
        expected = noise_floor_count(weights.W, n_iter=30, n_coordinates=11, lam=10.0)
        assert np.array_equal(fit.n_nonzero_target, expected)
        assert np.all(np.count_nonzero(fit.W, axis=0) <= expected)


@pytest.mark.statistical
@pytest.mark.release.with_args(noise_floor_count)
def test_noise_floor_coupling_audit():
    correct, broken = noise_floor_cases()
    assert broken.variant == "reads-data"
    accepted = correct.run(N_AUDIT // 2, ALPHA, rng=41)
    assert accepted.eps_lower <= accepted.eps_claimed == 0.0, (
        f"the count given the weights differs in law between neighbours: "
        f"{accepted.eps_lower:.3f} > 0; false-failure rate <= {ALPHA}")
    flagged = broken.run(N_AUDIT // 2, ALPHA, rng=43)
    assert flagged.violated, "the count that reads the data was not flagged"


def test_accuracy_count_sizes_are_the_powers_of_two_and_m():
    assert list(accuracy_count_sizes(1)) == [1]
    assert list(accuracy_count_sizes(5)) == [1, 2, 4, 5]
    assert list(accuracy_count_sizes(8)) == [1, 2, 4, 8]
    assert list(accuracy_count_sizes(64)) == [1, 2, 4, 8, 16, 32, 64]


def test_accuracy_count_pair_moves_size_1_against_the_others():
    correct, _ = accuracy_count_cases()
    w_full = np.append(np.r_[1.0, 1.0, np.full(62, 0.01)], 0.0)
    utility = AccuracyCountUtility(w_full)
    u, u_prime = utility(*correct.D), utility(*correct.D_prime)
    np.testing.assert_array_equal(u - u_prime, [1, -1, -1, -1, -1, -1, -1])


def test_block_sizes_are_solved_once_per_dataset_and_block_count(monkeypatch):
    """The memo of :func:`block_support_sizes` returns the sizes a fresh solve gives, solves
    again for other rows, labels or ``B``, and hands out copies."""
    import dplasso.estimators.private_count as private_count

    data = sparse_logistic_synthetic(n=80, p=6, k=2, random_state=3)
    design = prepare_design(data.X, fit_intercept=True, bounds="error")
    fresh = private_count._solve_block_sizes(LogisticLoss(), design, data.y, 10.0, 4,
                                             fit_intercept=True)
    solves = []
    monkeypatch.setattr(private_count, "_solve_block_sizes",
                        lambda *args, **kwargs: solves.append(1) or fresh.copy())
    monkeypatch.setattr(private_count, "_BLOCK_SIZES_MEMO", type(private_count._BLOCK_SIZES_MEMO)())
    first = block_support_sizes(LogisticLoss(), design, data.y, 10.0, 4, fit_intercept=True)
    first[0] = -1
    again = block_support_sizes(LogisticLoss(), design.copy(), data.y.copy(), 10.0, 4,
                                fit_intercept=True)
    np.testing.assert_array_equal(again, fresh)
    assert len(solves) == 1
    flipped = data.y.copy()
    flipped[0] = 1 - flipped[0]
    block_support_sizes(LogisticLoss(), design, flipped, 10.0, 4, fit_intercept=True)
    block_support_sizes(LogisticLoss(), design, data.y, 10.0, 5, fit_intercept=True)
    assert len(solves) == 3
