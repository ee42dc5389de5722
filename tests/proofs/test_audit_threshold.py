"""The private threshold (``lemma-threshold``): its law, its worst pair, and its audit.

- Law: :func:`dplasso.estimators.threshold.private_offsets` draws each offset with
  probability proportional to ``exp(eps0 u(g) / 2)``, ``u`` the training accuracy of
  :class:`dplasso.audit.statistics.ThresholdUtility` (written from the lemma's definition,
  not from the module's code). Chi-square over K = 20000 batched draws, bins of expected
  count >= 20, threshold ``scipy.stats.chi2.isf(ALPHA, bins - 1)``: false-failure rate
  ``ALPHA = 1e-6`` (``tests/statistical.py``). A broken law (twice the budget) is rejected.
- Audit (:func:`dplasso.audit.cases.threshold_cases`): the correct release audits below its
  claim (false-failure rate ALPHA: Clopper-Pearson lower bound) and the release with its
  noise halved is flagged at 1e5 runs per dataset (power: true 2 eps_b, the bound of the
  correct release on this pair is ~0.87 eps_b). Fixed seeds.
"""
import numpy as np
import pytest
from scipy import stats

from statistical import ALPHA
from dplasso.audit.cases import threshold_cases, threshold_multiclass_cases
from dplasso.audit.statistics import ThresholdUtility
from dplasso.estimators.problem import prepare_design
from dplasso.estimators.threshold import THRESHOLD_GRID_SIZE, private_offsets, release_threshold

N_LAW = 20_000
N_AUDIT = 100_000
MIN_EXPECTED = 20


def _law_data(n_classes, seed=0, n=30, p=4):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, (n, p))
    y = rng.integers(0, n_classes, n)
    shape = (p + 1,) if n_classes == 2 else (p + 1, n_classes)
    W = rng.uniform(-0.5, 0.5, shape)
    return X, y, W


def _chi_square(observed_index, probabilities):
    """Chi-square of grid-index draws against ``probabilities``; small cells are pooled."""
    observed = np.bincount(observed_index, minlength=probabilities.size)
    order = np.argsort(probabilities)
    expected = probabilities[order] * observed_index.size
    pooled = np.cumsum(expected) < MIN_EXPECTED  # the smallest cells, pooled into one bin
    bins_expected = np.r_[expected[pooled].sum(), expected[~pooled]]
    bins_observed = np.r_[observed[order][pooled].sum(), observed[order][~pooled]]
    keep = bins_expected > 0
    statistic = float(np.sum((bins_observed[keep] - bins_expected[keep]) ** 2
                             / bins_expected[keep]))
    return statistic, stats.chi2.isf(ALPHA, keep.sum() - 1)


def _draws(X, y, W, epsilon, law_epsilon, seed):
    """Candidate indices of ``N_LAW`` releases (grid offsets, or ``(class, offset)`` pairs at
    ``c G + j`` for C > 2), with the law the lemma gives for a release at ``law_epsilon``."""
    statistic = ThresholdUtility(W)
    utility = statistic(X, y)
    grid = statistic.grid()
    design = prepare_design(X, fit_intercept=True, bounds="error")
    if W.ndim == 1:
        scores = np.repeat((design @ W)[:, None], N_LAW, axis=1)
        radius = np.full(N_LAW, np.abs(W).sum())
    else:
        scores = np.repeat((design @ W)[:, :, None], N_LAW, axis=2)
        radius = np.full(N_LAW, np.abs(W).sum(axis=0).max())
    offsets = private_offsets(scores, y, radius=radius, epsilon=epsilon,
                              rng=np.random.default_rng(seed))
    if W.ndim == 1:
        moved, chosen = np.zeros(N_LAW, dtype=int), offsets
    else:
        assert np.all(np.count_nonzero(offsets, axis=0) == 1), "not exactly one class moved"
        moved = np.argmax(offsets != 0, axis=0)
        chosen = offsets[moved, np.arange(N_LAW)]
    index = np.searchsorted(grid, chosen)
    assert np.allclose(grid[index], chosen), "offsets off the public grid"
    logits = law_epsilon * utility / 2.0
    probabilities = np.exp(logits - logits.max())
    return moved * THRESHOLD_GRID_SIZE + index, probabilities / probabilities.sum()


@pytest.mark.statistical
@pytest.mark.release.with_args(private_offsets)
@pytest.mark.parametrize("n_classes", [2, 3])
def test_release_follows_the_lemma_law(n_classes):
    """Binary (256 offsets), and three classes (one draw over the 768 (class, offset) pairs)."""
    X, y, W = _law_data(n_classes)
    index, probabilities = _draws(X, y, W, 1.0, 1.0, seed=1)
    statistic, threshold = _chi_square(index, probabilities)
    assert statistic <= threshold, (
        f"offsets do not follow exp(eps u / 2): chi2 {statistic:.1f} > {threshold:.1f}; "
        f"false-failure rate {ALPHA}")
    index, probabilities = _draws(X, y, W, 2.0, 1.0, seed=2)
    statistic, threshold = _chi_square(index, probabilities)
    assert statistic > threshold, "a release at twice the budget passed the law test"


def test_pair_moves_the_utility_by_one_in_opposite_directions():
    correct, _ = threshold_cases()
    statistic = ThresholdUtility(np.array([1.0, 0.0]))
    change = statistic(*correct.D_prime) - statistic(*correct.D)
    grid = statistic.grid()
    assert np.array_equal(change, np.where(grid > 0, -1.0, 1.0))


@pytest.mark.statistical
@pytest.mark.release.with_args(release_threshold)
def test_threshold_audit_correct_and_halved_noise():
    correct, halved = threshold_cases()
    assert halved.variant == "halved-noise"
    accepted = correct.run(N_AUDIT, ALPHA, rng=21)
    assert accepted.eps_lower <= accepted.eps_claimed, (
        f"audited {accepted.eps_lower:.3f} > claimed {accepted.eps_claimed} "
        f"({accepted.event}); false-failure rate <= {ALPHA}")
    flagged = halved.run(N_AUDIT, ALPHA, rng=23)
    assert flagged.violated, (
        f"halved noise not flagged: {flagged.eps_lower:.3f} <= {flagged.eps_claimed}")


@pytest.mark.slow
@pytest.mark.statistical
@pytest.mark.release.with_args(release_threshold)
def test_threshold_multiclass_audit_correct_and_halved_noise():
    """One draw over the (class, offset) pairs at eps_b: the correct release audits below
    eps_b (false-failure rate ALPHA; 0.90 eps_b in exact arithmetic on this pair); the
    release at 2 eps_b is flagged at 5e4 runs."""
    correct, halved = threshold_multiclass_cases()
    assert halved.variant == "halved-noise"
    accepted = correct.run(50_000, ALPHA, rng=25)
    assert accepted.eps_lower <= accepted.eps_claimed, (
        f"audited {accepted.eps_lower:.3f} > claimed {accepted.eps_claimed}; "
        f"false-failure rate <= {ALPHA}")
    flagged = halved.run(50_000, ALPHA, rng=27)
    assert flagged.violated, (
        f"halved noise not flagged: {flagged.eps_lower:.3f} <= {flagged.eps_claimed}")
