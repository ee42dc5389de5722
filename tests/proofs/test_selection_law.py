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


def chi_square(select, scale, probabilities, seed, scores=SCORES):
    """Chi-square statistic of ``select`` run at ``scale`` on ``scores`` against
    ``probabilities``, and the threshold ``scipy.stats.chi2.isf(ALPHA, m - 1)``."""
    batch = np.broadcast_to(scores[:, None], (scores.size, N_TRIALS))
    winners = select(batch, scale, np.random.default_rng(seed))
    observed = np.bincount(winners, minlength=scores.size)
    expected = N_TRIALS * probabilities
    assert expected.min() >= MIN_EXPECTED
    statistic = float(np.sum((observed - expected) ** 2 / expected))
    return statistic, stats.chi2.isf(ALPHA, scores.size - 1)


@pytest.mark.statistical
@pytest.mark.release.with_args(report_noisy_min)
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
@pytest.mark.release.with_args(report_noisy_min)
def test_report_noisy_min_law_check_rejects_broken_variants():
    """Power check (fixed seeds): Laplace scale halved, and the exponential mechanism's law."""
    law = report_noisy_min_probabilities(SCORES, SCALE)
    statistic, threshold = chi_square(report_noisy_min, SCALE / 2, law, seed=102)
    assert statistic > threshold
    statistic, threshold = chi_square(
        report_noisy_min, SCALE, exponential_mechanism_probabilities(SCORES, SCALE), seed=103)
    assert statistic > threshold


@pytest.mark.statistical
@pytest.mark.release.with_args(exponential_mechanism_min)
def test_exponential_mechanism_law():
    """The Gumbel-max sampler matches the softmax law exp(-s/scale) / Z.

    False-failure probability ALPHA = 1e-6 (asymptotic chi-square with 5 degrees of freedom,
    every expected count >= 20; threshold ``chi2.isf(ALPHA, 5)``).
    """
    law = exponential_mechanism_probabilities(SCORES, SCALE)
    statistic, threshold = chi_square(exponential_mechanism_min, SCALE, law, seed=201)
    assert statistic < threshold


@pytest.mark.statistical
@pytest.mark.release.with_args(exponential_mechanism_min)
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
@pytest.mark.release.with_args(selection._lazy_noisy_argmin)
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
@pytest.mark.release.with_args(selection._lazy_noisy_argmin)
@pytest.mark.parametrize("mechanism", sorted(LAWS))
def test_lazy_draw_law_check_rejects_broken_variants(mechanism):
    """Power check (fixed seeds): scale halved, and the deep noise not conditioned on the tail."""
    noise, probabilities = LAWS[mechanism]
    law = probabilities(SCORES, SCALE)
    statistic, threshold = chi_square(lazy(noise), SCALE / 2, law, seed=302)
    assert statistic > threshold
    statistic, threshold = chi_square(lazy(untruncated_tail(noise)), SCALE, law, seed=303)
    assert statistic > threshold


LAYOUTS = {  # (scores, scale): where a scan that stops short, or breaks ties badly, shows
    "minimum-last": (SCORES[::-1].copy(), SCALE),
    "tied-minima": (np.array([0.5, 0.5, 1.0, 0.5, 2.0, 0.5, 0.5, 0.5]), SCALE),
    "review-layout": (np.array([1.0, 0.5, 0.5, 2.0, 0.5]), 0.3),
}
"""Score layouts with the likely winner in the last row: a single minimum at the end, six
tied minima (the last row among them), and the layout in which the review's mutant (the late
draws scanning rows ``0..m-2``) gave chi-square 2081."""

PUBLIC = {"report-noisy-min": report_noisy_min,
          "exponential-mechanism": exponential_mechanism_min}


@pytest.mark.statistical
@pytest.mark.release.with_args(selection._full_noisy_argmin, selection._lazy_noisy_argmin)
@pytest.mark.parametrize("path", ["full", "lazy"])
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("mechanism", sorted(LAWS))
def test_selectors_law_with_the_winner_in_the_last_row(mechanism, layout, path):
    """Both selectors, both draws, on layouts whose likely winner is the last row.

    False-failure probability ALPHA = 1e-6 each (asymptotic chi-square with m - 1 degrees of
    freedom, every expected count >= 20; threshold ``chi2.isf(ALPHA, m - 1)``).
    """
    noise, probabilities = LAWS[mechanism]
    scores, scale = LAYOUTS[layout]
    select = PUBLIC[mechanism] if path == "full" else lazy(noise)
    statistic, threshold = chi_square(select, scale, probabilities(scores, scale), seed=311,
                                      scores=scores)
    assert statistic < threshold


