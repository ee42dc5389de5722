"""Unit tests of the screening rule: constants, radii, statistics, input checks, the guard."""
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import expit

from dplasso.optim.losses import LogisticLoss, MultinomialLoss, SquaredLoss
from dplasso.optim.reference import solve_reference
from dplasso.optim.wolfe_gap import wolfe_gap
from dplasso.screening.constants import curvature, loss_range
from dplasso.screening.rule import (
    FEASIBILITY_RTOL,
    column_norms,
    dual_radius,
    feasible_weights,
    gap_rounding_floor,
    primal_radius,
    rule_bounds,
    safe_radius,
    screen,
)

from screening_problems import SUITE, make_problem

EPS = np.finfo(np.float64).eps


def test_curvature_constants():
    lam = 3.0
    sig = expit(lam)
    logistic = curvature(LogisticLoss(), lam)
    assert logistic.maximum == 0.25 and logistic.minimum == pytest.approx(sig * (1 - sig))
    assert logistic.smoothness(40) == 0.25 / 40
    assert logistic.strong_convexity(40) == pytest.approx(sig * (1 - sig) / 40)
    squared = curvature(SquaredLoss(), lam)
    assert (squared.maximum, squared.minimum) == (1.0, 1.0)


@pytest.mark.parametrize("lam", [0.5, 2.5])
def test_loss_range_bounds_are_attained_on_the_feasible_predictors(lam):
    """Residual, value and l'(z) z ranges over |z| <= lam, on a fine grid of z and labels."""
    z = np.linspace(-lam, lam, 200_001)[np.newaxis, :]  # one row, many "trials"
    for loss, labels in [(LogisticLoss(), (0.0, 1.0)),
                         (SquaredLoss(y_bound=1.5), np.linspace(-1.5, 1.5, 61)),
                         (SquaredLoss(y_bound=3 * lam), np.linspace(-3 * lam, 3 * lam, 61))]:
        bounds = loss_range(loss, lam)
        values, residuals, products = [], [], []
        for label in labels:
            y = np.array([label])
            values.append(loss.value_from_predictor(z, y))
            residual = loss.residual(z, y)[0]
            residuals.append(np.abs(residual))
            products.append(residual * z[0])
        values, residuals, products = map(np.concatenate, (values, residuals, products))
        assert values.min() >= 0
        assert values.max() == pytest.approx(bounds.value, rel=1e-12)
        assert residuals.max() == pytest.approx(bounds.residual, rel=1e-12)
        assert products.max() == pytest.approx(bounds.product_max, rel=1e-12)
        assert products.min() == pytest.approx(bounds.product_min, rel=1e-8)
        assert products.min() >= bounds.product_min - 1e-15


def test_unsupported_losses_and_missing_bounds_are_rejected():
    with pytest.raises(TypeError, match="LogisticLoss and SquaredLoss"):
        curvature(MultinomialLoss(3), 1.0)
    with pytest.raises(ValueError, match="y_bound"):
        loss_range(SquaredLoss(), 1.0)
    with pytest.raises(ValueError, match="lam"):
        curvature(LogisticLoss(), 0.0)


def test_radii_formulas_and_order():
    gap = np.array([0.0, 1e-6, 0.3])
    assert np.allclose(dual_radius(gap, 0.01), np.sqrt(0.02 * gap))
    assert np.allclose(primal_radius(gap, 0.01, 0.004), 0.01 * np.sqrt(2 * gap / 0.004))
    n, lam = 50, 4.0
    for loss in (LogisticLoss(), SquaredLoss()):
        dual = safe_radius(gap, loss, lam, n, "dual")
        primal = safe_radius(gap, loss, lam, n, "primal")
        assert np.all(primal >= dual)
    # squared loss: L = mu = 1/n, both radii are sqrt(2 G / n)
    np.testing.assert_allclose(safe_radius(gap, SquaredLoss(), lam, n, "primal"),
                               np.sqrt(2 * gap / n))
    with pytest.raises(ValueError, match="radius_kind"):
        safe_radius(gap, LogisticLoss(), lam, n, "strong")


def test_column_norms_dense_and_sparse():
    rng = np.random.default_rng(3)
    X = sp.random(30, 8, density=0.4, format="csc", random_state=rng)
    expected = np.sqrt((X.toarray() ** 2).sum(axis=0))
    np.testing.assert_allclose(column_norms(X), expected)
    np.testing.assert_allclose(column_norms(X.tocsr()), expected)
    np.testing.assert_allclose(column_norms(X.toarray()), expected)


def test_rule_bounds_by_hand():
    grad = np.array([[0.5, 0.0], [-0.2, 0.1], [0.45, -0.1]])
    norms = np.array([1.0, 2.0, 1.0])
    radius = np.array([0.01, 0.0])
    mask, statistic, threshold = rule_bounds(grad, norms, radius)
    np.testing.assert_allclose(statistic[:, 0], [0.51, 0.22, 0.46])
    assert threshold[0] == pytest.approx(0.49)
    np.testing.assert_array_equal(mask[:, 0], [False, True, True])
    # zero radius, three-way tie at 0.1 / 0.0: nothing is strictly below the threshold
    assert threshold[1] == pytest.approx(0.1)
    np.testing.assert_array_equal(mask[:, 1], [True, False, False])


