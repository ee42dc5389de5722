"""Batched FISTA and the batched working-set solver: each problem's answer, to rounding."""
import numpy as np
import pytest

from dplasso.optim import solve_working_set
from dplasso.optim import fista_batch as fista_batch_module
from dplasso.optim.fista_batch import _groups, _project_rows, fista_batch
from dplasso.optim.reference import fista, project_l1_ball
from dplasso.optim.working_set import solve_working_set_many

from optim_problems import make_problem

LAM = 3.0


def _blocks(kind="logistic", fmt="dense", n=245, p=40, n_blocks=12, seed=3):
    """Row blocks of one problem (rows ``i`` with ``i % B == b``): uneven, many and small."""
    loss, X, y = make_problem(kind, fmt, n=n, p=p, seed=seed)
    y = loss.check_target(y, X.shape[0])
    return loss, [(X[b::n_blocks], y[b::n_blocks]) for b in range(n_blocks)]


def test_projection_of_each_row_is_the_l1_projection():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(50, 17)) * rng.uniform(0.01, 2.0, size=(50, 1))
    v[3] = 0.0
    v[4, 5:] = 0.0  # trailing zeros, as padding leaves them
    rows = _project_rows(v, LAM)
    for row, projected in zip(v, rows):
        np.testing.assert_allclose(projected, project_l1_ball(row, LAM), rtol=0, atol=1e-14)
    assert np.all(np.abs(rows).sum(axis=1) <= LAM * (1 + 1e-12))


@pytest.mark.parametrize("target, budget", [(1e-3, None), (1e-9, None), (1e-9, 40_000)])
def test_each_solve_matches_fista_alone(monkeypatch, target, budget):
    """Also with a stack budget that splits the problems into groups by size."""
    if budget is not None:
        monkeypatch.setattr(fista_batch_module, "BATCH_BYTES", budget)
    loss, problems = _blocks()
    requests = []
    for k, (X, y) in enumerate(problems):
        columns = np.arange(0, X.shape[1] - k)  # different widths: padding is exercised
        start = np.zeros((columns.size, 1))
        requests.append((X[:, columns], y, start, target, 500 + 37 * k))
    batched = fista_batch(loss, requests, LAM, check_every=10)
    for (X, y, start, t, cap), (x, n_iter) in zip(requests, batched):
        alone, _, _, k = fista(loss, X, y, LAM, start, target=t, max_iter=cap, check_every=10)
        assert n_iter == k and x.shape == alone.shape
        np.testing.assert_allclose(x, alone, rtol=0, atol=1e-10)
        np.testing.assert_array_equal(x != 0, alone != 0)


def test_groups_are_by_size_within_the_budget(monkeypatch):
    """Sorted by shape, cut where the padded stack would pass the budget; a problem left
    alone is in no group (it runs through fista)."""
    monkeypatch.setattr(fista_batch_module, "BATCH_BYTES", 8 * 10 * 10 * 3)
    shapes = [(10, 10), (2, 2), (10, 9), (10, 10), (50, 50), (10, 8)]
    assert _groups([10, 11, 12, 13, 14, 15], shapes) == [[11, 15, 12], [10, 13]]
    monkeypatch.setattr(fista_batch_module, "BATCH_BYTES", 1)
    assert _groups([0, 1], [(2, 2), (2, 2)]) == []


def test_a_solved_start_and_the_iteration_cap_stop_as_fista_does():
    loss, problems = _blocks(n_blocks=3)
    (X0, y0), (X1, y1), (X2, y2) = problems
    solved, _, _, _ = fista(loss, X0, y0, LAM, np.zeros((X0.shape[1], 1)), target=1e-6,
                           max_iter=10_000, check_every=10)
    requests = [(X0, y0, solved, 1e-6, 10_000),                 # already at its target
                (X1, y1, np.zeros((X1.shape[1], 1)), 1e-14, 7),  # stops at its cap, off-check
                (X2, y2, np.zeros((X2.shape[1], 1)), 1e-14, 30)]
    out = fista_batch(loss, requests, LAM, check_every=10)
    assert [n for _, n in out] == [0, 7, 30]
    np.testing.assert_array_equal(out[0][0], solved)


@pytest.mark.parametrize("kind, fmt", [("logistic", "dense"), ("logistic", "csr"),
                                       ("multinomial", "dense")])
def test_many_working_set_solves_match_one_by_one(kind, fmt):
    """Dense logistic blocks run batched; sparse and multinomial ones fall back to fista."""
    loss, problems = _blocks(kind, fmt, p=60)
    many = solve_working_set_many(loss, problems, LAM, tol=1e-8, max_iter=20_000)
    for (X, y), solution in zip(problems, many):
        alone = solve_working_set(loss, X, y, LAM, tol=1e-8, max_iter=20_000)
        assert solution.converged and alone.converged
        assert solution.n_iter == alone.n_iter
        np.testing.assert_array_equal(solution.w != 0, alone.w != 0)
        np.testing.assert_allclose(solution.w, alone.w, rtol=0, atol=1e-9)
        assert solution.gap == pytest.approx(alone.gap, rel=1e-6, abs=1e-15)


def test_a_problem_solved_at_zero_needs_no_restricted_solve():
    X = np.zeros((6, 4))
    y = np.array([0.0, 1.0, 0.0, 1.0, 0.0, 1.0])  # balanced, no signal: w = 0 is optimal
    loss, problems = _blocks(n_blocks=2)
    solutions = solve_working_set_many(loss, [(X, y), *problems], LAM, tol=1e-8,
                                       max_iter=1000)
    assert solutions[0].n_iter == 0 and not solutions[0].w.any() and solutions[0].converged
    assert all(s.converged for s in solutions[1:])
