r"""The one-coordinate screening round (lemma ``lem-noisy-min-screening``, theorem
``thm-noisy-min-screening``): neighbour search, empirical audit, law through the public
function, ledger.

- **Search** (:func:`dplasso.audit.noisy_min_screening.noisy_min_screening_sensitivity_cases`):
  every change found of the candidate scores (sup norm) is at most the declared
  :math:`\Delta_g = 2c/n`; on the two tight cases it exceeds ``0.9`` of it, so a declaration of
  half the lemma's value would be refuted.
- **Audit** (:func:`~dplasso.audit.noisy_min_screening.noisy_min_screening_cases`, the library's
  own :func:`~dplasso.screening.noisy_min.release_noisy_min_screen` on a crafted pair):
  Clopper-Pearson lower bound at failure probability ``ALPHA`` (``tests/statistical.py``), so
  the correct release fails ``eps_lower <= eps`` with probability at most ``ALPHA``; the
  variant calibrated to half of :math:`\Delta_g` must be flagged (fixed seed; it audits
  above 5 against its claim of 3 at 2e5 runs).
- **Law** through :func:`dplasso.screening.private_screen_one`: 200000 trials of one round on
  one dataset; the released choices against report-noisy-min's law (quadrature) at the
  scores recomputed here with numpy and the scale read from the ledger event; chi-square at
  ``ALPHA`` (threshold ``chi2.isf(ALPHA, k - 1)``, every expected count >= 20). The same
  check rejects the function run with half the noise while its ledger says the full scale.
- **The steps' law** through :func:`dplasso.screening.private_frank_wolfe_screening`: one
  step after one round (``T = 1``, ``every = 1``; at the zero start the round's only candidate
  is "screen nothing"), 200000 trials; the released vertex (``W = (2/3) s``) against
  report-noisy-min's law over the ``2p`` vertex scores :math:`\pm\lambda g_j` (numpy) at the
  scale ``2 Delta_f / eps_f`` of the ledger's step event; chi-square at ``ALPHA``. The check
  rejects the steps drawn at half the plan's scale (the ledger unchanged).
"""
import numpy as np
import pytest
from scipy import stats
from scipy.special import expit

import dplasso.screening.iterative as iterative
import dplasso.screening.noisy_min as noisy_min
from dplasso.audit.broken import halved_noise
from dplasso.audit.noisy_min_screening import (
    noisy_min_screening_cases,
    noisy_min_screening_sensitivity_cases,
)
from dplasso.optim.losses import LogisticLoss
from dplasso.privacy import PrivacyLedger, REPLACE_ONE
from dplasso.privacy.selection import ReportNoisyMinSelector, report_noisy_min_probabilities
from dplasso.screening import private_frank_wolfe_screening, private_screen_one
from statistical import ALPHA

SEARCH_CASES = noisy_min_screening_sensitivity_cases()


@pytest.mark.parametrize("case", SEARCH_CASES, ids=lambda c: c.quantity)
def test_search_stays_below_the_declared_sensitivity(case):
    found = case.run(n_random=32, n_rows=None, rng=0)
    assert found.found <= case.declared * (1 + 1e-9), (found.found, case.declared)
    assert found.relation == REPLACE_ONE
    if case.tight:
        assert found.found > 0.9 * case.declared, (found.found, case.declared)


@pytest.mark.statistical
@pytest.mark.release.with_args(noisy_min.release_noisy_min_screen)
@pytest.mark.parametrize("case", noisy_min_screening_cases(), ids=lambda c: c.variant)
def test_audit_accepts_the_round_and_flags_half_the_sensitivity(case):
    result = case.run(200_000, ALPHA, rng=7)
    if case.variant == "correct":
        assert result.eps_lower <= result.eps_claimed, (
            f"audited {result.eps_lower:.3f} > claimed {result.eps_claimed}; "
            f"false-failure rate <= {ALPHA}")
    else:
        assert result.violated, (case.variant, result.eps_lower)


N_TRIALS = 200_000
EPSILON = 1.5


def _law_problem():
    rng = np.random.default_rng(11)
    n, p, lam = 30, 6, 2.0
    X = rng.uniform(-1, 1, (n, p))
    y = (X[:, 0] - X[:, 1] + 0.3 * rng.standard_normal(n) > 0).astype(float)
    w = np.array([0.6, -0.5, 0.3, 0.0, 0.2, 0.0])  # four candidates and "screen nothing"
    return X, y, w, lam


