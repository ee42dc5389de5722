"""The selectors draw from their stated laws (chi-square over 200000 independent trials).

One call selects for K = 200000 columns of the same scores (the batching the Frank-Wolfe
engine uses), so the K results are i.i.d. draws from the selector's law. The observed counts
are compared with the exact law (softmax for the exponential mechanism, quadrature for
report-noisy-min). Each test also runs a broken variant (noise scale halved, or the other
mechanism's law) through the same check and asserts that it is rejected.

Both sampling paths are checked: the full draw (every candidate's noise; the public
functions on these six scores) and the lazy draw (noise only where it can win; what the
public functions run above ``selection._LAZY_MIN_CANDIDATES`` candidates), here called
directly on the same six scores, at a scale where the fallback draws run in most trials,
and through the public functions on 40000 candidates. The lazy draw's broken variant draws
the deep candidates' noise from the whole law instead of its lower tail and must be
rejected.
"""
import numpy as np
import pytest
from scipy import stats

from statistical import ALPHA
from dplasso.privacy import selection
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


def lazy(noise):
    """The lazy draw of ``noise`` as a selector ``select(scores, scale, rng)``."""
    def select(scores, scale, rng):
        return selection._lazy_noisy_argmin(np.asarray(scores, dtype=np.float64), scale, rng,
                                            noise)
    return select


LAWS = {
    "report-noisy-min": (selection._LAPLACE, report_noisy_min_probabilities),
    "exponential-mechanism": (selection._GUMBEL_MIN, exponential_mechanism_probabilities),
}


@pytest.mark.statistical
@pytest.mark.parametrize("scale", [SCALE, 4 * SCALE])
@pytest.mark.parametrize("mechanism", sorted(LAWS))
def test_lazy_draw_law(mechanism, scale):
    """The lazy draw matches the mechanism's exact law.

    False-failure probability ALPHA = 1e-6 (asymptotic chi-square with 5 degrees of freedom,
    every expected count >= 20; threshold ``chi2.isf(ALPHA, 5)``). At ``SCALE`` most trials
    run the fallback draws, at ``4 * SCALE`` few do.
    """
    noise, probabilities = LAWS[mechanism]
    statistic, threshold = chi_square(lazy(noise), scale, probabilities(SCORES, scale),
                                      seed=301)
    assert statistic < threshold


def untruncated_tail(noise):
    """Broken variant: the deep candidates' noise drawn from the whole law, not its tail."""
    def tail(shape, q, rng):
        out = np.empty(shape)
        noise.fill(out, np.empty(shape), 1.0, rng)
        return out
    return selection._Noise(noise.fill, noise.level, tail)


@pytest.mark.statistical
@pytest.mark.parametrize("mechanism", sorted(LAWS))
def test_lazy_draw_law_check_rejects_broken_variants(mechanism):
    """Power check (fixed seeds): scale halved, and the deep noise not conditioned on the tail."""
    noise, probabilities = LAWS[mechanism]
    law = probabilities(SCORES, SCALE)
    statistic, threshold = chi_square(lazy(noise), SCALE / 2, law, seed=302)
    assert statistic > threshold
    statistic, threshold = chi_square(lazy(untruncated_tail(noise)), SCALE, law, seed=303)
    assert statistic > threshold


LARGE_M = 40_000
LARGE_TRIALS = 4_000


def large_problem():
    """40000 candidates: the six ``SCORES``, five masked (+inf), the rest at 4.5."""
    scores = np.full(LARGE_M, 4.5)
    scores[[3, 9000, 17_000, 25_000, 33_000, 39_999]] = SCORES
    scores[[1, 2, 20_000, 30_000, 39_998]] = np.inf
    return scores, [3, 9000, 17_000, 25_000, 33_000, 39_999]


def grouped_chi_square(select, scale, law, special, seed):
    """Chi-square of ``select`` on the large problem over 7 groups (6 special, the rest)."""
    scores, _ = large_problem()
    winners = select(np.broadcast_to(scores[:, None], (LARGE_M, LARGE_TRIALS)), scale,
                     np.random.default_rng(seed))
    assert np.isfinite(scores[winners]).all()
    observed = np.append(np.bincount(np.searchsorted(special, winners)[
        np.isin(winners, special)], minlength=6), (~np.isin(winners, special)).sum())
    expected = LARGE_TRIALS * np.append(law[special], 1.0 - law[special].sum())
    assert expected.min() >= MIN_EXPECTED
    statistic = float(np.sum((observed - expected) ** 2 / expected))
    return statistic, stats.chi2.isf(ALPHA, 6)


@pytest.mark.statistical
@pytest.mark.parametrize("mechanism", sorted(LAWS))
def test_public_selectors_above_the_lazy_cutoff(mechanism):
    """40000 candidates (the lazy path): the public selector matches its law, grouped.

    False-failure probability ALPHA = 1e-6 (asymptotic chi-square with 6 degrees of freedom
    over 4000 trials, every expected count >= 20). The law is over the finite candidates
    (masked ones have probability 0, asserted). The broken variant (scale halved) is rejected.
    """
    assert LARGE_M > selection._LAZY_MIN_CANDIDATES
    select = {"report-noisy-min": report_noisy_min,
              "exponential-mechanism": exponential_mechanism_min}[mechanism]
    scores, special = large_problem()
    finite = np.isfinite(scores)
    law = np.zeros(LARGE_M)
    law[finite] = LAWS[mechanism][1](scores[finite], SCALE)
    statistic, threshold = grouped_chi_square(select, SCALE, law, special, seed=401)
    assert statistic < threshold
    statistic, threshold = grouped_chi_square(select, SCALE / 2, law, special, seed=402)
    assert statistic > threshold
