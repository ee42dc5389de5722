"""Empirical audits of the noise primitives: Laplace, double-geometric, Gaussian.

Each mechanism runs on the worst-case neighbouring pair of :mod:`dplasso.audit.cases` (the
query moves by exactly its sensitivity). The audit's lower bound holds with probability at
least ``1 - ALPHA`` (Clopper-Pearson, ``ALPHA = 1e-6`` from ``tests/statistical.py``), so a
correct mechanism fails ``eps_lower <= eps_claimed`` with probability at most ``ALPHA``.
The broken variants (noise halved: true epsilon 2x the claim; sensitivity understated by
1.2: true epsilon 1.2x) must be flagged, ``eps_lower > eps_claimed``; with these pairs the
privacy loss reaches the true epsilon on events of probability ~0.15-0.5 (Laplace,
double-geometric) and ~0.01 (Gaussian at delta = 1e-2), so 1e5 / 1e6 runs resolve a 20%
excess. Fixed seeds.
"""
import pytest

from statistical import ALPHA
from dplasso.audit.cases import discrete_laplace_cases, gaussian_cases, laplace_cases
from dplasso.privacy import discrete_laplace_noise, gaussian_noise, laplace_noise

CASES = ([(case, 100_000) for case in laplace_cases() + discrete_laplace_cases()]
         + [(case, 1_000_000) for case in gaussian_cases()])


def _id(item):
    case, _ = item
    return f"{case.mechanism_name}-{case.variant}"


@pytest.mark.statistical
@pytest.mark.release.with_args(laplace_noise, discrete_laplace_noise, gaussian_noise)
@pytest.mark.parametrize("item", CASES, ids=[_id(item) for item in CASES])
def test_audit_accepts_correct_and_flags_broken(item):
    case, n_trials = item
    result = case.run(n_trials, ALPHA, rng=7)
    if case.variant == "correct":
        assert result.eps_lower <= result.eps_claimed, (
            f"{case.mechanism_name}: audited lower bound {result.eps_lower:.3f} exceeds the "
            f"claim {result.eps_claimed} (event {result.event}); false-failure rate <= {ALPHA}")
        # The pair is the worst case: the audit must also come close to the claim.
        assert result.eps_lower >= 0.8 * result.eps_claimed
    else:
        assert result.violated, (
            f"{case.mechanism_name} [{case.variant}] not flagged: lower bound "
            f"{result.eps_lower:.3f} <= claim {result.eps_claimed}")


def test_every_primitive_family_has_its_broken_variants():
    variants = {(case.mechanism_name.split(",")[0], case.variant) for case, _ in CASES}
    for family in ("Laplace", "double-geometric", "Gaussian (analytic)"):
        assert {v for f, v in variants if f == family} == {
            "correct", "halved-noise", "sensitivity-understated"}
