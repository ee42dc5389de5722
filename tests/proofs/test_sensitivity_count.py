"""The Sparsifier count's sensitivity has no theorem: the search reports what it finds.

The count is the number of nonzero coefficients of a non-private L1 logistic fit; P1's
Sparsifier noises it with double-geometric noise calibrated to a declared sensitivity
(default 1). These tests check that the search's report is a real witness (the neighbouring
dataset it returns changes the count by exactly what it reports); whether the declared value
survives is audited in ``test_audit_sparsifier_count.py``. Seeded, not statistical.
"""
import numpy as np
import pytest

from dplasso.audit.cases import count_sensitivity_case
from dplasso.privacy.neighbours import REPLACE_ONE


@pytest.fixture(scope="module")
def count_search():
    case = count_sensitivity_case(random_state=0)
    return case, case.run(n_random=8, n_rows=8, rng=0)


def test_count_search_reports_a_reproducible_witness(count_search):
    case, result = count_search
    X_prime, y_prime = result.witness.apply(case.X, case.y)
    change = abs(case.statistic(X_prime, y_prime)[0] - case.statistic(case.X, case.y)[0])
    assert change == result.found
    assert float(result.found).is_integer()
    assert result.relation == REPLACE_ONE
    assert result.declared == 1.0 and not case.theorem


def test_count_witness_is_a_replace_one_neighbour_in_the_domain(count_search):
    case, result = count_search
    X_prime, y_prime = result.witness.apply(case.X, case.y)
    differs = np.any(X_prime != case.X, axis=1) | (y_prime != case.y)
    assert X_prime.shape == case.X.shape and differs.sum() <= 1
    assert np.abs(X_prime).max() <= 1.0 and set(np.unique(y_prime)) <= {0, 1}
