"""One-coordinate private screening: the round, the budget split, the whole algorithm's ledger."""
import dataclasses
import math

import numpy as np
import pytest

from dplasso.data.synthetic import raj_synthetic
from dplasso.optim.losses import LogisticLoss, SquaredLoss
from dplasso.privacy import REPLACE_ONE
from dplasso.privacy.accounting import advanced_composition_epsilon
from dplasso.privacy.calibration import fw_score_sensitivity
from dplasso.screening import (
    NoisyMinScreeningInfo,
    noisy_min_screening_sensitivity,
    plan_noisy_min_screening,
    private_frank_wolfe_screening,
    private_screen_one,
    screening_sensitivity,
)
from dplasso.screening.noisy_min import candidate_scores


def _problem(seed=0, n=80, p=10):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, p))
    y = (X[:, 0] - X[:, 1] + 0.2 * rng.standard_normal(n) > 0).astype(float)
    return X, y


def test_sensitivity_is_the_gradient_coordinate_bound():
    n, p, lam = 3000, 600, 5.0
    for loss in (LogisticLoss(), SquaredLoss(y_bound=2.0)):
        declared = noisy_min_screening_sensitivity(n, p, lam, loss)
        assert declared.score == screening_sensitivity(n, p, lam, loss).gradient
        assert declared.relation == REPLACE_ONE
    # logistic: 2 sigma(lam) / n, far below the safe rule's per-coordinate bound
    logistic = noisy_min_screening_sensitivity(n, p, lam, LogisticLoss())
    assert logistic.score == pytest.approx(2 / (1 + math.exp(-lam)) / n, rel=1e-14)
    assert screening_sensitivity(n, p, lam, LogisticLoss()).coordinate > 50 * logistic.score


def test_candidate_scores_are_the_support_gradients_and_the_largest():
    W = np.array([[1.0, 0.0], [0.0, 0.0], [-2.0, 3.0]])
    G = np.array([[-0.5, 0.1], [0.9, -0.2], [0.25, -0.3]])
    scores = candidate_scores(W, G)
    np.testing.assert_array_equal(scores[:, 0], [0.5, np.inf, 0.25, 0.9])
    np.testing.assert_array_equal(scores[:, 1], [np.inf, np.inf, 0.3, 0.3])


def test_round_screens_the_clearly_smallest_support_gradient_and_keeps_no_exact_score():
    X, y = _problem()
    loss, lam = LogisticLoss(), 3.0
    w = np.zeros(X.shape[1])
    w[[0, 1, 7]] = [1.0, -1.0, 0.5]  # feature 7 carries no signal: the smallest |g_j|
    g = loss.gradient(X, y, w[:, np.newaxis])[:, 0]
    assert np.abs(g[7]) < 0.5 * min(np.abs(g[0]), np.abs(g[1]))
    mask, info = private_screen_one(X, y, np.tile(w[:, np.newaxis], 50), lam, loss, 1e4, 0)
    assert (info.chosen == 7).all() and mask[7].all() and mask.sum() == 50
    # nothing zero is ever a candidate, whatever the noise
    mask, info = private_screen_one(X, y, np.tile(w[:, np.newaxis], 2000), lam, loss, 0.01, 1)
    assert not mask[w == 0].any() and (mask.sum(axis=0) <= 1).all()
    assert set(np.unique(info.chosen)) <= {0, 1, 7, X.shape[1]}
    assert {f.name for f in dataclasses.fields(NoisyMinScreeningInfo)} == {
        "chosen", "scale", "sensitivity", "epsilon", "event"}


def test_round_validates_its_input():
    X, y = _problem()
    W = np.zeros((X.shape[1], 1))
    with pytest.raises(ValueError, match="L1 ball"):
        private_screen_one(X, y, W + 1.0, 1.0, LogisticLoss(), 1.0, 0)
    with pytest.raises(ValueError, match="epsilon"):
        private_screen_one(X, y, W, 1.0, LogisticLoss(), 0.0, 0)
    with pytest.raises(ValueError, match="data domain"):
        private_screen_one(2 * X, y, W, 1.0, LogisticLoss(), 1.0, 0)
    with pytest.raises(TypeError, match="screening supports"):
        private_screen_one(X, y, W, 1.0, object(), 1.0, 0)


