"""The Sparsifier count's sensitivity has no theorem: the search reports what it finds.

The count is the number of nonzero coefficients of a non-private L1 logistic fit; P1's
Sparsifier noises it with double-geometric noise calibrated to a declared sensitivity 1.
These tests check that the search's report is a real witness (the neighbouring dataset it
returns changes the count by exactly what it reports), that the book's worst-case pair moves
the library's computed count from 1 to p (refuting P1's 1), and that the library's default
sensitivity is the bound that pair cannot beat. Whether P1's value survives on the search's
pair is audited in ``test_audit_sparsifier_count.py``. Seeded, not statistical.
"""
import numpy as np
import pytest

from dplasso.audit.cases import count_sensitivity_case, count_worst_case_pair
from dplasso.estimators import SparsifierClassifier, lasso_support_size
from dplasso.estimators.params import DEFAULT_LAM
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


@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("p", [4, 16])
def test_worst_case_pair_moves_the_count_from_one_to_p(p, fit_intercept):
    """Prop. prop-count-sensitivity through the library's own count at the default radius."""
    D, D_prime = count_worst_case_pair(p)
    differs = np.any(D_prime[0] != D[0], axis=1) | (D_prime[1] != D[1])
    assert differs.sum() == 1 and np.abs(D_prime[0]).max() <= 1.0
    counts = [lasso_support_size(*data, lam=DEFAULT_LAM, fit_intercept=fit_intercept)
              for data in (D, D_prime)]
    assert counts == [1, p]


def test_default_count_sensitivity_covers_the_worst_case_and_p1s_does_not():
    p = 8
    D, D_prime = count_worst_case_pair(p)
    change = abs(lasso_support_size(*D_prime, lam=DEFAULT_LAM)
                 - lasso_support_size(*D, lam=DEFAULT_LAM))
    default = SparsifierClassifier(lam=DEFAULT_LAM, n_iter=5, classes=[0, 1],
                                   random_state=0).fit(*D)
    assert change == p - 1 > 1
    assert default.privacy_ledger_.events[0].sensitivity == p >= change
    with pytest.raises(ValueError, match="need p >= 2 and an even m"):
        count_worst_case_pair(p, m=3)
