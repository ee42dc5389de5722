"""The split screening release (lemma ``lem-split-screening-sensitivity``, theorem
``thm-split-screening``): neighbour search and empirical audit.

Search: the rescaled release :class:`dplasso.audit.statistics.SplitScreening` has declared
L2 sensitivity sqrt(2); every change found must stay below it, and on the tight Rademacher
case the change found must exceed half of it (a declaration of half the lemma's value would
be caught). Audit: Clopper-Pearson lower bound with failure probability ``ALPHA`` (from
``tests/statistical.py``), so the correct release fails ``eps_lower <= eps_claimed`` with
probability at most ``ALPHA``; the broken variants (noise halved; the gradient part
calibrated to one coordinate's sensitivity, a third of its noise at p = 9) must be flagged.
"""
import math

import numpy as np
import pytest

from dplasso.audit.cases import split_screening_cases, split_screening_sensitivity_case
from dplasso.audit.sensitivity import sensitivity_search
from dplasso.audit.statistics import SplitScreening
from dplasso.optim.l1_ball import random_l1_ball_init
from dplasso.optim.losses import SquaredLoss
from dplasso.screening.private import private_screen_split
from statistical import ALPHA


def test_search_stays_below_the_declared_sensitivity_and_comes_close():
    case = split_screening_sensitivity_case()
    found = case.run(n_random=32, n_rows=None, rng=0)
    assert found.found <= case.declared * (1 + 1e-9)
    assert found.found > 0.5 * case.declared


def test_search_squared_loss_random_weights_stays_below():
    rng = np.random.default_rng(3)
    n, p, lam = 30, 5, 2.0
    X = rng.uniform(-1, 1, (n, p))
    y = np.clip(X[:, 0] - X[:, 1] + 0.2 * rng.standard_normal(n), -1.0, 1.0)
    w = random_l1_ball_init((p, 1), lam, rng)[:, 0]
    statistic = SplitScreening(SquaredLoss(y_bound=1.0), w, lam)
    found = sensitivity_search(statistic, X, y, math.sqrt(2.0), norm="2", n_random=32,
                               n_rows=None, rng=1)
    assert found.found <= math.sqrt(2.0) * (1 + 1e-9)


@pytest.mark.statistical
@pytest.mark.release.with_args(private_screen_split)
@pytest.mark.parametrize("case", split_screening_cases(), ids=lambda c: c.variant)
def test_audit_accepts_the_release_and_flags_the_broken_variants(case):
    result = case.run(1_000_000, ALPHA, rng=7)
    if case.variant == "correct":
        assert result.eps_lower <= result.eps_claimed, (
            f"audited {result.eps_lower:.3f} > claim {result.eps_claimed}; "
            f"false-failure rate <= {ALPHA}")
    else:
        assert result.violated, (case.variant, result.eps_lower)
