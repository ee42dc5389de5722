"""Budget helpers: zCDP inversion and ulp-exact calibration."""
import math

import pytest

from dplasso.baselines.budget import calibrate_within_budget, zcdp_budget
from dplasso.privacy.accounting import PrivacyEvent, zcdp_to_epsilon


@pytest.mark.parametrize("epsilon", [1e-3, 0.5, 1.0, 10.0, 300.0])
@pytest.mark.parametrize("delta", [1e-10, 1e-5, 0.1])
def test_zcdp_budget_inverts_the_conversion(epsilon, delta):
    assert zcdp_to_epsilon(zcdp_budget(epsilon, delta), delta) == pytest.approx(epsilon, rel=1e-12)


def test_zcdp_budget_needs_positive_delta():
    with pytest.raises(ValueError, match=r"delta must lie in \(0, 1\)"):
        zcdp_budget(1.0, 0.0)


def _event(epsilon):
    return PrivacyEvent(mechanism="m", sensitivity=1.0, epsilon=epsilon, count=3,
                        numerics="idealised-float")


def test_calibration_steps_down_until_the_total_fits():
    # a per-use epsilon of budget/3 composes to 3 * (budget/3), which may exceed budget by ulps
    target = 0.7
    events, used = calibrate_within_budget(lambda e: ([_event(e / 3)], e), target)
    assert 3 * events[0].epsilon <= target
    assert used <= target and used >= target - 8 * math.ulp(target)


def test_calibration_that_never_fits_is_an_error():
    with pytest.raises(RuntimeError, match="does not compose within budget"):
        calibrate_within_budget(lambda e: ([_event(e)], None), 1.0)