def _exact_scores(X, y, w):
    """|g_j| on the support and ||g||_inf, from numpy (not the library's loss code)."""
    g = X.T @ (expit(X @ w) - y) / X.shape[0]
    return np.append(np.abs(g[w != 0]), np.abs(g).max())


def _chi_square(select_rng):
    X, y, w, lam = _law_problem()
    ledger = PrivacyLedger()
    W = np.broadcast_to(w[:, np.newaxis], (w.size, N_TRIALS))
    _, info = private_screen_one(X, y, W, lam, LogisticLoss(), EPSILON, select_rng,
                                 ledger=ledger)
    (event,) = ledger.events
    scale = 2.0 * event.sensitivity / event.epsilon  # report-noisy-min: eps = 2 Delta / b
    law = report_noisy_min_probabilities(_exact_scores(X, y, w), scale)
    codes = np.flatnonzero(w)  # candidate j -> its rank; "screen nothing" (p) last
    index = np.full(w.size + 1, -1)
    index[codes] = np.arange(codes.size)
    index[w.size] = codes.size
    observed = np.bincount(index[info.chosen], minlength=law.size)
    assert (index[info.chosen] >= 0).all(), "a zero coordinate was screened"
    expected = N_TRIALS * law
    assert expected.min() >= 20
    statistic = float(np.sum((observed - expected) ** 2 / expected))
    return statistic, stats.chi2.isf(ALPHA, law.size - 1), event


@pytest.mark.statistical
@pytest.mark.release.with_args(private_screen_one)
def test_law_through_the_public_function():
    statistic, threshold, event = _chi_square(np.random.default_rng(5))
    assert event.mechanism == "report-noisy-min" and event.relation == REPLACE_ONE
    assert event.epsilon == pytest.approx(EPSILON, rel=1e-12) and event.delta == 0
    assert statistic < threshold


@pytest.mark.statistical
@pytest.mark.release.with_args(private_screen_one)
def test_law_check_rejects_half_the_noise(monkeypatch):
    monkeypatch.setattr(noisy_min, "report_noisy_min", halved_noise(noisy_min.report_noisy_min))
    statistic, threshold, _ = _chi_square(np.random.default_rng(6))
    assert statistic > threshold


def _step_chi_square(monkeypatch, halved):
    """Statistic and threshold of the first step's released vertices against their law."""
    if halved:
        monkeypatch.setattr(iterative, "ReportNoisyMinSelector",
                            lambda scale: ReportNoisyMinSelector(0.5 * scale))
    X, y, _, lam = _law_problem()
    n, p = X.shape
    result = private_frank_wolfe_screening(X, y, lam, LogisticLoss(), 1, EPSILON, 1e-5,
                                           every=1, n_trials=N_TRIALS, random_state=8)
    step, screen = result.ledger.events
    assert step.count == 1 and screen.mechanism == step.mechanism == "report-noisy-min"
    assert (result.screened is None) or not result.screened.any()  # the round at W = 0
    g = X.T @ (0.5 - y) / n  # the gradient at the zero start, from numpy
    law = report_noisy_min_probabilities(np.concatenate([lam * g, -lam * g]),
                                         2.0 * step.sensitivity / step.epsilon)
    j = np.argmax(np.abs(result.W), axis=0)
    value = result.W[j, np.arange(N_TRIALS)]
    assert np.allclose(np.abs(value), 2.0 * lam / 3.0, rtol=1e-12)
    assert np.count_nonzero(result.W, axis=0).max() == 1
    index = np.where(value > 0, j, p + j)
    expected = N_TRIALS * law
    assert expected.min() >= 20
    observed = np.bincount(index, minlength=law.size)
    statistic = float(np.sum((observed - expected) ** 2 / expected))
    return statistic, stats.chi2.isf(ALPHA, law.size - 1)


@pytest.mark.statistical
@pytest.mark.release.with_args(private_frank_wolfe_screening)
@pytest.mark.parametrize("halved", [False, True])
def test_steps_select_by_their_ledgers_law(monkeypatch, halved):
    """12 vertices, threshold 48.9: the correct steps give 6.4, the halved ones 5160."""
    statistic, threshold = _step_chi_square(monkeypatch, halved)
    assert (statistic > threshold) if halved else (statistic < threshold), statistic
