"""Report-noisy-min and exponential-mechanism selectors: contract, input checks, exact laws."""
import math

import numpy as np
import pytest
from scipy import stats

from statistical import ALPHA
from dplasso.privacy import selection
from dplasso.privacy.selection import (
    ExponentialMechanismSelector,
    ReportNoisyMinSelector,
    exponential_mechanism_epsilon,
    exponential_mechanism_event,
    exponential_mechanism_min,
    exponential_mechanism_probabilities,
    exponential_mechanism_rho,
    exponential_mechanism_scale,
    report_noisy_min,
    report_noisy_min_epsilon,
    report_noisy_min_event,
    report_noisy_min_probabilities,
    report_noisy_min_scale,
)

SELECTORS = [report_noisy_min, exponential_mechanism_min]


@pytest.mark.parametrize("select", SELECTORS)
def test_contract_shape_dtype_range_and_reproducibility(select):
    scores = np.random.default_rng(0).standard_normal((50, 7))
    a = select(scores, 0.3, np.random.default_rng(1))
    b = select(scores, 0.3, np.random.default_rng(1))
    assert a.shape == (7,) and a.dtype == np.intp
    assert ((a >= 0) & (a < 50)).all()
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("select", SELECTORS)
@pytest.mark.parametrize("m, k", [(70_001, 3), (40_000, 1), (5, 50_000), (1, 4)])
def test_negligible_noise_gives_the_exact_argmin_across_blocks(select, m, k):
    """With scale 1e-12 the noise (|noise| < 40 scales) cannot reorder scores 1 apart.

    The shapes make the selector work over several row blocks (and one row per block for
    K = 50000), so this checks that the block winners are merged correctly.
    """
    rng = np.random.default_rng(m + k)
    scores = np.argsort(rng.random((m, k)), axis=0).astype(np.float64)  # a permutation per column
    np.testing.assert_array_equal(select(scores, 1e-12, rng), scores.argmin(axis=0))


@pytest.mark.parametrize("select", SELECTORS)
def test_accepts_non_float64_and_non_contiguous_scores(select):
    scores = np.arange(12, dtype=np.int32).reshape(3, 4)
    assert (select(scores, 1e-9, np.random.default_rng(0)) == 0).all()
    column = np.array([3.0, 1.0, 2.0])
    broadcast = np.broadcast_to(column[:, None], (3, 10))
    assert (select(broadcast, 1e-9, np.random.default_rng(0)) == 1).all()


@pytest.mark.parametrize("select", SELECTORS)
@pytest.mark.parametrize("bad", [np.nan, -np.inf])
def test_nan_and_minus_infinity_are_refused(select, bad):
    scores = np.zeros((40_000, 2))
    scores[39_999, 1] = bad  # in the last block
    with pytest.raises(ValueError, match="scores contain NaN or -infinity"):
        select(scores, 1.0, np.random.default_rng(0))


@pytest.mark.parametrize("select", SELECTORS)
def test_plus_infinity_excludes_a_candidate(select):
    """A masked candidate (+inf) is never chosen, even when it would win by far otherwise."""
    scores = np.zeros((40_000, 50))
    scores[:20_000] = -30.0  # the favourites by 30 noise scales ...
    scores[:20_000, ::2] = np.inf  # ... excluded in the even columns
    chosen = select(scores, 1.0, np.random.default_rng(0))
    assert (chosen[::2] >= 20_000).all()
    assert (chosen[1::2] < 20_000).all()
    for m in (10, 40_000):  # the full draw, and the lazy draw above 2**15 candidates
        everything_masked = np.full((m, 3), np.inf)
        everything_masked[0, :2] = 0.0
        with pytest.raises(ValueError, match="every candidate of trial 2 is excluded"):
            select(everything_masked, 1.0, np.random.default_rng(0))


