"""The Sparsifier's released count clip(c + Z, 1, m): its law, its privacy map, its spread.

- Law: draws of :func:`dplasso.estimators.noisy_count` against the exact pmf of the clipped
  double-geometric (resp. rounded Laplace) count, by a chi-square test at level ``ALPHA``;
  each test also rejects the broken variant (budget doubled, i.e. noise scale halved).
- Privacy map, to the number: for two datasets whose counts differ by the declared
  sensitivity, the largest log-ratio of the released law is exactly ``epsilon_count``; when
  they differ by twice the declared sensitivity (one example moving the LASSO support by two,
  the caveat of :mod:`dplasso.estimators.count`), it is twice ``epsilon_count``.
- Spread: double-geometric noise has smaller variance than rounded Laplace noise of the same
  scale (P1's reason for it).
"""
import math

import numpy as np
import pytest
from scipy.stats import chi2

from statistical import ALPHA
from dplasso.estimators import count_noise_scale, noisy_count
from dplasso.privacy.discrete_laplace import discrete_laplace_pmf, discrete_laplace_variance

C, N_MAX = 6, 20
N_DRAWS = 200_000
_TAIL = 4000  # pmf support evaluated over c +- _TAIL; the mass beyond is < e^-400 here


def _noise_pmf(noise, scale, k):
    """pmf of the integer noise; rounded Laplace: the Lap(b) mass of [k - 1/2, k + 1/2],
    ``sinh(1/(2b)) e^{-|k|/b}`` for ``k != 0`` and ``1 - e^{-1/(2b)}`` at 0 (no cancellation)."""
    if noise == "geometric":
        return discrete_laplace_pmf(k, scale)
    return np.where(k == 0, -np.expm1(-0.5 / scale),
                    np.sinh(0.5 / scale) * np.exp(-np.abs(k) / scale))


def released_pmf(c, epsilon, sensitivity, noise, n_max=N_MAX):
    """Exact law of clip(c + Z, 1, n_max) on 1..n_max (Z's pmf summed into the clipped ends)."""
    scale = float(count_noise_scale(epsilon, sensitivity, noise))
    k = np.arange(-_TAIL, _TAIL + 1)
    values = np.clip(c + k, 1, n_max)
    return np.bincount(values, weights=_noise_pmf(noise, scale, k), minlength=n_max + 1)[1:]


def _chi_square(draws, pmf):
    observed = np.bincount(draws, minlength=N_MAX + 1)[1:]
    expected = pmf * draws.size
    assert expected.min() >= 5  # every bin is populated enough for the chi-square law
    return float(np.sum((observed - expected) ** 2 / expected)), pmf.size - 1


@pytest.mark.statistical
@pytest.mark.release.with_args(noisy_count)
@pytest.mark.parametrize("noise", ["geometric", "laplace"])
def test_released_count_follows_its_law(noise):
    """Chi-square goodness of fit over the 20 released values (19 degrees of freedom).

    Threshold ``chi2.ppf(1 - ALPHA, 19)`` (about 55.8), so a correct sampler fails with
    probability ``ALPHA`` (asymptotically; every expected count here is above 1000). The same
    statistic for draws made with twice the budget (half the scale: the count noised with
    the whole budget instead of its share) is far above it: the test has power.
    """
    epsilon = 0.7
    pmf = released_pmf(C, epsilon, 1, noise)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
    threshold = chi2.ppf(1.0 - ALPHA, pmf.size - 1)
    draws = noisy_count(C, epsilon, 1, noise, np.random.default_rng(11), n_max=N_MAX,
                        size=N_DRAWS)
    statistic, _ = _chi_square(draws, pmf)
    assert statistic <= threshold, f"chi2 {statistic:.1f} > {threshold:.1f} (rate {ALPHA})"
    broken = noisy_count(C, 2 * epsilon, 1, noise, np.random.default_rng(12), n_max=N_MAX,
                         size=N_DRAWS)
    assert _chi_square(broken, pmf)[0] > threshold


@pytest.mark.parametrize("noise", ["geometric", "laplace"])
@pytest.mark.parametrize(("epsilon", "sensitivity"), [(0.5, 1), (1.3, 1), (0.8, 2)])
def test_privacy_loss_of_the_released_count(noise, epsilon, sensitivity):
    """Counts ``c`` and ``c + k * sensitivity`` (neighbours under the declared sensitivity when
    ``k = 1``): the largest |log ratio| of the released laws is ``k * epsilon``. It is at most
    that (rounding and clipping are post-processing of an ``epsilon/sensitivity``-Lipschitz
    log-density), and it is attained: on released values above both counts every probability
    is proportional to ``exp(-value / b)``, so their ratio is exactly ``exp(k sensitivity / b)``.
    """
    for k in (1, 2):
        low = released_pmf(C, epsilon, sensitivity, noise)
        high = released_pmf(C + k * sensitivity, epsilon, sensitivity, noise)
        loss = np.max(np.abs(np.log(low) - np.log(high)))
        assert loss <= k * epsilon * (1 + 1e-12)
        assert loss == pytest.approx(k * epsilon, rel=1e-9)


@pytest.mark.parametrize("epsilon", [0.1, 0.5, 1.0, 3.0])
def test_double_geometric_is_narrower_than_rounded_laplace(epsilon):
    """Exact variances at scale ``b = 1/epsilon``: discrete Laplace ``2a/(1-a)^2``
    (``a = e^-epsilon``) against rounded Laplace (summed from its pmf)."""
    scale = float(count_noise_scale(epsilon, 1, "geometric"))
    k = np.arange(-_TAIL * 10, _TAIL * 10 + 1)
    rounded_variance = float(np.sum(k**2 * _noise_pmf("laplace", scale, k)))
    geometric_variance = discrete_laplace_variance(scale)
    assert geometric_variance < rounded_variance
    a = math.exp(-epsilon)
    assert geometric_variance == pytest.approx(2 * a / (1 - a) ** 2, rel=1e-12)
