"""The joint release (the default Sparsifier's last step): utilities
against their definition, the base measure, the released model, the budget, bad input."""
import math

import numpy as np
import pytest

from dplasso.audit.joint_release_cases import JointUtility
from dplasso.estimators import sparsify_trials
from dplasso.estimators.joint_release import (
    CONSTANT_MARGIN,
    MARGIN_GROWTH,
    CONSTANT_ODDS,
    JOINT_SHARE_RANGE,
    JOINT_SHARE_SCALE,
    SIZE_DECAY,
    constant_log_odds,
    joint_base_measure,
    joint_share,
    joint_sizes,
    joint_utilities,
    release_size_and_threshold,
)
from dplasso.estimators.params import DEFAULT_LAM
from dplasso.estimators.recommended import RECOMMENDED_SETTINGS
from dplasso.estimators.problem import prepare_design
from dplasso.estimators.threshold import DEFAULT_THRESHOLD_FRACTION, THRESHOLD_GRID_SIZE
from dplasso.estimators.weights import OBJECTIVE_PERTURBATION_SCALE


def _released(n_classes, seed=0, n=30, p=5):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, (n, p))
    y = rng.integers(0, n_classes, n)
    shape = (p + 1, 1) if n_classes == 2 else (p + 1, n_classes, 1)
    W_full = rng.uniform(-0.5, 0.5, shape)
    W_full.flat[3] = 0.0
    return X, y, W_full


@pytest.mark.parametrize("n_classes", [2, 3])
def test_utilities_are_the_definitions(n_classes):
    X, y, W_full = _released(n_classes)
    design = prepare_design(X, fit_intercept=True, bounds="error")
    utilities, grids = joint_utilities(design, y, W_full[:-1], W_full[-1], n_classes=n_classes)
    np.testing.assert_array_equal(utilities[:, 0], JointUtility(W_full[..., 0])(X, y))
    assert grids.shape == (joint_sizes(W_full[:-1, ..., 0].size).size, THRESHOLD_GRID_SIZE, 1)


def test_base_measure_gives_each_block_its_mass():
    log_pi = joint_base_measure(4, THRESHOLD_GRID_SIZE, 2, size_decay=1.5, constant_odds=2.0)
    assert math.isclose(np.logaddexp.reduce(log_pi), 0.0, abs_tol=1e-12)
    blocks = [log_pi[:2]] + [log_pi[2 + j * THRESHOLD_GRID_SIZE:2 + (j + 1) * THRESHOLD_GRID_SIZE]
                             for j in range(4)]
    mass = np.array([np.logaddexp.reduce(b) for b in blocks])
    np.testing.assert_allclose(mass[0] - mass[1], 2.0, rtol=1e-12)
    np.testing.assert_allclose(np.diff(mass[1:]), -1.5, rtol=1e-12)
    assert all(np.ptp(b) == 0 for b in blocks)  # spread evenly within a block


def test_a_constant_is_released_when_the_weights_carry_nothing():
    """Zero weights: every model candidate is a constant in disguise, the constants' odds win
    at a large budget, and the released model is the majority class with no weight."""
    rng = np.random.default_rng(1)
    X = rng.uniform(-1.0, 1.0, (200, 4))
    y = (rng.uniform(size=200) < 0.7).astype(int)
    design = prepare_design(X, fit_intercept=True, bounds="error")
    W = np.zeros((4, 50))
    W_out, intercept, sizes, event = release_size_and_threshold(
        design, y, W, np.zeros(50), n_classes=2, epsilon=5.0, rng=np.random.default_rng(2))
    assert (sizes == 0).mean() > 0.9
    assert not W_out[:, sizes == 0].any()
    np.testing.assert_array_equal(intercept[sizes == 0], 1.0)  # class 1 is the majority
    assert event.epsilon <= 5.0 and event.sensitivity == 1.0


