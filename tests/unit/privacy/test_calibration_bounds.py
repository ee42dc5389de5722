"""Every search for a noise scale terminates: on a scale/privacy-map mismatch it raises, and
the message names the scale, the epsilon (or delta) the map gives there and the target.

The mismatch is made by patching the privacy map a search consults (its privacy map says
twice the truth, or a constant), so that no scale near the analytic one can satisfy it.
"""
import math

import pytest

from dplasso.baselines.budget import calibrate_within_budget
from dplasso.estimators.count import count_noise_scale
from dplasso.estimators.private_frank_wolfe import calibrate_selection
from dplasso.privacy import calibration, gaussian
from dplasso.privacy.accounting import PrivacyGuarantee
from dplasso.privacy.laplace import laplace_event


def test_the_ulp_search_raises_on_a_map_that_never_agrees():
    with pytest.raises(RuntimeError, match=r"scale/privacy-map mismatch: .*still composes to "
                                           r"epsilon=2\.0 > the target epsilon=1\.0"):
        calibration._smallest_safe_scale(1.0, lambda scale: 2.0, 1.0)


def test_the_ulp_search_accepts_a_map_a_few_ulps_off():
    target = math.nextafter(1.0, 0.0)
    scale = calibration._smallest_safe_scale(1.0, lambda b: 1.0 / b, target)
    assert 1.0 / scale <= target and scale == math.nextafter(1.0, 2.0)


@pytest.mark.parametrize("calibrate, event_name", [
    (calibration.calibrate_report_noisy_min, "report_noisy_min_event"),
    (calibration.calibrate_exponential_mechanism, "exponential_mechanism_event"),
])
def test_frank_wolfe_calibrations_raise_when_the_ledger_map_disagrees(monkeypatch, calibrate,
                                                                      event_name):
    honest = getattr(calibration, event_name)

    def doubled(sensitivity, scale, count=1, note=""):
        return honest(2.0 * sensitivity, scale, count, note)

    monkeypatch.setattr(calibration, event_name, doubled)
    with pytest.raises(RuntimeError, match="scale/privacy-map mismatch"):
        calibrate(1.0, 1e-6, 10, 0.1)


def test_pure_selection_calibration_raises_when_basic_composition_disagrees(monkeypatch):
    import dplasso.estimators.private_frank_wolfe as pfw

    monkeypatch.setattr(pfw, "basic_composition",
                        lambda events: PrivacyGuarantee(3.0, 0.0, "basic"))
    with pytest.raises(RuntimeError, match=r"mismatch: the laplace scale .* composes \(basic, "
                                           r"T=10\) to epsilon=3\.0 > the target epsilon=1\.0"):
        calibrate_selection("laplace", 1.0, 0.0, 10, 0.1)


def test_laplace_count_scale_raises_when_its_map_disagrees(monkeypatch):
    import dplasso.estimators.count as count

    monkeypatch.setattr(count, "laplace_epsilon", lambda sensitivity, scale: 2.0)
    with pytest.raises(RuntimeError, match=r"mismatch: the Laplace scale .* gives epsilon=2\.0 "
                                           r"> the target epsilon=1\.0"):
        count_noise_scale(1.0, 3, "laplace")


@pytest.mark.parametrize("module, scale", [("threshold", "threshold_scale"),
                                           ("private_count", "count_scale")])
def test_exponential_mechanism_scales_raise_when_basic_composition_disagrees(monkeypatch,
                                                                             module, scale):
    import importlib

    estimators = importlib.import_module(f"dplasso.estimators.{module}")
    monkeypatch.setattr(estimators, "basic_composition",
                        lambda events: PrivacyGuarantee(3.0, 0.0, "basic"))
    with pytest.raises(RuntimeError, match=r"mismatch: the \w+ scale 2/1\.0 = 2\.0 raised by 64 "
                                           r"ulps to .* still composes to epsilon=3\.0 > the "
                                           r"target epsilon=1\.0"):
        getattr(estimators, scale)(1.0)


@pytest.mark.parametrize("profile, message", [
    (1.0, "no sigma up to"), (0.0, "every sigma down to")])
def test_gaussian_sigma_search_raises_on_a_profile_it_cannot_bracket(monkeypatch, profile,
                                                                     message):
    monkeypatch.setattr(gaussian, "gaussian_delta", lambda sensitivity, sigma, epsilon: profile)
    with pytest.raises(RuntimeError, match=message):
        gaussian.gaussian_sigma_analytic(1.0, 1.0, 1e-5)


def test_baseline_budget_search_raises_when_nothing_composes():
    def build(e):
        return [laplace_event(1.0, 1.0 / (2.0 * e))], None  # costs twice what it is given

    with pytest.raises(RuntimeError, match="does not compose within budget"):
        calibrate_within_budget(build, 1.0)
