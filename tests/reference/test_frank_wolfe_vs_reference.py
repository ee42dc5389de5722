r"""Exact Frank-Wolfe against the independent reference solver (eps = infinity).

Theory asserted (no fitted constants). Write :math:`h_t = L(w_t) - L^\star` for the iterate
before step ``t`` (``w_1 = W0``, history row ``t - 1``), :math:`g_t` its Wolfe gap,
:math:`\mu_t = 2/(t+2)` and :math:`C_f \le (2\lambda)^2 L_{smooth}` the curvature constant
(the ball's Euclidean diameter is :math:`2\lambda`). Smoothness gives, for exact selection,

.. math:: h_{t+1} \le h_t - \mu_t g_t + \mu_t^2 C_f / 2,

so with :math:`g_t \ge h_t`: :math:`h_{t+1} \le \frac{t}{t+2} h_t + \frac{2C_f}{(t+2)^2}`;
multiplying by :math:`(t+1)(t+2)` and summing,
:math:`h_t \le \frac{2 h_1 + 2 C_f (t - 1)}{t (t + 1)}` (primal rate). Summing the first
inequality over :math:`a \le t \le T` gives
:math:`\min_{a \le t \le T} g_t \le \frac{h_a + (C_f/2)\sum \mu_t^2}{\sum \mu_t}` (gap rate).
:math:`L^\star` is unknown; the reference gives :math:`L_{ref} \ge L^\star \ge L_{ref} -
G_{ref}`, and every assertion uses the side of that bracket that keeps it implied by the
theorem.
"""
import functools

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import expit

from dplasso.optim import exact_select, frank_wolfe, random_l1_ball_init, solve_reference

from reference_problems import LAM, make_problem

KINDS = ["logistic", "squared", "multinomial"]
FORMATS = ["dense", "csr", "csc"]
T = 1000


@functools.lru_cache(maxsize=None)
def _solve_exact(kind, fmt):
    """Cached: several tests check different properties of the same exact runs."""
    return _solve_both(kind, fmt)


def _solve_both(kind, fmt, *, select=exact_select, W0=None):
    loss, X, y = make_problem(kind, fmt)
    ref = solve_reference(loss, X, y, LAM, tol=1e-12)
    assert ref.converged
    assert np.linalg.norm(ref.w) > 1e-3  # guard against two all-zero answers "agreeing"
    fw = frank_wolfe(loss, X, y, LAM, T, select, W0=W0, history=True)
    return loss, X, y, ref, fw


def _curvature(loss, X):
    return (2.0 * LAM) ** 2 * loss.smoothness(X)


def _primal_bound(h1, C_f, n_rows):
    t = np.arange(1, n_rows + 1)  # iterate w_t sits in history row t - 1
    return (2.0 * h1 + 2.0 * C_f * (t - 1)) / (t * (t + 1))


def _gap_bound(h1, C_f):
    a = T // 2
    t = np.arange(a, T + 1)
    mu = 2.0 / (t + 2.0)
    h_a = _primal_bound(h1, C_f, a)[-1]
    return (h_a + 0.5 * C_f * np.sum(mu ** 2)) / np.sum(mu), a


def _rate_violations(loss, X, ref, fw):
    """Return (primal excess over the bound, gap excess over the bound); <= 0 means held."""
    C_f = _curvature(loss, X)
    objective, gap = fw.history.objective[:, 0], fw.history.gap[:, 0]
    h1_upper = objective[0] - (ref.objective - ref.gap)
    primal = np.max((objective - ref.objective) - _primal_bound(h1_upper, C_f, T + 1))
    gap_bound, a = _gap_bound(h1_upper, C_f)
    gap_excess = np.min(gap[a - 1:T]) - gap_bound  # rows a-1..T-1 are g_a..g_T
    return primal, gap_excess


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", KINDS)
def test_wolfe_gap_certifies_every_iterate(kind, fmt):
    """``L(w_t) - L* <= G(w_t)`` at every iterate (``L_ref >= L*`` makes this implied)."""
    _, _, _, ref, fw = _solve_exact(kind, fmt)
    excess = fw.history.objective[:, 0] - ref.objective
    assert np.all(excess <= fw.history.gap[:, 0])
    assert excess[-1] < 1e-4 * excess[0]  # and FW did get close to the optimum


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", KINDS)
def test_primal_and_gap_rates_hold(kind, fmt):
    loss, X, _, ref, fw = _solve_exact(kind, fmt)
    primal, gap = _rate_violations(loss, X, ref, fw)
    assert primal <= 0 and gap <= 0


def test_rates_hold_from_a_random_start():
    n_features = make_problem("logistic")[1].shape[1]
    W0 = random_l1_ball_init((n_features, 1), LAM, np.random.default_rng(0))
    loss, X, _, ref, fw = _solve_both("logistic", "dense", W0=W0)
    primal, gap = _rate_violations(loss, X, ref, fw)
    assert primal <= 0 and gap <= 0


def test_rate_check_rejects_a_broken_engine():
    """Power companion: a selector that picks the worst vertex violates both bounds."""
    loss, X, _, ref, fw = _solve_both("logistic", "dense",
                                      select=lambda s, r: np.argmax(s, axis=0))
    primal, gap = _rate_violations(loss, X, ref, fw)
    assert primal > 0 and gap > 0


def _strong_convexity(kind, X):
    """Strong-convexity modulus of ``L`` on the ball (logistic: ``|x_i^T w| <= lam``)."""
    gram = X.T @ X
    gram = gram.toarray() if sp.issparse(gram) else gram
    lowest = np.linalg.eigvalsh(gram)[0] / X.shape[0]
    if kind == "logistic":
        return expit(LAM) * (1.0 - expit(LAM)) * lowest
    return lowest


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", ["logistic", "squared"])
def test_coefficients_agree_with_the_reference(kind, fmt):
    r"""Strong convexity on the ball bounds the distance to the optimum by the gap.

    For feasible ``w``, :math:`\frac{\mu}{2}\|w - w^\star\|^2 \le L(w) - L^\star`, so
    :math:`\|w_{FW} - w_{ref}\| \le \sqrt{2 h_{FW}/\mu} + \sqrt{2 G_{ref}/\mu}` with
    :math:`h_{FW} \le L(w_{FW}) - L_{ref} + G_{ref}`. Large coefficients (above that
    radius) must then have the reference's sign.
    """
    loss, X, y, ref, fw = _solve_exact(kind, fmt)
    mu = _strong_convexity(kind, X)
    assert mu > 0
    w_fw = fw.W[:, 0]
    h_upper = loss.value(X, y, fw.W)[0] - ref.objective + ref.gap
    radius = np.sqrt(2.0 * h_upper / mu) + np.sqrt(2.0 * ref.gap / mu)
    assert radius < 0.1 * np.linalg.norm(ref.w)  # the comparison is not vacuous
    assert np.linalg.norm(w_fw - ref.w) <= radius
    large = np.abs(ref.w) > radius
    assert large.sum() >= 2
    np.testing.assert_array_equal(np.sign(w_fw[large]), np.sign(ref.w[large]))


@pytest.mark.parametrize("kind", KINDS)
def test_sparse_and_dense_runs_agree(kind):
    loss, X, y = make_problem(kind, "csr")
    dense = frank_wolfe(loss, X.toarray(), y, LAM, T, exact_select)
    assert np.linalg.norm(dense.W) > 1e-3
    for sparse_X in (X, X.tocsc()):
        sparse = frank_wolfe(loss, sparse_X, y, LAM, T, exact_select)
        np.testing.assert_allclose(sparse.W, dense.W, rtol=1e-10, atol=1e-13)