@pytest.mark.parametrize("spec", SUITE[:12], ids=lambda s: f"{s[1]}-{'sp' if s[2] else 'de'}-{s[5]}")
def test_gradient_distance_lies_within_both_radii(spec):
    r"""Lemmas lem-dual-radius/lem-primal-radius at random feasible points.

    :math:`\|\nabla f(Xw) - \nabla f(Xw^\star)\|_2 \le r_{dual} \le r_{primal}` with the
    computed Wolfe gap at ``w``; the largest observed ratio to the dual radius must exceed
    1/4, so a radius four times too small would be caught here.
    """
    problem = make_problem(*spec)
    n, p = problem.X.shape
    rng = np.random.default_rng(7)
    W = rng.standard_normal((p, 40)) * rng.uniform(0.01, 1.0, 40)
    W *= problem.lam * rng.uniform(0.05, 1.0, 40) / np.abs(W).sum(axis=0)
    W[:, :20] = 0.5 * W[:, :20] + 0.5 * problem.w_star[:, np.newaxis]  # nearer the optimum
    value, grad = problem.loss.value_and_gradient(problem.X, problem.y, W)
    gap = wolfe_gap(W, grad, problem.lam)
    residual = problem.loss.residual(problem.loss.linear_predictor(problem.X, W), problem.y) / n
    residual_star = problem.loss.residual(
        problem.loss.linear_predictor(problem.X, problem.w_star[:, np.newaxis]), problem.y) / n
    distance = np.linalg.norm(residual - residual_star, axis=0)
    dual = safe_radius(gap, problem.loss, problem.lam, n, "dual")
    primal = safe_radius(gap, problem.loss, problem.lam, n, "primal")
    assert np.all(distance <= dual * (1 + 1e-9)) and np.all(dual <= primal * (1 + 1e-12))
    assert (distance / dual).max() > 0.25


def test_screen_dense_and_sparse_agree():
    for spec in SUITE:
        if not spec[2]:
            continue
        problem = make_problem(*spec)
        W = np.column_stack([np.zeros_like(problem.w_star), 0.7 * problem.w_star,
                             problem.w_star])
        sparse = screen(problem.X, problem.y, W, problem.lam, problem.loss)
        dense = screen(problem.X.toarray(), problem.y, W, problem.lam, problem.loss)
        np.testing.assert_array_equal(sparse.mask, dense.mask)
        # the two products round differently; the difference of the gaps stays below the
        # rounding floor (the floor's claim), so radii agree where the gap is well above it
        assert np.all(np.abs(sparse.gap - dense.gap) <= dense.gap_floor)
        far = dense.gap > 1e6 * dense.gap_floor
        assert far[:2].all()
        np.testing.assert_allclose(sparse.radius[far], dense.radius[far], rtol=1e-10)
        np.testing.assert_allclose(sparse.statistic[:, far], dense.statistic[:, far],
                                   rtol=1e-10)


def test_screening_result_numbers_are_consistent():
    problem = make_problem(*SUITE[6])
    W = np.column_stack([0.5 * problem.w_star, problem.w_star])
    result = screen(problem.X, problem.y, W, problem.lam, problem.loss, radius_kind="primal")
    value, grad = problem.loss.value_and_gradient(problem.X, problem.y, W)
    np.testing.assert_allclose(result.objective, value)
    np.testing.assert_allclose(result.gap, wolfe_gap(W, grad, problem.lam))
    np.testing.assert_allclose(result.gap_used, np.maximum(result.gap, 0) + result.gap_floor)
    n, p = problem.X.shape
    np.testing.assert_allclose(
        result.gap_floor, (n + p) * EPS * (value + problem.lam * np.abs(grad).max(axis=0)))
    np.testing.assert_allclose(
        result.radius, safe_radius(result.gap_used, problem.loss, problem.lam, n, "primal"))
    mask, statistic, threshold = rule_bounds(grad, column_norms(problem.X), result.radius)
    np.testing.assert_array_equal(result.mask, mask)
    np.testing.assert_allclose(result.threshold, threshold)
    np.testing.assert_array_equal(result.n_screened, mask.sum(axis=0))
    assert result.radius_kind == "primal"


