"""Broken variants keep the correct function's signature and break exactly one thing."""
import inspect
from fractions import Fraction

import numpy as np
import pytest

from dplasso.audit.broken import (
    BROKEN_VARIANTS,
    halved_noise,
    ignored_composition,
    ignored_dimension,
    reads_data,
    understated_sensitivity,
    with_argument,
    wrong_count_epsilon,
)
from dplasso.audit.objective_perturbation_cases import objective_perturbation_cases
from dplasso.estimators.private_count import noise_floor_count
from dplasso.optim.losses import LogisticLoss
from dplasso.privacy.calibration import advanced_step_epsilon, calibrate_report_noisy_min
from dplasso.privacy.discrete_laplace import discrete_laplace_scale
from dplasso.privacy.laplace import laplace_noise, laplace_scale
from dplasso.privacy.selection import report_noisy_min_scale
from dplasso.screening.private import split_screening_sensitivity


def test_halved_noise_keeps_the_signature_and_halves_the_scale():
    broken = halved_noise(laplace_noise)
    assert inspect.signature(broken) == inspect.signature(laplace_noise)
    assert broken.broken_variant == "halved-noise"
    a = broken(2.0, 5, np.random.default_rng(0))
    b = laplace_noise(1.0, 5, np.random.default_rng(0))
    assert np.array_equal(a, b)
    assert np.array_equal(broken(scale=2.0, size=5, rng=np.random.default_rng(0)), b)


def test_understated_sensitivity_uses_five_sixths_exactly():
    broken = understated_sensitivity(laplace_scale)
    assert broken(1.2, 1.0) == pytest.approx(1.0)
    assert broken.broken_variant == "sensitivity-understated"
    assert understated_sensitivity(discrete_laplace_scale)(6, 1) == Fraction(5)


def test_ignored_composition_returns_the_one_step_scale_for_the_whole_budget():
    broken = ignored_composition(calibrate_report_noisy_min, report_noisy_min_scale)
    assert inspect.signature(broken) == inspect.signature(calibrate_report_noisy_min)
    assert broken(2.0, 1e-5, 10, 0.5) == report_noisy_min_scale(0.5, 2.0)
    correct = calibrate_report_noisy_min(2.0, 1e-5, 10, 0.5)
    assert correct / broken(2.0, 1e-5, 10, 0.5) == pytest.approx(
        2.0 / advanced_step_epsilon(2.0, 1e-5, 10))
    assert broken.broken_variant == "composition-ignored"


def test_wrong_count_epsilon_multiplies_the_epsilon():
    broken = wrong_count_epsilon(discrete_laplace_scale, 2.0)
    assert broken(1, 1) == discrete_laplace_scale(1, 2.0)
    with pytest.raises(ValueError, match="factor"):
        wrong_count_epsilon(discrete_laplace_scale, 0.5)


def test_every_factory_names_a_known_variant():
    made = [halved_noise(laplace_noise), understated_sensitivity(laplace_scale),
            ignored_composition(calibrate_report_noisy_min, report_noisy_min_scale),
            wrong_count_epsilon(discrete_laplace_scale, 2.0),
            reads_data(noise_floor_count, LogisticLoss(), np.ones((3, 2)), np.zeros(3)),
            ignored_dimension(split_screening_sensitivity),
            objective_perturbation_cases()[1].mechanism]  # the L2 reference's, by with_argument
    assert {fn.broken_variant for fn in made} == set(BROKEN_VARIANTS)


def test_ignored_dimension_calibrates_for_one_coordinate():
    broken = ignored_dimension(split_screening_sensitivity)
    correct = split_screening_sensitivity(100, 16, 2.0, LogisticLoss())
    wrong = broken(100, 16, 2.0, LogisticLoss())
    assert wrong.gradient_l2 == correct.gradient == pytest.approx(correct.gradient_l2 / 4)


def test_errors_name_the_missing_argument():
    with pytest.raises(ValueError, match="no argument 'sigma'"):
        halved_noise(laplace_noise, "sigma")
    with pytest.raises(ValueError, match="variant"):
        with_argument(laplace_noise, "scale", abs, "made-up")
    with pytest.raises(ValueError, match="epsilon"):
        ignored_composition(laplace_noise, report_noisy_min_scale)


def test_reads_data_keeps_the_entries_the_data_agree_with():
    """Rows (1, 1) labelled 0: the gradient at 0 is positive, so only negative entries stay;
    with the labels flipped only positive ones do. Same signature as the count."""
    W = np.array([[-2.0, 2.0], [-1.0, 1.0]])
    design = np.ones((4, 3))
    public = {"n_iter": 4, "n_coordinates": 3, "lam": 3.0}
    labels_0 = reads_data(noise_floor_count, LogisticLoss(), design, np.zeros(4))
    labels_1 = reads_data(noise_floor_count, LogisticLoss(), design, np.ones(4))
    assert inspect.signature(labels_0) == inspect.signature(noise_floor_count)
    assert np.array_equal(labels_0(W, **public), noise_floor_count(np.minimum(W, 0), **public))
    assert np.array_equal(labels_1(W, **public), noise_floor_count(np.maximum(W, 0), **public))
    assert labels_0.broken_variant == "reads-data"
