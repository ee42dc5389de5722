"""Calibration: total budget to per-step scale, and back through the ledger."""
import math

import pytest

from dplasso.privacy.accounting import PrivacyLedger, advanced_composition_epsilon, zcdp_to_epsilon
from dplasso.privacy.calibration import (
    advanced_step_epsilon,
    calibrate_exponential_mechanism,
    calibrate_report_noisy_min,
    fw_score_sensitivity,
    talwar_laplace_scale,
    zcdp_step_epsilon,
)
from dplasso.privacy.selection import (
    exponential_mechanism_event,
    report_noisy_min_epsilon,
    report_noisy_min_event,
)

TARGETS = [(1.0, 1e-6, 500), (0.1, 1e-5, 20), (5.0, 1e-8, 1000), (2.5, 1 / 6000, 1000),
           (0.5, 0.1, 1)]


@pytest.mark.parametrize("epsilon, delta, steps", TARGETS)
def test_report_noisy_min_calibration_composes_back_to_the_target(epsilon, delta, steps):
    sensitivity = fw_score_sensitivity("logistic", 5.0, 3000)
    scale = calibrate_report_noisy_min(epsilon, delta, steps, sensitivity)
    ledger = PrivacyLedger()
    ledger.record(report_noisy_min_event(sensitivity, scale, count=steps))
    total = ledger.total("advanced", delta)
    assert total.epsilon <= epsilon
    assert total.epsilon == pytest.approx(epsilon, rel=1e-9)
    assert total.delta == delta


@pytest.mark.parametrize("epsilon, delta, steps", TARGETS)
def test_exponential_mechanism_calibration_composes_back_to_the_target(epsilon, delta, steps):
    sensitivity = fw_score_sensitivity("squared", 2.0, 500, y_bound=1.0)
    scale = calibrate_exponential_mechanism(epsilon, delta, steps, sensitivity)
    ledger = PrivacyLedger()
    ledger.record(exponential_mechanism_event(sensitivity, scale, count=steps))
    total = ledger.total("zcdp", delta)
    assert total.epsilon <= epsilon
    assert total.epsilon == pytest.approx(epsilon, rel=1e-9)


@pytest.mark.parametrize("epsilon, delta, steps", TARGETS)
def test_step_epsilons_solve_their_equations(epsilon, delta, steps):
    eps0 = advanced_step_epsilon(epsilon, delta, steps)
    assert advanced_composition_epsilon([eps0], [steps], delta) == pytest.approx(epsilon, rel=1e-12)
    eps0 = zcdp_step_epsilon(epsilon, delta, steps)
    assert zcdp_to_epsilon(steps * eps0**2 / 8, delta) == pytest.approx(epsilon, rel=1e-12)


def test_zcdp_step_epsilon_is_stable_for_tiny_epsilon():
    """The rationalised root avoids cancellation: rho ~ eps^2 / (4 ln(1/delta)) as eps -> 0."""
    eps0 = zcdp_step_epsilon(1e-9, 1e-6, 1)
    rho = eps0**2 / 8
    assert rho == pytest.approx(1e-18 / (4 * math.log(1e6)), rel=1e-6)


def test_exponential_mechanism_needs_less_noise_than_report_noisy_min_here():
    """Same target, T = 500: zCDP accounting of bounded-range steps admits a smaller scale."""
    sensitivity = fw_score_sensitivity("logistic", 5.0, 3000)
    assert (calibrate_exponential_mechanism(1.0, 1e-6, 500, sensitivity)
            < calibrate_report_noisy_min(1.0, 1e-6, 500, sensitivity))