def test_bad_input_is_rejected():
    problem = make_problem(*SUITE[0])
    X, y, lam, loss = problem.X, problem.y, problem.lam, problem.loss
    p = X.shape[1]
    W = problem.w_star[:, np.newaxis]
    with pytest.raises(ValueError, match=r"W must have shape"):
        screen(X, y, problem.w_star, lam, loss)
    with pytest.raises(ValueError, match="NaN"):
        screen(X, y, np.full((p, 1), np.nan), lam, loss)
    with pytest.raises(ValueError, match="L1 ball"):
        screen(X, y, 1.01 * lam * np.eye(p, 1), lam, loss)
    with pytest.raises(ValueError, match="radius_kind"):
        screen(X, y, W, lam, loss, radius_kind="both")
    with pytest.raises(TypeError, match="LogisticLoss and SquaredLoss"):
        screen(X, y, W, lam, MultinomialLoss(2))
    with pytest.raises(ValueError, match="data domain"):
        screen(2.0 * X, y, W, lam, loss)
    with pytest.raises(ValueError, match="lam"):
        screen(X, y, W, -1.0, loss)


def test_rounding_excess_over_the_ball_is_rescaled():
    lam = 2.0
    W = np.array([[1.0, 0.5], [1.0 + lam * FEASIBILITY_RTOL / 2, 0.5]])
    out = feasible_weights(W, lam, 2)
    np.testing.assert_allclose(np.abs(out).sum(axis=0), [lam, 1.0], rtol=0, atol=1e-15)
    assert np.abs(out[:, 0]).sum() <= lam
    np.testing.assert_array_equal(out[:, 1], W[:, 1])


def test_gap_floor_formula():
    grad = np.array([[0.2, -3.0], [-0.4, 1.0]])
    floor = gap_rounding_floor(np.array([1.0, 0.5]), grad, 2.0, 10, 2)
    np.testing.assert_allclose(floor, 12 * EPS * np.array([1.0 + 0.8, 0.5 + 6.0]))


def _kkt_polish(loss, X, y, lam, w):
    """Newton steps on the KKT system of the problem restricted to the support of ``w``.

    On the support ``S`` with signs ``s``: ``X_S^T r(X_S w_S) / n + theta s = 0`` and
    ``s^T w_S = lam`` (``r`` the loss residual); the squared loss needs one step, the
    logistic loss converges quadratically from the reference solution.
    """
    S = np.flatnonzero(w)
    s = np.sign(w[S])
    XS = X[:, S]
    n = X.shape[0]
    w_S = w[S].copy()
    for _ in range(6):
        z = XS @ w_S
        if isinstance(loss, SquaredLoss):
            residual, curv = z - y, np.ones(n)
        else:
            residual = expit(z) - y
            curv = expit(z) * (1 - expit(z))
        g = XS.T @ residual / n
        theta = -np.mean(g * s)
        jacobian = np.block([[XS.T @ (XS * curv[:, np.newaxis]) / n, s[:, np.newaxis]],
                             [s[np.newaxis, :], np.zeros((1, 1))]])
        step = np.linalg.solve(jacobian, -np.concatenate([g + theta * s, [s @ w_S - lam]]))
        w_S += step[:-1]
    out = np.zeros_like(w)
    out[S] = w_S
    assert np.all(np.sign(out[S]) == s)
    return out


@pytest.mark.parametrize("loss", [SquaredLoss(), LogisticLoss()], ids=["squared", "logistic"])
def test_guard_keeps_the_rule_safe_where_the_gap_rounds_to_zero(loss):
    """At optima polished to machine precision the computed gap is ~0, often exactly 0 or < 0.

    Without the floor (radius from ``max(gap, 0)``) the rule then screens support features
    whose computed ``|g_i|`` falls short of the maximum by rounding: this must happen in at
    least one problem (the failure the guard exists for). With the floor it never happens,
    and the guard is active (computed gap at or below the floor) at every polished optimum.
    """
    unguarded_failures = 0
    for seed in range(40):
        rng = np.random.default_rng(100 + seed)
        n, p, lam = 60, 30, 2.0
        X = rng.uniform(-1, 1, (n, p))
        w_true = np.zeros(p)
        w_true[:5] = rng.normal(0, 2, 5)
        z = X @ w_true
        if isinstance(loss, SquaredLoss):
            y = z + 0.1 * rng.standard_normal(n)
        else:
            y = (z + 0.5 * rng.standard_normal(n) > 0).astype(float)
        w = _kkt_polish(loss, X, y, lam, solve_reference(loss, X, y, lam, tol=1e-13).w)
        W = w[:, np.newaxis]
        result = screen(X, y, W, lam, loss)
        assert result.guard_active[0]
        assert not (result.mask[:, 0] & (w != 0)).any(), f"seed {seed}: guarded rule unsafe"
        grad = loss.gradient(X, y, W)
        unguarded, _, _ = rule_bounds(
            grad, column_norms(X),
            safe_radius(np.maximum(result.gap, 0.0), loss, lam, n))
        unguarded_failures += int((unguarded[:, 0] & (w != 0)).any())
    assert unguarded_failures >= 1


def test_radius_never_drops_below_the_floor_radius():
    problem = make_problem(*SUITE[0])
    n = problem.X.shape[0]
    W = problem.w_star[:, np.newaxis]
    result = screen(problem.X, problem.y, W, problem.lam, problem.loss)
    floor_radius = safe_radius(result.gap_floor, problem.loss, problem.lam, n)
    assert result.radius[0] >= floor_radius[0] > 0
