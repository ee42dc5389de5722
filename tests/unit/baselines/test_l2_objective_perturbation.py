"""The L2 reference: objective perturbation on every column, its public rule, its ledger,
the accountant flow, the noise choice and bad input."""
import math
from fractions import Fraction
from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp

from baselines_problems import synthetic_problem
from dplasso.baselines import ObjectivePerturbationClassifier
from dplasso.baselines.l2_objective_perturbation import objective_perturbation_trials
from dplasso.estimators.objective_perturbation import (
    L2_JACOBIAN_SHARE,
    choose_noise,
    l2_mechanism,
    quad_weight_for_jacobian,
    stationarity_noise,
)
from dplasso.estimators.problem import with_intercept_column
from dplasso.estimators.threshold import DEFAULT_THRESHOLD_FRACTION
from dplasso.privacy import BudgetAccountant, BudgetExceededError, REPLACE_ONE

BINARY = [0, 1]


def _problem(n=400, p=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n, p))
    y = (X[:, 0] - 0.5 * X[:, 1] + 0.3 * rng.standard_normal(n) > 0).astype(int)
    return X, y


def test_classifier_is_one_trial_of_the_batched_function():
    X, y = _problem()
    model = ObjectivePerturbationClassifier(epsilon=2.0, classes=BINARY,
                                            random_state=3).fit(X, y)
    fit = objective_perturbation_trials(X, y, epsilon=2.0, threshold="private", random_state=3)
    np.testing.assert_array_equal(model.coef_[0], fit.W[:, 0])
    np.testing.assert_array_equal(model.intercept_, fit.intercept)
    assert model.privacy_guarantee_ == fit.guarantee


@pytest.mark.parametrize("noise", ["gamma", "gaussian"])
@pytest.mark.parametrize("epsilon", [0.3, 4.0])
def test_ledger_composes_to_the_requested_budget_with_the_public_rule(noise, epsilon):
    X, y = _problem()
    d = X.shape[1] + 1
    model = ObjectivePerturbationClassifier(epsilon=epsilon, noise=noise, delta=1e-5,
                                            classes=BINARY, random_state=0).fit(X, y)
    weights, threshold = model.privacy_ledger_.events
    assert {weights.relation, threshold.relation} == {REPLACE_ONE}
    assert weights.mechanism == f"objective-perturbation-{noise}"
    assert threshold.note.startswith("decision threshold")
    fit_budget = (1 - DEFAULT_THRESHOLD_FRACTION) * epsilon
    assert weights.epsilon == pytest.approx(fit_budget, rel=1e-12)
    assert threshold.epsilon == pytest.approx(DEFAULT_THRESHOLD_FRACTION * epsilon, rel=1e-12)
    assert model.privacy_guarantee_.epsilon <= epsilon * (1 + 1e-12)
    assert model.privacy_guarantee_.delta == (1e-5 if noise == "gaussian" else 0.0)
    # the public rule: the smallest quadratic weight whose Jacobian term costs s * eps'
    assert model.quad_weight_ == pytest.approx(
        quad_weight_for_jacobian(math.sqrt(d), L2_JACOBIAN_SHARE * fit_budget), rel=1e-12)
    assert model.quad_weight_ == pytest.approx(
        d / (4.0 * math.expm1(L2_JACOBIAN_SHARE * fit_budget)), rel=1e-12)
    assert weights.sensitivity == 2.0 * math.sqrt(d)


def test_release_is_the_exact_minimiser_of_the_perturbed_objective():
    """The stationarity noise recovered from the released weights is the drawn noise."""
    X, y = _problem()
    fit = objective_perturbation_trials(X, y, epsilon=1.0, n_trials=3, noise="gamma",
                                        random_state=np.random.default_rng(9), tol=1e-10)
    mechanism = l2_mechanism(X.shape[1] + 1, 1.0, 0.0, noise="gamma")
    drawn = mechanism.sample(X.shape[1] + 1, np.random.default_rng(9), size=3)
    design = with_intercept_column(X)
    for k in range(3):
        w = np.r_[fit.W[:, k], fit.intercept[k]]
        recovered = stationarity_noise(design, y.astype(float), w,
                                       quad_weight=mechanism.quad_weight)
        np.testing.assert_allclose(recovered, drawn[k], atol=1e-6 * X.shape[0])