@pytest.mark.parametrize("select", SELECTORS)
def test_bad_shapes_and_scales_are_refused(select):
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="scores must be two-dimensional"):
        select(np.zeros(5), 1.0, rng)
    with pytest.raises(ValueError, match="scores is empty"):
        select(np.zeros((0, 3)), 1.0, rng)
    for scale in (0.0, -1.0, np.nan, np.inf):
        with pytest.raises(ValueError, match="scale must be a finite number > 0"):
            select(np.zeros((3, 2)), scale, rng)


def test_privacy_maps_and_inverses():
    assert report_noisy_min_epsilon(0.1, 0.4) == 0.5
    assert report_noisy_min_scale(0.1, 0.5) == 0.4
    assert exponential_mechanism_epsilon(0.1, 0.4) == 0.5
    assert exponential_mechanism_scale(0.1, 0.5) == 0.4
    assert exponential_mechanism_rho(0.1, 0.4) == 0.5**2 / 8
    with pytest.raises(ValueError, match="sensitivity must be a finite number >= 0"):
        report_noisy_min_epsilon(-0.1, 0.4)
    with pytest.raises(ValueError, match="epsilon must be a finite number > 0"):
        exponential_mechanism_scale(0.1, 0.0)


def test_events():
    rnm = report_noisy_min_event(0.1, 0.4, count=500)
    assert (rnm.mechanism, rnm.epsilon, rnm.rho, rnm.count) == ("report-noisy-min", 0.5, None, 500)
    assert rnm.zcdp_rho == 0.125
    em = exponential_mechanism_event(0.1, 0.4, count=500)
    assert (em.epsilon, em.rho, em.zcdp_rho) == (0.5, 0.03125, 0.03125)
    assert rnm.numerics == em.numerics == "idealised-float"


@pytest.mark.parametrize("selector_class, function, event", [
    (ReportNoisyMinSelector, report_noisy_min, report_noisy_min_event),
    (ExponentialMechanismSelector, exponential_mechanism_min, exponential_mechanism_event),
])
def test_selector_objects_follow_the_engine_contract(selector_class, function, event):
    selector = selector_class(0.25)
    scores = np.random.default_rng(2).standard_normal((30, 4))
    np.testing.assert_array_equal(selector(scores, np.random.default_rng(3)),
                                  function(scores, 0.25, np.random.default_rng(3)))
    assert selector.event(0.01, 100) == event(0.01, 0.25, 100)
    with pytest.raises(ValueError, match="scale must be a finite number > 0"):
        selector_class(0.0)


# -- exact laws -----------------------------------------------------------------------------

def test_exponential_mechanism_probabilities_are_a_softmax():
    scores = np.array([0.0, 0.3, 2.0, -1.0])
    weights = np.exp(-scores / 0.5)
    np.testing.assert_allclose(exponential_mechanism_probabilities(scores, 0.5),
                               weights / weights.sum(), rtol=1e-14)
    matrix = np.stack([scores, scores[::-1]], axis=1)
    np.testing.assert_allclose(exponential_mechanism_probabilities(matrix, 0.5).sum(axis=0), 1.0)
    with pytest.raises(ValueError, match="NaN or infinity"):
        exponential_mechanism_probabilities(np.array([0.0, np.nan]), 1.0)


@pytest.mark.parametrize("gap, scale", [(0.0, 1.0), (0.3, 0.4), (2.0, 0.1), (5.0, 3.0)])
def test_report_noisy_min_law_for_two_candidates_matches_closed_form(gap, scale):
    """P(s1 + L1 < s2 + L2) = 1 - exp(-d/b) (1 + d/(2b)) / 2 for d = s2 - s1 >= 0."""
    probabilities = report_noisy_min_probabilities(np.array([0.0, gap]), scale)
    d = gap / scale
    expected = 1 - 0.5 * math.exp(-d) * (1 + d / 2)
    np.testing.assert_allclose(probabilities, [expected, 1 - expected], rtol=1e-10, atol=1e-14)


