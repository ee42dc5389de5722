"""The exact discrete Laplace (double-geometric) sampler, its law, privacy map and event."""
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from statistical import ALPHA
from dplasso.privacy import discrete_laplace as dl
from dplasso.privacy.discrete_laplace import (
    discrete_laplace_alpha,
    discrete_laplace_epsilon,
    discrete_laplace_event,
    discrete_laplace_noise,
    discrete_laplace_pmf,
    discrete_laplace_sampled_scale,
    discrete_laplace_scale,
    discrete_laplace_variance,
)

N_DRAWS = 200_000
MIN_EXPECTED = 20


def chi_square_against_pmf(sample, scale):
    """Chi-square statistic and threshold of ``sample`` against the discrete Laplace pmf.

    Bins: every k in [-B, B] plus the two tails, with B the largest value keeping every
    expected count >= MIN_EXPECTED. Threshold: ``scipy.stats.chi2.isf(ALPHA, bins - 1)``.
    """
    alpha = discrete_laplace_alpha(scale)
    n = sample.size

    def tail(b):  # P(Z > b)
        return alpha ** (b + 1) / (1 + alpha)

    bound = 0
    while min(discrete_laplace_pmf(bound + 1, scale), tail(bound + 1)) * n >= MIN_EXPECTED:
        bound += 1
    centre = discrete_laplace_pmf(np.arange(-bound, bound + 1), scale)
    probabilities = np.concatenate([[tail(bound)], centre, [tail(bound)]])
    expected = n * probabilities
    assert expected.min() >= MIN_EXPECTED
    assert math.isclose(probabilities.sum(), 1.0, rel_tol=1e-12)
    clipped = np.clip(sample, -bound - 1, bound + 1)
    observed = np.bincount(clipped + bound + 1, minlength=2 * bound + 3)
    statistic = float(np.sum((observed - expected) ** 2 / expected))
    return statistic, stats.chi2.isf(ALPHA, observed.size - 1)


# -- the exact scale ------------------------------------------------------------------------

def test_sampled_scale_keeps_small_rationals_and_rounds_others_up():
    assert discrete_laplace_sampled_scale(Fraction(5, 2)) == Fraction(5, 2)
    assert discrete_laplace_sampled_scale(0.25) == Fraction(1, 4)
    assert discrete_laplace_sampled_scale(7) == 7
    sampled = discrete_laplace_sampled_scale(0.1)  # 0.1 as a binary float has denominator 2**55
    assert Fraction(0.1) <= sampled <= Fraction(0.1) + Fraction(1, 2**20)
    assert sampled.denominator <= 2**20
    assert discrete_laplace_sampled_scale(10 / 3) >= Fraction(10 / 3)


def test_scales_above_2_to_the_20_use_a_coarser_grid_with_a_numerator_of_at_most_2_to_the_40():
    assert discrete_laplace_sampled_scale(2**20 + 1) == 2**20 + 1  # small rational: as is
    for scale in (2**20 + 0.1, 3e6 + 1 / 3, 2.0**33 + 0.5, 1e12, 2**40):
        sampled = discrete_laplace_sampled_scale(scale)
        assert Fraction(scale) <= sampled <= Fraction(scale) * (1 + Fraction(1, 2**39))
        assert sampled.numerator <= 2**40
    # the grid below 2**20 is unchanged: same sampled scale, same draws as before
    assert discrete_laplace_sampled_scale(2**20 - 0.1).denominator <= 2**20


@pytest.mark.parametrize("scale", [0, -1.0, float("nan"), float("inf"), 2**40 + 1])
def test_bad_scales_are_refused(scale):
    with pytest.raises(ValueError, match="scale must be"):
        discrete_laplace_noise(scale, 3, np.random.default_rng(0))


def test_non_numbers_are_refused():
    with pytest.raises(TypeError, match="scale must be a real number"):
        discrete_laplace_sampled_scale(True)
    with pytest.raises(ValueError, match="epsilon must be a finite number > 0"):
        discrete_laplace_scale(1, 0.0)


# -- privacy map ----------------------------------------------------------------------------

