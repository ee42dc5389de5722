"""The reference solver's pieces: the L1-ball projection and the solver's contract."""
import numpy as np
import pytest

from dplasso.optim import LogisticLoss, project_l1_ball, solve_reference, wolfe_gap

from optim_problems import make_problem


def _projection_violation(v, u, lam):
    """max over the ball of <v - u, z - u>; <= 0 iff u is the projection (u in the ball).

    The maximum of a linear function over the ball is at a vertex, so it equals
    ``lam * ||v - u||_inf - <v - u, u>``.
    """
    r = (v - u).ravel()
    return lam * np.abs(r).max() - r @ u.ravel()


@pytest.mark.parametrize("shape", [(1,), (7,), (50,), (6, 3), (3000,), (40, 500)])
@pytest.mark.parametrize("scale", [0.01, 1.0, 30.0])
def test_projection_satisfies_the_variational_inequality(shape, scale):
    rng = np.random.default_rng(0)
    lam = 1.3
    for _ in range(20):
        v = rng.normal(size=shape) * scale
        u = project_l1_ball(v, lam)
        assert u.shape == v.shape
        # theta comes from a float sum of the active magnitudes (at most ||v||_1): its
        # rounding, about eps * ||v||_1, is what ||u||_1 can exceed lam by
        assert np.abs(u).sum() <= lam * (1 + 1e-14) + np.finfo(float).eps * np.abs(v).sum()
        assert _projection_violation(v, u, lam) <= 1e-12 * max(1.0, np.abs(v).max())
        if np.abs(v).sum() <= lam:
            np.testing.assert_array_equal(u, v)
        else:
            np.testing.assert_allclose(np.abs(u).sum(), lam, rtol=1e-13)
            # idempotent up to rounding: theta = (sum of m terms of size <= max|v|) - lam
            # carries an absolute error of about m * eps * max(lam, max|v|)
            rounding = u.size * np.finfo(float).eps * max(lam, np.abs(v).max())
            np.testing.assert_allclose(project_l1_ball(u, lam), u, rtol=0, atol=rounding)


def _sort_based_projection(v, lam):
    """Duchi et al.'s O(m log m) rule, the oracle for the pivoting one."""
    magnitude = np.abs(v)
    if magnitude.sum() <= lam:
        return v.copy()
    u = np.sort(magnitude, axis=None)[::-1]
    excess = np.cumsum(u) - lam
    rho = np.flatnonzero(u * np.arange(1, u.size + 1) > excess)[-1]
    return np.sign(v) * np.maximum(magnitude - excess[rho] / (rho + 1), 0.0)


@pytest.mark.parametrize("m", [2, 1023, 1024, 5000, 100_000])
def test_pivoting_projection_equals_the_sort_based_one(m):
    """Random, tied, sorted and FISTA-like (a few large entries, many small) inputs."""
    rng = np.random.default_rng(m)
    cases = [rng.normal(size=m), np.sort(rng.normal(size=m)), np.sort(rng.normal(size=m))[::-1],
             rng.integers(-3, 4, size=m).astype(float), np.r_[np.full(m - 1, 0.5), 9.0]]
    sparse_like = rng.normal(size=m) * 1e-3
    sparse_like[rng.choice(m, min(m, 20), replace=False)] += 1.0
    cases.append(sparse_like)
    for v in cases:
        for lam in (1e-3, 1.0, 0.5 * np.abs(v).sum(), 0.999 * np.abs(v).sum()):
            if lam <= 0:
                continue
            expected = _sort_based_projection(v, lam)
            got = project_l1_ball(v, lam)
            np.testing.assert_allclose(got, expected, rtol=0,
                                       atol=m * 4e-16 * max(1.0, np.abs(v).max()))
            np.testing.assert_array_equal(got == 0, expected == 0)
            assert np.array_equal(project_l1_ball(v, lam), got)  # deterministic


def test_projection_check_rejects_a_wrong_projection():
    """Power companion: scaling into the ball is feasible but not the projection."""
    v = np.array([3.0, 1.0, -0.5])
    scaled = v / np.abs(v).sum()
    assert _projection_violation(v, scaled, 1.0) > 0.1
    np.testing.assert_allclose(project_l1_ball(v, 1.0), [1.0, 0.0, 0.0])
    np.testing.assert_allclose(project_l1_ball(np.array([2.0, -2.0]), 1.0), [0.5, -0.5])


@pytest.mark.parametrize("kind", ["logistic", "squared", "multinomial"])
def test_solve_reference_reports_a_consistent_certificate(kind):
    loss, X, y = make_problem(kind)
    sol = solve_reference(loss, X, y, 1.0, tol=1e-11)
    assert sol.converged and sol.n_iter > 0
    assert sol.w.shape == loss.weight_shape(X.shape[1], 1)[:-1]
    W = sol.w[..., np.newaxis]
    values, G = loss.value_and_gradient(X, y, W)
    assert sol.objective == pytest.approx(values[0], rel=1e-14)
    assert sol.gap == pytest.approx(wolfe_gap(W, G, 1.0)[0], rel=1e-8, abs=1e-15)
    scale = loss.value(X, y, np.zeros_like(W))[0]
    assert 0 <= sol.gap <= 1e-11 * scale
    assert np.abs(sol.w).sum() <= 1.0 * (1 + 1e-14)
    assert np.linalg.norm(sol.w) > 1e-3


def test_solve_reference_flags_non_convergence_and_trivial_problems():
    loss, X, y = make_problem("logistic")
    capped = solve_reference(loss, X, y, 1.0, tol=1e-14, max_iter=3)
    assert not capped.converged and capped.n_iter == 3
    zero = solve_reference(LogisticLoss(), np.zeros((4, 2)), np.array([0, 1, 0, 1]), 1.0)
    assert zero.converged and zero.n_iter == 0 and np.all(zero.w == 0)


def test_solve_reference_input_errors():
    loss, X, y = make_problem("logistic")
    with pytest.raises(ValueError, match="tol must be"):
        solve_reference(loss, X, y, 1.0, tol=0.0)
    with pytest.raises(ValueError, match="max_iter must be >= 1"):
        solve_reference(loss, X, y, 1.0, max_iter=0)
    with pytest.raises(ValueError, match="lam must be"):
        solve_reference(loss, X, y, -1.0)
    with pytest.raises(ValueError, match="row 0"):
        solve_reference(loss, X * 3.0, y, 1.0)
    with pytest.raises(TypeError, match="loss must be"):
        solve_reference(None, X, y, 1.0)
    with pytest.raises(ValueError, match="lam must be"):
        project_l1_ball(np.ones(3), 0.0)