@pytest.mark.parametrize("epsilon, delta, steps", [(1.0, 1e-6, 500), (0.1, 1e-5, 20)])
def test_talwar_scale_relation_under_replace_one(epsilon, delta, steps):
    """The docstring's claims about b_TTZ.

    With Delta_TTZ = lam/n and the map Delta/b: eps0 = eps / sqrt(8 T ln(1/delta)). Under
    replace-one (Delta = 2 lam/n, map 2 Delta/b) the advanced total is
    2 eps + T eps0 (e^eps0 - 1) with eps0 = sqrt(2) eps / sqrt(T ln(1/delta)).
    """
    lam, n = 5.0, 3000
    b = talwar_laplace_scale(epsilon, delta, steps, lam, n)
    log_term = math.log(1 / delta)
    assert (lam / n) / b == pytest.approx(epsilon / math.sqrt(8 * steps * log_term), rel=1e-14)
    sensitivity = fw_score_sensitivity("logistic", lam, n)
    eps0 = report_noisy_min_epsilon(sensitivity, b)
    assert eps0 == pytest.approx(math.sqrt(2) * epsilon / math.sqrt(steps * log_term), rel=1e-14)
    ledger = PrivacyLedger()
    ledger.record(report_noisy_min_event(sensitivity, b, count=steps))
    assert ledger.total("advanced", delta).epsilon == pytest.approx(
        2 * epsilon + steps * eps0 * math.expm1(eps0), rel=1e-12)
    # Ours over b_TTZ: 2 eps / (sqrt(2 T ln(1/delta)) eps0_ours) = 2 (1 + sqrt(T/(2 ln(1/delta)))
    # (e^eps0_ours - 1)) by the advanced-composition equation: twice b_TTZ to first order.
    ours = advanced_step_epsilon(epsilon, delta, steps)
    ratio = calibrate_report_noisy_min(epsilon, delta, steps, sensitivity) / b
    assert ratio == pytest.approx(
        2 * (1 + math.sqrt(steps / (2 * log_term)) * math.expm1(ours)), rel=1e-12)


def test_fw_score_sensitivity_values_and_errors():
    assert fw_score_sensitivity("logistic", 5.0, 3000) == 2 * 5.0 / 3000
    assert fw_score_sensitivity("squared", 5.0, 3000, y_bound=35.0) == 2 * 5.0 * 40.0 / 3000
    with pytest.raises(ValueError, match="loss_name must be one of"):
        fw_score_sensitivity("hinge", 1.0, 10)
    with pytest.raises(ValueError, match="needs y_bound"):
        fw_score_sensitivity("squared", 1.0, 10)
    with pytest.raises(ValueError, match="squared loss only"):
        fw_score_sensitivity("logistic", 1.0, 10, y_bound=1.0)
    with pytest.raises(ValueError, match="y_bound must be a finite number >= 0"):
        fw_score_sensitivity("squared", 1.0, 10, y_bound=-1.0)
    with pytest.raises(ValueError, match="lam must be a finite number > 0"):
        fw_score_sensitivity("logistic", 0.0, 10)
    with pytest.raises(ValueError, match="n must be >= 1"):
        fw_score_sensitivity("logistic", 1.0, 0)


DELTA_RANGE = r"delta must lie in \(0, 1\)"


@pytest.mark.parametrize("calibrate", [calibrate_report_noisy_min, calibrate_exponential_mechanism])
@pytest.mark.parametrize("args, error, message", [
    ((0.0, 1e-6, 10, 0.1), ValueError, "epsilon must be a finite number > 0"),
    ((1.0, 0.0, 10, 0.1), ValueError, DELTA_RANGE),
    ((1.0, 1.0, 10, 0.1), ValueError, DELTA_RANGE),
    ((1.0, float("nan"), 10, 0.1), ValueError, DELTA_RANGE),
    ((1.0, 1e-6, 0, 0.1), ValueError, "steps must be >= 1"),
    ((1.0, 1e-6, 2.5, 0.1), TypeError, "steps must be an integer"),
    ((1.0, 1e-6, 10, 0.0), ValueError, "sensitivity must be a finite number > 0"),
])
def test_bad_input(calibrate, args, error, message):
    with pytest.raises(error, match=message):
        calibrate(*args)


def test_talwar_bad_input():
    with pytest.raises(ValueError, match="lipschitz must be a finite number > 0"):
        talwar_laplace_scale(1.0, 1e-6, 10, 1.0, 100, lipschitz=0.0)


@pytest.mark.parametrize("epsilon", [1e4, 4e4, 1e8])
def test_advanced_step_epsilon_handles_huge_budgets(epsilon):
    """Regression: the bracket used to reach exp() overflow for epsilon >= ~4e4."""
    step = advanced_step_epsilon(epsilon, 1e-6, 100)
    assert math.isclose(advanced_composition_epsilon([step], [100], 1e-6), epsilon, rel_tol=1e-9)