def test_scale_and_privacy_map_are_exact():
    assert discrete_laplace_scale(1, Fraction(1, 10)) == 10
    assert discrete_laplace_scale(2, 0.5) == 4
    for sensitivity, epsilon in [(1, 0.1), (3, 0.7), (2, Fraction(1, 3))]:
        scale = discrete_laplace_scale(sensitivity, epsilon)
        assert discrete_laplace_epsilon(sensitivity, scale) == float(epsilon)
    assert discrete_laplace_epsilon(0, 2.0) == 0.0


def test_alpha_matches_p1_parametrisation():
    """alpha = exp(-epsilon / sensitivity) when scale = sensitivity / epsilon."""
    assert discrete_laplace_alpha(discrete_laplace_scale(2, Fraction(1, 2))) == pytest.approx(
        math.exp(-0.25), rel=1e-15)


def test_event():
    event = discrete_laplace_event(1, discrete_laplace_scale(1, 0.5), note="support size")
    assert (event.mechanism, event.epsilon, event.numerics) == ("discrete-laplace", 0.5, "exact")


# -- pmf and variance -----------------------------------------------------------------------

@pytest.mark.parametrize("scale", [Fraction(1, 4), Fraction(5, 2), 30])
def test_pmf_normalised_and_variance_formula(scale):
    k = np.arange(-5000, 5001)
    pmf = discrete_laplace_pmf(k, scale)
    alpha = discrete_laplace_alpha(scale)
    np.testing.assert_allclose(pmf, (1 - alpha) / (1 + alpha) * alpha ** np.abs(k), rtol=1e-12)
    assert pmf.sum() == pytest.approx(1.0, rel=1e-12)
    assert discrete_laplace_variance(scale) == pytest.approx(np.sum(k**2 * pmf), rel=1e-10)
    variance = discrete_laplace_variance(scale)
    assert variance == pytest.approx(2 * alpha / (1 - alpha) ** 2, rel=1e-12)


# -- sampler --------------------------------------------------------------------------------

def test_output_is_int64_of_requested_shape_and_reproducible():
    a = discrete_laplace_noise(Fraction(5, 2), (4, 5), np.random.default_rng(3))
    b = discrete_laplace_noise(Fraction(5, 2), (4, 5), np.random.default_rng(3))
    assert a.dtype == np.int64 and a.shape == (4, 5)
    np.testing.assert_array_equal(a, b)
    assert discrete_laplace_noise(2, (), np.random.default_rng(0)).shape == ()


@pytest.mark.statistical
@pytest.mark.parametrize("scale", [Fraction(5, 2), 0.25, 7, 1.3])
def test_sampler_matches_pmf(scale):
    """Chi-square goodness of fit of 200000 draws against the pmf of the sampled scale.

    (1.3 is not a short binary fraction: it exercises the rounded-up grid scale.)

    False-failure probability ALPHA = 1e-6 (asymptotic chi-square law, every expected count
    >= 20; threshold ``scipy.stats.chi2.isf(ALPHA, bins - 1)``). The companion test below shows
    the same check rejecting broken samplers.
    """
    sample = discrete_laplace_noise(scale, N_DRAWS, np.random.default_rng(1234))
    statistic, threshold = chi_square_against_pmf(sample, discrete_laplace_sampled_scale(scale))
    assert statistic < threshold


def chi_square_in_quantile_bins(sample, scale, n_bins=40):
    """Chi-square of ``sample`` in ``n_bins`` integer bins of about equal probability.

    For scales so large that no single integer has an expected count >= MIN_EXPECTED. Exact
    bin probabilities from the CDF, P(Z <= k) = 1 - alpha^(k+1)/(1+alpha) for k >= 0 and
    alpha^(-k)/(1+alpha) for k < 0; threshold ``scipy.stats.chi2.isf(ALPHA, bins - 1)``.
    """
    b = float(scale)
    alpha = discrete_laplace_alpha(scale)

    def cdf(k):
        k = np.asarray(k, dtype=np.float64)
        upper = 1.0 - np.exp(-(np.maximum(k, 0.0) + 1.0) / b) / (1.0 + alpha)
        lower = np.exp(np.minimum(k, 0.0) / b) / (1.0 + alpha)
        return np.where(k >= 0, upper, lower)

    quantiles = np.linspace(0.0, 1.0, n_bins + 1)[1:-1]
    edges = np.unique(np.rint(stats.laplace.ppf(quantiles, scale=b)).astype(np.int64))
    probabilities = np.diff(np.concatenate([[0.0], cdf(edges), [1.0]]))
    expected = sample.size * probabilities
    assert expected.min() >= MIN_EXPECTED
    observed = np.bincount(np.searchsorted(edges, sample, side="left"), minlength=edges.size + 1)
    statistic = float(np.sum((observed - expected) ** 2 / expected))
    return statistic, stats.chi2.isf(ALPHA, observed.size - 1)


