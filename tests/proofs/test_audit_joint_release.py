"""The default Sparsifier's joint release (``lemma-joint-release``): its utilities searched,
and its audit with a caught broken variant.

- Search (:func:`dplasso.audit.joint_release_cases.joint_sensitivity_cases`): the utility
  vector (constants, then every size's threshold candidates) never moves by more than 1 in
  the sup norm; the bound is attained (every entry is a count); a declaration of 0.8x the
  found value is refuted. Seeded, not statistical.
- Audit (:func:`~dplasso.audit.joint_release_cases.joint_release_cases`): the correct release
  audits below its claim (Clopper-Pearson lower bound at ``ALPHA``: false-failure rate
  ``ALPHA = 1e-6``, ``tests/statistical.py``) and the release at twice its budget is flagged
  at 5e4 runs per dataset (the proofs chapter audits it at about 1.6 against the claim 1).
"""
import pytest

from statistical import ALPHA
from dplasso.audit.joint_release_cases import joint_release_cases, joint_sensitivity_cases
from dplasso.estimators.joint_release import release_size_and_threshold

SEARCH = {"n_random": 16, "n_rows": 16}
N_AUDIT = 50_000


@pytest.mark.parametrize("case", joint_sensitivity_cases(), ids=lambda case: case.quantity)
def test_search_attains_the_bound_one_and_refutes_an_understatement(case):
    result = case.run(rng=0, **SEARCH)
    assert result.found <= case.declared, (case.quantity, result.found, case.declared)
    assert case.tight and result.ratio == 1.0, (case.quantity, result.ratio)
    assert case.run(rng=1, declared=0.8 * result.found, **SEARCH).exceeded


@pytest.mark.statistical
@pytest.mark.release.with_args(release_size_and_threshold)
def test_joint_release_audit_correct_and_doubled_budget():
    correct, doubled = joint_release_cases()
    assert doubled.variant == "count-wrong-epsilon"
    accepted = correct.run(N_AUDIT, ALPHA, rng=31)
    assert accepted.eps_lower <= accepted.eps_claimed, (
        f"audited {accepted.eps_lower:.3f} > claimed {accepted.eps_claimed} "
        f"({accepted.event}); false-failure rate <= {ALPHA}")
    flagged = doubled.run(N_AUDIT, ALPHA, rng=33)
    assert flagged.violated, (
        f"doubled budget not flagged: {flagged.eps_lower:.3f} <= {flagged.eps_claimed}")