def test_the_constants_margin_grows_like_the_root_of_the_rows():
    """beta + M eps / 2: a margin of 2 beta / eps + M rows, M = gamma sqrt(n) (n eps / 400)^a;
    at n eps = 400 the growth a does not change it."""
    assert constant_log_odds(400, 0.5, odds=3.0, margin=2.0, growth=0.0) == pytest.approx(
        3.0 + 10.0)
    assert constant_log_odds(400, 0.5, odds=3.0, margin=0.0) == 3.0
    assert constant_log_odds(1600, 0.5, odds=0.0, margin=1.0, growth=0.0) == 2 * (
        constant_log_odds(400, 0.5, odds=0.0, margin=1.0, growth=0.0))
    assert constant_log_odds(400, 1.0, odds=0.0, margin=1.0, growth=0.25) == pytest.approx(10.0)
    assert constant_log_odds(1600, 1.0, odds=0.0, margin=1.0, growth=0.5) == pytest.approx(
        80.0 / 2)
    assert constant_log_odds(1600, 0.5, odds=0.0, margin=1.0, growth=0.25) == pytest.approx(
        40.0 * 2 ** 0.25 / 4)


def test_the_margin_stops_growing_at_the_saturation():
    """Beyond the design family's largest n eps_j the margin grows like sqrt(n) only: at a
    budget of 10^4 on 300 rows it stays below the rows (without the cap: 503 rows)."""
    from dplasso.estimators.joint_release import MARGIN_SATURATION, margin_rows
    at_cap = margin_rows(300, MARGIN_SATURATION / 300, margin=1.0, growth=0.5)
    assert margin_rows(300, 1e4, margin=1.0, growth=0.5) == pytest.approx(at_cap)
    assert margin_rows(300, 1e4, margin=0.75, growth=0.5) < 300 / 2
    assert margin_rows(300, 1.0, margin=1.0, growth=0.5) < at_cap
    assert margin_rows(4 * 300, MARGIN_SATURATION / 300, margin=1.0, growth=0.5) == (
        pytest.approx(2 * at_cap))


def test_a_model_must_beat_the_constant_by_the_margin():
    """Weights about 100 training rows better than the best constant (accuracy 0.8 against
    0.56 on 400 rows): released without a margin, a constant in their place with a margin of
    10 sqrt(n) = 200 rows."""
    rng = np.random.default_rng(4)
    X = rng.uniform(-1.0, 1.0, (400, 4))
    flip = rng.uniform(size=400) < 0.2
    y = ((X[:, 0] > -0.2) ^ flip).astype(int)
    design = prepare_design(X, fit_intercept=True, bounds="error")
    W = np.repeat(np.array([2.0, 0.0, 0.0, 0.0])[:, np.newaxis], 50, axis=1)
    model = (X[:, 0] > -0.2).astype(int)
    assert np.sum(model == y) - max(np.sum(y), np.sum(1 - y)) > 60
    released = {}
    for margin in (0.0, 10.0):
        _, _, sizes, _ = release_size_and_threshold(
            design, y, W, np.zeros(50), n_classes=2, epsilon=20.0, constant_odds=0.0,
            constant_margin=margin, rng=np.random.default_rng(5))
        released[margin] = (sizes == 0).mean()
    assert released[0.0] < 0.1 and released[10.0] > 0.9


def test_a_strong_model_is_released_at_its_smallest_accurate_size():
    rng = np.random.default_rng(3)
    X = rng.uniform(-1.0, 1.0, (400, 8))
    y = (X[:, 0] > 0).astype(int)
    design = prepare_design(X, fit_intercept=True, bounds="error")
    w = np.array([3.0, 0.1, -0.1, 0.05, 0.0, 0.0, 0.02, -0.03])
    W = np.repeat(w[:, np.newaxis], 20, axis=1)
    W_out, _, sizes, _ = release_size_and_threshold(
        design, y, W, np.zeros(20), n_classes=2, epsilon=20.0, rng=np.random.default_rng(4))
    assert (sizes == 1).mean() > 0.9
    assert np.all(np.count_nonzero(W_out, axis=0) <= np.maximum(sizes, 0))


