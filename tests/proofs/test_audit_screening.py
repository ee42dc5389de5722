"""Empirical audit of P2's private screening release (one round), correct and broken.

The case (:func:`dplasso.audit.cases.screening_cases`) releases the screening vector
``(u_1..u_p, T)`` at the optimum of a Rademacher-design logistic problem through the library's
own Gaussian release, on the neighbour the L2 sensitivity search finds (the vector moves by
about 0.78 of the lemma's bound); outputs are projected onto the direction of that move.

Correct: the lower bound holds with probability at least ``1 - ALPHA`` (Clopper-Pearson,
``ALPHA = 1e-6`` from ``tests/statistical.py``), so ``eps_lower <= eps`` fails with
probability at most ``ALPHA``. Broken (noise calibrated to half the lemma's sensitivity, so
the shift is about 1.56 of the calibrated one): must be flagged at 1e6 runs. Fixed seeds.
"""
import numpy as np
import pytest

from statistical import ALPHA
from dplasso.audit.cases import screening_cases
from dplasso.audit.statistics import ScreeningVector
from dplasso.optim.losses import LogisticLoss
from dplasso.optim.reference import solve_reference
from dplasso.screening.private import release_screening_statistic, screening_sensitivity

N_TRIALS = 1_000_000
CASES = screening_cases()


def test_the_pair_is_replace_one_and_moves_the_vector_beyond_half_its_bound():
    """Precondition of the broken variant's catch: the move exceeds half the lemma's bound,
    so noise calibrated to half of it cannot cover the move."""
    case = CASES[0]
    (X, y), (X_prime, y_prime) = case.D, case.D_prime
    assert X.shape == X_prime.shape
    assert np.sum(np.any(X != X_prime, axis=1) | (y != y_prime)) == 1
    w = solve_reference(LogisticLoss(), X, y, 4.0, tol=1e-13).w
    statistic = ScreeningVector(LogisticLoss(), w, 4.0)
    move = np.linalg.norm(statistic(X_prime, y_prime) - statistic(X, y))
    declared = screening_sensitivity(*X.shape, 4.0, LogisticLoss()).l2
    assert 0.5 < move / declared <= 1.0


@pytest.mark.statistical
@pytest.mark.release.with_args(release_screening_statistic)
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.variant)
def test_screening_audit_accepts_correct_and_flags_broken(case):
    result = case.run(N_TRIALS, ALPHA, rng=7)
    if case.variant == "correct":
        assert result.eps_lower <= result.eps_claimed, (
            f"audited {result.eps_lower:.3f} > claimed {result.eps_claimed}; "
            f"false-failure rate <= {ALPHA}")
    else:
        assert result.violated, f"not flagged: {result.eps_lower:.3f} <= {result.eps_claimed}"
