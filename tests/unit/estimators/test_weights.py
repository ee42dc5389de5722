"""The default Sparsifier's objective-perturbation weights are the L2 reference's release."""
import numpy as np
import pytest

from estimator_problems import binary_problem
from dplasso.baselines.l2_objective_perturbation import objective_perturbation_trials
from dplasso.estimators.problem import prepare_design
from dplasso.estimators.weights import (
    OBJECTIVE_PERTURBATION_SCALE,
    objective_perturbation_weights,
    prefers_objective_perturbation,
    resolve_weights,
)


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_objective_perturbation_weights_are_the_audited_l2_release(delta):
    """Same budget, same generator: the same weights and the same ledger event as
    ``objective_perturbation_trials`` (whose release the proofs audit through
    ``ObjectivePerturbationClassifier.fit``, with a caught broken variant)."""
    X, y, _ = binary_problem(n=300, p=12)
    design = prepare_design(X, fit_intercept=True, bounds="error")
    W_full, (ledger, guarantee) = objective_perturbation_weights(
        design, y, epsilon=0.9, delta=delta, n_trials=3, rng=np.random.default_rng(5))
    reference = objective_perturbation_trials(X, y, epsilon=0.9, delta=delta, n_trials=3,
                                              random_state=np.random.default_rng(5))
    np.testing.assert_array_equal(W_full[:-1], reference.W)
    np.testing.assert_array_equal(W_full[-1], reference.intercept)
    (event,), (expected,) = ledger.events, reference.ledger.events
    assert (event.epsilon, event.delta) == (expected.epsilon, expected.delta)
    assert guarantee == reference.guarantee


def test_the_rule_is_its_formula():
    # (n eps)^(1/3) = 10 at n eps = 1000: d <= 10 c
    assert prefers_objective_perturbation(1000, 10 * OBJECTIVE_PERTURBATION_SCALE, 1.0)
    assert not prefers_objective_perturbation(1000, 10 * OBJECTIVE_PERTURBATION_SCALE + 1, 1.0)
    assert prefers_objective_perturbation(500, 20, 2.0, scale=2.0)
    assert not prefers_objective_perturbation(500, 21, 2.0, scale=2.0)
    common = dict(n_samples=1000, epsilon=1.0)
    assert resolve_weights("auto", n_columns=9, n_classes=2, count="joint",
                           **common) == "objective-perturbation"
    assert resolve_weights("auto", n_columns=9, n_classes=3, count="joint",
                           **common) == "frank-wolfe"
    assert resolve_weights("auto", n_columns=9, n_classes=2, count="accuracy",
                           **common) == "frank-wolfe"
    assert resolve_weights("frank-wolfe", n_columns=9, n_classes=2, count="joint",
                           **common) == "frank-wolfe"