def test_noise_auto_takes_the_smaller_expected_norm():
    assert choose_noise(5, 1.0, 1e-6) == "gamma"
    assert choose_noise(500, 1.0, 1e-6) == "gaussian"
    assert choose_noise(500, 1.0, 0.0) == "gamma"
    X, y = _problem(p=80)
    model = ObjectivePerturbationClassifier(epsilon=1.0, classes=BINARY, random_state=0).fit(X, y)
    assert model.noise_ == choose_noise(81, (1 - L2_JACOBIAN_SHARE) * 0.9, 1 / 400**2)


def test_accountant_refuses_before_any_work_then_spends():
    X, y = _problem()
    accountant = BudgetAccountant(epsilon=1.0, delta=0.0)
    with mock.patch("dplasso.estimators.objective_perturbation.solve_perturbed_logistic") \
            as solve:
        with pytest.raises(BudgetExceededError):
            ObjectivePerturbationClassifier(epsilon=1.5, noise="gamma", classes=BINARY,
                                            accountant=accountant).fit(X, y)
    solve.assert_not_called()
    assert accountant.spent == ()
    ObjectivePerturbationClassifier(epsilon=0.6, noise="gamma", classes=BINARY,
                                    accountant=accountant, random_state=0).fit(X, y)
    assert accountant.total_spent().epsilon == pytest.approx(0.6, rel=1e-9)


def test_large_epsilon_recovers_an_accurate_dense_model():
    X, y, _ = synthetic_problem()
    model = ObjectivePerturbationClassifier(epsilon=1e4, classes=BINARY,
                                            random_state=0).fit(X, y)
    assert model.score(X, y) > 0.85
    assert np.count_nonzero(model.coef_) == X.shape[1]


def test_sparse_input_stays_sparse_and_gives_the_dense_answer():
    X, y = _problem()
    dense = objective_perturbation_trials(X, y, epsilon=2.0, random_state=1)
    with mock.patch.object(sp.csr_matrix, "toarray", side_effect=AssertionError("densified")):
        sparse = objective_perturbation_trials(sp.csr_matrix(X), y, epsilon=2.0,
                                               random_state=1)
    np.testing.assert_allclose(sparse.W, dense.W, atol=1e-6)


@pytest.mark.parametrize("params, match", [
    ({"jacobian_share": 1.0}, "jacobian_share"),
    ({"noise": "laplace"}, "noise must be one of"),
    ({"quad_weight": -1.0}, "quad_weight"),
    ({"epsilon": 0.0}, "epsilon"),
    ({"threshold": "maybe"}, "threshold must be one of"),
])
def test_bad_parameters_are_refused_by_name(params, match):
    X, y = _problem()
    with pytest.raises(ValueError, match=match):
        ObjectivePerturbationClassifier(classes=BINARY, **params).fit(X, y)


def test_more_than_two_classes_are_one_vs_rest_at_an_even_share():
    """Three classes: three releases, each at a third of the weights' budget, whose weights
    are the binary reference's on the labels ``[y = c]`` at that budget, draw for draw; the
    ledger composes to the budget and a row goes to the class of largest score."""
    X, _ = _problem()
    y = np.arange(X.shape[0]) % 3
    model = ObjectivePerturbationClassifier(epsilon=1.5, noise="gamma", threshold="none",
                                            classes=[0, 1, 2], random_state=5).fit(X, y)
    events = model.privacy_ledger_.events
    assert model.coef_.shape == (3, X.shape[1]) and len(events) == 3
    assert all(f"class {c} of 3 against the rest" in e.note for c, e in enumerate(events))
    assert all(e.epsilon == events[0].epsilon for e in events)
    assert 3 * Fraction(events[0].epsilon) <= Fraction(1.5)
    assert model.privacy_guarantee_.epsilon == pytest.approx(1.5, rel=1e-12)
    rng = np.random.default_rng(5)
    for c in range(3):
        binary = objective_perturbation_trials(X, y == c, epsilon=events[0].epsilon,
                                               noise="gamma", random_state=rng)
        np.testing.assert_array_equal(model.coef_[c], binary.W[:, 0])
        np.testing.assert_array_equal(model.intercept_[c], binary.intercept[0])
    np.testing.assert_array_equal(model.predict(X),
                                  np.argmax(X @ model.coef_.T + model.intercept_, axis=1))
