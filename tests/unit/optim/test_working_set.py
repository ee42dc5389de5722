"""The working-set solver: the same certified answer as the whole-design solve, much cheaper."""
from unittest import mock

import numpy as np
import pytest

from dplasso.optim import LogisticLoss, solve_reference, solve_working_set, wolfe_gap
from dplasso.optim import working_set as working_set_module

from optim_problems import make_problem

TOL = 1e-10


def _full_certificate(loss, X, y, lam, w):
    """Objective, Wolfe gap on every column of ``X``, and ``L(0)``, computed from scratch."""
    W = w[..., np.newaxis]
    values, G = loss.value_and_gradient(X, y, W)
    scale = loss.value(X, y, np.zeros_like(W))[0]
    return values[0], wolfe_gap(W, G, lam)[0], scale


def _wide_problem(kind, fmt, seed=1):
    """p = 300 > n = 120: sparse optima, several working-set rounds from 4 columns."""
    return make_problem(kind, fmt, n=120, p=300, seed=seed)


@pytest.mark.parametrize("kind", ["logistic", "squared", "multinomial"])
@pytest.mark.parametrize("fmt", ["dense", "csr", "csc"])
@pytest.mark.parametrize("radius", [0.5, 3.0])
def test_working_set_agrees_with_the_whole_design_solve(kind, fmt, radius):
    loss, X, y = _wide_problem(kind, fmt)
    lam = radius * (10.0 if kind == "squared" else 1.0)  # squared: large true weights
    whole = solve_reference(loss, X, y, lam, tol=TOL)
    ws = solve_working_set(loss, X, y, lam, tol=TOL, initial_size=4)
    assert whole.converged and ws.converged
    support = ws.w != 0
    # a real, sparse solution: not all zero, not all columns
    assert np.linalg.norm(ws.w) > 1e-3 and 1 < np.count_nonzero(support) < 0.5 * support.size
    np.testing.assert_array_equal(support, whole.w != 0)
    # both are certified to TOL * L(0): each objective is within the other's gap
    assert ws.objective - whole.objective <= ws.gap
    assert whole.objective - ws.objective <= whole.gap
    np.testing.assert_allclose(ws.w, whole.w, rtol=0, atol=1e-4 * lam)


@pytest.mark.parametrize("kind", ["logistic", "squared", "multinomial"])
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_the_certificate_is_the_wolfe_gap_of_the_full_problem(kind, fmt):
    loss, X, y = _wide_problem(kind, fmt, seed=2)
    lam = 2.0
    sol = solve_working_set(loss, X, y, lam, tol=TOL, initial_size=4)
    objective, gap, scale = _full_certificate(loss, X, y, lam, sol.w)
    assert sol.objective == pytest.approx(objective, rel=1e-13)
    assert sol.gap == pytest.approx(gap, rel=1e-8, abs=1e-15)
    assert 0 <= gap <= TOL * scale and sol.converged
    assert np.abs(sol.w).sum() <= lam * (1 + 1e-13)
    assert sol.w.shape == loss.weight_shape(X.shape[1], 1)[:-1]


def test_a_restricted_certificate_is_caught():
    """Broken variant: the 'full' gradient is the restricted one padded with zeros.

    The solver then certifies on its first set of 4 columns; the full-problem gap recomputed
    from scratch (as above) exceeds the target, and the support misses columns.
    """
    loss, X, y = _wide_problem("logistic", "dense")
    lam = 3.0

    def restricted_only(loss_, X_full, X_working, y_, w_working):
        values, R = loss_.value_and_residual(loss_.linear_predictor(X_working, w_working), y_)
        G = np.zeros(loss_.weight_shape(X_full.shape[1], 1))
        columns = [np.flatnonzero((X_full == X_working[:, [j]]).all(axis=0))[0]
                   for j in range(X_working.shape[1])]
        G[columns] = loss_.gradient_from_residual(X_working, R)
        return float(values[0]), G

    with mock.patch.object(working_set_module, "_value_and_full_gradient", restricted_only):
        broken = solve_working_set(loss, X, y, lam, tol=TOL, initial_size=4)
    assert broken.converged  # it believes itself certified ...
    _, gap, scale = _full_certificate(loss, X, y, lam, broken.w)
    assert gap > 1e3 * TOL * scale  # ... and the true certificate says it is not
    whole = solve_reference(loss, X, y, lam, tol=TOL)
    assert not np.array_equal(broken.w != 0, whole.w != 0)


def test_identical_columns_enter_together_as_in_the_whole_design_solve():
    """Duplicated columns are tied: the working set takes them together and keeps them equal."""
    loss, X, y = make_problem("logistic", n=120, p=60, seed=3)
    X = np.hstack([X, X[:, :60]])
    whole = solve_reference(loss, X, y, 3.0, tol=TOL)
    ws = solve_working_set(loss, X, y, 3.0, tol=TOL, initial_size=2)
    np.testing.assert_array_equal(ws.w != 0, whole.w != 0)
    np.testing.assert_allclose(ws.w[:60], ws.w[60:], rtol=1e-8, atol=1e-12)
    assert np.count_nonzero(ws.w[:60]) >= 2


def test_working_set_cap_trivial_problem_and_errors():
    loss, X, y = _wide_problem("logistic", "dense")
    capped = solve_working_set(loss, X, y, 3.0, tol=1e-14, max_iter=5, initial_size=4)
    _, gap, _ = _full_certificate(loss, X, y, 3.0, capped.w)
    assert not capped.converged and capped.n_iter == 5
    assert capped.gap == pytest.approx(gap, rel=1e-8)
    zero = solve_working_set(LogisticLoss(), np.zeros((4, 3)), np.array([0, 1, 0, 1]), 1.0)
    assert zero.converged and zero.n_iter == 0 and np.all(zero.w == 0)
    with pytest.raises(ValueError, match="tol must be"):
        solve_working_set(loss, X, y, 1.0, tol=0.0)
    with pytest.raises(ValueError, match="initial_size must be >= 1"):
        solve_working_set(loss, X, y, 1.0, initial_size=0)
    with pytest.raises(ValueError, match="row 0"):
        solve_working_set(loss, X * 3.0, y, 1.0)
    with pytest.raises(TypeError, match="loss must be"):
        solve_working_set(None, X, y, 1.0)
