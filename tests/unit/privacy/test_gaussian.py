"""The Gaussian mechanism: sampler, zCDP map, (epsilon, delta) calibrations."""
import math

import numpy as np
import pytest
from scipy import integrate, stats

from statistical import ALPHA
from dplasso.privacy.gaussian import (
    gaussian_delta,
    gaussian_event,
    gaussian_noise,
    gaussian_rho,
    gaussian_sigma_analytic,
    gaussian_sigma_classical,
    gaussian_sigma_for_rho,
)


def test_rho_map_exact_and_inverse():
    assert gaussian_rho(2.0, 4.0) == 0.125
    assert gaussian_rho(3.0, 1.5) == 2.0
    sigma = gaussian_sigma_for_rho(2.0, 0.125)
    assert sigma == 4.0


def _delta_by_integration(sensitivity, sigma, epsilon):
    """delta(eps) = integral of (p(x) - e^eps q(x))_+ for p = N(0, s^2), q = N(sensitivity, s^2)."""
    p = stats.norm(0.0, sigma).pdf
    q = stats.norm(sensitivity, sigma).pdf
    # p > e^eps q exactly for x < sensitivity/2 - eps sigma^2/sensitivity.
    cut = sensitivity / 2 - epsilon * sigma**2 / sensitivity
    value, _ = integrate.quad(lambda x: p(x) - math.exp(epsilon) * q(x), -np.inf, cut,
                              epsabs=1e-15, epsrel=1e-12)
    return value


@pytest.mark.parametrize("sensitivity, sigma, epsilon", [(1.0, 1.0, 0.5), (2.0, 3.0, 1.0),
                                                         (1.0, 0.7, 3.0)])
def test_delta_profile_matches_direct_integration(sensitivity, sigma, epsilon):
    assert gaussian_delta(sensitivity, sigma, epsilon) == pytest.approx(
        _delta_by_integration(sensitivity, sigma, epsilon), rel=1e-8)


@pytest.mark.parametrize("epsilon, delta", [(0.5, 1e-5), (2.0, 1e-8), (8.0, 1e-10)])
def test_analytic_sigma_is_the_smallest_private_sigma(epsilon, delta):
    sigma = gaussian_sigma_analytic(1.5, epsilon, delta)
    assert gaussian_delta(1.5, sigma, epsilon) <= delta
    assert gaussian_delta(1.5, sigma * (1 - 1e-9), epsilon) > delta


@pytest.mark.parametrize("epsilon, delta", [(0.1, 1e-5), (0.9, 1e-3)])
def test_classical_sigma_is_private_and_looser_than_analytic(epsilon, delta):
    classical = gaussian_sigma_classical(1.0, epsilon, delta)
    assert classical == math.sqrt(2 * math.log(1.25 / delta)) / epsilon
    assert gaussian_delta(1.0, classical, epsilon) <= delta
    assert gaussian_sigma_analytic(1.0, epsilon, delta) < classical


@pytest.mark.parametrize("call, message", [
    (lambda: gaussian_sigma_classical(1.0, 1.0, 1e-5), "needs epsilon < 1"),
    (lambda: gaussian_sigma_classical(1.0, 0.5, 0.0), r"delta must lie in \(0, 1\)"),
    (lambda: gaussian_sigma_analytic(1.0, 0.0, 1e-5), "epsilon must be a finite number > 0"),
    (lambda: gaussian_rho(1.0, 0.0), "sigma must be a finite number > 0"),
    (lambda: gaussian_sigma_for_rho(1.0, -1.0), "rho must be a finite number > 0"),
    (lambda: gaussian_noise(0.0, 3, np.random.default_rng(0)), "sigma must be a finite number > 0"),
])
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_event_is_zcdp_only():
    event = gaussian_event(2.0, 4.0, count=10)
    assert event.epsilon is None and event.rho == 0.125 and event.count == 10


@pytest.mark.statistical
def test_noise_follows_normal_law_and_the_test_rejects_a_wrong_sigma():
    """One-sample KS test of 100000 draws against N(0, 1.5^2).

    False-failure probability ALPHA = 1e-6 (threshold ``scipy.stats.kstwo.isf(ALPHA, n)``).
    Power check: the same draws against sigma = 1.65 exceed the threshold.
    """
    n = 100_000
    sample = gaussian_noise(1.5, n, np.random.default_rng(11))
    threshold = stats.kstwo.isf(ALPHA, n)
    assert stats.kstest(sample, "norm", args=(0, 1.5)).statistic < threshold
    assert stats.kstest(sample, "norm", args=(0, 1.65)).statistic > threshold
