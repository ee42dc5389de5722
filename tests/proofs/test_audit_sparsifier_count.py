"""Empirical audit of the Sparsifier's noisy count: clip(c + DoubleGeometric, 1, p).

The pair is the count search's witness (the neighbour that moved the non-private LASSO
count the most, ``found``). Two calibrations are audited on it:

- noise calibrated to the *declared* count sensitivity 1 (P1's reading): the claim eps1
  holds only if no neighbour moves the count by more than 1. When the search found a larger
  change ``k``, the pair's true privacy loss is ``k * eps1`` and the audit must show the
  violation; when it did not, the audit must accept;
- noise calibrated to ``k`` itself: the claim eps1 must be accepted on this pair, and the
  broken variant (count noised with the whole budget, twice its share) must be flagged.

Lower bounds hold with probability at least ``1 - ALPHA`` (Clopper-Pearson, ``ALPHA = 1e-6``
from ``tests/statistical.py``): an acceptance assertion fails falsely with probability at most
``ALPHA``. Flagging assertions need power: the double-geometric loss reaches its bound on
events of probability ~0.2-0.5, so 1e5 runs resolve a factor of 2. Fixed seeds.
"""
import math

import pytest

from statistical import ALPHA
from dplasso.audit.cases import count_sensitivity_case, sparsifier_count_cases
from dplasso.estimators.count import noisy_count

N_TRIALS = 100_000


@pytest.fixture(scope="module")
def count_search():
    case = count_sensitivity_case(random_state=0)
    return case, case.run(n_random=8, n_rows=8, rng=0)


@pytest.mark.statistical
@pytest.mark.release.with_args(noisy_count)
def test_declared_count_sensitivity_is_audited_on_the_worst_pair_found(count_search):
    case, search = count_search
    correct, _ = sparsifier_count_cases(case, search, count_sensitivity=1)
    result = correct.run(N_TRIALS, ALPHA, rng=3)
    if search.found > 1:
        assert result.violated, (
            f"the search moved the count by {search.found:g} > 1, yet the audit of the "
            f"declared sensitivity 1 found only {result.eps_lower:.3f} <= {result.eps_claimed}")
    else:
        assert not result.violated


@pytest.mark.statistical
@pytest.mark.release.with_args(noisy_count)
def test_count_calibrated_to_the_found_change(count_search):
    case, search = count_search
    sensitivity = max(1, math.ceil(search.found))
    correct, broken = sparsifier_count_cases(case, search, count_sensitivity=sensitivity)
    assert broken.variant == "count-wrong-epsilon"
    accepted = correct.run(N_TRIALS, ALPHA, rng=5)
    assert accepted.eps_lower <= accepted.eps_claimed, (
        f"audited {accepted.eps_lower:.3f} > claimed {accepted.eps_claimed}; "
        f"false-failure rate <= {ALPHA}")
    flagged = broken.run(N_TRIALS, ALPHA, rng=7)
    assert flagged.violated, (
        f"count noised with the whole budget not flagged: {flagged.eps_lower:.3f} <= "
        f"{flagged.eps_claimed}")