def test_report_noisy_min_law_is_normalised_equivariant_and_shift_invariant():
    scores = np.array([0.0, 0.3, 0.5, 1.0, 1.2, -0.7])
    p = report_noisy_min_probabilities(scores, 0.4)
    assert p.sum() == pytest.approx(1.0, abs=1e-10)
    order = np.random.default_rng(0).permutation(scores.size)
    np.testing.assert_allclose(report_noisy_min_probabilities(scores[order], 0.4), p[order],
                               rtol=1e-9)
    np.testing.assert_allclose(report_noisy_min_probabilities(scores + 17.0, 0.4), p, rtol=1e-9)
    np.testing.assert_allclose(report_noisy_min_probabilities(np.zeros(5), 2.0), 0.2, rtol=1e-10)


def test_report_noisy_min_law_input_checks():
    with pytest.raises(ValueError, match="one-dimensional"):
        report_noisy_min_probabilities(np.zeros((2, 2)), 1.0)
    with pytest.raises(ValueError, match="NaN or infinity"):
        report_noisy_min_probabilities(np.array([0.0, np.inf]), 1.0)
    with pytest.raises(ValueError, match="scale must be a finite number > 0"):
        report_noisy_min_probabilities(np.array([0.0, 1.0]), 0.0)


# -- the noise the selectors add ------------------------------------------------------------

def _selector_noise(fill_noise, scale, n, seed):
    out, work = np.empty(n), np.empty(n)
    fill_noise(out, work, scale, np.random.default_rng(seed))
    return out


@pytest.mark.statistical
def test_open_grid_laplace_noise_law():
    """The selector's inverse-CDF Laplace noise against Lap(0.7): one-sample KS test.

    False-failure probability ALPHA = 1e-6 (threshold ``scipy.stats.kstwo.isf(ALPHA, n)``).
    Power check: the same draws against Lap(0.77) (scale 10% off) exceed the threshold.
    """
    n = 200_000
    noise = _selector_noise(selection._laplace_into, 0.7, n, seed=31)
    assert np.isfinite(noise).all()
    threshold = stats.kstwo.isf(ALPHA, n)
    assert stats.kstest(noise, "laplace", args=(0, 0.7)).statistic < threshold
    assert stats.kstest(noise, "laplace", args=(0, 0.77)).statistic > threshold


@pytest.mark.statistical
def test_open_grid_gumbel_noise_law():
    """``scale * log(-log U)`` is minus a Gumbel(0, scale) variable: one-sample KS test.

    False-failure probability ALPHA = 1e-6 (threshold ``scipy.stats.kstwo.isf(ALPHA, n)``).
    Power check: the same draws against Gumbel(0, 0.77) exceed the threshold.
    """
    n = 200_000
    noise = _selector_noise(selection._gumbel_min_noise_into, 0.7, n, seed=32)
    assert np.isfinite(noise).all()
    threshold = stats.kstwo.isf(ALPHA, n)
    assert stats.kstest(-noise, "gumbel_r", args=(0, 0.7)).statistic < threshold
    assert stats.kstest(-noise, "gumbel_r", args=(0, 0.77)).statistic > threshold


class _GridEnds:
    """Stands in for a Generator: returns the extreme and middle grid indices."""

    def integers(self, low, high, size):
        assert (low, high) == (0, 2**52)
        return np.array([0, 2**51 - 1, 2**51, 2**52 - 1], dtype=np.int64).reshape(size)


def test_noise_is_finite_and_symmetric_at_the_ends_of_the_uniform_grid():
    """U = (j + 1/2) 2^-52 never hits 0 or 1: the extreme Laplace draws are
    +-scale * log(2^52) and the extreme -Gumbel draws are finite."""
    out, work = np.empty(4), np.empty(4)
    selection._laplace_into(out, work, 2.0, _GridEnds())
    np.testing.assert_allclose(out, [-2.0 * 52 * math.log(2), -2.0 * 2.0**-52,
                                     2.0 * 2.0**-52, 2.0 * 52 * math.log(2)], rtol=1e-12)
    selection._gumbel_min_noise_into(out, work, 1.0, _GridEnds())
    assert np.isfinite(out).all()
    assert out[0] == pytest.approx(math.log(53 * math.log(2)), rel=1e-12)
    assert out[3] == pytest.approx(math.log(2.0**-53), rel=1e-9)