@pytest.mark.statistical
@pytest.mark.parametrize("scale", [2**20 + 0.1, 3e6 + 1 / 3, 1e12])
def test_sampler_matches_the_law_at_large_scales(scale):
    """Chi-square in 40 quantile bins of 200000 draws, against the sampled scale's law.

    Scales above 2**20 (the coarser grid). False-failure probability ALPHA = 1e-6
    (asymptotic chi-square, expected counts about 5000; threshold ``chi2.isf(ALPHA, 39)``).
    Power check: draws at 1.05 times the scale are rejected by the same check.
    """
    sampled = discrete_laplace_sampled_scale(scale)
    sample = discrete_laplace_noise(scale, N_DRAWS, np.random.default_rng(77))
    statistic, threshold = chi_square_in_quantile_bins(sample, sampled)
    assert statistic < threshold
    wrong = discrete_laplace_noise(sampled * Fraction(21, 20), N_DRAWS, np.random.default_rng(78))
    statistic, threshold = chi_square_in_quantile_bins(wrong, sampled)
    assert statistic > threshold


@pytest.mark.statistical
def test_pmf_check_rejects_broken_samplers():
    """Power check of ``chi_square_against_pmf`` at scale 5/2 (fixed seeds).

    Broken variants: continuous Laplace noise rounded to the nearest integer (the float route
    the exact sampler replaces), and the exact sampler run at scale 11/4 (10% too much noise).
    """
    scale = Fraction(5, 2)
    rng = np.random.default_rng(99)
    rounded = np.rint(rng.laplace(0.0, float(scale), N_DRAWS)).astype(np.int64)
    statistic, threshold = chi_square_against_pmf(rounded, scale)
    assert statistic > threshold
    wrong_scale = discrete_laplace_noise(Fraction(11, 4), N_DRAWS, rng)
    statistic, threshold = chi_square_against_pmf(wrong_scale, scale)
    assert statistic > threshold


@pytest.mark.statistical
@pytest.mark.parametrize("numerator, denominator", [(1, 3), (1, 1), (7, 10)])
def test_exact_bernoulli_exp_neg(numerator, denominator):
    """Bernoulli(exp(-a/d)) helper: exact two-sided binomial test, p-value > ALPHA = 1e-6.

    Power check: the same counts reject the probability exp(-1.1 a/d) (a 10% error in gamma).
    """
    n = N_DRAWS
    draws = dl._bernoulli_exp_neg(np.full(n, numerator, dtype=np.int64), denominator,
                                  np.random.default_rng(5))
    successes = int(draws.sum())
    gamma = numerator / denominator
    assert stats.binomtest(successes, n, math.exp(-gamma)).pvalue > ALPHA
    assert stats.binomtest(successes, n, math.exp(-1.1 * gamma)).pvalue < ALPHA


def test_exact_bernoulli_exp_neg_of_zero_is_one():
    assert dl._bernoulli_exp_neg(np.zeros(10, dtype=np.int64), 5, np.random.default_rng(0)).all()


@pytest.mark.statistical
def test_geometric_helper_law():
    """P(V = v) = (1 - e^-1) e^-v: chi-square over v = 0..6 and the tail {v >= 7}.

    False-failure probability ALPHA = 1e-6 (threshold ``chi2.isf(ALPHA, 7)``; every expected
    count > 150). Power check: the same counts against the law with rate 1.1 exceed it.
    """
    v = dl._geometric_exp_neg_one(N_DRAWS, np.random.default_rng(8))
    observed = np.bincount(np.minimum(v, 7), minlength=8)

    def expected(rate):
        p = (1 - math.exp(-rate)) * np.exp(-rate * np.arange(7))
        return N_DRAWS * np.append(p, math.exp(-7 * rate))

    threshold = stats.chi2.isf(ALPHA, 7)
    assert expected(1.0).min() > 150
    assert np.sum((observed - expected(1.0)) ** 2 / expected(1.0)) < threshold
    assert np.sum((observed - expected(1.1)) ** 2 / expected(1.1)) > threshold
