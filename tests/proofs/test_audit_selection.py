"""Empirical audits of one private Frank-Wolfe step: report-noisy-min and the exponential
mechanism choosing a vertex from the scores ``+-lam * grad``.

The pair (:func:`dplasso.audit.cases.selection_cases`) moves the scores of ``+lam e_j`` up and
of ``-lam e_j`` down by ``0.9933 Delta`` for j = 2..p, the configuration in which the per-step
privacy loss approaches its bound ``eps0 = 2 Delta / scale``. All runs of one audit are the
``K`` columns of one score matrix (the engine's batching).

Correct variants: the lower bound holds with probability at least ``1 - ALPHA``
(Clopper-Pearson, ``ALPHA = 1e-6`` from ``tests/statistical.py``), so ``eps_lower <= eps0``
fails with probability at most ``ALPHA``. Broken variants must be flagged: halved noise (true
``2 eps0``) at 2e5 runs per dataset; sensitivity understated by 1.2 (true ``1.2 eps0``) needs
2e6 runs because the loss nears its bound only on events of probability ~1e-3 (``slow``).
Fixed seeds.
"""
import numpy as np
import pytest
from scipy.special import expit

from statistical import ALPHA
from dplasso.audit.cases import SELECTORS, selection_cases
from dplasso.audit.statistics import FrankWolfeScores
from dplasso.optim.losses import LogisticLoss
from dplasso.privacy.calibration import fw_score_sensitivity
from dplasso.privacy.selection import exponential_mechanism_min, report_noisy_min

DEFAULT_TRIALS = 200_000
FULL_TRIALS = 2_000_000


def _check(case, result):
    if case.variant == "correct":
        assert result.eps_lower <= result.eps_claimed, (
            f"{case.mechanism_name}: audited {result.eps_lower:.3f} > claimed "
            f"{result.eps_claimed} (event {result.event}); false-failure rate <= {ALPHA}")
    else:
        assert result.violated, (
            f"{case.mechanism_name} [{case.variant}] not flagged: {result.eps_lower:.3f} <= "
            f"{result.eps_claimed}")


@pytest.mark.statistical
@pytest.mark.release.with_args(report_noisy_min, exponential_mechanism_min)
@pytest.mark.parametrize("selector", list(SELECTORS))
@pytest.mark.parametrize("variant", ["correct", "halved-noise"])
def test_one_step_audit(selector, variant):
    (case,) = [c for c in selection_cases(selector) if c.variant == variant]
    _check(case, case.run(DEFAULT_TRIALS, ALPHA, rng=11))


@pytest.mark.slow
@pytest.mark.statistical
@pytest.mark.release.with_args(report_noisy_min, exponential_mechanism_min)
@pytest.mark.parametrize("selector", list(SELECTORS))
@pytest.mark.parametrize("variant", ["correct", "halved-noise", "sensitivity-understated"])
def test_one_step_audit_full_power(selector, variant):
    (case,) = [c for c in selection_cases(selector) if c.variant == variant]
    _check(case, case.run(FULL_TRIALS, ALPHA, rng=13))


def test_pair_moves_the_scores_by_almost_the_sensitivity():
    """The pair is (nearly) worst case: the largest score change is sigma(lam) = 0.9933 of
    Delta = 2 lam / n, with the +lam e_j and -lam e_j scores moving in opposite directions."""
    n, p, lam = 60, 5, 5.0
    case = selection_cases("report-noisy-min", n=n, p=p, lam=lam)[0]
    W = np.zeros((p, 1))
    W[0, 0] = lam
    scores = FrankWolfeScores(LogisticLoss(), W, lam)
    change = (scores(*case.D_prime) - scores(*case.D)).ravel()
    sensitivity = fw_score_sensitivity("logistic", lam, n)
    assert np.allclose(change[1:p], expit(lam) * sensitivity)
    assert np.allclose(change[p + 1:], -expit(lam) * sensitivity)
    assert np.abs(change).max() <= sensitivity