def short_scan(monkeypatch):
    """Broken variant: the lazy draw's late draws scan rows ``0..m-2`` (the review's mutant)."""
    honest = selection._fallback

    def fallback(scores, *args):
        return honest(scores[:-1], *args)

    monkeypatch.setattr(selection, "_fallback", fallback)


@pytest.mark.statistical
@pytest.mark.release.with_args(selection._lazy_noisy_argmin)
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("mechanism", sorted(LAWS))
def test_winner_last_layouts_reject_a_scan_that_stops_short(mechanism, layout, monkeypatch):
    """Power check (fixed seed): the late draws never reach the last row."""
    noise, probabilities = LAWS[mechanism]
    scores, scale = LAYOUTS[layout]
    short_scan(monkeypatch)
    statistic, threshold = chi_square(lazy(noise), scale, probabilities(scores, scale),
                                      seed=312, scores=scores)
    assert statistic > threshold


FEW = {2: np.array([0.3, 0.0]), 3: np.array([0.0, 0.4, 0.1])}
"""Fewer than four candidates, where :math:`m^{-1/2} > 1/2`."""


@pytest.mark.statistical
@pytest.mark.release.with_args(selection._lazy_noisy_argmin)
@pytest.mark.parametrize("m", sorted(FEW))
@pytest.mark.parametrize("mechanism", sorted(LAWS))
def test_lazy_draw_law_below_four_candidates(mechanism, m):
    """The lazy draw forced onto 2 or 3 candidates keeps the law (its ``q`` is capped at 1/2).

    False-failure probability ALPHA = 1e-6 (asymptotic chi-square with m - 1 degrees of
    freedom, every expected count >= 20). The uncapped level is rejected for report-noisy-min,
    whose Laplace level ``-log(2q)`` is wrong above ``q = 1/2``.
    """
    noise, probabilities = LAWS[mechanism]
    law = probabilities(FEW[m], SCALE)
    statistic, threshold = chi_square(lazy(noise), SCALE, law, seed=321, scores=FEW[m])
    assert statistic < threshold


@pytest.mark.statistical
@pytest.mark.release.with_args(selection._lazy_noisy_argmin)
def test_lazy_draw_below_four_candidates_rejects_the_uncapped_level(monkeypatch):
    """Power check (fixed seed): ``q = m^(-1/2)`` (no cap) at 2 candidates. (At 3, ``q`` is
    0.58 and the bias too small for 200000 trials to show: chi-square 6.5.)"""
    monkeypatch.setattr(selection, "_deep_probability", lambda m: 1.0 / np.sqrt(m))
    law = report_noisy_min_probabilities(FEW[2], SCALE)
    statistic, threshold = chi_square(lazy(selection._LAPLACE), SCALE, law, seed=322,
                                      scores=FEW[2])
    assert statistic > threshold


LARGE_M = 40_000
LARGE_TRIALS = 4_000


SPECIAL = [3, 9000, 17_000, 25_000, 33_000, 39_999]


def large_problem(winner_last=False):
    """40000 candidates: the six ``SCORES`` on rows ``SPECIAL`` (reversed, so that the last
    row is the likely winner, with ``winner_last``), five masked (+inf, row 39998 among
    them), the rest at 4.5."""
    scores = np.full(LARGE_M, 4.5)
    scores[SPECIAL] = SCORES[::-1] if winner_last else SCORES
    scores[[1, 2, 20_000, 30_000, 39_998]] = np.inf
    return scores


MASKED_ROWS = np.r_[np.arange(0, LARGE_M - 1, 5000)[:7], LARGE_M - 1]


def masked_problem():
    """8 finite candidates (the minimum on the last row) among 40000; 39992 masked (+inf)."""
    scores = np.full(LARGE_M, np.inf)
    scores[MASKED_ROWS] = np.linspace(1.4, 0.0, MASKED_ROWS.size)
    return scores