def test_sparsify_trials_spends_the_threshold_and_count_shares_in_one_draw():
    rng = np.random.default_rng(5)
    X = rng.uniform(-1.0, 1.0, (120, 6))
    y = (X[:, 0] + 0.3 * rng.standard_normal(120) > 0).astype(int)
    fit = sparsify_trials(X, y, lam=4.0, n_iter=10, epsilon=2.0, delta=1e-5, count="joint",
                          threshold="private", n_trials=3, random_state=0)
    (fw_ledger, fw_total), (joint_ledger, joint_total) = fit.accounting
    (event,) = joint_ledger.events
    share = (DEFAULT_THRESHOLD_FRACTION
             + joint_share(120, 2.0) * (1 - DEFAULT_THRESHOLD_FRACTION))
    assert event.epsilon == pytest.approx(share * 2.0, rel=1e-12)
    assert fw_total.epsilon + joint_total.epsilon <= 2.0
    assert fit.guarantee.epsilon <= 2.0 and fit.guarantee.delta == fw_total.delta <= 1e-5
    assert set(fit.n_nonzero_target) <= {0, *joint_sizes(6)}


def test_joint_share_is_the_stated_rule():
    """c / sqrt(n eps) to a tenth, within its range; it shrinks as n eps grows."""
    low, high = JOINT_SHARE_RANGE
    for n, epsilon in [(166, 1.0), (614, 2.0), (3680, 5.0), (20, 0.1), (10**6, 5.0)]:
        raw = JOINT_SHARE_SCALE / math.sqrt(n * epsilon)
        expected = min(high, max(low, round(raw, 1)))
        assert joint_share(n, epsilon) == pytest.approx(expected, abs=1e-12)
    assert joint_share(20, 0.1) == high and joint_share(10**6, 5.0) == low
    shares = [joint_share(n, 1.0) for n in (50, 100, 200, 400, 800, 1600, 3200, 6400)]
    assert shares == sorted(shares, reverse=True) and shares[0] > shares[-1]


def test_sparsify_trials_spends_the_rule_s_share_for_its_rows():
    rng = np.random.default_rng(6)
    for n, epsilon in [(60, 0.5), (400, 5.0)]:
        X = rng.uniform(-1.0, 1.0, (n, 4))
        y = (X[:, 0] > 0).astype(int)
        fit = sparsify_trials(X, y, lam=4.0, n_iter=5, epsilon=epsilon, delta=1e-5,
                              count="joint", threshold="private", random_state=0)
        (event,) = fit.accounting[-1][0].events
        share = (DEFAULT_THRESHOLD_FRACTION
                 + joint_share(n, epsilon) * (1 - DEFAULT_THRESHOLD_FRACTION))
        assert event.epsilon == pytest.approx(share * epsilon, rel=1e-12)


def test_joint_needs_the_private_threshold():
    X = np.random.default_rng(0).uniform(-1, 1, (20, 3))
    with pytest.raises(ValueError, match="count='joint' releases the threshold"):
        sparsify_trials(X, np.arange(20) % 2, lam=1.0, n_iter=2, epsilon=1.0, count="joint",
                        threshold="none")


def test_defaults_are_the_documented_constants():
    """The book's "Using the library" page states the recommended model's constants; they
    are the library's."""
    from pathlib import Path
    readme = (Path(__file__).resolve().parents[3] / "book" / "library.md").read_text()
    assert RECOMMENDED_SETTINGS["count"] == "joint" and RECOMMENDED_SETTINGS["lam"] == DEFAULT_LAM
    assert "SparseDPLogisticRegression()" in readme
    for stated in (f"lam = {DEFAULT_LAM:g}", f"JOINT_SHARE_SCALE = {JOINT_SHARE_SCALE:g}",
                   f"SIZE_DECAY = {SIZE_DECAY:g}",
                   f"CONSTANT_ODDS = {CONSTANT_ODDS:g}",
                   f"CONSTANT_MARGIN = {CONSTANT_MARGIN:g}",
                   f"MARGIN_GROWTH = {MARGIN_GROWTH:g}",
                   f"threshold_fraction = {DEFAULT_THRESHOLD_FRACTION:g}",
                   f"OBJECTIVE_PERTURBATION_SCALE = {OBJECTIVE_PERTURBATION_SCALE:g}"):
        assert stated in readme, stated