@pytest.mark.parametrize("share", ["equal", 0.1, 0.6])
@pytest.mark.parametrize("every", [1, 3, 20])
def test_plan_composes_to_the_total_and_splits_by_the_share(share, every):
    n, p, lam, T, epsilon, delta = 500, 20, 4.0, 60, 2.0, 1e-3
    plan = plan_noisy_min_screening(n, p, lam, LogisticLoss(), T, epsilon, delta, every=every,
                                    share=share)
    R = T // every
    guarantee = plan.guarantee()
    assert guarantee.epsilon <= epsilon and guarantee.epsilon > epsilon * (1 - 1e-9)
    assert guarantee.delta == delta and guarantee.method == "advanced"
    total = T * plan.fw_epsilon**2 + R * plan.screen_epsilon**2
    expected_share = R / (T + R) if share == "equal" else share
    assert R * plan.screen_epsilon**2 / total == pytest.approx(expected_share, rel=1e-9)
    assert advanced_composition_epsilon([plan.fw_epsilon, plan.screen_epsilon], [T, R],
                                        delta) == pytest.approx(epsilon, rel=1e-9)
    assert plan.fw_sensitivity == fw_score_sensitivity("logistic", lam, n)
    assert plan.fw_scale == pytest.approx(2 * plan.fw_sensitivity / plan.fw_epsilon, rel=1e-15)
    assert plan.screen_scale == pytest.approx(
        2 * plan.screen_sensitivity.score / plan.screen_epsilon, rel=1e-15)


def test_plan_rejects_bad_arguments():
    loss = LogisticLoss()
    for share in (0.0, 1.0, "half", True):
        with pytest.raises(ValueError, match="share"):
            plan_noisy_min_screening(100, 5, 1.0, loss, 10, 1.0, 1e-3, every=1, share=share)
    with pytest.raises(ValueError, match="exceeds n_iter"):
        plan_noisy_min_screening(100, 5, 1.0, loss, 10, 1.0, 1e-3, every=11)
    with pytest.raises(ValueError, match="delta"):
        plan_noisy_min_screening(100, 5, 1.0, loss, 10, 1.0, 0.0, every=1)


def test_whole_algorithm_ledger_records_and_guarantee():
    data = raj_synthetic(n=300, p=40, n_pos=3, n_neg=3, task="logistic", random_state=0)
    T, every, K = 30, 2, 5
    result = private_frank_wolfe_screening(data.X, data.y, 5.0, LogisticLoss(), T, 3.0, 1e-3,
                                           every=every, n_trials=K, random_state=4,
                                           w_true=data.w_true)
    events = result.ledger.events
    assert len(events) == 1 + T // every
    assert events[0].count == T and events[0].epsilon == pytest.approx(result.plan.fw_epsilon)
    assert all(e.mechanism == "report-noisy-min" and e.delta == 0 for e in events)
    assert result.guarantee.epsilon <= 3.0 and result.guarantee.delta == 1e-3
    assert result.guarantee == result.plan.guarantee()
    rounds = [r for r in result.records if r["trial"] == 0]
    assert [r["t"] for r in rounds] == list(range(every, T + 1, every))
    assert len(result.records) == K * len(rounds)
    screened = [r for r in result.records if r["screened"] >= 0]
    assert screened, "no round screened anything"
    assert all(r["nnz"] >= 1 for r in screened)
    last = {r["trial"]: r for r in result.records if r["t"] == T}
    union = result.screened.sum(axis=0)
    assert [last[k]["n_screened"] for k in range(K)] == list(union)
    support = data.w_true != 0
    assert [last[k]["n_screened_true_nonzero"] for k in range(K)] == list(
        (result.screened & support[:, None]).sum(axis=0))
    # the same random_state gives the same run
    again = private_frank_wolfe_screening(data.X, data.y, 5.0, LogisticLoss(), T, 3.0, 1e-3,
                                          every=every, n_trials=K, random_state=4)
    np.testing.assert_array_equal(again.W, result.W)
