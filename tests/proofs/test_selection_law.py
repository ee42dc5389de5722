"""The selectors draw from their stated laws (chi-square over 200000 independent trials).

One call selects for K = 200000 columns of the same scores (the batching the Frank-Wolfe
engine uses), so the K results are i.i.d. draws from the selector's law. The observed counts
are compared with the exact law (softmax for the exponential mechanism, quadrature for
report-noisy-min). Each test also runs a broken variant (noise scale halved, or the other
mechanism's law) through the same check and asserts that it is rejected.
"""
import numpy as np
import pytest
from scipy import stats

from statistical import ALPHA
from dplasso.privacy.selection import (
    exponential_mechanism_min,
    exponential_mechanism_probabilities,
    report_noisy_min,
    report_noisy_min_probabilities,
)

N_TRIALS = 200_000
SCORES = np.array([0.0, 0.15, 0.3, 0.6, 0.9, 1.4])
SCALE = 0.4
MIN_EXPECTED = 20


def chi_square(select, scale, probabilities, seed):
    """Chi-square statistic of ``select`` run at ``scale`` against ``probabilities``, and the
    threshold ``scipy.stats.chi2.isf(ALPHA, m - 1)``."""
    scores = np.broadcast_to(SCORES[:, None], (SCORES.size, N_TRIALS))
    winners = select(scores, scale, np.random.default_rng(seed))
    observed = np.bincount(winners, minlength=SCORES.size)
    expected = N_TRIALS * probabilities
    assert expected.min() >= MIN_EXPECTED
    statistic = float(np.sum((observed - expected) ** 2 / expected))
    return statistic, stats.chi2.isf(ALPHA, SCORES.size - 1)


@pytest.mark.statistical
def test_report_noisy_min_law():
    """Report-noisy-min matches its quadrature law.

    False-failure probability ALPHA = 1e-6 (asymptotic chi-square with 5 degrees of freedom,
    every expected count >= 20; threshold ``chi2.isf(ALPHA, 5)``). The quadrature error
    (< 1e-10 per probability) shifts the statistic by < 1e-3.
    """
    law = report_noisy_min_probabilities(SCORES, SCALE)
    statistic, threshold = chi_square(report_noisy_min, SCALE, law, seed=101)
    assert statistic < threshold


@pytest.mark.statistical
def test_report_noisy_min_law_check_rejects_broken_variants():
    """Power check (fixed seeds): Laplace scale halved, and the exponential mechanism's law."""
    law = report_noisy_min_probabilities(SCORES, SCALE)
    statistic, threshold = chi_square(report_noisy_min, SCALE / 2, law, seed=102)
    assert statistic > threshold
    statistic, threshold = chi_square(
        report_noisy_min, SCALE, exponential_mechanism_probabilities(SCORES, SCALE), seed=103)
    assert statistic > threshold


@pytest.mark.statistical
def test_exponential_mechanism_law():
    """The Gumbel-max sampler matches the softmax law exp(-s/scale) / Z.

    False-failure probability ALPHA = 1e-6 (asymptotic chi-square with 5 degrees of freedom,
    every expected count >= 20; threshold ``chi2.isf(ALPHA, 5)``).
    """
    law = exponential_mechanism_probabilities(SCORES, SCALE)
    statistic, threshold = chi_square(exponential_mechanism_min, SCALE, law, seed=201)
    assert statistic < threshold


@pytest.mark.statistical
def test_exponential_mechanism_law_check_rejects_broken_variants():
    """Power check (fixed seeds): temperature halved, and report-noisy-min's law."""
    law = exponential_mechanism_probabilities(SCORES, SCALE)
    statistic, threshold = chi_square(exponential_mechanism_min, SCALE / 2, law, seed=202)
    assert statistic > threshold
    statistic, threshold = chi_square(
        exponential_mechanism_min, SCALE, report_noisy_min_probabilities(SCORES, SCALE), seed=203)
    assert statistic > threshold
