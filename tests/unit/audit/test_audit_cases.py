"""Every audit case runs on a replace-one neighbouring pair inside the data domain, and every
variant's mechanism calls the library's own release (the proofs' call-site rule)."""
import numpy as np
import pytest

from calls import qualified_name, recording_calls
from dplasso.audit.cases import (
    SELECTORS,
    accuracy_count_cases,
    block_median_cases,
    count_sensitivity_case,
    discrete_laplace_cases,
    frank_wolfe_fit_cases,
    gaussian_cases,
    laplace_cases,
    noise_floor_cases,
    screening_cases,
    selection_cases,
    sensitivity_cases,
    sparsifier_count_cases,
    split_screening_cases,
    threshold_cases,
    threshold_multiclass_cases,
)
from dplasso.estimators.private_frank_wolfe import calibrate_selection
from dplasso.optim.frank_wolfe import frank_wolfe
from dplasso.optim.losses import LogisticLoss
from dplasso.privacy.calibration import fw_score_sensitivity


def _all_cases():
    cases = laplace_cases() + discrete_laplace_cases() + gaussian_cases()
    for selector in SELECTORS:
        cases += selection_cases(selector) + frank_wolfe_fit_cases(selector)
    count_case = count_sensitivity_case(n=40, p=6)
    search = count_case.run(n_random=2, n_rows=2, rng=0)
    cases += sparsifier_count_cases(count_case, search)
    cases += threshold_cases() + threshold_multiclass_cases()
    cases += block_median_cases() + accuracy_count_cases() + noise_floor_cases()
    return cases + screening_cases() + split_screening_cases()


CASES = _all_cases()


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.mechanism_name}-{c.variant}")
def test_pair_is_replace_one_neighbouring_in_the_domain(case):
    (X, y), (X_prime, y_prime) = case.D, case.D_prime
    assert X.shape == X_prime.shape and y.shape == y_prime.shape
    differs = np.any(np.asarray(X != X_prime), axis=1) | (y != y_prime)
    assert differs.sum() == 1
    assert np.abs(X).max() <= 1.0 and np.abs(X_prime).max() <= 1.0


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.mechanism_name}-{c.variant}")
def test_mechanism_returns_one_scalar_per_run(case):
    outputs = case.mechanism(case.D, 7, np.random.default_rng(0))
    if case.projection is not None:
        outputs = case.projection(outputs)
    assert np.asarray(outputs).shape == (7,)


def test_each_family_pairs_correct_with_broken_variants():
    families = {}
    for case in CASES:
        families.setdefault(case.mechanism_name, set()).add(case.variant)
    for variants in families.values():
        assert "correct" in variants and len(variants) >= 2


def test_sensitivity_cases_declare_the_calibration_values():
    for case in sensitivity_cases():
        assert case.declared > 0 and case.norm in ("inf", "1", "2")
        before = np.asarray(case.statistic(case.X, case.y))
        assert before.size >= 1 and np.all(np.isfinite(before))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.mechanism_name}-{c.variant}")
def test_every_variant_runs_the_library_release(case):
    """The rule: an audit runs the library's release function (a broken variant runs it
    with one input or dependency broken), never a copy of what it computes."""
    assert qualified_name(case.release).startswith("dplasso.")
    assert not qualified_name(case.release).startswith("dplasso.audit.")
    for data in (case.D, case.D_prime):
        with recording_calls([case.release]) as seen:
            case.mechanism(data, 3, np.random.default_rng(0))
        assert seen == {case.release}, qualified_name(case.release)


def test_the_call_check_sees_a_rebuilt_copy():
    """Power check: a mechanism that rebuilds the release instead of calling it is caught."""
    case = split_screening_cases()[0]
    rebuilt = case.mechanism(case.D, 3, np.random.default_rng(0))

    def copy(data, size, rng):
        return rebuilt  # what a rebuilt ``exact + scale * noise(...)`` would return

    with recording_calls([case.release]) as seen:
        copy(case.D, 3, np.random.default_rng(0))
    assert not seen


@pytest.mark.parametrize("selector", list(SELECTORS))
def test_fit_variants_differ_only_in_the_calibration(selector):
    """Both fit variants run the estimators' path and equal the engine run with their
    calibration, draw for draw: the correct one (the T-step calibration) and the broken one
    (the one-step scale for the whole budget), so the broken variant changes nothing else."""
    correct, broken = frank_wolfe_fit_cases(selector)
    _, scale_for_step, selector_class, _, selection = SELECTORS[selector]
    X, y = correct.D
    sensitivity = fw_score_sensitivity("logistic", 5.0, X.shape[0])
    honest, _ = calibrate_selection(selection, 2.0, 1e-5, 10, sensitivity)
    for case, scale in ((correct, honest.scale),
                        (broken, scale_for_step(sensitivity, 2.0))):
        engine = frank_wolfe(LogisticLoss(), X, y, 5.0, 10, selector_class(scale),
                             n_trials=50, rng=np.random.default_rng(4)).W.T
        assert np.array_equal(case.mechanism(case.D, 50, np.random.default_rng(4)), engine)