def exact_law(mechanism, scores, scale):
    """The law over all candidates: the mechanism's over the finite ones, 0 on +inf."""
    finite = np.isfinite(scores)
    law = np.zeros(scores.size)
    law[finite] = LAWS[mechanism][1](scores[finite], scale)
    return law


def grouped_chi_square(select, scale, law, special, seed, scores):
    """Chi-square of ``select`` on ``scores`` over the ``special`` rows and, when it has any
    mass, the group of all other rows."""
    winners = select(np.broadcast_to(scores[:, None], (LARGE_M, LARGE_TRIALS)), scale,
                     np.random.default_rng(seed))
    assert np.isfinite(scores[winners]).all()
    special = np.asarray(special)
    observed = np.bincount(np.searchsorted(special, winners)[np.isin(winners, special)],
                           minlength=special.size)
    expected = LARGE_TRIALS * law[special]
    rest = 1.0 - law[special].sum()
    if rest > 1e-12:
        observed = np.append(observed, (~np.isin(winners, special)).sum())
        expected = np.append(expected, LARGE_TRIALS * rest)
    else:
        assert np.isin(winners, special).all()
    assert expected.min() >= MIN_EXPECTED
    statistic = float(np.sum((observed - expected) ** 2 / expected))
    return statistic, stats.chi2.isf(ALPHA, observed.size - 1)


@pytest.mark.statistical
@pytest.mark.release.with_args(selection._lazy_noisy_argmin)
@pytest.mark.parametrize("winner_last", [False, True], ids=["winner-first", "winner-last"])
@pytest.mark.parametrize("mechanism", sorted(LAWS))
def test_public_selectors_above_the_lazy_cutoff(mechanism, winner_last):
    """40000 candidates (the lazy path): the public selector matches its law, grouped.

    False-failure probability ALPHA = 1e-6 (asymptotic chi-square with 6 degrees of freedom
    over 4000 trials, every expected count >= 20). The law is over the finite candidates
    (masked ones have probability 0, asserted). The likely winner is row 3, or the last row
    (after a masked one). The broken variant (scale halved) is rejected.
    """
    assert LARGE_M > selection._LAZY_MIN_CANDIDATES
    scores = large_problem(winner_last)
    law = exact_law(mechanism, scores, SCALE)
    statistic, threshold = grouped_chi_square(PUBLIC[mechanism], SCALE, law, SPECIAL, 401,
                                              scores)
    assert statistic < threshold
    statistic, threshold = grouped_chi_square(PUBLIC[mechanism], SCALE / 2, law, SPECIAL, 402,
                                              scores)
    assert statistic > threshold


def counting(noise, drawn):
    """``noise`` with every variate it draws (full fills and tails) counted into ``drawn``."""
    def fill(out, work, scale, rng):
        drawn.append(out.size)
        noise.fill(out, work, scale, rng)

    def tail(size, q, rng):
        drawn.append(int(np.prod(size)))
        return noise.tail(size, q, rng)

    return selection._Noise(fill, noise.level, tail)


@pytest.mark.statistical
@pytest.mark.release.with_args(selection._lazy_noisy_argmin)
@pytest.mark.parametrize("mechanism", sorted(LAWS))
def test_public_selectors_with_all_but_eight_candidates_masked(mechanism, monkeypatch):
    """8 finite candidates and 39992 at +inf: the law of the 8, at a few hundred variates per
    trial (the deep set's about sqrt(m) and the late draws of the finite candidates; drawing
    every masked candidate, as before, took 40000 per trial).

    False-failure probability ALPHA = 1e-6 (asymptotic chi-square with 7 degrees of freedom
    over 4000 trials, every expected count >= 20). The scale-halved variant is rejected.
    """
    scores = masked_problem()
    law = exact_law(mechanism, scores, SCALE)
    name = {"report-noisy-min": "_LAPLACE", "exponential-mechanism": "_GUMBEL_MIN"}[mechanism]
    drawn = []
    monkeypatch.setattr(selection, name, counting(getattr(selection, name), drawn))
    statistic, threshold = grouped_chi_square(PUBLIC[mechanism], SCALE, law, MASKED_ROWS, 411,
                                              scores)
    assert statistic < threshold
    assert sum(drawn) < 500 * LARGE_TRIALS
    statistic, threshold = grouped_chi_square(PUBLIC[mechanism], SCALE / 2, law, MASKED_ROWS,
                                              412, scores)
    assert statistic > threshold
