"""The Laplace mechanism: sampler, privacy map, event."""
import numpy as np
import pytest
from scipy import stats

from statistical import ALPHA
from dplasso.privacy.laplace import laplace_epsilon, laplace_event, laplace_noise, laplace_scale


def test_privacy_map_and_inverse_exact():
    assert laplace_epsilon(2.0, 4.0) == 0.5
    assert laplace_epsilon(0.0, 4.0) == 0.0
    assert laplace_scale(3.0, 0.25) == 12.0
    assert laplace_epsilon(3.0, laplace_scale(3.0, 0.25)) == 0.25


@pytest.mark.parametrize("call, message", [
    (lambda: laplace_epsilon(1.0, 0.0), "scale must be a finite number > 0"),
    (lambda: laplace_epsilon(-1.0, 1.0), "sensitivity must be a finite number >= 0"),
    (lambda: laplace_scale(1.0, 0.0), "epsilon must be a finite number > 0"),
    (lambda: laplace_scale(1.0, float("nan")), "epsilon must be a finite number > 0"),
    (lambda: laplace_noise(-1.0, 3, np.random.default_rng(0)), "scale must be a finite number > 0"),
])
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_event():
    event = laplace_event(2.0, 4.0, count=3, note="noisy count")
    assert (event.mechanism, event.epsilon, event.delta, event.count) == ("laplace", 0.5, 0.0, 3)
    assert event.numerics == "idealised-float"
    assert event.zcdp_rho == 0.125


def test_noise_shape_and_reproducibility():
    a = laplace_noise(2.0, (3, 4), np.random.default_rng(7))
    b = laplace_noise(2.0, (3, 4), np.random.default_rng(7))
    assert a.shape == (3, 4) and a.dtype == np.float64
    np.testing.assert_array_equal(a, b)


@pytest.mark.statistical
def test_noise_follows_laplace_law_and_the_test_rejects_a_wrong_scale():
    """One-sample KS test of 100000 draws against Lap(2).

    False-failure probability ALPHA = 1e-6: the threshold is the exact (1 - ALPHA) quantile of
    the KS statistic for n draws, ``scipy.stats.kstwo.isf(ALPHA, n)``. Power check: the same
    draws tested against Lap(2.2) (scale 10% off) exceed it.
    """
    n, scale = 100_000, 2.0
    sample = laplace_noise(scale, n, np.random.default_rng(20240601))
    threshold = stats.kstwo.isf(ALPHA, n)
    assert stats.kstest(sample, "laplace", args=(0, scale)).statistic < threshold
    assert stats.kstest(sample, "laplace", args=(0, 1.1 * scale)).statistic > threshold
